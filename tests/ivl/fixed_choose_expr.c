// flags: plain
// __builtin_choose_expr(1, g, 0L) is a constant choice: only the load of g.
int g;
int f(void) { return __builtin_choose_expr(1, g, 0L); }
