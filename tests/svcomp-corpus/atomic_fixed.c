// @expect svcomp true
// _Atomic objects and the __sync/__atomic builtins are atomic accesses:
// they never race with each other.
#include <pthread.h>

_Atomic int flag;
int count;

void *worker(void *arg)
{
	flag = 1;
	__sync_fetch_and_add(&count, 1);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	flag = 2;
	__sync_fetch_and_add(&count, 1);
	return 0;
}
