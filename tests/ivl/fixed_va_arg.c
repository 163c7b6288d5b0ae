// flags: plain
// va_arg yields an arbitrary value (an approx {cast}); va_start/va_end are
// compiler builtins with no effect on driver memory.
#include <stdarg.h>
int first(int n, ...) { va_list ap; va_start(ap, n); int s = va_arg(ap, int); va_end(ap); return s; }
