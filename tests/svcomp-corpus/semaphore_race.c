// @expect svcomp unknown
// Semaphores are not modelled (a semaphore is posted by any thread, so it
// is no lock): a program using them gets unknown. Here only the thread
// waits on the semaphore, so the writes race.
#include <pthread.h>
#include <semaphore.h>

sem_t s;
int x;

void *worker(void *arg)
{
	sem_wait(&s);
	x = 1; // @racy
	sem_post(&s);
	return 0;
}

int main(void)
{
	pthread_t t;
	sem_init(&s, 0, 1);
	pthread_create(&t, 0, worker, 0);
	x = 2; // @racy
	return 0;
}
