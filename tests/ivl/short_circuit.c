// flags: plain
// `&&` and `||` as conditions and as values: the right operand's loads
// (of p->b) happen only on the paths where C evaluates it.
struct st { int a; int b; };
int f(struct st *p) {
  if (p->a && p->b)
    return 1;
  if (p->a || p->b)
    return 2;
  int v = p->a > 0 && p->b < 3;
  return v;
}
