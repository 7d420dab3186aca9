// expect-vectorized: 1
// One function, three loops: two that LLVM's loop vectorizer vectorizes
// itself (forced by the pragma even under -fno-vectorize: a map with a sum
// reduction, and a conditional store that becomes a masked store), and one
// `#pragma omp simd` loop with an inner while loop that LLVM leaves scalar.
// Lanewise must vectorize the third without scalarizing the first two.
#include "lw_loops.h"
NOINLINE long long mixed(int *out, int *steps, int *positive, const int *in, int n) {
  long long sum = 0;
#pragma clang loop vectorize(enable)
  for (int i = 0; i < n; i++) {
    out[i] = in[i] * 3 + 1;
    sum += in[i];
  }
#pragma clang loop vectorize(enable)
  for (int i = 0; i < n; i++)
    if (in[i] > 0) positive[i] = in[i];
#pragma omp simd
  for (int i = 0; i < n; i++) {
    int x = out[i] < 0 ? -out[i] : out[i] + 1;
    int count = 0;
    while (x > 1) { x = (x & 1) ? 3 * x + 1 : x / 2; count++; }
    steps[i] = count;
  }
  return sum;
}
void lw_test(void) {
  static int o[LW_MAX], s[LW_MAX], p[LW_MAX], b[LW_MAX]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) { o[i] = s[i] = p[i] = -1; b[i] = lw_iinput(i); }
    long long sum = mixed(o, s, p, b, n);
    lw_exact_int("sum", n, sum);
    lw_exact_iarray("out", n, o, LW_MAX);
    lw_exact_iarray("steps", n, s, LW_MAX);
    lw_exact_iarray("positive", n, p, LW_MAX);
  }
}
