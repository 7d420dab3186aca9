// The demo driver: runs each kernel of kernels.c over many items, once with
// one call of the scalar function per item and once with one call of the
// AVX2 variant lanewise generated per 8 (or 4) items; checks that the results
// agree (bit-exactly, or within the documented ulp of glibc's libmvec for
// kernels that call libm) and prints the median times and the speedup.
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef float v8f __attribute__((ext_vector_type(8)));
typedef double v4d __attribute__((ext_vector_type(4)));
typedef uint32_t v8u __attribute__((ext_vector_type(8)));

float black_scholes(float, float, float, float, float);
v8f _ZGVdN8vvvuu_black_scholes(v8f, v8f, v8f, float, float);
float nbody_accel_x(const float *, const float *, const float *, const float *, int, int);
v8f _ZGVdN8uuuuul_nbody_accel_x(const float *, const float *, const float *, const float *, int,
                                 int);
double horner(double, const double *, int);
v4d _ZGVdN4vuu_horner(v4d, const double *, int);
uint32_t hash_mix(uint32_t, int);
v8u _ZGVdN8vu_hash_mix(v8u, int);
typedef int32_t v8i __attribute__((ext_vector_type(8)));
int mandelbrot(float, float, int);
v8i _ZGVdN8vvu_mandelbrot(v8f, v8f, int);
int lower_bound(const float *, int, float);
v8i _ZGVdN8uuv_lower_bound(const float *, int, v8f);

enum { ITEMS = 1 << 16, BODIES = 2048, REPEATS = 7 };

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t next_u32(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}
static float uniform01(void) { return (next_u32() >> 8) * (1.0f / 16777216.0f); }

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *samples, int count) {
    qsort(samples, count, sizeof(double), compare_doubles);
    return samples[count / 2];
}

// Distance in units in the last place between two floats (0 if both NaN).
static int64_t ulp_distance_f32(float a, float b) {
    if (isnan(a) && isnan(b)) return 0;
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0) ia = INT32_MIN - ia;
    if (ib < 0) ib = INT32_MIN - ib;
    return llabs((int64_t)ia - (int64_t)ib);
}

// Inputs, shared by all kernels.
static float spot[ITEMS], strike[ITEMS], years[ITEMS], out_scalar_f[ITEMS], out_vector_f[ITEMS];
static float px[BODIES], py[BODIES], pz[BODIES], mass[BODIES];
static double xs[ITEMS], coeffs[16], out_scalar_d[ITEMS], out_vector_d[ITEMS];
static uint32_t hs[ITEMS], out_scalar_u[ITEMS], out_vector_u[ITEMS];
enum { GRID = 256, TABLE = 1 << 14 };
static float grid_re[GRID * GRID], grid_im[GRID * GRID], table[TABLE], keys[ITEMS];
static int32_t out_scalar_i[GRID * GRID], out_vector_i[GRID * GRID];

// Runs the scalar and the vector version REPEATS times each, interleaved,
// and stores the median seconds of each.
static void time_pair(void (*scalar_run)(void), void (*vector_run)(void), double *scalar_median,
                      double *vector_median) {
    double scalar_samples[REPEATS], vector_samples[REPEATS];
    for (int repeat = 0; repeat < REPEATS; repeat++) {
        double start = now_seconds();
        scalar_run();
        scalar_samples[repeat] = now_seconds() - start;
        start = now_seconds();
        vector_run();
        vector_samples[repeat] = now_seconds() - start;
    }
    *scalar_median = median(scalar_samples, REPEATS);
    *vector_median = median(vector_samples, REPEATS);
}

static const float rate = 0.02f, volatility = 0.3f;

