// @expect svcomp unknown
// The same program with the global initialised to 0: the thread never
// writes, so there is no race. The lockset phase does not track the
// guard's value (unknown); the precise phase starts the global at 0, so
// no witness is found (never `false`).
#include <pthread.h>

int enabled = 0;
int data;

void *worker(void *arg)
{
	if (enabled)
		data = 2;
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	data = 1;
	pthread_join(t, 0);
	return 0;
}
