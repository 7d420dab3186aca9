// expect-vectorized: 3
/* Arrays declared in an omp simd loop body (directly, or in a function
 * inlined there) are private to the iteration, but LLVM hoists their
 * allocas to the function's entry block. The loop body must allocate them
 * itself, one per lane; shared, the lanes overwrote each other's data
 * (found by lanewise-fuzz: every lane read lane W-1's array). An address
 * into such an array at a loop-invariant index, which LICM computes before
 * the loop, is computed again in the body from the lane's own array. */
#include "lw_loops.h"
/* Fill counts that are not constants keep the loops rolled and the arrays
 * in memory. */
static inline int filled_then_read(int a, int k, int fill) {
  int buffer[16];
  for (int z = 0; z < fill; z++) buffer[z] = a * 3 + z;
  return buffer[k % fill];
}
NOINLINE void through_inlined(int *out, const int *in, int n, int fill) {
  #pragma omp simd
  for (int i = 0; i < n; i++) out[i] = filled_then_read(in[i], i, fill);
}
NOINLINE unsigned xor_of_firsts(const int *in, int n, int fill) {
  unsigned r = 0;
  #pragma omp simd reduction(^:r)
  for (int i = 0; i < n; i++) {
    int ka[8];
    for (int z = 0; z < fill; z++) ka[z] = in[i] + z;
    r ^= (unsigned)ka[0] * 2654435761u + (unsigned)ka[i % fill];
  }
  return r;
}
NOINLINE unsigned read_at_invariant(const int *in, int n, int fill) {
  unsigned last = 0;
  #pragma omp simd lastprivate(last)
  for (int i = 0; i < n; i++) {
    double table[16];
    for (int z = 0; z < fill; z++) table[z] = (double)(in[i] + z);
    last = (unsigned)(table[(unsigned)n % (unsigned)fill] + 1000.0);
  }
  return last;
}
void lw_test(void) {
  static int in[LW_MAX], out[LW_MAX]; int n;
  for (int i = 0; i < LW_MAX; i++) in[i] = lw_iinput(i);
  LW_FOR_TRIP_COUNTS(n) {
    memset(out, 0, sizeof out);
    through_inlined(out, in, n, 16 - (n & 3));
    lw_exact_iarray("through_inlined", n, out, LW_MAX);
    lw_exact_int("xor_of_firsts", n, xor_of_firsts(in, n, 8 - (n & 1)));
    if (n > 0) lw_exact_int("read_at_invariant", n, read_at_invariant(in, n, 16 - (n & 1)));
  }
}
