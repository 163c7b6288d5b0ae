// flags: plain
// A local whose address escapes (to the external consume) lives in memory
// at a fixed, unknown, non-null address, in the shared type-based region
// (int (pointee)) any pointer to it reaches; one whose address is not taken
// (w) stays an IR variable. (address_of_local_private.c: the thread-private
// case.) The store that initialises v comes before the call that publishes
// it, so it is private (src/analyses/private.rs, flow-sensitive rule); the
// accesses after the call are checked.
extern void consume(const int *p);
int f(void) {
  int v = 1;
  int w = 2;
  consume(&v);
  v += w;
  return v;
}
