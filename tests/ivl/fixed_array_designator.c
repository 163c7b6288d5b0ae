// flags: plain
// Array designators: [k] = v writes element k (the rest is zeroed), in a
// compound literal's field array and in a local array.
struct s { int a[3]; };
void f(struct s *p) { *p = (struct s){ .a = { [1] = 5 } }; }
int g(void) { int b[3] = { [1] = 5 }; return 0; }
