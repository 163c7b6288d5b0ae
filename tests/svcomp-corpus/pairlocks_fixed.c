// @expect svcomp true
// No one lock guards every access to x, but every pair of accesses shares
// one: the worker's write under {a, c} meets main's write under {a, b}
// through a and main's write under {c} through c.
#include <pthread.h>

int x;
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t c = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg)
{
	pthread_mutex_lock(&c);
	pthread_mutex_lock(&a);
	x = x + 1;
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
	pthread_mutex_unlock(&b);
	pthread_mutex_lock(&c);
	x = 2;
	pthread_mutex_unlock(&c);
	return 0;
}
