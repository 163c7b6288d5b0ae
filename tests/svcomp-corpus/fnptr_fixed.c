// @expect svcomp true
// main calls its set-up through a global function pointer that nothing
// changes, before it starts the thread: the call resolves to `setup`,
// whose write comes before the thread exists.
#include <pthread.h>

int config;
int used;

int setup(void)
{
	config = 42;
	return 0;
}

int (*init_hook)(void) = setup;

void *worker(void *arg)
{
	used = config;
	return 0;
}

int main(void)
{
	pthread_t t;
	init_hook();
	pthread_create(&t, 0, worker, 0);
	pthread_join(t, 0);
	return 0;
}
