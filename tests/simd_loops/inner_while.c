// expect-vectorized: 1
#include "lw_loops.h"
NOINLINE void collatz(int *steps, const int *start, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    int x = start[i] < 0 ? -start[i] : start[i] + 1;
    int count = 0;
    while (x > 1) { x = (x & 1) ? 3 * x + 1 : x / 2; count++; }
    steps[i] = count;
  }
}
void lw_test(void) {
  static int s[LW_MAX], b[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) { s[i] = -1; b[i] = lw_iinput(i); }
    collatz(s, b, n);
    lw_exact_iarray("collatz", n, s, LW_MAX);
  }
}
