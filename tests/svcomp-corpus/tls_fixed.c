// @expect svcomp true
// Every thread counts in its own thread-local variable: each thread has
// its own instance (C11 6.2.4p4) and no address of it is ever taken.
#include <pthread.h>

__thread int count;
_Thread_local int steps;

void *worker(void *arg)
{
	count = count + 1;
	steps = 2;
	return 0;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], 0, worker, 0);
	count = 5;
	steps = 1;
	return 0;
}
