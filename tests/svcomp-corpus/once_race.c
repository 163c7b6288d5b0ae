// @expect svcomp false
// The same function started twice runs beside itself: the writes race
// (the witness starts its two threads at the two pthread_create calls).
#include <pthread.h>

int last;

void *worker(void *arg)
{
	last = last + 1; // @racy
	return 0;
}

int main(void)
{
	pthread_t t1, t2;
	pthread_create(&t1, 0, worker, 0);
	pthread_create(&t2, 0, worker, 0);
	pthread_join(t1, 0);
	pthread_join(t2, 0);
	return 0;
}
