// @expect svcomp unknown
// The same test for a negative value: C's division truncates toward zero,
// so for a negative odd k, k / 2 * 2 + 1 is k + 2, never k; the thread
// never writes and there is no race. The solver's division is Euclidean
// (-1 / 2 is -1, giving -1), so the search may find a witness, which the
// replay refuses (never `false`).
#include <pthread.h>

extern int __VERIFIER_nondet_int(void);
int data;

void *worker(void *arg)
{
	int k = __VERIFIER_nondet_int();
	if (k < 0 && k / 2 * 2 + 1 == k)
		data = 2;
	return 0;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	data = 1;
	pthread_join(t, 0);
	return 0;
}
