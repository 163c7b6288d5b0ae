// @expect svcomp false
// The thread writes only for a positive odd value of a nondeterministic
// int (3, say), which the last witness search may choose: C's remainder
// and the solver's agree on it.
#include <pthread.h>

extern int __VERIFIER_nondet_int(void);
int data;

void *worker(void *arg)
{
	int k = __VERIFIER_nondet_int();
	if (k > 1 && k % 2 == 1)
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
