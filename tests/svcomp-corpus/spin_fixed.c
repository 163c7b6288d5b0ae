// @expect svcomp true
// Both writes hold the same spinlock.
#include <pthread.h>

pthread_spinlock_t lock;
int x;

void *worker(void *arg)
{
	pthread_spin_lock(&lock);
	x = 1;
	pthread_spin_unlock(&lock);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_spin_init(&lock, 0);
	pthread_create(&t, 0, worker, 0);
	pthread_spin_lock(&lock);
	x = 2;
	pthread_spin_unlock(&lock);
	return 0;
}
