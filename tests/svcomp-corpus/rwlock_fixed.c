// @expect svcomp true
// Writers take the write lock; readers only read.
#include <pthread.h>

int table;
int seen;
pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;

void *worker(void *arg)
{
	pthread_rwlock_rdlock(&l);
	int v = table;
	pthread_rwlock_unlock(&l);
	return (void *)(long)v;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_rwlock_wrlock(&l);
	table = 2;
	pthread_rwlock_unlock(&l);
	return 0;
}
