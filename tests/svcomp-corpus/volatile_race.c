// @expect svcomp false
// volatile does not make accesses atomic in C11: two volatile writes race.
#include <pthread.h>

volatile int flag;

void *worker(void *arg)
{
	flag = 1; // @racy
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	flag = 2; // @racy
	return 0;
}
