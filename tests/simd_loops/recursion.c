// expect-vectorized: 6
/* A recursive `declare simd inbranch` function called from an omp simd loop
 * (the OpenMP Examples' Fibonacci, SIMD.6; GCC's libgomp tests carry it):
 * issue 14, class 6. The divergent loop clang makes of one of the two calls
 * runs its body once with an empty mask when no lane enters it, so a masked
 * call there must be skipped (it recursed forever: a segfault at AVX2), and
 * the recursive calls of a variant run per lane as scalar calls (in
 * lock-step each call walked every lane's recursion tree). Six passed
 * remarks: the four variants of fib, GCC's name of its AVX one
 * (`_ZGVcM4v_fib`) and the loop. */
#include "lw_loops.h"
#pragma omp declare simd inbranch
int fib(int n) {
  if (n <= 1) return n;
  else return fib(n - 1) + fib(n - 2);
}
NOINLINE void fib_all(int *out, const int *in, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) out[i] = fib(in[i]);
}
void lw_test(void) {
  static int in[LW_MAX], out[LW_MAX]; int n;
  for (int i = 0; i < LW_MAX; i++) in[i] = (i * 7) % 23;
  LW_FOR_TRIP_COUNTS(n) {
    memset(out, 0, sizeof out);
    fib_all(out, in, n);
    lw_exact_iarray("fib", n, out, LW_MAX);
  }
}
