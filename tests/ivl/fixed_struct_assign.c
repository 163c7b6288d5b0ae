// flags: plain
// Record assignment and initialisation from an lvalue copy field by field,
// reading the source's own field regions (struct pt.x, struct pt.y).
struct pt { int x; int y; };
struct pt g;
void a(struct pt *p, struct pt *q) { *p = *q; }
int d(struct pt *p) { struct pt l = g; return l.x; }
