// @expect svcomp true
// volatile does not make accesses atomic, but both volatile writes hold
// the same mutex.
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
volatile int x;

void *worker(void *arg)
{
	pthread_mutex_lock(&m);
	x = 1;
	pthread_mutex_unlock(&m);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_mutex_lock(&m);
	x = 2;
	pthread_mutex_unlock(&m);
	return 0;
}
