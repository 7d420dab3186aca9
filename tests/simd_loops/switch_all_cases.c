// expect-vectorized: 1
// A switch on `k & 3` with a case for every value: clang's default edge goes
// to `unreachable`, which must not count as a second exit of the simd loop.
#include "lw_loops.h"
NOINLINE void switch_all_cases(int *out, const int *in, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    int k = in[i];
    int r;
    switch (k & 3) {
    case 0: r = k * 3; break;
    case 1: r = k - 100; break;
    case 2: r = k ^ 0x55; break;
    case 3: r = -k; break;
    }
    out[i] = r;
  }
}
void lw_test(void) {
  static int out[LW_MAX], in[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) { out[i] = 7; in[i] = lw_iinput(i); }
    switch_all_cases(out, in, n);
    lw_exact_iarray("switch_all_cases", n, out, LW_MAX);
  }
}
