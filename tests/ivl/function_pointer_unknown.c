// flags: plain
// A call through a function pointer with no known target (a parameter, a
// field nothing in this file stores to) is an `approx {function-pointer}`
// with an arbitrary result; its arguments are still evaluated.
struct cb { void (*fn)(int); };
int g;
int f(int (*p)(int), struct cb *c) {
  c->fn(g);
  return p(3);
}
