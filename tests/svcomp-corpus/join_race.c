// @expect svcomp false
// main writes the counter before it joins the thread that increments it:
// the two writes race, and the witness runs main's write beside the thread.
#include <pthread.h>

int counter;

void *worker(void *arg)
{
	counter++; // @racy
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	counter = 10; // @racy
	pthread_join(t, 0);
	return 0;
}
