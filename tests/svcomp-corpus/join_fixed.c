// @expect svcomp true
// main reads the counter only after joining the thread that increments
// it: no race. The join names the thread its handle holds (the only
// pthread_create writing `t` starts `worker`, once, from main), so main's
// read after it is not paired with the thread.
#include <pthread.h>

int counter;
int seen;

void *worker(void *arg)
{
	counter++;
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_join(t, 0);
	seen = counter;
	return 0;
}
