// flags: plain
// A static local is a global named function.name, initialised once at load
// time: its declaration emits nothing and every access is to its region.
int next_id(void) {
  static int counter = 100;
  return counter++;
}
