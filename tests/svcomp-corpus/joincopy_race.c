// @expect svcomp unknown
// The handle is overwritten before the join: main joins a thread other
// than the writer's, so its read races with the writer. `t` is used
// outside pthread_create and pthread_join, so the join names no thread
// (never `true`).
#include <pthread.h>

int value;
int seen;

void *writer(void *arg)
{
	value = 1; // @racy
	return 0;
}

void *idle(void *arg)
{
	return 0;
}

int main(void)
{
	pthread_t t, u;
	pthread_create(&t, 0, writer, 0);
	pthread_create(&u, 0, idle, 0);
	t = u;
	pthread_join(t, 0);
	seen = value; // @racy
	return 0;
}
