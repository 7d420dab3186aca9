/* expf and logf in omp simd loops and declare simd functions, without
 * -ffast-math: the results must have the bits of glibc's scalar calls
 * (Lanewise's exact vector forms on targets with FMA, one call per lane
 * elsewhere), errno included. Inputs cover the vector path and the lanes
 * it leaves to the scalar function: overflow and underflow of expf, NaN and
 * infinities, zero, negative and subnormal arguments of logf, and 1.0f. */
#include <errno.h>
#include <float.h>
#include <math.h>

#include "programs.h"

#define N 4099

static float xs[N], ps[N], spot[N], strike[N], years[N];
static float soft[N], loglik[N], price[N], tails[N];

/* The normal CDF of Abramowitz-Stegun 26.2.17 and a Black-Scholes call. */
#pragma omp declare simd notinbranch
static float normal_cdf(float d) {
    float x = fabsf(d);
    float k = 1.0f / (1.0f + 0.2316419f * x);
    float poly = k * (0.319381530f +
                      k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
    float tail = 0.39894228f * expf(-0.5f * x * x) * poly;
    return d < 0.0f ? tail : 1.0f - tail;
}

#pragma omp declare simd uniform(rate, volatility) notinbranch
float call_price(float s, float k, float t, float rate, float volatility) {
    float root = sqrtf(t);
    float d1 = (logf(s / k) + (rate + 0.5f * volatility * volatility) * t) / (volatility * root);
    float d2 = d1 - volatility * root;
    return s * normal_cdf(d1) - k * expf(-rate * t) * normal_cdf(d2);
}

/* Softmax numerators over a row, shifted by the row's maximum. */
static void softmax_numerators(int n) {
    float top = -INFINITY;
    for (int i = 0; i < n; i++) top = xs[i] > top ? xs[i] : top;
#pragma omp simd
    for (int i = 0; i < n; i++) soft[i] = expf(xs[i] - top);
}

/* Weighted log-likelihood terms; p holds zeros, negatives, subnormals. */
static void log_terms(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) loglik[i] = (1.0f + 0.5f * xs[i]) * logf(ps[i]);
}

static void prices(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) price[i] = call_price(spot[i], strike[i], years[i], 0.02f, 0.3f);
}

/* A divergent loop whose lanes call expf and logf under a mask: each lane
 * halves its value until exp of it is small, logging the steps. */
static void divergent_tails(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) {
        float v = xs[i], acc = 0.0f;
        int steps = 0;
        while (expf(v) > 1.5f && steps < 12) {
            acc += logf(v);
            v = v * 0.5f;
            steps++;
        }
        tails[i] = acc + (float)steps;
    }
}

int main(void) {
    for (int i = 0; i < N; i++) {
        xs[i] = lw_float(-110.0f, 95.0f);
        ps[i] = lw_float(0.0f, 3.0f);
        spot[i] = lw_float(50.0f, 150.0f);
        strike[i] = lw_float(50.0f, 150.0f);
        years[i] = lw_float(0.1f, 2.1f);
    }
    /* The lanes the vector forms leave to libm, scattered over the vectors. */
    const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -1.0f,
                              FLT_MIN, FLT_TRUE_MIN, 1e-40f, 88.7f, 89.0f, -103.5f, -104.0f,
                              FLT_MAX, -FLT_MAX, 0x1.62e42ep6f, -0x1.9fe368p6f};
    int count = (int)(sizeof specials / sizeof specials[0]);
    for (int j = 0; j < count; j++) {
        xs[37 * j + 3] = specials[j];
        ps[29 * j + 5] = specials[j];
        years[41 * j + 7] = j % 3 == 0 ? specials[j] : years[41 * j + 7];
    }
    errno = 0;
    LW_TIMED(softmax_numerators(N));
    lw_print_floats("softmax", soft, N);
    int after_softmax = errno;
    errno = 0;
    LW_TIMED(log_terms(N));
    lw_print_floats("loglik", loglik, N);
    int after_log = errno;
    errno = 0;
    LW_TIMED(prices(N));
    lw_print_floats("prices", price, N);
    int after_prices = errno;
    errno = 0;
    LW_TIMED(divergent_tails(N));
    lw_print_floats("tails", tails, N);
    printf("errno after each kernel: %d %d %d %d\n", after_softmax, after_log, after_prices, errno);
    return 0;
}
