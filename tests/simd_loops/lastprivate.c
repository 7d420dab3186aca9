// expect-vectorized: 1
#include "lw_loops.h"
NOINLINE float opaque_f(float x) { return x * 0.5f + 0.25f; }
NOINLINE float last_value(float *a, int n, int *last_index) {
  float t = -3.0f; int li = -1;
  #pragma omp simd lastprivate(t, li)
  for (int i = 0; i < n; i++) { t = opaque_f(a[i]); li = i * 3; a[i] = t + 1.0f; }
  *last_index = li;
  return t;
}
void lw_test(void) {
  static float a[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) a[i] = lw_input(i);
    int li = 0;
    float t = last_value(a, n, &li);
    if (n > 0) { lw_exact_float("lastprivate", n, t); lw_exact_int("lastprivate.index", n, li); }
    lw_exact_array("lastprivate.a", n, a, LW_MAX);
  }
}
