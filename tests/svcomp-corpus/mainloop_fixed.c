// @expect svcomp true
// The twin of mainloop_race.c: both writes hold one mutex.
#include <pthread.h>

int data;
int table[20];
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg)
{
	pthread_mutex_lock(&m);
	data = 1;
	pthread_mutex_unlock(&m);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	for (int i = 0; i < 20; i++)
		table[i] = i;
	pthread_mutex_lock(&m);
	data = 2;
	pthread_mutex_unlock(&m);
	pthread_join(t, 0);
	return 0;
}
