// flags: kernel
// READ_ONCE and WRITE_ONCE access their lvalue through a volatile pointer
// made from its address, *(volatile T *)&x, which is x itself: one load of
// struct q.head and one store of struct q.tail, with no region merged. Both
// are marked accesses (load.atomic, store.atomic): KCSAN and the LKMM treat
// a volatile access of at most 8 bytes as atomic.
#include <linux/compiler.h>
struct q { int head; int tail; };
int f(struct q *q) {
  int h = READ_ONCE(q->head);
  WRITE_ONCE(q->tail, h + 1);
  return h;
}
