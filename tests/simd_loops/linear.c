// expect-vectorized: 1
#include "lw_loops.h"
NOINLINE float opaque_f(float x) { return x * 0.5f + 0.25f; }
NOINLINE int gather_linear(float *b, const float *a, int n) {
  int j = 1;
  #pragma omp simd linear(j:2)
  for (int i = 0; i < n; i++) { b[i] = opaque_f(a[j]); j += 2; }
  return j;
}
void lw_test(void) {
  static float a[2 * LW_MAX + 4], b[LW_MAX]; int n;
  for (int i = 0; i < 2 * LW_MAX + 4; i++) a[i] = lw_input(i);
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) b[i] = 0.0f;
    lw_exact_int("linear.j", n, gather_linear(b, a, n));
    lw_exact_array("linear.b", n, b, LW_MAX);
  }
}
