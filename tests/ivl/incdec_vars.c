// flags: plain
// Pre- and post-increment and decrement of local variables: the post forms
// yield the old value, the pre forms the new one, both wrapped to the type.
int f(int a, unsigned char c) {
  int x = a++;
  int y = ++a;
  int z = a--;
  int w = --a;
  c++;
  return x + y + z + w + c;
}
