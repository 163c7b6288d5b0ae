// flags: plain
// Nested conditional operators: each level branches, and only the loads
// of the selected arm happen on each path.
struct s { int a; int b; int c; };
int f(struct s *p, int x) {
  return x > 0 ? p->a : x < 0 ? p->b : p->c;
}
