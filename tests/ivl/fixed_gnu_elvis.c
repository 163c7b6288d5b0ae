// flags: plain
// GNU a ?: b: a is read once; the result is a when non-zero, else b (y is
// loaded only on that path).
int y;
int f(int *p) { return *p ?: y; }
