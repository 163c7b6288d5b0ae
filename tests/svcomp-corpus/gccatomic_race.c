// @expect svcomp unknown
// The compare-exchange's expected value is a shared global: the builtin
// reads it and, on failure, writes it plainly, so two instances race on
// it (the counter itself is accessed atomically). The __atomic models are
// not exact for a witness, so the answer is unknown, never `true`.
#include <pthread.h>

int counter;
int expected;

void *worker(void *arg)
{
	__atomic_compare_exchange_n(&counter, &expected, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); // @racy
	return 0;
}

int main(void)
{
	pthread_t t;
	for (int i = 0; i < 2; i++)
		pthread_create(&t, 0, worker, 0);
	return 0;
}