static void black_scholes_scalar(void) {
    for (int i = 0; i < ITEMS; i++)
        out_scalar_f[i] = black_scholes(spot[i], strike[i], years[i], rate, volatility);
}
static void black_scholes_vector(void) {
    for (int i = 0; i < ITEMS; i += 8) {
        v8f s, k, t;
        memcpy(&s, &spot[i], sizeof s);
        memcpy(&k, &strike[i], sizeof k);
        memcpy(&t, &years[i], sizeof t);
        v8f r = _ZGVdN8vvvuu_black_scholes(s, k, t, rate, volatility);
        memcpy(&out_vector_f[i], &r, sizeof r);
    }
}
static void nbody_scalar(void) {
    for (int i = 0; i < BODIES; i++) out_scalar_f[i] = nbody_accel_x(px, py, pz, mass, BODIES, i);
}
static void nbody_vector(void) {
    for (int i = 0; i < BODIES; i += 8) {
        v8f r = _ZGVdN8uuuuul_nbody_accel_x(px, py, pz, mass, BODIES, i);
        memcpy(&out_vector_f[i], &r, sizeof r);
    }
}
static void horner_scalar(void) {
    for (int i = 0; i < ITEMS; i++) out_scalar_d[i] = horner(xs[i], coeffs, 15);
}
static void horner_vector(void) {
    for (int i = 0; i < ITEMS; i += 4) {
        v4d x;
        memcpy(&x, &xs[i], sizeof x);
        v4d r = _ZGVdN4vuu_horner(x, coeffs, 15);
        memcpy(&out_vector_d[i], &r, sizeof r);
    }
}
static void hash_scalar(void) {
    for (int i = 0; i < ITEMS; i++) out_scalar_u[i] = hash_mix(hs[i], 8);
}
static void hash_vector(void) {
    for (int i = 0; i < ITEMS; i += 8) {
        v8u h;
        memcpy(&h, &hs[i], sizeof h);
        v8u r = _ZGVdN8vu_hash_mix(h, 8);
        memcpy(&out_vector_u[i], &r, sizeof r);
    }
}

static int failures = 0;
static double speedup_log_sum = 0;
static int kernels_run = 0;

static void report(const char *name, const char *variant, double scalar_s, double vector_s,
                   const char *check) {
    printf("%-15s %-28s %10.3f ms %10.3f ms %8.2fx   %s\n", name, variant, scalar_s * 1e3,
           vector_s * 1e3, scalar_s / vector_s, check);
    speedup_log_sum += log(scalar_s / vector_s);
    kernels_run++;
}

static void run_black_scholes(void) {
    for (int i = 0; i < ITEMS; i++) {
        spot[i] = 50.0f + 100.0f * uniform01();
        strike[i] = 50.0f + 100.0f * uniform01();
        years[i] = 0.1f + 2.0f * uniform01();
    }
    double scalar_s, vector_s;
    time_pair(black_scholes_scalar, black_scholes_vector, &scalar_s, &vector_s);
    // glibc's libmvec expf/logf are within 4 ulp of libm; the price mixes a
    // few of them, so allow a relative error of 1e-5 of the price scale.
    double worst = 0;
    for (int i = 0; i < ITEMS; i++) {
        double error = fabs((double)out_scalar_f[i] - out_vector_f[i]) / (1.0 + fabs(out_scalar_f[i]));
        if (error > worst) worst = error;
    }
    char check[64];
    snprintf(check, sizeof check, "max rel. error %.1e (libmvec)", worst);
    if (worst > 1e-5) failures++, strcat(check, " FAIL");
    report("black_scholes", "_ZGVdN8vvvuu_black_scholes", scalar_s, vector_s, check);
}

static void run_nbody(void) {
    for (int j = 0; j < BODIES; j++) {
        px[j] = uniform01();
        py[j] = uniform01();
        pz[j] = uniform01();
        mass[j] = 0.5f + uniform01();
    }
    double scalar_s, vector_s;
    time_pair(nbody_scalar, nbody_vector, &scalar_s, &vector_s);
    int mismatches = memcmp(out_scalar_f, out_vector_f, BODIES * sizeof(float)) != 0;
    failures += mismatches;
    report("nbody_accel_x", "_ZGVdN8uuuuul_nbody_accel_x", scalar_s, vector_s,
           mismatches ? "MISMATCH" : "bit-exact");
}

