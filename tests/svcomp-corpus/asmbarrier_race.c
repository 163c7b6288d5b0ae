// @expect svcomp unknown
// A compiler barrier orders nothing between threads: the two instances'
// unprotected increments race. The barrier is no reason for `true`; the
// witness gate refuses any inline assembly, so the answer is unknown.
#include <pthread.h>

int counter;

void *worker(void *arg)
{
	__asm__ __volatile__("" ::: "memory");
	counter++; // @racy
	return 0;
}

int main(void)
{
	pthread_t t;
	for (int i = 0; i < 2; i++)
		pthread_create(&t, 0, worker, 0);
	return 0;
}
