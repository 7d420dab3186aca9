/* Float and double reductions +, *, min and max. A vectorized reduction adds
 * in another order, so the results are printed on `approx` lines (relative
 * tolerance 1e-4 for float, 1e-10 for double). */
#include "programs.h"

#define N 4001

static float xs[N];
static double ys[N];

#pragma omp declare simd notinbranch
float damp(float x) {
    while (x > 2.0f) x *= 0.75f;
    return x;
}

static float sum, low, high, prod;
static double dsum, dprod, dlow, dhigh;

static void kernel(int n) {
    float s = 0.0f, l = 1e30f, h = -1e30f, p = 1.0f;
    double ds = 0.0, dp = 1.0, dl = 1e300, dh = -1e300;
#pragma omp simd reduction(+ : s, ds) reduction(* : p, dp) reduction(min : l, dl) \
    reduction(max : h, dh)
    for (int i = 0; i < n; i++) {
        float damped = damp(xs[i]);
        s += damped;
        p *= 1.0f + (damped - 1.75f) * 0.001f;
        l = damped < l ? damped : l;
        h = damped > h ? damped : h;
        ds += ys[i] * (double)damped;
        dp *= ys[i];
        dl = ys[i] < dl ? ys[i] : dl;
        dh = ys[i] > dh ? ys[i] : dh;
    }
    sum = s, prod = p, low = l, high = h;
    dsum = ds, dprod = dp, dlow = dl, dhigh = dh;
}

int main(void) {
    for (int i = 0; i < N; i++) {
        xs[i] = lw_float(0.5f, 8.0f);
        ys[i] = lw_double(0.999, 1.001);
    }
    int sizes[] = {0, 1, 3, 8, 17, 250, N};
    for (int k = 0; k < 7; k++) {
        int n = sizes[k];
        LW_TIMED(kernel(n));
        printf("n=%d\n", n);
        printf("approx float sum %.9g product %.9g min %.9g max %.9g\n", sum, prod, low, high);
        printf("approx double sum %.17g product %.17g min %.17g max %.17g\n", dsum, dprod, dlow,
               dhigh);
    }
    return 0;
}