static void run_horner(void) {
    for (int i = 0; i < ITEMS; i++) xs[i] = 2.0 * uniform01() - 1.0;
    for (int k = 0; k < 16; k++) coeffs[k] = 1.0 / (k + 1);
    double scalar_s, vector_s;
    time_pair(horner_scalar, horner_vector, &scalar_s, &vector_s);
    int mismatches = memcmp(out_scalar_d, out_vector_d, sizeof out_scalar_d) != 0;
    failures += mismatches;
    report("horner", "_ZGVdN4vuu_horner", scalar_s, vector_s, mismatches ? "MISMATCH" : "bit-exact");
}

static void run_hash(void) {
    for (int i = 0; i < ITEMS; i++) hs[i] = next_u32();
    double scalar_s, vector_s;
    time_pair(hash_scalar, hash_vector, &scalar_s, &vector_s);
    int mismatches = memcmp(out_scalar_u, out_vector_u, sizeof out_scalar_u) != 0;
    failures += mismatches;
    report("hash_mix", "_ZGVdN8vu_hash_mix", scalar_s, vector_s, mismatches ? "MISMATCH" : "bit-exact");
}
static void mandelbrot_scalar(void) {
    for (int i = 0; i < GRID * GRID; i++) out_scalar_i[i] = mandelbrot(grid_re[i], grid_im[i], 256);
}
static void mandelbrot_vector(void) {
    for (int i = 0; i < GRID * GRID; i += 8) {
        v8f re, im;
        memcpy(&re, &grid_re[i], sizeof re);
        memcpy(&im, &grid_im[i], sizeof im);
        v8i r = _ZGVdN8vvu_mandelbrot(re, im, 256);
        memcpy(&out_vector_i[i], &r, sizeof r);
    }
}
static void lower_bound_scalar(void) {
    for (int i = 0; i < ITEMS; i++) out_scalar_i[i] = lower_bound(table, TABLE, keys[i]);
}
static void lower_bound_vector(void) {
    for (int i = 0; i < ITEMS; i += 8) {
        v8f k;
        memcpy(&k, &keys[i], sizeof k);
        v8i r = _ZGVdN8uuv_lower_bound(table, TABLE, k);
        memcpy(&out_vector_i[i], &r, sizeof r);
    }
}

static void run_mandelbrot(void) {
    for (int y = 0; y < GRID; y++)
        for (int x = 0; x < GRID; x++) {
            grid_re[y * GRID + x] = -2.0f + x * (3.0f / GRID);
            grid_im[y * GRID + x] = -1.5f + y * (3.0f / GRID);
        }
    double scalar_s, vector_s;
    time_pair(mandelbrot_scalar, mandelbrot_vector, &scalar_s, &vector_s);
    int mismatches = memcmp(out_scalar_i, out_vector_i, sizeof out_scalar_i) != 0;
    failures += mismatches;
    report("mandelbrot", "_ZGVdN8vvu_mandelbrot", scalar_s, vector_s,
           mismatches ? "MISMATCH" : "bit-exact");
}

static void run_lower_bound(void) {
    for (int i = 0; i < TABLE; i++) table[i] = i * 0.5f;
    for (int i = 0; i < ITEMS; i++) keys[i] = uniform01() * TABLE * 0.5f;
    double scalar_s, vector_s;
    time_pair(lower_bound_scalar, lower_bound_vector, &scalar_s, &vector_s);
    int mismatches = memcmp(out_scalar_i, out_vector_i, ITEMS * sizeof(int32_t)) != 0;
    failures += mismatches;
    report("lower_bound", "_ZGVdN8uuv_lower_bound", scalar_s, vector_s,
           mismatches ? "MISMATCH" : "bit-exact");
}

int main(void) {
    printf("%-15s %-28s %13s %13s %9s   %s\n", "kernel", "variant", "scalar calls", "lanewise",
           "speedup", "check against scalar");
    run_black_scholes();
    run_nbody();
    run_horner();
    run_hash();
    run_mandelbrot();
    run_lower_bound();
    printf("geometric mean speedup: %.2fx over %d kernels (medians of %d interleaved runs)\n",
           exp(speedup_log_sum / kernels_run), kernels_run, REPEATS);
    if (failures) {
        printf("%d kernel(s) disagree with scalar\n", failures);
        return 1;
    }
    return 0;
}
