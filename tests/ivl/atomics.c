// flags: kernel
// atomic_t operations have exact values: atomic_inc, atomic_dec_and_test are
// a load.atomic then, adjacent, a store.atomic of counter +-1 (int-wrapped);
// atomic_set stores 2; the results are exact (new == 0; the value loaded).
#include <linux/atomic.h>
struct obj { atomic_t refs; int data; };
int f(struct obj *o) {
  atomic_inc(&o->refs);
  atomic_set(&o->refs, 2);
  if (atomic_dec_and_test(&o->refs))
    o->data = 0;
  return atomic_read(&o->refs);
}
