// flags: plain
// A string literal's value is its address, an uninterpreted constant
// string_literal(); a local char array initialised from one gets arbitrary
// elements (one store over its extent).
extern int puts(const char *s);
int f(const char *s) {
  const char *msg = "hello";
  char buf[8] = "abc";
  puts("literal argument");
  return msg == s;
}
