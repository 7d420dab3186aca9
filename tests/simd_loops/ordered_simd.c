// expect-vectorized: 2
/* `#pragma omp ordered simd` runs its block in iteration order: a histogram
 * whose bins collide within a vector must lose no increment. clang marks
 * nothing parallel in such a loop (and the region leaves no trace in the
 * IR), so Lanewise does not vectorize it; the loops beside it without the
 * region, one with `safelen` (independent within 8 iterations), are (their
 * calls keep LLVM's vectorizer away). */
#include "lw_loops.h"
NOINLINE float opaque_f(float x) { return x * 0.5f + 0.25f; }
NOINLINE float ordered_histogram(const float *a, int *bins, int n) {
  float sum = 0.0f;
  #pragma omp simd reduction(+ : sum)
  for (int i = 0; i < n; i++) {
    float v = a[i] * 2.0f;
    if (v > 0.5f) {
      #pragma omp ordered simd
      { bins[(int)(v * 7.0f) & 7] += 1; }
    }
    sum += v;
  }
  return sum;
}
NOINLINE void scale(float *a, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) a[i] = opaque_f(a[i]) * 0.75f;
}
NOINLINE void shifted(float *a, int n) {
  #pragma omp simd safelen(8)
  for (int i = 8; i < n; i++) a[i] = opaque_f(a[i - 8]) + 1.0f;
}
void lw_test(void) {
  static float a[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    int bins[8] = {0};
    for (int i = 0; i < LW_MAX; i++) a[i] = lw_input(i);
    lw_approx("sum", n, ordered_histogram(a, bins, n));
    lw_exact_iarray("bins", n, bins, 8);
    scale(a, n);
    shifted(a, n);
    lw_exact_array("a", n, a, LW_MAX);
  }
}
