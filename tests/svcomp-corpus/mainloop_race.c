// @expect svcomp false
// main starts a thread, then fills a table in a loop of twenty iterations
// before its unprotected write, which races with the thread's. The write
// is reached only past the loop: the witness search unrolls main's own
// loops further than the others (`--main-unroll`).
#include <pthread.h>

int data;
int table[20];

void *worker(void *arg)
{
	data = 1; // @racy
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	for (int i = 0; i < 20; i++)
		table[i] = i;
	data = 2; // @racy
	pthread_join(t, 0);
	return 0;
}
