/* reduced (by hand, from seed 2600): -march=x86-64-v2, -v4, skylake-avx512, native: timeout: program timed out */
/* f1, inlined into the simd loop, holds a uniform loop `k + 1 != n` behind `n != 0 && c` with c varying: entered with an empty mask and n == 0, it ran until k wrapped around (every g_i[k] read as zero). Fixed by linearize/empty_mask_loops.rs. */
/* lanewise-fuzz program, seed 2600 (crates/fuzz). */
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
#define N 128

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

static uint64_t lw_state = 0xe36c43f4cc7c3549ull;
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

int f1(const float *a7, unsigned a8) {
    unsigned l9 = in_u[(unsigned)(g_i[(unsigned)(in_i[(unsigned)(67) & 1023u]) & 63u]) & 1023u];
    float l10 = (-2.5e0f);
    unsigned l11 = l9;
    l11 = ((((l9) - (((1000u) + (in_u[(unsigned)(57) & 1023u]))))) & (((((g_u[(unsigned)(54) & 63u]) % (((l11) & 15u) + 1u))) % (((((4294967295u) + (1000u))) & 15u) + 1u))));
    {
        l10 = ((((float)(sqrt(fabs(1e6))))) + (l10));
        l10 = (-(l10));
    }
    for (int k14 = 0; k14 < (int)((unsigned)(((int)(l9))) & 7u); k14++) {
        if (g_i[(unsigned)(k14) & 63u]) {
            return (((~(k14))) & (((1000) | (g_i[(unsigned)(9) & 63u]))));
        }
    }
    return 15;
}

static void kernel15(int n) {
#pragma omp simd simdlen(4)
    for (int i = 0; i < n; i++) {
        int t17 = g_i[i & 63];
        double ka18[4];
        for (int z = 0; z < 4; z++) ka18[z] = g_d[(unsigned)(t17) & 63u] + (double)z;
        int ka19[16];
        for (int z = 0; z < 16; z++) ka19[z] = (int)((unsigned)(in_i[(unsigned)(i) & 1023u]) + (unsigned)z);
        ka19[(unsigned)(lw_d2i(in_d[(unsigned)(i) & 1023u])) & 15u] = (((((-0.0)) > (ka18[(unsigned)(n) & 3u]))) ? 5 : (f1(&in_f[2 * i], 1u)));
        {
            int w20 = 0;
            while (w20 < 3 && (((((in_d[(unsigned)(5) & 1023u]) * (((ka18[(unsigned)(t17) & 3u]) * (5e-1))))) == (1e0)))) {
                w20++;
                if (in_d[i] < 0) {
                        t17 = g_i[(unsigned)(ka19[(unsigned)(lw_f2i(1e2f)) & 15u]) & 63u];
                        ka18[(unsigned)(g_i[(unsigned)(58) & 63u]) & 3u] = 2.0;
                }
            }
        }
        out_u[i] = ((unsigned)(f1(&in_f[2 * i], 7u)));
    }
    for (int i = 0; i < n; i++) lw_print_f("kernel15 out_f", i, out_f[i]);
    for (int i = 0; i < n; i++) lw_print_u("kernel15 out_u", i, out_u[i]);
}

int main(void) {
    for (int k = 0; k < 64; k++) {
        g_i[k] = lw_int(); g_u[k] = lw_uint(); g_f[k] = lw_float(); g_d[k] = lw_double();
    }
    for (int k = 0; k < 1024; k++) {
        in_i[k] = lw_int(); in_u[k] = lw_uint(); in_f[k] = lw_float(); in_d[k] = lw_double();
    }
    kernel15(N > 6 ? N - 6 : 0);
    return 0;
}
