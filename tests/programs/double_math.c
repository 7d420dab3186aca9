/* Double precision with libm calls in a declare simd function. Without
 * -ffast-math, lanewise cc keeps libm calls bit-exact (one call per lane). */
#include <math.h>
#include "programs.h"

#define N 1777

#pragma omp declare simd notinbranch
double damped_oscillation(double t) {
    double value = exp(-0.1 * t) * cos(3.0 * t);
    int folds = 0;
    while (fabs(value) > 0.25 && folds < 10) {
        value = sqrt(fabs(value)) * (value < 0.0 ? -0.5 : 0.5);
        folds++;
    }
    return value + 0.001 * folds;
}

static double ts[N], out[N];

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) out[i] = damped_oscillation(ts[i]);
}

int main(void) {
    for (int i = 0; i < N; i++) ts[i] = lw_double(0.0, 30.0);
    LW_TIMED(kernel(N));
    lw_print_doubles("out", out, N);
    return 0;
}
