// flags: plain
// sizeof, offsetof and _Alignof are constants from clang's evaluator: the
// operands are not evaluated (no load of *p).
#include <stddef.h>
struct rec { char c; long l; int a[3]; };
unsigned long f(struct rec *p) {
  unsigned long s = sizeof(struct rec) + sizeof *p + sizeof(p->a);
  s += offsetof(struct rec, a) + offsetof(struct rec, l);
  s += _Alignof(struct rec) + _Alignof(char);
  return s;
}
