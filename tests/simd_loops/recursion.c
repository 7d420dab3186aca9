// expect-vectorized: 17
/* A recursive `declare simd inbranch` function called from an omp simd loop
 * (the OpenMP Examples' Fibonacci, SIMD.6; GCC's libgomp tests carry it):
 * issue 14, class 6. The divergent loop clang makes of one of the two calls
 * runs its body once with an empty mask when no lane enters it, so a masked
 * call there must be skipped (it recursed forever: a segfault at AVX2), and
 * the recursive calls of a variant run per lane as scalar calls (in
 * lock-step each call walked every lane's recursion tree). 17 passed remarks:
 * the four variants of fib, ping and pong each, GCC's names of their AVX
 * ones (`_ZGVcM4v_fib`, ...) and the two loops. */
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
/* Mutual recursion (kept apart by noinline) stays in lock-step: ping's
 * variants call pong's and pong's ping's (measured 4x faster than scalar
 * code over n = 0..32 with -march=native on an AVX-512 Xeon; see README). */
#pragma omp declare simd inbranch
NOINLINE int pong(int n);
#pragma omp declare simd inbranch
NOINLINE int ping(int n) {
  if (n <= 1) return n;
  else return pong(n - 1) + pong(n - 2) + 1;
}
#pragma omp declare simd inbranch
NOINLINE int pong(int n) {
  if (n <= 2) return n;
  else return ping(n - 1) + ping(n - 3);
}
NOINLINE void ping_all(int *out, const int *in, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) out[i] = ping(in[i]);
}
void lw_test(void) {
  static int in[LW_MAX], out[LW_MAX]; int n;
  for (int i = 0; i < LW_MAX; i++) in[i] = (i * 7) % 23;
  LW_FOR_TRIP_COUNTS(n) {
    memset(out, 0, sizeof out);
    fib_all(out, in, n);
    lw_exact_iarray("fib", n, out, LW_MAX);
    memset(out, 0, sizeof out);
    ping_all(out, in, n);
    lw_exact_iarray("ping", n, out, LW_MAX);
  }
}
