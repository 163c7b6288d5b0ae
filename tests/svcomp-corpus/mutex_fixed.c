// @expect svcomp true
// The twin of mutex_race.c: both increments hold the same mutex.
#include <pthread.h>

int counter;
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg)
{
	pthread_mutex_lock(&a);
	counter++;
	pthread_mutex_unlock(&a);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_mutex_lock(&a);
	counter++;
	pthread_mutex_unlock(&a);
	pthread_join(t, 0);
	return 0;
}
