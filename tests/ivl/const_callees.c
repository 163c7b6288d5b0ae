// flags: plain
/*
 * Calls that pass constants to parameters their callee branches on
 * (src/frontend/lower/const_callees.rs): `only_zero` is always called
 * with 0 and assumes it itself; `two_values` is called with 0 and 3, so
 * it assumes the first and a copy the second; `mixed` keeps its own body
 * for the call with a variable, and a copy serves the constant; `outer`
 * passes its parameter on, so the copy made for its constant call passes
 * the constant to `inner` (a second round); `unbranched` branches on no
 * parameter and is left alone. `clear` is called with a length of 0: its
 * memset writes only on the branch where the length is positive, so the
 * store after it stays reachable. `flags` gets integer constant
 * expressions, passed as their values converted to the parameter's type
 * (5 and 0xffffffff).
 */
static int level;

static void only_zero(int v) { if (v) level = v; }
static void two_values(int v) { if (v) level = v; }
static void mixed(int v) { if (v > 2) level = v; }
static void inner(int v) { if (v) level = v; }
static void outer(int v) { level++; inner(v); }
static void unbranched(int v) { level = v; }
static void clear(char *buf, unsigned long n) { __builtin_memset(buf, 0, n); level = 0; }
static char scratch[16];
static void flags(unsigned int f) { if (f > 4) level = 2; }

void caller_a(int x)
{
	only_zero(0);
	two_values(0);
	mixed(x);
	outer(0);
	unbranched(0);
	clear(scratch, 0);
	flags((1u << 2) | 1u);
}

void caller_b(int x)
{
	only_zero(0);
	two_values(3);
	mixed(1);
	outer(x);
	unbranched(1);
	clear(scratch, 0);
	flags(~0);
}
