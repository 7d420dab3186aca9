// expect-vectorized: 14
// `reduction(inscan, op: s)` with `#pragma omp scan` (issue 14, class 13):
// clang-22 -fopenmp-simd lowers both forms to a plain running value that
// the body reads (`b[i] = s`, after the update for `inclusive`, before it
// for `exclusive`). Lanewise vectorizes them as prefix scans across the
// lanes (loop_vectorize/scan.rs): integer and min/max results are the
// scalar loop's bit for bit, the float sum is reassociated. A running value read by a
// comparison or through arithmetic is a scan too, and so is one updated
// under a condition (if-converted, merged addends, or branches whose phi
// is the update). An exclusive value stored before
// a call that computes the contribution stays scalar with a remark that
// says why.
#include "lw_loops.h"

NOINLINE int opaque_i(int x) { return x * 3 - 1; }

NOINLINE void inclusive_scan(const int *a, int *b, int n) {
  int s = 0;
  #pragma omp simd reduction(inscan, + : s)
  for (int i = 0; i < n; i++) {
    s += opaque_i(a[i]);
    #pragma omp scan inclusive(s)
    b[i] = s;
  }
}

NOINLINE int exclusive_scan(const int *a, int *b, int n) {
  int s = 10;
  #pragma omp simd reduction(inscan, + : s)
  for (int i = 0; i < n; i++) {
    b[i] = s;
    #pragma omp scan exclusive(s)
    s += opaque_i(a[i]);
  }
  return s;
}

NOINLINE void xor_scan(const int *a, int *b, int n) {
  unsigned s = 0x9e3779b9u;
  #pragma omp simd reduction(inscan, ^ : s)
  for (int i = 0; i < n; i++) {
    s ^= (unsigned)a[i] * 2654435761u;
    #pragma omp scan inclusive(s)
    b[i] = (int)s;
  }
}

NOINLINE void max_scan(const int *a, int *b, int n) {
  int s = -1000000;
  #pragma omp simd reduction(inscan, max : s)
  for (int i = 0; i < n; i++) {
    s = a[i] > s ? a[i] : s;
    #pragma omp scan inclusive(s)
    b[i] = s;
  }
}

/* Without fast-math, a float max stays a compare and select. */
NOINLINE void fmax_scan(const float *x, float *y, int n) {
  float s = -1e30f;
  #pragma omp simd reduction(inscan, max : s)
  for (int i = 0; i < n; i++) {
    s = x[i] > s ? x[i] : s;
    #pragma omp scan inclusive(s)
    y[i] = s;
  }
}

NOINLINE long long product_scan(const int *a, long long *b, int n) {
  long long s = 1;
  #pragma omp simd reduction(inscan, * : s)
  for (int i = 0; i < n; i++) {
    b[i] = s;
    #pragma omp scan exclusive(s)
    s *= (long long)(a[i] | 1);
  }
  return s;
}

NOINLINE void float_scan(const float *x, float *y, int n) {
  float s = 0.5f;
  #pragma omp simd reduction(inscan, + : s)
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    #pragma omp scan inclusive(s)
    y[i] = s;
  }
}

/* No scan directive: the running sum is compared in the body. */
NOINLINE int first_over(const int *a, int *flags, int n, int limit) {
  int s = 0;
  #pragma omp simd reduction(+ : s)
  for (int i = 0; i < n; i++) {
    s += a[i] & 7;
    flags[i] = s > limit;
  }
  return s;
}

/* Updated under a condition LLVM if-converts: `s += a[i] > 0 ? a[i] : 0`. */
NOINLINE void positive_scan(const int *a, int *b, int n) {
  int s = 0;
  #pragma omp simd reduction(inscan, + : s)
  for (int i = 0; i < n; i++) {
    if (a[i] > 0) s += a[i];
    #pragma omp scan inclusive(s)
    b[i] = s;
  }
}

/* Updated in a branch: LLVM merges the addends (`s += c ? f(x) : 0`). */
NOINLINE void branch_scan(const int *a, int *b, int n) {
  int s = 0;
  #pragma omp simd reduction(inscan, + : s)
  for (int i = 0; i < n; i++) {
    if (a[i] > 0) s += opaque_i(a[i]);
    #pragma omp scan inclusive(s)
    b[i] = s;
  }
}

/* No scan directive: a NaN never wins `x < s`, so the lanes' partial
 * minima must not carry one either (a NaN lane contributes +inf, the
 * neutral element; it used to contribute itself and hide the next lanes'
 * minima). clang's inscan lowering makes the same neutral element itself. */
NOINLINE void fmin_scan_nan(const float *x, float *y, int n) {
  float s = 1e30f;
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    if (x[i] < s) s = x[i];
    y[i] = s;
  }
}

