// flags: plain
// A local whose address escapes to a procedure (set(&v)) lives in the
// shared type-based region (int (pointee)) the callee writes, so f reads 5;
// a record passed by value is copied from the caller's field regions.
struct pt { int x; int y; };
static void set(int *p) { *p = 5; }
static int norm(struct pt p) { return p.x; }
int f(void) { int v = 1; set(&v); return v; }
int h(void) { struct pt q = { 1, 2 }; return norm(q); }
