// @expect svcomp false
// The function pointer is assigned after its initialisation: the call
// through it resolves to both functions stored into it (`setup` from the
// initializer, `racy_setup` from the assignment), and `racy_setup` writes
// while the thread reads: the race is found.
#include <pthread.h>

int config;
int used;

int setup(void)
{
	return 0;
}

int racy_setup(void)
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
	init_hook = racy_setup;
	init_hook();
	pthread_join(t, 0);
	return 0;
}
