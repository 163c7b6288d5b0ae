// @expect svcomp unknown
// The thread locks the element its loop counter names, main a constant
// one: an index computed at run time may name any element, so that lock
// protects nothing (and the precise phase does not search past main's
// loop bound).
#include <pthread.h>

pthread_mutex_t m[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
int data;

void *worker(void *arg)
{
	for (int i = 0; i < 2; i++) {
		pthread_mutex_lock(&m[i]);
		data = i; // @racy
		pthread_mutex_unlock(&m[i]);
	}
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_mutex_lock(&m[1]);
	data = 2; // @racy
	pthread_mutex_unlock(&m[1]);
	return 0;
}
