// Kernels of the demo (`scripts/demo.sh`): scalar functions with
// `#pragma omp declare simd`, compiled by clang-22 to LLVM IR and vectorized
// by lanewise. Mandelbrot and the binary search have divergent control flow
// (loops whose lanes leave at different iterations); the others have loops
// over uniform bounds and selects for data-dependent choices.
#include <math.h>
#include <stdint.h>

// Black-Scholes call price with the Abramowitz-Stegun normal CDF.
#pragma omp declare simd uniform(rate, volatility) notinbranch
float black_scholes(float spot, float strike, float years, float rate, float volatility) {
    float sqrt_t = sqrtf(years);
    float d1 = (logf(spot / strike) + (rate + 0.5f * volatility * volatility) * years) /
               (volatility * sqrt_t);
    float d2 = d1 - volatility * sqrt_t;
    float cdf[2];
    float ds[2] = {d1, d2};
    for (int k = 0; k < 2; k++) {
        float d = ds[k];
        float x = fabsf(d);
        float t = 1.0f / (1.0f + 0.2316419f * x);
        float poly = t * (0.319381530f +
                          t * (-0.356563782f + t * (1.781477937f + t * (-1.821255978f + t * 1.330274429f))));
        float tail = 0.39894228f * expf(-0.5f * x * x) * poly;
        cdf[k] = d < 0.0f ? tail : 1.0f - tail;
    }
    return spot * cdf[0] - strike * expf(-rate * years) * cdf[1];
}

// Gravitational acceleration on body `i` (x component) from `count` bodies.
#pragma omp declare simd uniform(px, py, pz, mass, count) linear(i) notinbranch
float nbody_accel_x(const float *px, const float *py, const float *pz, const float *mass,
                    int count, int i) {
    float x = px[i], y = py[i], z = pz[i];
    float ax = 0.0f;
    for (int j = 0; j < count; j++) {
        float dx = px[j] - x, dy = py[j] - y, dz = pz[j] - z;
        float dist2 = dx * dx + dy * dy + dz * dz + 1e-3f;
        float inv = 1.0f / sqrtf(dist2);
        ax += mass[j] * dx * inv * inv * inv;
    }
    return ax;
}

// Horner evaluation of a polynomial of uniform degree.
#pragma omp declare simd uniform(coeffs, degree) notinbranch
double horner(double x, const double *coeffs, int degree) {
    double acc = coeffs[degree];
    for (int k = degree - 1; k >= 0; k--)
        acc = acc * x + coeffs[k];
    return acc;
}

// A 32-bit integer hash (murmur3 finalizer), iterated `rounds` times.
#pragma omp declare simd uniform(rounds) notinbranch
uint32_t hash_mix(uint32_t h, int rounds) {
    for (int r = 0; r < rounds; r++) {
        h ^= h >> 16;
        h *= 0x85ebca6bu;
        h ^= h >> 13;
        h *= 0xc2b2ae35u;
        h ^= h >> 16;
    }
    return h;
}

// Escape-time iterations of the Mandelbrot set: lanes leave the loop at
// different iterations (a divergent loop, PLDI'18 section 5).
#pragma omp declare simd uniform(max_iter) notinbranch
int mandelbrot(float cr, float ci, int max_iter) {
    float zr = 0.0f, zi = 0.0f;
    int i = 0;
    while (i < max_iter && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        i++;
    }
    return i;
}

// Lower bound of `key` in a sorted table: a loop with a varying trip count
// and data-dependent gathers.
#pragma omp declare simd uniform(table, count) notinbranch
int lower_bound(const float *table, int count, float key) {
    int low = 0, high = count;
    while (low < high) {
        int middle = (low + high) / 2;
        if (table[middle] < key)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}
