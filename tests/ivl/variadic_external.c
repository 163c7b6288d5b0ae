// flags: plain
// Calls to printf-like external functions without body or model: every
// argument is evaluated (the loads of *p happen), the result is arbitrary,
// and each call is an `approx {external-call}`.
int printf(const char *fmt, ...);
void dbg_log(int level, const char *fmt, ...);
int f(int *p) {
  dbg_log(1, "value %d", *p);
  return printf("%d\n", *p);
}
