// flags: plain
// `if (0)`, `if (DEBUG)` with DEBUG 0, `if (sizeof(int) == 4)` and a
// constant ternary: clang evaluates the condition and only the taken arm
// is lowered (no branch, no access of g in the dead arms).
#define DEBUG 0
int g;
int f(int x) {
  if (0)
    g = 1;
  if (DEBUG) {
    g = 2;
  } else {
    g = 3;
  }
  if (sizeof(int) == 4)
    x++;
  return 1 ? x : g;
}
