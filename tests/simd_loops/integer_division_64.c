// expect-vectorized: 3
#include "lw_loops.h"
/* 64-bit vector integer division (crates/transform/src/widen/division.rs):
 * a run-time test sends the chunks whose active operands are all below 2^53
 * in magnitude through double division (below 2^50, for a constant divisor,
 * through a multiplication by its rounded-up reciprocal) and the others
 * through the exact (per-lane) division. Signed and unsigned quotients and
 * remainders with varying and constant divisors (powers of two keep LLVM's
 * shifts), operands just below and at 2^53 and 2^50, the extremes of the
 * types, quotients just below and above integers, and a guarded division
 * whose inactive lanes hold a zero divisor and huge dividends. */
#include <limits.h>
static long long as[LW_MAX], bs[LW_MAX];
static unsigned long long ua[LW_MAX], ub[LW_MAX];
static long long out_ll[4][LW_MAX];
NOINLINE long long opaque_zero(int i) { return i < 0 ? i : 0; }
static void hash_rows(const char *what, int n, int rows) {
  for (int row = 0; row < rows; row++) {
    int folded[LW_MAX];
    for (int i = 0; i < LW_MAX; i++) folded[i] = (int)(out_ll[row][i] ^ (out_ll[row][i] >> 32));
    lw_exact_iarray(what, n, folded, LW_MAX);
  }
}
NOINLINE void divide_varying(int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    out_ll[0][i] = as[i] / bs[i] + opaque_zero(i);
    out_ll[1][i] = as[i] % bs[i];
    out_ll[2][i] = (long long)(ua[i] / ub[i]);
    out_ll[3][i] = (long long)(ua[i] % ub[i]);
  }
}
NOINLINE void divide_constant(int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    out_ll[0][i] = as[i] % 1000003 + opaque_zero(i);
    out_ll[1][i] = as[i] / -7 + as[i] / -4 * 3; /* -4: LLVM's shifts, not double */
    out_ll[2][i] = (long long)(ua[i] % 4294967311ull);
    out_ll[3][i] = (long long)(ua[i] / 10 + ua[i] % 16);
  }
}
NOINLINE void divide_guarded(int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    long long b = bs[i] & 3 ? bs[i] : 0;
    out_ll[0][i] = (b != 0 ? as[i] % b : -1) + opaque_zero(i);
  }
}
void lw_test(void) {
  static const long long edges[] = {LLONG_MIN, LLONG_MIN + 1, LLONG_MAX, LLONG_MAX - 1,
                                    -1, 0, 1, 2, -2, 3,
                                    (1LL << 53) - 1, -((1LL << 53) - 1), 1LL << 53, -(1LL << 53),
                                    (1LL << 53) + 1, 3037000499LL};
  int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) {
      int k = i % 16, m = (i / 16) % 16;
      long long a, b;
      if (i < 256) {
        a = edges[k];
        b = edges[m];
      } else if (i < 320) {
        /* dividends next to 2^50: the reciprocal path's limit */
        a = (1LL << 50) - 3 + (i % 6);
        if (i & 1) a = -a;
        b = (long long)lw_iinput(i) * 1000003LL + (i % 3);
      } else if (i < 640) {
        /* small operands: the double path */
        a = (long long)lw_iinput(i) * 1000003LL * (i % 11 + 1) + (i & 1 ? 1 : -1);
        b = (long long)lw_iinput(i * 3 + 1) * (i % 5 + 1) + (i % 7) * 99991;
      } else {
        /* products of two 32-bit values, some beyond 2^53 */
        a = (long long)lw_iinput(i) * 4283 * (i % 3 == 0 ? 2147483647LL : 65537LL);
        b = (long long)lw_iinput(i * 5 + 2) * 977 + (i % 13) * 7;
      }
      if (b == 0 || (a == LLONG_MIN && b == -1)) b = 7;
      /* a quotient just below or above an integer: a = q * b -/+ 1 */
      if (i % 9 == 4 && b != 0) {
        long long q = (i % 2 ? (1LL << 40) : 12345) / (b < 0 ? -b : b) + 1;
        a = q * b + (i & 2 ? 1 : -1);
      }
      as[i] = a;
      bs[i] = b;
      ua[i] = (unsigned long long)a * 0x9e3779b97f4a7c15ull >> (i % 4 == 0 ? 0 : 12);
      ub[i] = (unsigned long long)b | (i & 8 ? 0x8000000000000000ull : 0ull);
      if (ub[i] == 0) ub[i] = 1;
    }
    divide_varying(n);
    hash_rows("divide_varying", n, 4);
    divide_constant(n);
    hash_rows("divide_constant", n, 4);
    divide_guarded(n);
    hash_rows("divide_guarded", n, 1);
  }
}
