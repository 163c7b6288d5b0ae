// @expect svcomp true
// main joins the first thread before it creates the second, so the two
// threads never run at the same time and their writes do not race. The
// join surely waits for the first thread (its handle is written only by
// the one pthread_create that starts it, once, from main), and nothing
// starts it again after the second thread is created.
#include <pthread.h>

int shared;

void *first(void *arg)
{
	shared = 1;
	return 0;
}

void *second(void *arg)
{
	shared = 2;
	return 0;
}

int main(void)
{
	pthread_t t1, t2;
	pthread_create(&t1, 0, first, 0);
	pthread_join(t1, 0);
	pthread_create(&t2, 0, second, 0);
	pthread_join(t2, 0);
	return 0;
}
