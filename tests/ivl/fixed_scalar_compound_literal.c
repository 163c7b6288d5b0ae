// flags: plain
// A scalar compound literal (int){ 7 } holds 7.
int f(void) { return (int){ 7 }; }
