// @expect svcomp false
// The callback the helper is passed writes without the lock the thread's
// read holds: the call through the parameter resolves to `update`, and
// its write races with the thread's read.
#include <pthread.h>

int counter;
int seen;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void update(void)
{
	counter++; // @racy
}

void apply(void (*callback)(void))
{
	callback();
}

void *worker(void *arg)
{
	pthread_mutex_lock(&m);
	seen = counter; // @racy
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
