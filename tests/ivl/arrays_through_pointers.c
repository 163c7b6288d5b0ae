// flags: plain
// Arrays reached through pointers: a pointer to rows of 4 ints indexes
// with a stride of 16 then 4; an array of structs through a pointer
// indexes with the struct's size, then the field's offset.
struct item { int key; long val; };
long f(int (*m)[4], struct item *items, int i, int j) {
  m[i][j] = 7;
  return m[j][i] + items[i].val;
}
