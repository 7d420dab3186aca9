// expect-vectorized: 13
/* Calls of pure (`memory(none)`) user functions run only where the scalar
 * code runs them (issue 14): `h` divides by its argument, which is 0
 * exactly in the lanes that do not call it, so a call in an inactive lane
 * raised SIGFPE; a uniform call in a block that no lane reaches must not
 * run either. Intrinsics and libm functions still run in every lane. 13
 * passed remarks: the four variants of each declare simd function, GCC's
 * names of their AVX ones, and the three loops. */
#include "lw_loops.h"
NOINLINE int h(int x) { return 1000 / x; }
#pragma omp declare simd notinbranch
NOINLINE int guarded_divide(int x) {
  if (x != 0) return h(x);
  return -1;
}
#pragma omp declare simd uniform(u) notinbranch
NOINLINE int guarded_uniform(int x, int u) {
  if (x != 0) return h(u);
  return -1;
}
NOINLINE void per_lane(const int *a, int *b, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) b[i] = guarded_divide(a[i]);
}
NOINLINE void uniform(const int *a, int *b, int n, int u) {
  #pragma omp simd
  for (int i = 0; i < n; i++) b[i] = guarded_uniform(a[i], u);
}
/* The same in an omp simd loop body. */
NOINLINE void in_loop(const int *a, int *b, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) b[i] = a[i] != 0 ? h(a[i]) : -1;
}
void lw_test(void) {
  static int a[LW_MAX], zeros[LW_MAX], b[LW_MAX];
  int n;
  for (int i = 0; i < LW_MAX; i++) a[i] = i % 3 - 1;
  LW_FOR_TRIP_COUNTS(n) {
    memset(b, 0, sizeof b);
    per_lane(a, b, n);
    lw_exact_iarray("per_lane", n, b, LW_MAX);
    memset(b, 0, sizeof b);
    uniform(zeros, b, n, 0);
    lw_exact_iarray("uniform", n, b, LW_MAX);
    memset(b, 0, sizeof b);
    in_loop(a, b, n);
    lw_exact_iarray("in_loop", n, b, LW_MAX);
  }
}
