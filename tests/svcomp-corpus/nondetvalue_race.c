// @expect svcomp false
// The thread writes only when a nondeterministic value lies between 5 and
// 10, which 0 and 1 do not: the witness needs a `__VERIFIER_nondet_int`
// result of its whole type (the last witness search allows it).
#include <pthread.h>

extern int __VERIFIER_nondet_int(void);
int data;

void *worker(void *arg)
{
	int k = __VERIFIER_nondet_int();
	if (k >= 5 && k <= 10)
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
