// flags: kernel
// mutex_lock/mutex_unlock of a global mutex, and mutex_lock_interruptible,
// which may fail without taking the lock (a trylock whose success is tied
// to a zero result).
#include <linux/mutex.h>
static DEFINE_MUTEX(big_lock);
int shared;
int f(int v) {
  mutex_lock(&big_lock);
  shared = v;
  mutex_unlock(&big_lock);
  if (mutex_lock_interruptible(&big_lock))
    return -4;
  shared++;
  mutex_unlock(&big_lock);
  return 0;
}
