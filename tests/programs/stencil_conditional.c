/* A stencil with neighbours (contiguous loads at offsets) and a clamp that
 * calls a declare simd function only on some lanes. */
#include "programs.h"

#define N 4100

#pragma omp declare simd notinbranch
float compress(float x) {
    int rounds = 0;
    while (x > 4.0f) {
        x = 4.0f + (x - 4.0f) * 0.3f;
        rounds++;
    }
    return x + 0.0001f * (float)rounds;
}

static float in[N + 2], out[N];

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) {
        float v = 0.25f * in[i] + 0.5f * in[i + 1] + 0.25f * in[i + 2];
        out[i] = v > 3.0f ? compress(v * 1.5f) : v;
    }
}

int main(void) {
    for (int i = 0; i < N + 2; i++) in[i] = lw_float(0.0f, 40.0f) * (i % 7 == 0 ? 1.0f : 0.1f);
    LW_TIMED(kernel(N));
    lw_print_floats("out", out, N);
    return 0;
}
