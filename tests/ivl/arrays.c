// flags: plain
// Arrays indexed directly: a global array's elements are in its own region
// (global ga), a 2-D global's too with a row stride of 16, a local array's
// in its thread-private region, a struct's array field's in the field's
// region (struct s.arr); each element at base + index * element size.
int ga[10];
int gm[3][4];
struct s { int arr[4]; int n; };
int f(struct s *p, int i, int j) {
  int la[5];
  ga[i] = 1;
  gm[i][j] = 3;
  la[i] = ga[j];
  p->arr[i] = la[0];
  return p->arr[j] + gm[1][2];
}
