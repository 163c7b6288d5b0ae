// @expect svcomp true
// The thread copies a string into a buffer under the lock that main's
// read of the buffer holds too: strcpy's model writes the destination
// and reads the source, and every such access is protected.
#include <pthread.h>
#include <string.h>

char name[16];
char copy;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg)
{
	pthread_mutex_lock(&m);
	strcpy(name, "worker");
	pthread_mutex_unlock(&m);
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_mutex_lock(&m);
	copy = name[0];
	pthread_mutex_unlock(&m);
	pthread_join(t, 0);
	return 0;
}
