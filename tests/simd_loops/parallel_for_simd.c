// expect-vectorized: 2
/* `#pragma omp parallel for simd` under -fopenmp: clang outlines the loop
 * into `lw_test.omp_outlined`, whose 64-bit counter starts at the thread's
 * lower bound and whose exit test compares its low 32 bits with the upper
 * bound plus one (`trunc(iv + 1) == ub + 1`); the outlined function also
 * reads clang's unnamed `ident_t` records. Lanewise widens the exit test
 * (`truncated_exit`) and names the records: both loops are vectorized, the
 * one with a reduction included, and agree with clang's build (run with the
 * runtime's default number of threads). */
#include "lw_loops.h"
NOINLINE float settle(float x) {
  int steps = 0;
  while (x > 1.0f && steps < 20) {
    x = x * 0.6f + 0.1f;
    steps++;
  }
  return x + (float)steps;
}
NOINLINE void settle_all(const float *a, float *b, int n) {
  #pragma omp parallel for simd
  for (int i = 0; i < n; i++) b[i] = settle(a[i] * 3.0f);
}
NOINLINE int count_large(const float *a, int n) {
  int count = 0;
  #pragma omp parallel for simd reduction(+ : count)
  for (int i = 0; i < n; i++) count += settle(a[i] * 3.0f) > 5.0f;
  return count;
}
void lw_test(void) {
  static float a[LW_MAX], b[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) a[i] = lw_input(i);
    settle_all(a, b, n);
    lw_exact_array("b", n, b, n);
    lw_exact_int("large", n, count_large(a, n));
  }
}
