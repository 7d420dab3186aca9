/* reduced: -march=x86-64-v3 (and every -march): mismatch: line 1: expected `kernel23 out_i 0 0`, got `kernel23 out_i 0 -1` (4 lines differ) */
/* The private array ka31 is written in the loop, but LICM hoisted the address ka31[t28 > 0.0] out of it as `select c, &ka31[1], &ka31[0]`: the vectorized body wrote its own copy of the slot and read the original through the select. Fixed by loop_vectorize `addresses_into` (selects of addresses are recomputed in the body; other derivations refuse the loop). */
/* lanewise-fuzz program, seed 3368 (crates/fuzz). */
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

static uint64_t lw_state = 0x89d97072abf07449ull;
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

static void kernel23(int n) {
    memset(out_i, 0, sizeof out_i);
#pragma omp simd
    for (int i = 0; i < n; i++) {
        double t28 = g_d[(unsigned)(0) & 63u];
        int ka31[16];
        for (int z = 0; z < 16; z++) ka31[z] = (int)((unsigned)(0) + (unsigned)z);
        out_i[i] = ka31[(unsigned)(((t28) > (0.0))) & 15u];
    }
    for (int i = 0; i < n; i++) lw_print_i("kernel23 out_i", i, out_i[i]);
}

int main(void) {
    for (int k = 0; k < 64; k++) {
        g_i[k] = lw_int(); g_u[k] = lw_uint(); g_f[k] = lw_float(); g_d[k] = lw_double();
    }
    for (int k = 0; k < 1024; k++) {
        in_i[k] = lw_int(); in_u[k] = lw_uint(); in_f[k] = lw_float(); in_d[k] = lw_double();
    }
    kernel23(N > 0 ? N - 0 : 0);
    return 0;
}
