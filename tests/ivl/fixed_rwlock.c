// flags: kernel
// read_lock/read_unlock take and release the rwlock in shared mode.
#include <linux/spinlock.h>
static DEFINE_RWLOCK(l);
int v;
int f(void) { read_lock(&l); int x = v; read_unlock(&l); return x; }
