// @expect svcomp false
// Only the thread's write holds the spinlock.
#include <pthread.h>

pthread_spinlock_t lock;
int x;

void *worker(void *arg)
{
	pthread_spin_lock(&lock);
	x = 1; // @racy
	pthread_spin_unlock(&lock);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_spin_init(&lock, 0);
	pthread_create(&t, 0, worker, 0);
	x = 2; // @racy
	return 0;
}
