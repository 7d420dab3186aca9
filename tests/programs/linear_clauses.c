/* `linear` clauses: on the omp simd loop (a second induction variable) and on
 * declare simd parameters (pointers that advance with the lane), plus
 * `uniform` parameters. */
#include "programs.h"

#define N 1500

static float source[2 * N + 8], target[N], scaled[N];

/* p is linear (one float per lane), scale is uniform. */
#pragma omp declare simd notinbranch linear(p) uniform(scale)
float scaled_clamp(const float *p, float scale) {
    float v = *p * scale;
    if (v > 10.0f) v = 10.0f + (v - 10.0f) * 0.125f;
    return v;
}

/* Step 2 in elements: reads every other float. */
#pragma omp declare simd notinbranch linear(pair : 2)
float pair_sum(const float *pair) {
    float sum = pair[0] + pair[1];
    int halvings = 0;
    while (sum > 1.0f && halvings < 20) {
        sum *= 0.5f;
        halvings++;
    }
    return sum + (float)halvings;
}

static void kernel(int n) {
    int j = 0;
#pragma omp simd linear(j : 2)
    for (int i = 0; i < n; i++) {
        target[i] = pair_sum(&source[j]);
        j += 2;
    }
#pragma omp simd
    for (int i = 0; i < n; i++) scaled[i] = scaled_clamp(&source[i], 3.5f);
}

int main(void) {
    for (int i = 0; i < 2 * N + 8; i++) source[i] = lw_float(0.0f, 6.0f);
    LW_TIMED(kernel(N));
    lw_print_floats("pair_sum", target, N);
    lw_print_floats("scaled", scaled, N);
    return 0;
}
