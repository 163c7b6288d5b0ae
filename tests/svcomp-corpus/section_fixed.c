// @expect svcomp true
// Both writes are inside atomic sections, which exclude each other.
#include <pthread.h>
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

int x;

void *worker(void *arg)
{
	__VERIFIER_atomic_begin();
	x = 1;
	__VERIFIER_atomic_end();
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	__VERIFIER_atomic_begin();
	x = 2;
	__VERIFIER_atomic_end();
	return 0;
}
