// @expect svcomp false
// The two writes hold different elements of an array of mutexes: m[0]
// and m[1] are two locks, so nothing orders the writes.
#include <pthread.h>

pthread_mutex_t m[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
int data;

void *worker(void *arg)
{
	pthread_mutex_lock(&m[0]);
	data = 1; // @racy
	pthread_mutex_unlock(&m[0]);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_mutex_lock(&m[1]);
	data = 2; // @racy
	pthread_mutex_unlock(&m[1]);
	return 0;
}
