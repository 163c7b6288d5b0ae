// flags: plain
// Global scalars and a global struct: each scalar global has its own region
// at a fixed address addr_NAME(); a global struct's fields go to their
// record's field regions.
int count;
unsigned long total;
struct stats { int hits; int misses; } st;
void f(int n) {
  count = n;
  total += count;
  st.hits++;
  st.misses = st.hits;
}
