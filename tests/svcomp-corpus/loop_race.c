// @expect svcomp false
// One thread function started in a loop runs concurrently with itself:
// its unprotected write races with its own other instance.
#include <pthread.h>

int last;

void *worker(void *arg)
{
	last = 1; // @racy
	return 0;
}

int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], 0, worker, 0);
	return 0;
}
