// expect-vectorized: 6
/* `reduction(&&: b)` and `reduction(||: b)`: clang keeps the short circuit
 * as a branch on the accumulator around the condition (a libm call that
 * may set errno stays a branch), or, for a condition it may evaluate
 * anyway, a `select b, c, false`. Each lane branches on its own partial
 * result; the results are the serial loop's. The inputs make the
 * conditions fail at different iterations (or never) for each trip count.
 * `int` accumulators read as `b != 0` or `b == 0`, updated under a
 * condition, starting at 0 or 1, and one whose start is only known at run
 * time (clang tests it after the loop). A loop that also writes under the
 * short circuit is not a reduction. */
#include <math.h>
#include "lw_loops.h"
NOINLINE float opaque_f(float x) { return x * 0.5f + 0.25f; }
NOINLINE int all_below(const float *a, int n, float limit) {
  int all = 1;
  #pragma omp simd reduction(&& : all)
  for (int i = 0; i < n; i++) all = all && (sqrtf(a[i] + 6.0f) < limit);
  return all;
}
NOINLINE int any_above(const float *a, int n, float limit) {
  int any = 0;
  #pragma omp simd reduction(|| : any)
  for (int i = 0; i < n; i++) any = any || (sqrtf(a[i] + 6.0f) > limit);
  return any;
}
NOINLINE int both(const float *a, int n, float limit, int *any_out) {
  int all = 1, any = 0;
  #pragma omp simd reduction(&& : all) reduction(|| : any)
  for (int i = 0; i < n; i++) {
    float v = opaque_f(a[i]);
    all = all && (v < limit);
    any = any || (v > limit + 1.0f && a[i] > 0.0f);
  }
  *any_out = any;
  return all;
}
NOINLINE int some_above(const float *a, int n, float limit) {
  int any = 0;
  #pragma omp simd reduction(|| : any)
  for (int i = 0; i < n; i++)
    if (a[i] > 0.0f) any = any || (sqrtf(a[i]) > limit);
  return any * 3 + 1;
}
NOINLINE int guarded_all(const float *a, int n, float limit, int *any_out) {
  int all = 1, any = 0;
  #pragma omp simd reduction(&& : all) reduction(|| : any)
  for (int i = 0; i < n; i++) {
    float v = opaque_f(a[i]);
    if (v > -1.0f) all = all && (v < limit);
    any = any || (a[i] > limit);
  }
  *any_out = any + 5;
  return all * 7;
}
NOINLINE int all_from(const float *a, int n, int start) {
  int all = start;
  #pragma omp simd reduction(&& : all)
  for (int i = 0; i < n; i++) all = all && (sqrtf(a[i] + 6.0f) < 2.9f);
  return all;
}
NOINLINE int checked_copy(const float *a, float *b, int n) {
  int ok = 1;
  #pragma omp simd reduction(&& : ok)
  for (int i = 0; i < n; i++) ok = ok && ((b[i] = opaque_f(a[i])) < 1.5f);
  return ok;
}
void lw_test(void) {
  static float a[LW_MAX], b[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) a[i] = lw_input(i);
    for (int k = 0; k < 4; k++) {
      float limit = 1.5f + (float)k * 0.9f;
      lw_exact_int("all_below", n, all_below(a, n, limit));
      lw_exact_int("any_above", n, any_above(a, n, limit));
      int any = -1;
      lw_exact_int("both.all", n, both(a, n, limit, &any));
      lw_exact_int("both.any", n, any);
      lw_exact_int("some_above", n, some_above(a, n, limit));
      lw_exact_int("guarded_all", n, guarded_all(a, n, limit, &any));
      lw_exact_int("guarded_all.any", n, any);
      for (int start = -1; start <= 2; start++)
        lw_exact_int("all_from", n, all_from(a, n, start));
    }
    for (int i = 0; i < LW_MAX; i++) b[i] = 0.0f;
    lw_exact_int("checked_copy", n, checked_copy(a, b, n));
    lw_exact_array("b", n, b, LW_MAX);
  }
}