/* The running value read through arithmetic (`s - 3`, `s * 5 > ...`),
 * not only stored. */
NOINLINE void offset_scan(const int *a, int *b, int n) {
  unsigned s = 7u;
  #pragma omp simd reduction(inscan, + : s)
  for (int i = 0; i < n; i++) {
    b[i] = (int)(s - 3u) + (s * 5u > 900u ? 1 : -1);
    #pragma omp scan exclusive(s)
    s += (unsigned)(a[i] & 31);
  }
}

/* A min updated under two conditions LLVM keeps as branches: the update is
 * a phi, the contribution is recomputed in place from INT_MAX. */
NOINLINE void guarded_min_scan(const int *a, const unsigned *u, int *b, int n) {
  int s = 2147483647;
  #pragma omp simd reduction(inscan, min : s)
  for (int i = 0; i < n; i++) {
    if (u[i] > 5u) {
      if ((a[31] & a[i]) < s) s = a[31] & a[i];
    }
    #pragma omp scan inclusive(s)
    b[i] = s - 3;
  }
}

/* No reduction clause: the running value is stored before a call that
 * computes the contribution and may read b[i] (through a pointer LLVM
 * cannot see through), so the store stays before it: scalar, with a remark
 * that says why (clang emits an inscan loop's update first, whichever
 * side of the scan directive it is on). */
static int (*volatile contribution)(int) = opaque_i;
NOINLINE void exclusive_before_call(const int *a, int *b, int n) {
  int s = 0;
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    b[i] = s;
    s += contribution(a[i]);
  }
}

NOINLINE int total(const int *a, int n) {
  int s = 0;
  #pragma omp simd reduction(+ : s)
  for (int i = 0; i < n; i++) s += opaque_i(a[i]);
  return s;
}

void lw_test(void) {
  static int a[LW_MAX], b[LW_MAX];
  static long long c[LW_MAX];
  static float x[LW_MAX], y[LW_MAX], xnan[LW_MAX];
  static unsigned u[LW_MAX];
  int n;
  for (int i = 0; i < LW_MAX; i++) {
    a[i] = lw_iinput(i);
    x[i] = lw_input(i);
    xnan[i] = i % 5 == 2 ? __builtin_nanf("") : (float)(LW_MAX - i) * 0.5f; /* falling */
    u[i] = (unsigned)(i * 2654435761u) >> 28;
  }
  LW_FOR_TRIP_COUNTS(n) {
    memset(b, 0, sizeof b);
    inclusive_scan(a, b, n);
    lw_exact_iarray("inclusive_scan", n, b, LW_MAX);
    memset(b, 0, sizeof b);
    lw_exact_int("exclusive_scan.s", n, exclusive_scan(a, b, n));
    lw_exact_iarray("exclusive_scan", n, b, LW_MAX);
    memset(b, 0, sizeof b);
    xor_scan(a, b, n);
    lw_exact_iarray("xor_scan", n, b, LW_MAX);
    memset(b, 0, sizeof b);
    max_scan(a, b, n);
    lw_exact_iarray("max_scan", n, b, LW_MAX);
    memset(c, 0, sizeof c);
    lw_exact_int("product_scan.s", n, product_scan(a, c, n));
    for (int i = 0; i < n; i += 97) lw_exact_int("product_scan", i, c[i]);
    memset(y, 0, sizeof y);
    fmax_scan(x, y, n);
    lw_exact_array("fmax_scan", n, y, LW_MAX);
    memset(y, 0, sizeof y);
    float_scan(x, y, n);
    for (int i = 0; i < n; i += 13) lw_approx("float_scan", i, y[i]);
    memset(b, 0, sizeof b);
    lw_exact_int("first_over.s", n, first_over(a, b, n, 40));
    lw_exact_iarray("first_over", n, b, LW_MAX);
    memset(b, 0, sizeof b);
    positive_scan(a, b, n);
    lw_exact_iarray("positive_scan", n, b, LW_MAX);
    memset(b, 0, sizeof b);
    branch_scan(a, b, n);
    lw_exact_iarray("branch_scan", n, b, LW_MAX);
    memset(y, 0, sizeof y);
    fmin_scan_nan(xnan, y, n);
    lw_exact_array("fmin_scan_nan", n, y, LW_MAX);
    memset(b, 0, sizeof b);
    offset_scan(a, b, n);
    lw_exact_iarray("offset_scan", n, b, LW_MAX);
    memset(b, 0, sizeof b);
    guarded_min_scan(a, u, b, n);
    lw_exact_iarray("guarded_min_scan", n, b, LW_MAX);
    memset(b, 0, sizeof b);
    exclusive_before_call(a, b, n);
    lw_exact_iarray("exclusive_before_call", n, b, LW_MAX);
    lw_exact_int("total", n, total(a, n));
  }
}
