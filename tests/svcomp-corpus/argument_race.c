// @expect svcomp unknown
// Each thread writes the slot its argument names; both get the same slot,
// so the writes race. The precise phase gives a thread an arbitrary
// argument, not pthread_create's, so no witness is accepted for a thread
// that reads its argument: unknown, never a `false` resting on it.
#include <pthread.h>

int slots[2];

void *worker(void *arg)
{
	int *slot = arg;
	*slot = 1; // @racy
	return 0;
}

int main(void)
{
	pthread_t t1, t2;
	pthread_create(&t1, 0, worker, &slots[0]);
	pthread_create(&t2, 0, worker, &slots[0]);
	pthread_join(t1, 0);
	pthread_join(t2, 0);
	return 0;
}
