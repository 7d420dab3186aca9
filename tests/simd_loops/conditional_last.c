// expect-vectorized: 6
/* Conditional assignments in omp simd loops (issue 14, class 7): `if (c)
 * r = x` with `c` and `x` not read from `r` leaves in `r` the value of the
 * last iteration that assigned it (a "conditional last value", what
 * OpenMP's lastprivate(conditional:) names). Run by
 * crates/lanewise/tests/simd_loops.rs (`conditional_last`) with every tail
 * form: int and float values, as a select and behind a branch with a call,
 * two in one loop next to a sum, one assigned in an inner loop, none
 * assigned at all (the initial value stays), a decreasing induction. The
 * loops that stay scalar (a reset of a sum, a recurrence through a
 * comparison) are checked too, with the remark. */
#include "lw_loops.h"
NOINLINE int opaque_i(int x) { return x * 3 - 1; }
NOINLINE int last_big(const int *a, int n) {
  int r = -7;
  #pragma omp simd
  for (int i = 0; i < n; i++)
    if (a[i] > 300) r = a[i] * 2;
  return r;
}
NOINLINE float last_negative_call(const float *a, int n, int *where) {
  float r = 1.5f; int w = -1;
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    if (a[i] < -2.0f) {
      r = a[i] + (float)opaque_i(i);
      w = i;
    }
  }
  *where = w;
  return r;
}
NOINLINE int two_and_a_sum(const int *a, int n, int *first_kind, long long *sum_out) {
  int odd = 0, even = 0; long long sum = 0;
  #pragma omp simd reduction(+:sum)
  for (int i = 0; i < n; i++) {
    sum += a[i];
    if (a[i] & 1) odd = i; else if (a[i] < -100) even = a[i] - i;
  }
  *first_kind = even; *sum_out = sum;
  return odd;
}
NOINLINE int inner_loop_assign(const int *a, int n) {
  int r = 42;
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    int k = (a[i] & 7) + 1;
    for (int j = 0; j < k; j++)
      if ((a[i] + j) % 5 == 0) r = i * 100 + j;
  }
  return r;
}
NOINLINE int never_assigned(const int *a, int n) {
  int r = 77;
  #pragma omp simd
  for (int i = 0; i < n; i++)
    if (a[i] > 100000) r = a[i];
  return r;
}
NOINLINE int downward(const int *a, int n) {
  int r = -1;
  #pragma omp simd
  for (int i = n - 1; i >= 0; i--)
    if (a[i] % 3 == 0) r = i;
  return r;
}
/* Not conditional last values: they stay scalar (and correct). */
NOINLINE int reset_sum(const int *a, int n) {
  int s = 0;
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    if (a[i] % 7 == 0) s = 0; else s += a[i];
  }
  return s;
}
NOINLINE int reset_sum_by_call(const int *a, int n) {
  int s = 0;
  #pragma omp simd reduction(+:s)
  for (int i = 0; i < n; i++) {
    if (a[i] % 7 == 0) s = opaque_i(a[i]); else s += a[i];
  }
  return s;
}
NOINLINE int running_record(const int *a, int n) {
  int r = 0;
  #pragma omp simd
  for (int i = 0; i < n; i++)
    if (a[i] > r) r = a[i] * 2;
  return r;
}
void lw_test(void) {
  static int a[LW_MAX]; static float f[LW_MAX]; int n;
  for (int i = 0; i < LW_MAX; i++) { a[i] = lw_iinput(i); f[i] = lw_input(i); }
  LW_FOR_TRIP_COUNTS(n) {
    lw_exact_int("last_big", n, last_big(a, n));
    int where = 0;
    float r = last_negative_call(f, n, &where);
    lw_exact_float("last_negative_call", n, r);
    lw_exact_int("last_negative_call.where", n, where);
    int even = 0; long long sum = 0;
    int odd = two_and_a_sum(a, n, &even, &sum);
    lw_exact_int("two.odd", n, odd);
    lw_exact_int("two.even", n, even);
    lw_exact_int("two.sum", n, sum);
    lw_exact_int("inner_loop_assign", n, inner_loop_assign(a, n));
    lw_exact_int("never_assigned", n, never_assigned(a, n));
    lw_exact_int("downward", n, downward(a, n));
    lw_exact_int("reset_sum", n, reset_sum(a, n));
    lw_exact_int("reset_sum_by_call", n, reset_sum_by_call(a, n));
    lw_exact_int("running_record", n, running_record(a, n));
  }
}
