// expect-vectorized: 1
#include "lw_loops.h"
/* Per element, the first position of its key in a table: the search ends
 * early through a flag (a `break` is not allowed in an omp simd body, but in
 * an inner loop it is). */
NOINLINE void find_first(int *pos, const int *keys, const int *table, int m, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    int found = -1;
    for (int j = 0; j < m; j++) {
      if (table[j] == keys[i]) { found = j; break; }
    }
    pos[i] = found;
  }
}
void lw_test(void) {
  static int pos[LW_MAX], keys[LW_MAX], table[64]; int n;
  for (int j = 0; j < 64; j++) table[j] = (j * 13) % 50;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) { pos[i] = -7; keys[i] = (i * 7) % 60; }
    find_first(pos, keys, table, 64, n);
    lw_exact_iarray("find_first", n, pos, LW_MAX);
  }
}
