// @expect svcomp false
// A write under a read lock races with another reader's write.
#include <pthread.h>

int table;
pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;

void *worker(void *arg)
{
	pthread_rwlock_rdlock(&l);
	table = 1; // @racy
	pthread_rwlock_unlock(&l);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_rwlock_rdlock(&l);
	table = 2; // @racy
	pthread_rwlock_unlock(&l);
	return 0;
}
