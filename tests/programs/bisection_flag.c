/* Root finding by bisection with a convergence flag instead of break, per
 * lane a different cubic. */
#include "programs.h"

#define N 1601

static float coefficients[N], roots[N];
static int steps[N];

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) {
        float c = coefficients[i];
        float low = 0.0f, high = 4.0f;
        int converged = 0, count = 0;
        for (int k = 0; k < 64; k++) {
            if (!converged) {
                float middle = 0.5f * (low + high);
                float value = middle * middle * middle - c;
                if (value > 0.0f) high = middle;
                else low = middle;
                count++;
                if (high - low < 1e-5f) converged = 1;
            }
        }
        roots[i] = 0.5f * (low + high);
        steps[i] = count;
    }
}

int main(void) {
    for (int i = 0; i < N; i++) coefficients[i] = lw_float(0.0f, 60.0f);
    LW_TIMED(kernel(N));
    lw_print_floats("roots", roots, N);
    lw_print_ints("steps", steps, N);
    return 0;
}
