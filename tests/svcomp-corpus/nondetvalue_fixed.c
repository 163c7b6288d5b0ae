// @expect svcomp unknown
// The same program with a value no `unsigned char` holds: the thread never
// writes, so there is no race. The lockset phase does not track the
// value (unknown); the precise phase keeps a `__VERIFIER_nondet_uchar`
// result within 0..255, so no witness is found (never `false`).
#include <pthread.h>

extern unsigned char __VERIFIER_nondet_uchar(void);
int data;

void *worker(void *arg)
{
	int k = __VERIFIER_nondet_uchar();
	if (k >= 256 && k <= 300)
		data = 2;
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	data = 1;
	pthread_join(t, 0);
	return 0;
}
