// expect-vectorized: 1
// A stencil: LLVM's GVN load PRE carries in[i + 1] and in[i + 2] over to the
// next iteration in header phis (load recurrences); lanewise turns them back
// into loads (loop_vectorize::recurrence) and vectorizes the loop, whose
// divergent inner while loop keeps LLVM's vectorizer out.
#include "lw_loops.h"
NOINLINE void smooth(float *restrict out, const float *restrict in, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    float v = 0.25f * in[i] + 0.5f * in[i + 1] + 0.25f * in[i + 2];
    int rounds = 0;
    while (v > 4.0f) { v = 4.0f + (v - 4.0f) * 0.3f; rounds++; }
    out[i] = v + 0.0001f * (float)rounds;
  }
}
void lw_test(void) {
  static float o[LW_MAX], b[LW_MAX + 2]; int n;
  LW_FOR_TRIP_COUNTS(n) {
    for (int i = 0; i < LW_MAX; i++) o[i] = -1.0f;
    for (int i = 0; i < LW_MAX + 2; i++) b[i] = lw_input(i) * (i % 7 == 0 ? 9.0f : 1.0f);
    smooth(o, b, n);
    lw_exact_array("smooth", n, o, LW_MAX);
  }
}
