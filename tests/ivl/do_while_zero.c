// flags: plain
// The `do { … } while (0)` macro idiom: the body runs once; the test is
// the constant 0, and a break inside leaves the loop early.
int g;
#define SET(x) do { if ((x) < 0) break; g = (x); } while (0)
void f(int v) {
  SET(v);
  SET(v + 1);
}
