// @expect svcomp false
// The thread increments inside a __VERIFIER_atomic_ function (an atomic
// section for its whole body), main writes outside any section.
#include <pthread.h>

int x;

void __VERIFIER_atomic_inc(void)
{
	x = x + 1; // @racy
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
	x = 2; // @racy
	return 0;
}
