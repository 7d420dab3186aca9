// expect-vectorized: 1
#include "lw_loops.h"
NOINLINE float opaque_neg(float x) { return -x * 0.5f; }
NOINLINE void divergent_if(float *a, const float *b, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    float x = b[i];
    if (x > 0.0f) a[i] = x * 2.0f + 1.0f;
    else a[i] = opaque_neg(x);
  }
}
void lw_test(void) {
  static float a[LW_MAX], b[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) { a[i] = 7.0f; b[i] = lw_input(i); }
    divergent_if(a, b, n);
    lw_exact_array("divergent_if", n, a, LW_MAX);
  }
}
