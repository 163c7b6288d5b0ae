// @expect svcomp true
// The thread writes only when its trylock returned 0 (it holds the mutex).
#include <pthread.h>

int data;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg)
{
	if (pthread_mutex_trylock(&m) == 0) {
		data = 1;
		pthread_mutex_unlock(&m);
	}
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_mutex_lock(&m);
	data = 2;
	pthread_mutex_unlock(&m);
	return 0;
}
