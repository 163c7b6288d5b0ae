// @expect svcomp false
// main joins the first thread only on one branch before it creates the
// second: on the other branch both threads run at the same time and their
// writes race. The join may be skipped, so it does not order the threads.
#include <pthread.h>

extern int __VERIFIER_nondet_int(void);

int shared;

void *first(void *arg)
{
	shared = 1; // @racy
	return 0;
}

void *second(void *arg)
{
	shared = 2; // @racy
	return 0;
}

int main(void)
{
	pthread_t t1, t2;
	pthread_create(&t1, 0, first, 0);
	if (__VERIFIER_nondet_int())
		pthread_join(t1, 0);
	pthread_create(&t2, 0, second, 0);
	return 0;
}
