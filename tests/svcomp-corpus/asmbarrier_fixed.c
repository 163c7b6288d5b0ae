// @expect svcomp true
// An empty asm statement is a compiler barrier: it runs no instruction,
// so it neither touches memory nor hides a race. The counter is only
// accessed holding the mutex.
#include <pthread.h>

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
int counter;

void *worker(void *arg)
{
	pthread_mutex_lock(&lock);
	__asm__ __volatile__("" ::: "memory");
	counter++;
	pthread_mutex_unlock(&lock);
	return 0;
}

int main(void)
{
	pthread_t t;
	for (int i = 0; i < 2; i++)
		pthread_create(&t, 0, worker, 0);
	return 0;
}
