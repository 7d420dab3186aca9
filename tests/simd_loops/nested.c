// expect-vectorized: 2
#include "lw_loops.h"
NOINLINE float opaque_f(float x) { return x * 0.5f + 0.25f; }
/* Only the inner loop is simd. */
NOINLINE void inner_simd(float *a, int rows, int n) {
  for (int r = 0; r < rows; r++) {
    #pragma omp simd
    for (int i = 0; i < n; i++) a[r * n + i] = opaque_f(a[r * n + i]) + (float)r;
  }
}
/* Only the outer loop is simd; the inner loop runs per lane. */
NOINLINE void outer_simd(float *out, const float *a, int n, int m) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int j = 0; j <= i % m; j++) s += a[j] * (float)(i + 1);
    out[i] = s;
  }
}
void lw_test(void) {
  static float a[4 * LW_MAX], out[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < 4 * LW_MAX; i++) a[i] = lw_input(i);
    inner_simd(a, 3, n);
    lw_exact_array("inner_simd", n, a, 4 * LW_MAX);
    outer_simd(out, a, n, 13);
    lw_exact_array("outer_simd", n, out, LW_MAX);
  }
}
