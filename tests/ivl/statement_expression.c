// flags: plain
// A GNU statement expression: its statements run in order and its value is
// that of its last expression statement (here a max macro's).
#define max(a, b) ({ int _a = (a); int _b = (b); _a > _b ? _a : _b; })
int g;
int f(int x) {
  int m = max(x, g);
  int n = ({ g = m; m + 1; });
  return m + n;
}
