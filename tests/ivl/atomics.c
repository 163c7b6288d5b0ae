// flags: kernel
// atomic_t operations are modelled: atomic_inc and atomic_dec_and_test are
// a load.atomic then a store.atomic of the counter, atomic_set a
// store.atomic, atomic_read a load.atomic; results are arbitrary.
#include <linux/atomic.h>
struct obj { atomic_t refs; int data; };
int f(struct obj *o) {
  atomic_inc(&o->refs);
  atomic_set(&o->refs, 2);
  if (atomic_dec_and_test(&o->refs))
    o->data = 0;
  return atomic_read(&o->refs);
}
