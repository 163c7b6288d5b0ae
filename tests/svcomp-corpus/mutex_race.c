// @expect svcomp false
// A global counter incremented by two threads under different mutexes:
// the mutexes exclude nothing, so the increments race.
#include <pthread.h>

int counter;
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg)
{
	pthread_mutex_lock(&a);
	counter++; // @racy
	pthread_mutex_unlock(&a);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_mutex_lock(&b);
	counter++; // @racy
	pthread_mutex_unlock(&b);
	pthread_join(t, 0);
	return 0;
}
