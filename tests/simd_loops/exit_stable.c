// expect-vectorized: 3
#include "lw_loops.h"
/* Divergent loops whose state stops changing once a lane leaves
 * (crates/transform/src/exit_stable.rs): their live-outs need no tracker,
 * the lanes that left keep computing the values they left with. Clearing
 * the lowest set bit, shifting right until zero, and, not exit-stable, a
 * shift loop counting (its count keeps growing). */
static unsigned words[LW_MAX], spread[LW_MAX], shifted[LW_MAX];
static int counts[LW_MAX];
NOINLINE void clear_lowest(int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    unsigned x = words[i], r = 0;
    while (x != 0) {
      unsigned low = x & (0u - x);
      r |= low * 0x9e3779b9u;
      x ^= low;
    }
    spread[i] = r;
  }
}
NOINLINE void shift_out(int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    unsigned x = words[i] | 1u, r = 7;
    do {
      r = r ^ x;
      x >>= 3;
    } while (x != 0);
    shifted[i] = r;
  }
}
NOINLINE void count_shifts(int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    unsigned x = words[i];
    int count = 0;
    while (x != 0) {
      x >>= 2;
      count += 1 + (int)(x & 1u);
    }
    counts[i] = count;
  }
}
void lw_test(void) {
  int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) {
      words[i] = (unsigned)lw_iinput(i) * 2654435761u >> (i % 29);
      spread[i] = shifted[i] = 1u;
      counts[i] = -1;
    }
    clear_lowest(n);
    lw_exact_iarray("clear_lowest", n, (int *)spread, LW_MAX);
    shift_out(n);
    lw_exact_iarray("shift_out", n, (int *)shifted, LW_MAX);
    count_shifts(n);
    lw_exact_iarray("count_shifts", n, counts, LW_MAX);
  }
}
