// @expect svcomp false
// The signaller sets the flag without the mutex.
#include <pthread.h>

int ready;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;

void *worker(void *arg)
{
	pthread_mutex_lock(&m);
	while (!ready) // @racy
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	ready = 1; // @racy
	pthread_cond_signal(&c);
	return 0;
}
