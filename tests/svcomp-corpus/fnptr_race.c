// @expect svcomp false
// The set-up runs through the constant function pointer after the
// thread started: its write races with the thread's read, and the
// witness runs `setup` (the pointer's only target) beside the thread.
#include <pthread.h>

int config;
int used;

int setup(void)
{
	config = 42; // @racy
	return 0;
}

int (*init_hook)(void) = setup;

void *worker(void *arg)
{
	used = config; // @racy
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	init_hook();
	pthread_join(t, 0);
	return 0;
}
