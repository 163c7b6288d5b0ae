// @expect svcomp false
// A thread started by a thread: the grandchild's write races with main's.
#include <pthread.h>

int shared;

void *grandchild(void *arg)
{
	shared = 3; // @racy
	return 0;
}

void *child(void *arg)
{
	pthread_t t;
	pthread_create(&t, 0, grandchild, 0);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, child, 0);
	shared = 1; // @racy
	return 0;
}
