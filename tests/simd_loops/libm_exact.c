// expect-vectorized: 2
/* libm calls without -ffast-math: `--vector-math auto` keeps them exact.
 * `sqrtf` becomes a vector sqrt with the errno-setting call only in the
 * lanes whose input is negative (and only when some lane's is): results and
 * errno as in the scalar build. `expf` runs per lane, bit-exact. */
#include <errno.h>
#include <math.h>
#include "lw_loops.h"
NOINLINE int opaque_i(int x) { return x % 1000; }
NOINLINE void roots(const float *a, float *out, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    float v = a[i] * (float)opaque_i(i + 1);
    out[i] = sqrtf(v) + sqrtf(a[i] * a[i] + 1.0f);
  }
}
NOINLINE void exps(const float *a, float *out, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++)
    out[i] = expf(a[i] * (float)opaque_i(i) * 0.01f);
}
void lw_test(void) {
  static float a[LW_MAX], out[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) { a[i] = lw_input(i); out[i] = 0; }
    errno = 0;
    roots(a, out, n);
    lw_exact_int("roots.errno", n, errno);
    lw_exact_array("roots", n, out, LW_MAX);
    for (int i = 0; i < LW_MAX; i++) a[i] = fabsf(lw_input(i)) + 0.5f;
    errno = 0;
    roots(a, out, n);
    lw_exact_int("positive_roots.errno", n, errno);
    lw_exact_array("positive_roots", n, out, LW_MAX);
    exps(a, out, n);
    lw_exact_array("exps", n, out, LW_MAX);
  }
}
