// @expect svcomp true
// main passes its update to a helper as a callback; the helper is only
// ever called directly, always with a function name there, so the call
// through its parameter resolves to `update`, whose write holds the lock
// the thread's read holds too.
#include <pthread.h>

int counter;
int seen;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void update(void)
{
	pthread_mutex_lock(&m);
	counter++;
	pthread_mutex_unlock(&m);
}

void apply(void (*callback)(void))
{
	callback();
}

void *worker(void *arg)
{
	pthread_mutex_lock(&m);
	seen = counter;
	pthread_mutex_unlock(&m);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	apply(update);
	pthread_join(t, 0);
	return 0;
}
