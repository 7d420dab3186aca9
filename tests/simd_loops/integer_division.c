// expect-vectorized: 3
#include "lw_loops.h"
/* Vector integer division with varying divisors is lowered through double
 * division (crates/llvm/src/lower.rs): signed and unsigned quotients and
 * remainders of 32-, 16- and 8-bit lanes, at the extremes of each type, with
 * quotients just below and above integers, and a guarded division whose
 * inactive lanes hold a zero divisor. */
#include <limits.h>
static int as[LW_MAX], bs[LW_MAX];
static unsigned ua[LW_MAX], ub[LW_MAX];
static short sa[LW_MAX], sb[LW_MAX];
static signed char ca[LW_MAX], cb[LW_MAX];
static int out_int[4][LW_MAX];
/* The opaque call keeps clang's loop vectorizer off these loops. */
NOINLINE int opaque_zero(int i) { return i < 0 ? i : 0; }
NOINLINE void divide_signed_and_unsigned(int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    out_int[0][i] = as[i] / bs[i] + opaque_zero(i);
    out_int[1][i] = as[i] % bs[i];
    out_int[2][i] = (int)(ua[i] / ub[i]);
    out_int[3][i] = (int)(ua[i] % ub[i]);
  }
}
NOINLINE void divide_narrow(int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    short q = (short)(sa[i] / sb[i]), r = (short)(sa[i] % sb[i]);
    signed char cq = (signed char)(ca[i] / cb[i]), cr = (signed char)(ca[i] % cb[i]);
    out_int[0][i] = q * 1000 + r + opaque_zero(i);
    out_int[1][i] = cq * 1000 + cr;
  }
}
NOINLINE void divide_guarded(int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    int b = bs[i] & 3 ? bs[i] : 0;
    out_int[2][i] = (b != 0 ? as[i] % b : -1) + opaque_zero(i);
  }
}
void lw_test(void) {
  static const int edges[] = {INT_MIN, INT_MIN + 1, INT_MAX, INT_MAX - 1, -1, 0, 1, 2, -2, 3, 46341, -46341};
  int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) {
      int k = i % 12, m = (i / 12) % 12;
      int a = i < 144 ? edges[k] : lw_iinput(i) * 4283 + (i & 1 ? INT_MAX / 3 : 0);
      int b = i < 144 ? edges[m] : lw_iinput(i * 3 + 1) * (i % 5 + 1) + (i % 7) * 99991;
      if (b == 0 || (a == INT_MIN && b == -1)) b = 7;
      /* a quotient just below or above an integer: a = q * b - 1 or + 1 */
      if (i % 9 == 4) { long long mag = b < 0 ? -(long long)b : b; a = (int)((INT_MAX / 2 / mag) * b + (i & 2 ? 1 : -1)); }
      as[i] = a; bs[i] = b;
      ua[i] = (unsigned)a * 2654435761u;
      ub[i] = (unsigned)b | (i & 8 ? 0x80000000u : 0u);
      if (ub[i] == 0) ub[i] = 1;
      sa[i] = (short)(i < 144 ? (k & 1 ? SHRT_MIN : SHRT_MAX) : a);
      sb[i] = (short)b == 0 ? 5 : (short)b;
      ca[i] = (signed char)(i < 144 ? (k & 1 ? SCHAR_MIN : SCHAR_MAX) : a);
      cb[i] = (signed char)b == 0 ? 3 : (signed char)b;
    }
    divide_signed_and_unsigned(n);
    for (int row = 0; row < 4; row++) lw_exact_iarray("divide_signed_and_unsigned", n, out_int[row], LW_MAX);
    divide_narrow(n);
    for (int row = 0; row < 2; row++) lw_exact_iarray("divide_narrow", n, out_int[row], LW_MAX);
    divide_guarded(n);
    lw_exact_iarray("divide_guarded", n, out_int[2], LW_MAX);
  }
}
