// expect-vectorized: 6
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

/* Assigned on both sides of a divergent branch: the lane of the later
   iteration must win whichever side comes first in the vector code. */
NOINLINE int last_of_two_sites(const int *a, int n) {
  int x = 3;
  #pragma omp simd lastprivate(conditional : x)
  for (int i = 0; i < n; i++) {
    int v = opaque_i(a[i]);
    if (v & 1) {
      if (v & 2) x = v;
    } else {
      if (v & 4) x = -v;
    }
  }
  return x;
}

/* Assigned inside an inner loop whose trip count differs from lane to lane:
   lanes run the inner iterations side by side, so a lane must see the
   iteration number a later lane stored (fuzz seeds 13890 and 14242,
   tests/fuzz_regressions/015). */
NOINLINE long long last_in_inner(const int *a, const long long *table, int n) {
  long long x = 5;
  #pragma omp simd lastprivate(conditional : x)
  for (int i = 0; i < n; i++) {
    int trips = a[i] & 3;
    for (int k = 0; k < trips; k++) x = table[(k + i) & 63];
  }
  return x;
}

/* Assigned in the body and two loops deep. */
NOINLINE int last_in_nested(const int *a, int n) {
  int x = -1;
  #pragma omp simd lastprivate(conditional : x)
  for (int i = 0; i < n; i++) {
    if (a[i] & 8) x = i;
    for (int k = 0; k < (a[i] & 3); k++)
      for (int m = 0; m < ((a[i] >> 2) & 3); m++)
        if (((a[i] >> 4) + k + m) & 1) x = a[i] * 3 + k * 7 + m;
  }
  return x;
}

void lw_test(void) {
  static int a[LW_MAX], out[LW_MAX];
  static float x[LW_MAX];
  static long long table[64];
  int n;
  for (int i = 0; i < LW_MAX; i++) {
    a[i] = lw_iinput(i);
    x[i] = lw_input(i);
  }
  for (int i = 0; i < 64; i++) table[i] = (long long)lw_iinput(i) * 100003 + i;
  LW_FOR_TRIP_COUNTS(n) {
    lw_exact_int("last_large.100", n, last_large(a, n, 100));
    lw_exact_int("last_large.1400", n, last_large(a, n, 1400));
    lw_exact_int("last_large.-2000", n, last_large(a, n, -2000));
    lw_exact_float("last_negative.-2", n, last_negative(x, n, -2.0f));
    lw_exact_float("last_negative.-3", n, last_negative(x, n, -3.3f));
    memset(out, 0, sizeof out);
    lw_exact_int("two_conditionals", n, two_conditionals(a, out, n));
    lw_exact_iarray("two_conditionals.out", n, out, LW_MAX);
    lw_exact_int("last_of_two_sites", n, last_of_two_sites(a, n));
    lw_exact_int("last_in_inner", n, last_in_inner(a, table, n));
    lw_exact_int("last_in_nested", n, last_in_nested(a, n));
  }
  /* Longer runs again (the iteration numbers left from the runs above). */
  lw_exact_int("last_large.again", LW_MAX, last_large(a, LW_MAX, 0));
  lw_exact_float("last_negative.again", LW_MAX, last_negative(x, LW_MAX, 0.0f));
  lw_exact_int("two_conditionals.again", LW_MAX, two_conditionals(a, out, LW_MAX));
  lw_exact_int("last_in_inner.again", LW_MAX, last_in_inner(a, table, LW_MAX));
  lw_exact_int("last_in_nested.again", LW_MAX, last_in_nested(a, LW_MAX));
}
