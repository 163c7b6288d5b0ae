// flags: kernel
// memset over a struct writes each of its fields, each in its own region
// (with an arbitrary value); memcpy between two structs reads every field
// of the source and writes every field of the destination.
#include <linux/string.h>
struct stats { int rx; int tx; long bytes; };
void reset(struct stats *s, struct stats *from) {
  memset(s, 0, sizeof(*s));
  memcpy(s, from, sizeof(*s));
}
