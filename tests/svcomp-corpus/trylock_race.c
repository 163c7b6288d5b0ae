// @expect svcomp unknown
// The thread writes whether or not its trylock succeeded.
#include <pthread.h>

int data;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg)
{
	int r = pthread_mutex_trylock(&m);
	data = 1; // @racy
	if (r == 0)
		pthread_mutex_unlock(&m);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_mutex_lock(&m);
	data = 2; // @racy
	pthread_mutex_unlock(&m);
	return 0;
}
