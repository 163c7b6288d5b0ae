// flags: plain
// break and continue in nested loops go to the innermost loop's exit and
// increment; a break inside a switch inside a loop leaves only the switch,
// a continue there continues the loop.
int f(int n, int m) {
  int c = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++) {
      if (j == i)
        continue;
      if (j > i)
        break;
      c++;
    }
    switch (i) {
    case 2:
      continue;
    case 3:
      break;
    }
    c += 10;
  }
  return c;
}
