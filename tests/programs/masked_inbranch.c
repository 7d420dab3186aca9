/* A declare simd inbranch function called under a divergent condition: the
 * masked variant runs with only some lanes active. */
#include "programs.h"

#define N 2500

#pragma omp declare simd inbranch
float log2_steps(float x) {
    float steps = 0.0f;
    while (x >= 2.0f) {
        x *= 0.5f;
        steps += 1.0f;
    }
    return steps + (x - 1.0f);
}

static float xs[N], out[N];

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) {
        float v = xs[i];
        if (v > 1.0f) out[i] = log2_steps(v);
        else out[i] = -v;
    }
}

int main(void) {
    for (int i = 0; i < N; i++) xs[i] = lw_float(-5.0f, 100000.0f) * (i % 3 == 0 ? 0.00001f : 1.0f);
    LW_TIMED(kernel(N));
    lw_print_floats("out", out, N);
    return 0;
}
