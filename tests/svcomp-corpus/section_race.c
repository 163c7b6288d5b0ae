// @expect svcomp false
// Only one of the two writes is inside an atomic section.
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
	x = 2; // @racy
	return 0;
}
