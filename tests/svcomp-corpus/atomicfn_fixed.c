// @expect svcomp true
// Both threads update the counter only inside __VERIFIER_atomic_
// functions, which run as one atomic section each.
#include <pthread.h>

int x;

void __VERIFIER_atomic_inc(void)
{
	x = x + 1;
}

void __VERIFIER_atomic_set(int v)
{
	x = v;
}

void *worker(void *arg)
{
	__VERIFIER_atomic_inc();
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	__VERIFIER_atomic_set(2);
	return 0;
}
