// expect-vectorized: 3
// `lastprivate(conditional: x)` (issue 14, class 13): clang-22 keeps the
// last assigned value and iteration number in globals and compares each
// iteration with the number; the loops vectorize, and the globals, so `x`,
// end as the scalar build leaves them (clang's lowering never resets the
// iteration number between calls, so a later call only assigns from that
// iteration on: the vectorized loops agree with that, too).
#include "lw_loops.h"

NOINLINE int opaque_i(int x) { return x * 3 - 1; }
NOINLINE float opaque_f(float x) { return x * 0.5f - 1.0f; }

NOINLINE int last_large(const int *a, int n, int limit) {
  int x = -7;
  #pragma omp simd lastprivate(conditional : x)
  for (int i = 0; i < n; i++) {
    int v = opaque_i(a[i]);
    if (v > limit) x = v;
  }
  return x;
}

NOINLINE float last_negative(const float *in, int n, float limit) {
  float y = 1.5f;
  #pragma omp simd lastprivate(conditional : y)
  for (int i = 0; i < n; i++) {
    float v = opaque_f(in[i]);
    if (v < limit) y = v * 2.0f;
  }
  return y;
}

/* Two conditional variables and a map in one loop. */
NOINLINE long long two_conditionals(const int *a, int *out, int n) {
  int first = 0, second = 100;
  #pragma omp simd lastprivate(conditional : first, second)
  for (int i = 0; i < n; i++) {
    int v = opaque_i(a[i]);
    out[i] = v & 0xff;
    if ((v & 7) == 3) first = v;
    if (v < -1000) second = i;
  }
  return (long long)first * 1000003 + second;
}

void lw_test(void) {
  static int a[LW_MAX], out[LW_MAX];
  static float x[LW_MAX];
  int n;
  for (int i = 0; i < LW_MAX; i++) {
    a[i] = lw_iinput(i);
    x[i] = lw_input(i);
  }
  LW_FOR_TRIP_COUNTS(n) {
    lw_exact_int("last_large.100", n, last_large(a, n, 100));
    lw_exact_int("last_large.1400", n, last_large(a, n, 1400));
    lw_exact_int("last_large.-2000", n, last_large(a, n, -2000));
    lw_exact_float("last_negative.-2", n, last_negative(x, n, -2.0f));
    lw_exact_float("last_negative.-3", n, last_negative(x, n, -3.3f));
    memset(out, 0, sizeof out);
    lw_exact_int("two_conditionals", n, two_conditionals(a, out, n));
    lw_exact_iarray("two_conditionals.out", n, out, LW_MAX);
  }
  /* Longer runs again (the iteration numbers left from the runs above). */
  lw_exact_int("last_large.again", LW_MAX, last_large(a, LW_MAX, 0));
  lw_exact_float("last_negative.again", LW_MAX, last_negative(x, LW_MAX, 0.0f));
  lw_exact_int("two_conditionals.again", LW_MAX, two_conditionals(a, out, LW_MAX));
}
