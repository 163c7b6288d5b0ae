// @expect svcomp false
// A global initialised to 1 enables the thread's write, which races with
// main's: the witness needs the static initialiser's value.
#include <pthread.h>

int enabled = 1;
int data;

void *worker(void *arg)
{
	if (enabled)
		data = 2; // @racy
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	data = 1; // @racy
	pthread_join(t, 0);
	return 0;
}
