// @expect svcomp true
// main joins the first thread on both branches before it creates the
// second: on every path the first thread has ended, so the two threads
// never run at the same time.
#include <pthread.h>

extern int __VERIFIER_nondet_int(void);

int shared;
int mode;

void *first(void *arg)
{
	shared = 1;
	return 0;
}

void *second(void *arg)
{
	shared = 2;
	return 0;
}

int main(void)
{
	pthread_t t1, t2;
	pthread_create(&t1, 0, first, 0);
	if (__VERIFIER_nondet_int()) {
		mode = 1;
		pthread_join(t1, 0);
	} else {
		pthread_join(t1, 0);
	}
	pthread_create(&t2, 0, second, 0);
	pthread_join(t2, 0);
	return 0;
}
