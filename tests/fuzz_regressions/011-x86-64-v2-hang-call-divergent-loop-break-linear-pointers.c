/* reduced: -march=x86-64-v2: timeout: program timed out */
/* lanewise-fuzz program, seed 20145 (crates/fuzz). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* rv_any and rv_all of include/lanewise/rv.h (one-lane meaning in the
 * scalar build); used only as `if (rv_any(c)) if (c)`, `rv_all(c) || c`
 * and `rv_any(c) && c`, whose result per lane is that of `c`. */
#ifdef LANEWISE_RV_SCALAR
static inline bool rv_any(bool b) { return b; }
static inline bool rv_all(bool b) { return b; }
#else
extern bool rv_any(bool b);
extern bool rv_all(bool b);
#endif

static inline int lw_f2i(float x) { return fabsf(x) < 2.0e9f ? (int)x : 0; }
static inline unsigned lw_f2u(float x) { return x >= 0.0f && x < 4.0e9f ? (unsigned)x : 0u; }
static inline int lw_d2i(double x) { return fabs(x) < 2.0e9 ? (int)x : 0; }
static inline unsigned lw_d2u(double x) { return x >= 0.0 && x < 4.0e9 ? (unsigned)x : 0u; }

static void lw_print_i(const char *what, int k, int v) { printf("%s %d %d\n", what, k, v); }
static void lw_print_u(const char *what, int k, unsigned v) { printf("%s %d %u\n", what, k, v); }
/* Floats as bit patterns; NaN payloads are unspecified in C, so "nan". */
static void lw_print_f(const char *what, int k, float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (v != v) printf("%s %d nan\n", what, k);
    else printf("%s %d %08x\n", what, k, bits);
}
static void lw_print_d(const char *what, int k, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (v != v) printf("%s %d nan\n", what, k);
    else printf("%s %d %016llx\n", what, k, (unsigned long long)bits);
}
#define N 4

static int g_i[64];
static unsigned g_u[64];
static float g_f[64];
static double g_d[64];
static int in_i[1024];
static unsigned in_u[1024];
static float in_f[1024];
static double in_d[1024];
static int out_i[400];
static unsigned out_u[400];
static float out_f[400];
static double out_d[400];

static uint64_t lw_state = 0x4b71ae09b44e3085ull;
static uint32_t lw_next(void) {
    lw_state ^= lw_state << 13;
    lw_state ^= lw_state >> 7;
    lw_state ^= lw_state << 17;
    return (uint32_t)(lw_state >> 32);
}
static int lw_int(void) {
    uint32_t r = lw_next();
    return (r & 3u) == 0 ? (int)r : (int)(r % 64u) - 32;
}
static unsigned lw_uint(void) {
    uint32_t r = lw_next();
    return (r & 3u) == 0 ? r : r % 100u;
}
static float lw_float(void) { return (float)((int)(lw_next() % 4001u) - 2000) * 0.0625f; }
static double lw_double(void) { return (double)((int)(lw_next() % 40001u) - 20000) * 0.03125; }

#pragma omp declare simd uniform(a2) linear(a3:1) linear(a4:2)
float f0(int a1, unsigned a2, const float *a3, const float *a4) {
    double l5 = ((in_i[(unsigned)(0) & 1023u]) ? (((in_d[(unsigned)(a1) & 1023u]) - (1e-1))) : (g_d[(unsigned)(0) & 63u]));
    int l6 = ((((g_u[(unsigned)(a1) & 63u]) == (0u))) | (in_i[(unsigned)(a1) & 1023u]));
    for (int k7 = 0; k7 < (int)((unsigned)(((((2e0) >= (g_d[(unsigned)(a1) & 63u]))) ? (g_i[(unsigned)(a1) & 63u]) : (l6))) & 3u); k7++) {
        l6 = ((int)((unsigned)(k7) * (unsigned)(a1)));
        if ((in_u[(unsigned)(k7) & 1023u]) == (a2)) {
            break;
        }
        l5 = fabs(((0.0) / (in_d[(unsigned)(0u) & 1023u])));
    }
    if ((g_d[(unsigned)(l6) & 63u]) >= (((((1u) >= (a2))) ? (g_d[(unsigned)(22) & 63u]) : (l5)))) {
        return ((in_i[(unsigned)(l6) & 1023u]) ? (a3[(unsigned)(0) & 1u]) : (1e2f));
    }
    return a4[(unsigned)(1) & 1u];
}

static void kernel15(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) {
        float t17 = 0.0f;
        t17 = ((float)(lw_f2u(f0(i, 1u, &in_f[1 * i], &in_f[2 * i]))));
    }
}

int main(void) {
    for (int k = 0; k < 64; k++) {
        g_i[k] = lw_int(); g_u[k] = lw_uint(); g_f[k] = lw_float(); g_d[k] = lw_double();
    }
    for (int k = 0; k < 1024; k++) {
        in_i[k] = lw_int(); in_u[k] = lw_uint(); in_f[k] = lw_float(); in_d[k] = lw_double();
    }
    kernel15(N > 0 ? N - 0 : 0);
    return 0;
}
