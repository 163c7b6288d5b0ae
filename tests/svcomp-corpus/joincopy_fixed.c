// @expect svcomp true
// Each handle is only written by its pthread_create and only read by its
// join, and main joins the writer before it reads: no race.
#include <pthread.h>

int value;
int seen;

void *writer(void *arg)
{
	value = 1;
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
	pthread_join(u, 0);
	pthread_join(t, 0);
	seen = value;
	return 0;
}
