// expect-vectorized: 5
// Atomics in omp simd loops: per-lane atomics in lane order (varying
// addresses, colliding lanes, cmpxchg, under a divergent branch) and the
// combined atomic of a uniform address (add with the old values used, a
// counter, or/min/max with the result unused, xchg under a branch). Lane
// order equals the scalar loop's order, so the old values and the memory
// left are bit-exact.
#include "lw_loops.h"
NOINLINE void histogram(int *bins, int *tickets, const int *in, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    int bin = in[i] & 15;
    tickets[i] = __atomic_fetch_add(&bins[bin], i + 1, __ATOMIC_RELAXED);
  }
}
NOINLINE void uniform_counter(int *total, unsigned *flags, int *lo, int *hi, int *old, const int *in, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    old[i] = __atomic_fetch_add(total, in[i], __ATOMIC_SEQ_CST);
    __atomic_fetch_or(flags, 1u << (in[i] & 31), __ATOMIC_RELAXED);
    __atomic_fetch_min(lo, in[i], __ATOMIC_RELAXED);
    __atomic_fetch_max(hi, in[i], __ATOMIC_RELAXED);
  }
}
NOINLINE void guarded_exchange(int *slots, int *out, const int *in, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    if (in[i] > 0)
      out[i] = __atomic_exchange_n(&slots[in[i] & 7], i, __ATOMIC_ACQ_REL);
    else
      out[i] = -__atomic_fetch_sub(&slots[8], 1, __ATOMIC_SEQ_CST);
  }
}
NOINLINE void claim_slots(int *owner, int *claimed, const int *in, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    int expected = -1;
    int ok = __atomic_compare_exchange_n(&owner[in[i] & 31], &expected, i, 0,
                                         __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
    claimed[i] = ok ? -1 : expected;
  }
}
NOINLINE void last_writer(int *slot, int *previous, const int *in, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++)
    if (in[i] & 1) previous[i] = __atomic_exchange_n(slot, i, __ATOMIC_SEQ_CST);
}
void lw_test(void) {
  static int in[LW_MAX], a[LW_MAX], b[LW_MAX], bins[64];
  unsigned flags; int total, lo, hi, n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) { in[i] = lw_iinput(i); a[i] = b[i] = 0; }
    for (int i = 0; i < 64; i++) bins[i] = i;
    histogram(bins, a, in, n);
    lw_exact_iarray("histogram_bins", n, bins, 64);
    lw_exact_iarray("histogram_tickets", n, a, LW_MAX);
    total = 5; flags = 0; lo = 1000; hi = -1000;
    uniform_counter(&total, &flags, &lo, &hi, b, in, n);
    lw_exact_int("counter_total", n, total);
    lw_exact_int("counter_flags", n, flags);
    lw_exact_int("counter_lo", n, lo);
    lw_exact_int("counter_hi", n, hi);
    lw_exact_iarray("counter_old", n, b, LW_MAX);
    for (int i = 0; i < 64; i++) bins[i] = 100 + i;
    guarded_exchange(bins, a, in, n);
    lw_exact_iarray("exchange_slots", n, bins, 64);
    lw_exact_iarray("exchange_out", n, a, LW_MAX);
    for (int i = 0; i < 64; i++) bins[i] = (i % 3 == 0) ? 7 : -1;
    claim_slots(bins, b, in, n);
    lw_exact_iarray("claim_owner", n, bins, 64);
    lw_exact_iarray("claim_out", n, b, LW_MAX);
    total = -7;
    for (int i = 0; i < LW_MAX; i++) a[i] = -1;
    last_writer(&total, a, in, n);
    lw_exact_int("last_writer_slot", n, total);
    lw_exact_iarray("last_writer_previous", n, a, LW_MAX);
  }
}
