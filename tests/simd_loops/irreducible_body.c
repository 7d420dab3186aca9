// expect-vectorized: 1
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
void lw_test(void) {
  static int b[LW_MAX], out[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) { b[i] = lw_iinput(i); out[i] = 0; }
    tangled(b, out, n);
    lw_exact_iarray("tangled", n, out, LW_MAX);
  }
}
