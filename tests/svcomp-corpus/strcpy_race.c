// @expect svcomp unknown
// The thread's strcpy writes the buffer without the lock main's read
// holds: the model's write of the destination races with the read, so
// the answer is never `true` (strcpy's model is not exact enough for a
// witness, so it is not `false` either).
#include <pthread.h>
#include <string.h>

char name[16];
char copy;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg)
{
	strcpy(name, "worker"); // @racy
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_mutex_lock(&m);
	copy = name[0]; // @racy
	pthread_mutex_unlock(&m);
	pthread_join(t, 0);
	return 0;
}
