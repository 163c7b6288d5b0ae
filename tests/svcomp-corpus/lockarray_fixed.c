// @expect svcomp true
// Both writes hold m[1], the same element of an array of mutexes at a
// constant index: one lock, so the writes never overlap.
#include <pthread.h>

pthread_mutex_t m[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
int data;

void *worker(void *arg)
{
	pthread_mutex_lock(&m[1]);
	data = 1;
	pthread_mutex_unlock(&m[1]);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_mutex_lock(&m[1]);
	data = 2;
	pthread_mutex_unlock(&m[1]);
	return 0;
}
