// @expect svcomp true
// The twin of loop_race.c: the instances write under one spin lock.
#include <pthread.h>

int last;
pthread_spinlock_t s;

void *worker(void *arg)
{
	pthread_spin_lock(&s);
	last = 1;
	pthread_spin_unlock(&s);
	return 0;
}

int main(void)
{
	pthread_t t[4];
	pthread_spin_init(&s, 0);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], 0, worker, 0);
	return 0;
}
