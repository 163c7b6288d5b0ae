// @expect svcomp unknown
// The helper is also stored in a function pointer, so not every call of
// it is seen: its parameter is not resolved (the stored helper could be
// given `racy_update`), and the answer is never `true`.
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

void racy_update(void)
{
	counter++; // @racy
}

void apply(void (*callback)(void))
{
	callback();
}

void (*volatile applier)(void (*)(void)) = apply;

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
	applier(racy_update);
	pthread_join(t, 0);
	return 0;
}
