// flags: kernel
// Atomic bit operations with a constant bit number are exact on the 64-bit
// word that holds the bit: test_and_set_bit(0, …) loads the word and,
// adjacent, stores it with bit 0 set, returning the old bit; set_bit(70, …)
// works on the second word (8 bytes on) and its bit 6; clear_bit_unlock
// clears a bit. A bit number that is not a constant falls back to the
// effects alone: an arbitrary word of the bitmap, an arbitrary value
// stored, an arbitrary result.
#include <linux/bitops.h>
#include <linux/errno.h>
struct dev { unsigned long busy; unsigned long map[2]; };
int open_once(struct dev *d)
{
  if (test_and_set_bit(0, &d->busy))
    return -EBUSY;
  set_bit(70, d->map);
  clear_bit_unlock(0, &d->busy);
  return 0;
}
int open_bit(struct dev *d, int nr)
{
  return test_and_clear_bit(nr, d->map);
}
