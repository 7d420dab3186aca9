// expect-vectorized: 3
/* The tail of a vectorized loop: run by crates/lanewise/tests/simd_loops.rs
 * (`tail_forms`) with `--simd-tail masked`, `scalar` and `auto`, for every
 * trip count from 0 to 3W (W = 16 for 32-bit lanes on AVX2, 8 for the
 * double loop): int and float reductions, lastprivate values and linear
 * variables must agree with the scalar build (floats within the tolerance),
 * and the two forced tails with each other bit for bit. */
#include "lw_loops.h"
NOINLINE int opaque_i(int x) { return x * 3 - 1; }
NOINLINE float opaque_f(float x) { return x * 0.5f + 0.25f; }
NOINLINE double opaque_d(double x) { return x * 0.75 - 0.125; }
/* Int sum and max, a lastprivate value and a linear variable. */
NOINLINE int int_tail(const int *a, int n, int *last, int *max_out, int *linear_end) {
  int sum = 7, mx = -1000000, t = -1, j = 3;
  #pragma omp simd reduction(+:sum) reduction(max:mx) lastprivate(t) linear(j:2)
  for (int i = 0; i < n; i++) {
    t = opaque_i(a[i]) + j;
    sum += t;
    mx = t > mx ? t : mx;
    j += 2;
  }
  *last = t; *max_out = mx; *linear_end = j;
  return sum;
}
/* Float sum and product, a lastprivate float, stores through the linear index. */
NOINLINE float float_tail(float *b, const float *a, int n, float *product, float *last) {
  float sum = 0.5f, prod = 1.0f, t = -2.0f;
  #pragma omp simd reduction(+:sum) reduction(*:prod) lastprivate(t)
  for (int i = 0; i < n; i++) {
    t = opaque_f(a[i]);
    sum += t;
    prod *= 1.0f + t * 0.001f;
    b[i] = t;
  }
  *product = prod; *last = t;
  return sum;
}
/* A double sum (W = 8) and a divergent branch. */
NOINLINE double double_tail(const double *a, int n) {
  double sum = 0.0;
  #pragma omp simd reduction(+:sum)
  for (int i = 0; i < n; i++) {
    double v = opaque_d(a[i]);
    if (v > 0.0) sum += v; else sum -= 0.5;
  }
  return sum;
}
void lw_test(void) {
  static int ai[LW_MAX]; static float af[LW_MAX], bf[LW_MAX]; static double ad[LW_MAX];
  for (int i = 0; i < LW_MAX; i++) { ai[i] = lw_iinput(i); af[i] = lw_input(i); ad[i] = lw_input(i + 3); }
  for (int n = 0; n <= 3 * 16; n++) {
    int last = 0, mx = 0, j = 0;
    int sum = int_tail(ai, n, &last, &mx, &j);
    lw_exact_int("int.sum", n, sum); lw_exact_int("int.max", n, mx);
    lw_exact_int("int.linear", n, j);
    if (n > 0) lw_exact_int("int.last", n, last);
    for (int i = 0; i < LW_MAX; i++) bf[i] = 0.0f;
    float prod = 0.0f, t = 0.0f;
    float fsum = float_tail(bf, af, n, &prod, &t);
    lw_approx("float.sum", n, fsum); lw_approx("float.prod", n, prod);
    if (n > 0) lw_exact_float("float.last", n, t);
    lw_exact_array("float.b", n, bf, LW_MAX);
    lw_approx("double.sum", n, double_tail(ad, n));
  }
}
