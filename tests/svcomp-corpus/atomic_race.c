// @expect svcomp unknown
// An atomic increment does not protect a plain write of the same counter.
#include <pthread.h>

int count;

void *worker(void *arg)
{
	__sync_fetch_and_add(&count, 1);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	count = 5; // @racy
	return 0;
}
