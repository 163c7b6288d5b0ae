// flags: plain
// A local declared in a loop body and published by an external call: the
// first store to it in each pass comes before that pass's call, but a
// pointer kept by an earlier pass reaches the same frame slot, so only the
// store of the first pass could be private; the must-analysis of
// src/analyses/private.rs joins the loop's back edge (the local may have
// been published) and keeps every store in the loop checked. The store to
// u, published only after the loop, is private.
extern void keep(int *p);
void f(int n) {
  int u = 0;
  for (int i = 0; i < n; i++) {
    int v;
    v = i;
    keep(&v);
  }
  keep(&u);
}
