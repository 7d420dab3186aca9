// expect-vectorized: 1
// `reduction(inscan, +: s)` with `#pragma omp scan` (issue 14, class 13):
// clang-22 -fopenmp-simd lowers both forms to a plain running sum whose
// value the body stores (`b[i] = s`, after the update for `inclusive`,
// before it for `exclusive`). Prefix sums across lanes are not
// vectorized: both loops stay scalar, with a remark that says so, and
// agree with clang's build; the ordinary reduction next to them is
// vectorized.
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

NOINLINE void exclusive_scan(const int *a, int *b, int n) {
  int s = 10;
  #pragma omp simd reduction(inscan, + : s)
  for (int i = 0; i < n; i++) {
    b[i] = s;
    #pragma omp scan exclusive(s)
    s += opaque_i(a[i]);
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
  int n;
  for (int i = 0; i < LW_MAX; i++) a[i] = lw_iinput(i);
  LW_FOR_TRIP_COUNTS(n) {
    memset(b, 0, sizeof b);
    inclusive_scan(a, b, n);
    lw_exact_iarray("inclusive_scan", n, b, LW_MAX);
    memset(b, 0, sizeof b);
    exclusive_scan(a, b, n);
    lw_exact_iarray("exclusive_scan", n, b, LW_MAX);
    lw_exact_int("total", n, total(a, n));
  }
}
