// @expect svcomp unknown
// main reads the counter only after joining the thread that increments
// it: no race. The lockset phase does not resolve which thread a join
// waits for, so this stays unknown; the precise phase stops main at the
// join, so no witness puts the read beside the thread (never `false`).
#include <pthread.h>

int counter;
int seen;

void *worker(void *arg)
{
	counter++;
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_join(t, 0);
	seen = counter;
	return 0;
}
