// expect-vectorized: 5
#include "lw_loops.h"
NOINLINE float opaque_f(float x) { return x * 0.5f + 0.25f; }
NOINLINE void float_reductions(const float *a, int n, double *out) {
  float sum = 1.5f, prod = 1.0f, mn = 1e30f, mx = -1e30f;
  double dsum = 0.0;
  #pragma omp simd reduction(+:sum, dsum) reduction(*:prod) reduction(min:mn) reduction(max:mx)
  for (int i = 0; i < n; i++) {
    float v = opaque_f(a[i]);
    sum += v;
    dsum += (double)v * 0.5;
    prod *= 1.0f + v * 0.001f;
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
  }
  out[0] = sum; out[1] = dsum; out[2] = prod; out[3] = mn; out[4] = mx;
}
/* The reduction of a.c in the issue: an inner loop, a call, fadd and smin. */
NOINLINE float sum_min(float *a, const int *b, int n, float k) {
  float s = 0; int m = 0x7fffffff;
  #pragma omp simd reduction(+:s) reduction(min:m) simdlen(8)
  for (int i = 0; i < n; i++) {
    float x = a[i];
    while (x > 1.0f) x *= 0.5f;
    a[i] = opaque_f(x) * k;
    s += x;
    if (b[i] < m) m = b[i];
  }
  return s + m;
}
/* One max updated twice, written two ways (`v > m ? v : m`, then `m < w ?
 * w : m`): LLVM keeps both comparisons' forms, one reduction (was refused
 * as mixing two kinds of select-compare). */
NOINLINE float max_twice(const float *a, int n) {
  float m = -1e30f;
  #pragma omp simd reduction(max:m)
  for (int i = 0; i < n; i++) {
    float v = opaque_f(a[i]);
    if (v > m) m = v;
    float w = a[i] * -3.0f;
    if (m < w) m = w;
  }
  return m;
}
/* Min updates LLVM keeps as branches (a predictable branch is not
 * speculated into a select): the conditional one joins the outer `if`'s
 * join, a phi with three predecessors, and a second update is a select,
 * which LLVM writes as `llvm.smin` (was refused as a recurrence, then as
 * mixing `smin` and a select-compare). */
NOINLINE int opaque_i(int x) { return x % 1000; }
NOINLINE int nested_min(const int *b, int n) {
  int m = 0x7fffffff;
  #pragma omp simd reduction(min:m)
  for (int i = 0; i < n; i++) {
    int v = opaque_i(b[i]);
    if (v > 0) {
      int w = v * 3 - 7;
      if (__builtin_expect(w < m, 0)) m = w;
    }
    m = v + 5 < m ? v + 5 : m;
  }
  return m;
}
NOINLINE float expected_fmin(const float *a, int n) {
  float m = 1e30f;
  #pragma omp simd reduction(min:m)
  for (int i = 0; i < n; i++) {
    float v = a[i] * (float)opaque_i(i);
    if (__builtin_expect(v < m, 0)) m = v;
  }
  return m;
}
void lw_test(void) {
  static float a[LW_MAX]; static int b[LW_MAX]; double out[5]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) { a[i] = lw_input(i); b[i] = lw_iinput(i); }
    float_reductions(a, n, out);
    lw_approx("fsum", n, out[0]);
    lw_approx("dsum", n, out[1]);
    lw_approx("fprod", n, out[2]);
    lw_exact_float("fmin", n, out[3]);
    lw_exact_float("fmax", n, out[4]);
    lw_exact_float("max_twice", n, max_twice(a, n));
    lw_exact_int("nested_min", n, nested_min(b, n));
    lw_exact_float("expected_fmin", n, expected_fmin(a, n));
    lw_approx("sum_min", n, sum_min(a, b, n, 2.0f));
    lw_exact_array("sum_min.a", n, a, LW_MAX);
  }
}
