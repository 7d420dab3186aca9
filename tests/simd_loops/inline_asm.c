// expect-vectorized: 2
/* Inline assembly outside an omp simd loop (issue 14, class 13: GCC's tests
 * time loops with rdtsc and hide values from the optimizer with empty asm
 * statements). It is lifted and lowered back unchanged, so the loop is
 * vectorized; the same asm inside a loop body runs once per lane, in lane
 * order, in the vectorized loop. */
#include "lw_loops.h"
static inline unsigned long long ticks(void) {
  unsigned lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return ((unsigned long long)hi << 32) | lo;
}
NOINLINE float opaque_f(float x) { return x * 0.5f + 0.25f; }
NOINLINE int around(float *a, int n) {
  unsigned long long t0 = ticks();
  int k = 3;
  __asm__ volatile("" : "+r"(k));
  #pragma omp simd
  for (int i = 0; i < n; i++) a[i] = opaque_f(a[i]) + (float)k;
  return ticks() >= t0;
}
NOINLINE void inside(float *a, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    float x = a[i];
    __asm__ volatile("" : "+x"(x));
    a[i] = x * 2.0f;
  }
}
void lw_test(void) {
  static float a[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) a[i] = lw_input(i);
    lw_exact_int("around", n, around(a, n));
    inside(a, n);
    lw_exact_array("a", n, a, LW_MAX);
  }
}
