// @expect svcomp unknown
// main passes the address of its local to the thread and writes it too.
#include <pthread.h>

void *worker(void *arg)
{
	*(int *)arg = 1; // @racy
	return 0;
}

int main(void)
{
	int value = 0;
	pthread_t t;
	pthread_create(&t, 0, worker, &value);
	value = 2; // @racy
	return 0;
}
