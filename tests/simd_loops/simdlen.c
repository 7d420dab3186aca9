// expect-vectorized: 2
#include "lw_loops.h"
NOINLINE float opaque_f(float x) { return x * 0.5f + 0.25f; }
NOINLINE void width4(float *a, int n) {
  #pragma omp simd simdlen(4)
  for (int i = 0; i < n; i++) { float x = a[i]; while (x > 2.0f) x = opaque_f(x); a[i] = x; }
}
NOINLINE void width16(float *a, int n) {
  #pragma omp simd simdlen(16)
  for (int i = 0; i < n; i++) { float x = a[i]; while (x > 2.0f) x = opaque_f(x); a[i] = x + 1.0f; }
}
void lw_test(void) {
  static float a[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) a[i] = lw_input(i) * 3.0f;
    width4(a, n);
    lw_exact_array("width4", n, a, LW_MAX);
    width16(a, n);
    lw_exact_array("width16", n, a, LW_MAX);
  }
}
