// @expect svcomp unknown
// A binary semaphore used as a lock orders the two writes; semaphores are
// not modelled, so the answer is unknown, never false.
#include <pthread.h>
#include <semaphore.h>

sem_t s;
int x;

void *worker(void *arg)
{
	sem_wait(&s);
	x = 1;
	sem_post(&s);
	return 0;
}

int main(void)
{
	pthread_t t;
	sem_init(&s, 0, 1);
	pthread_create(&t, 0, worker, 0);
	sem_wait(&s);
	x = 2;
	sem_post(&s);
	return 0;
}
