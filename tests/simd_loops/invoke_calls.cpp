// expect-vectorized: 4
// C++ omp simd loops whose calls may throw (issue 14, class 13). clang
// wraps a simd region in a terminate scope: each such call is an `invoke`
// whose landing pad calls `__clang_call_terminate` outside the loop, since
// OpenMP forbids an exception to leave the region. Those loops are
// vectorized, the call treated as one that does not unwind (the inputs
// here never make it throw). A function inlined into the body that catches
// the exception itself keeps its loop scalar, with a remark.
#include <stdexcept>

#include "lw_loops.h"

static const int poison_value = -1000000;

// May throw, so every call of it in a loop is an `invoke`.
NOINLINE int checked_scale(int x) {
  if (x == poison_value) throw std::domain_error("checked_scale: poison value");
  return x * 3 - 1;
}
NOINLINE float checked_halve(float x) {
  if (x != x) throw std::invalid_argument("checked_halve: NaN");
  return x * 0.5f + 1.0f;
}

static int live_guards = 0;
struct Guard {
  Guard() { live_guards++; }
  ~Guard() { live_guards--; }
};

// Writes to its own element when it goes out of scope.
struct Tally {
  int *slot;
  ~Tally() { *slot += 1; }
};

/* A map through a call that may throw. */
NOINLINE void scaled(const int *a, int *out, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) out[i] = checked_scale(a[i]) + i;
}

/* A reduction, with an object around the loop whose destructor runs while
 * unwinding (a cleanup landing pad outside the loop). */
NOINLINE int guarded_sum(const int *a, int n) {
  Guard guard;
  int s = 7;
  #pragma omp simd reduction(+:s)
  for (int i = 0; i < n; i++) s += checked_scale(a[i]) & 0xff;
  return s + live_guards;
}

/* The call under a divergent condition (in the masked lanes only). */
NOINLINE void halved(const float *x, float *out, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    float v = x[i];
    out[i] = v > 0.0f ? checked_halve(v) : -v;
  }
}

/* An object declared in the body, destroyed at the end of each iteration. */
NOINLINE void tallied(const int *a, int *out, int *counts, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    Tally tally = {&counts[i]};
    out[i] = checked_scale(a[i]) - counts[i];
  }
}

/* Catches inside the body (a try of an inlined function): refused. */
static inline int safe_scale(int x) {
  try {
    return checked_scale(x);
  } catch (const std::exception &) {
    return 0;
  }
}
NOINLINE void safely_scaled(const int *a, int *out, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) out[i] = safe_scale(a[i]) + 1;
}

void lw_test(void) {
  static int a[LW_MAX], out[LW_MAX], counts[LW_MAX];
  static float x[LW_MAX], fout[LW_MAX];
  int n;
  for (int i = 0; i < LW_MAX; i++) {
    a[i] = lw_iinput(i);
    x[i] = lw_input(i);
  }
  LW_FOR_TRIP_COUNTS(n) {
    memset(out, 0, sizeof out);
    scaled(a, out, n);
    lw_exact_iarray("scaled", n, out, LW_MAX);
    lw_exact_int("guarded_sum", n, guarded_sum(a, n));
    memset(fout, 0, sizeof fout);
    halved(x, fout, n);
    lw_exact_array("halved", n, fout, LW_MAX);
    for (int i = 0; i < LW_MAX; i++) counts[i] = i % 5;
    memset(out, 0, sizeof out);
    tallied(a, out, counts, n);
    lw_exact_iarray("tallied", n, out, LW_MAX);
    lw_exact_iarray("tallied.counts", n, counts, LW_MAX);
    // The refused loop catches: every eleventh element throws.
    for (int i = 0; i < LW_MAX; i++) a[i] = i % 11 == 4 ? poison_value : lw_iinput(i);
    memset(out, 0, sizeof out);
    safely_scaled(a, out, n);
    lw_exact_iarray("safely_scaled", n, out, LW_MAX);
    for (int i = 0; i < LW_MAX; i++) a[i] = lw_iinput(i);
  }
}
