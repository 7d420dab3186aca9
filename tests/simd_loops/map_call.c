// expect-vectorized: 1
#include "lw_loops.h"
NOINLINE float opaque_scale(float x) { return x * 0.75f + 1.0f; }
NOINLINE void map_call(float *a, const float *b, int n, float k) {
  #pragma omp simd
  for (int i = 0; i < n; i++) a[i] = opaque_scale(b[i]) * k + b[i];
}
void lw_test(void) {
  static float a[LW_MAX], b[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) { a[i] = -1.0f; b[i] = lw_input(i); }
    map_call(a, b, n, 3.0f);
    lw_exact_array("map_call", n, a, LW_MAX);
  }
}
