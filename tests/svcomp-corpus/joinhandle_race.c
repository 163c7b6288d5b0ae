// @expect svcomp unknown
// The thread is started twice into the same handle and joined once: the
// join waits for the second run only, so the first may still write while
// main reads without the lock. The join names no thread here (its
// function is not started once), so this is never `true`; the precise
// phase stops main at the join, so no witness is found either.
#include <pthread.h>

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
int value;
int seen;

void *worker(void *arg)
{
	pthread_mutex_lock(&lock);
	value++; // @racy
	pthread_mutex_unlock(&lock);
	return 0;
}

int main(void)
{
	pthread_t t;
	for (int i = 0; i < 2; i++)
		pthread_create(&t, 0, worker, 0);
	pthread_join(t, 0);
	seen = value; // @racy
	return 0;
}
