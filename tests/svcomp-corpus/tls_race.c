// @expect svcomp unknown
// A thread publishes the address of its thread-local variable; main then
// writes that thread's instance through the pointer while the thread
// writes it directly. The address of a thread-local variable is taken,
// so its accesses are not taken as private: unknown.
#include <pthread.h>

__thread int data;
int *published;

void *worker(void *arg)
{
	published = &data;
	data = 1; // @racy
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	if (published)
		*published = 2; // @racy
	return 0;
}
