// expect-vectorized: 2
/* An omp simd loop whose body jumps into the middle of an inner loop (a
 * cycle with two entries): Lanewise gives the cycle one dispatching header
 * and vectorizes the loop; lanes enter the cycle at different labels. */
#include "lw_loops.h"
NOINLINE int opaque_i(int x) { return x % 1000; }
NOINLINE void tangled(const int *b, int *out, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    int x = opaque_i(b[i]);
    int steps = 0;
    if (x > 5) goto second;
  first:
    x += 3;
    if (x & 1) { out[i] = x * 7 + steps; continue; }
  second:
    x -= 2;
    steps++;
    if (x > 0 && steps < 100) goto first;
    out[i] = x - steps;
  }
}
/* A reduction updated inside such a cycle: the dispatch block's phis carry
 * `poison` on the edges to the other entry, which the reduction recognizer
 * skips (was refused as an assignment of a value not derived from `s`). */
NOINLINE unsigned midway_sum(const int *b, int n) {
  unsigned s = 0;
  #pragma omp simd reduction(+:s)
  for (int i = 0; i < n; i++) {
    int x = opaque_i(b[i]);
    int w = 0;
    if (x > 3) goto mid;
    while (w < 4 && x < 100) {
      w++;
      x += 7;
    mid:;
      s += (unsigned)x;
    }
  }
  return s;
}
void lw_test(void) {
  static int b[LW_MAX], out[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) { b[i] = lw_iinput(i); out[i] = 0; }
    tangled(b, out, n);
    lw_exact_iarray("tangled", n, out, LW_MAX);
    lw_exact_int("midway_sum", n, midway_sum(b, n));
  }
}
