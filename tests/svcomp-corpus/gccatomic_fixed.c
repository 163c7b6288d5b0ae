// @expect svcomp true
// Two instances of a thread update the counter only through GCC's
// __atomic builtins (clang's AtomicExpr, lowered through their models):
// atomic accesses never race. The expected value of the compare-exchange
// is each thread's own local.
#include <pthread.h>

int counter;

void *worker(void *arg)
{
	int expected = __atomic_load_n(&counter, __ATOMIC_SEQ_CST);
	__atomic_compare_exchange_n(&counter, &expected, expected + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&counter, 0, __ATOMIC_RELEASE);
	return 0;
}

int main(void)
{
	pthread_t t;
	for (int i = 0; i < 2; i++)
		pthread_create(&t, 0, worker, 0);
	return 0;
}
