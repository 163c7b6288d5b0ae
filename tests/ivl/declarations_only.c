// flags: plain
// A file with only declarations: no function is defined, so the program is
// empty.
struct dev { int id; };
extern int counter;
int probe(struct dev *d);
typedef unsigned long size_type;
enum { A, B };
