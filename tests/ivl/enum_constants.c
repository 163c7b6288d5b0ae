// flags: plain
// Enum constants are integers from clang's evaluator, in expressions and
// in case labels.
enum state { IDLE, RUNNING = 5, STOPPED };
enum state f(enum state s) {
  switch (s) {
  case IDLE:
    return RUNNING;
  case STOPPED:
    return IDLE;
  default:
    return s + STOPPED;
  }
}
