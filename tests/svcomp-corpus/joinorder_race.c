// @expect svcomp false
// main creates the second thread before it joins the first, so the two
// threads may run at the same time and their writes race; the witness
// runs both threads before main reaches its first join.
#include <pthread.h>

int shared;

void *first(void *arg)
{
	shared = 1; // @racy
	return 0;
}

void *second(void *arg)
{
	shared = 2; // @racy
	return 0;
}

int main(void)
{
	pthread_t t1, t2;
	pthread_create(&t1, 0, first, 0);
	pthread_create(&t2, 0, second, 0);
	pthread_join(t1, 0);
	pthread_join(t2, 0);
	return 0;
}
