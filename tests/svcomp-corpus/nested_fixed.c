// @expect svcomp true
// The twin of nested_race.c: main writes before it starts any thread.
#include <pthread.h>

int shared;

void *grandchild(void *arg)
{
	shared = 3;
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
	shared = 1;
	pthread_create(&t, 0, child, 0);
	return 0;
}
