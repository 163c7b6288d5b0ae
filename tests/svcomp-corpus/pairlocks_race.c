// @expect svcomp false
// As in pairlocks_fixed.c, but main's second write holds b, which the
// worker never takes: that pair of writes shares no lock.
#include <pthread.h>

int x;
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t c = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg)
{
	pthread_mutex_lock(&c);
	pthread_mutex_lock(&a);
	x = x + 1; // @racy
	pthread_mutex_unlock(&a);
	pthread_mutex_unlock(&c);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_mutex_lock(&b);
	pthread_mutex_lock(&a);
	x = 1;
	pthread_mutex_unlock(&a);
	x = 2; // @racy
	pthread_mutex_unlock(&b);
	return 0;
}
