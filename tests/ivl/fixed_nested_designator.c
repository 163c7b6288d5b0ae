// flags: plain
// A nested designator .in.w = 3 writes at the offset of in plus that of w.
struct inner { int v; int w; };
struct outer { int tag; struct inner in; };
int f(void) { struct outer o = { .in.w = 3 }; return o.in.w; }
