// @expect svcomp true
// A thread function started once, outside any loop, never runs beside
// itself: its unprotected write is no race (the self-pair is dropped).
#include <pthread.h>

int last;

void *worker(void *arg)
{
	last = 1;
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_join(t, 0);
	return 0;
}
