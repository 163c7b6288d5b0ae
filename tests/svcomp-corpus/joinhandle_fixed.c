// @expect svcomp true
// Two threads, each with its own handle, both joined by main before it
// reads what they wrote: every join names the one thread its handle
// holds, so main's reads after the joins race with neither.
#include <pthread.h>

int a;
int b;
int sum;

void *left(void *arg)
{
	a = 1;
	return 0;
}

void *right(void *arg)
{
	b = 2;
	return 0;
}

int main(void)
{
	pthread_t l, r;
	pthread_create(&l, 0, left, 0);
	pthread_create(&r, 0, right, 0);
	pthread_join(l, 0);
	pthread_join(r, 0);
	sum = a + b;
	return 0;
}
