// flags: plain
// A member of a compound literal: the literal is a thread-private
// temporary, zeroed then initialised in place, and the member is loaded
// from it.
int h(int a) {
  return (struct { int x; int y; }){ a, 2 }.y;
}
