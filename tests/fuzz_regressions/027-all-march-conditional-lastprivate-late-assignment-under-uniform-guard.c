/* reduced: -march=x86-64-v2: mismatch: line 1: expected `kernel15 cl23 4 1`, got `kernel15 cl23 4 0` (1 lines differ) */
/* lanewise-fuzz program, seed 68099 (crates/fuzz). */
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

/* Division through helpers the optimizer sees as `memory(none)` but that
 * trap on a zero divisor (`Expr::GuardedDiv`): called only with a safe
 * divisor. */
__attribute__((noinline)) static int lw_sdiv(int a, int b) { return a / b; }
__attribute__((noinline)) static unsigned lw_udiv(unsigned a, unsigned b) { return a / b; }

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
static unsigned at_add[16], at_and[16], at_or[16], at_xor[16], at_min[16], at_max[16];

static uint64_t lw_state = 0x7f212b6fe2cd463full;
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

static long g_l[64];
static short g_s[64];
static unsigned char g_c[64];
static long in_l[1024];
static short in_s[1024];
static unsigned char in_c[1024];
static long out_l[400];
static short out_s[400];
static unsigned char out_c[400];
static long lw_long(void) {
    uint32_t r = lw_next();
    return (r & 3u) == 0 ? (long)(((uint64_t)r << 32) | lw_next()) : (long)(r % 64u) - 32;
}
static inline long lw_f2l(float x) { return fabsf(x) < 9.0e18f ? (long)x : 0; }
static inline long lw_d2l(double x) { return fabs(x) < 9.0e18 ? (long)x : 0; }
static inline short lw_f2s(float x) { return fabsf(x) < 32767.0f ? (short)x : 0; }
static inline short lw_d2s(double x) { return fabs(x) < 32767.0 ? (short)x : 0; }
static inline unsigned char lw_f2c(float x) { return x >= 0.0f && x < 255.0f ? (unsigned char)x : 0; }
static inline unsigned char lw_d2c(double x) { return x >= 0.0 && x < 255.0 ? (unsigned char)x : 0; }
static void lw_print_l(const char *what, int k, long v) { printf("%s %d %ld\n", what, k, v); }
static void lw_print_s(const char *what, int k, short v) { printf("%s %d %d\n", what, k, v); }
static void lw_print_c(const char *what, int k, unsigned char v) { printf("%s %d %u\n", what, k, v); }
struct lw_rec { int i; unsigned u; float f; double d; long l; short s; unsigned char c; };

static void kernel15(int n) {
    long cl23 = 0L;
    unsigned cl24 = 0u;
#pragma omp simd lastprivate(conditional: cl23, cl24)
    for (int i = 0; i < n; i++) {
        struct lw_rec ka22[8];
        for (int z = 0; z < 8; z++) { ka22[z].i = z * 3 - 5; ka22[z].u = (unsigned)z * 2654435761u; ka22[z].f = (float)z * 0.25f - 1.5f; ka22[z].d = (double)z * -1.25 + 0.5; ka22[z].l = (long)z * 1000003l - 7l; ka22[z].s = (short)(z * 5 - 9); ka22[z].c = (unsigned char)((((unsigned char)0)) + z); }
        {
            int lw_c = (-1);
            if (rv_any(lw_c) && lw_c) {
                cl23 = 1L;
                if ((ka22[(unsigned)(((0L) < (in_l[(unsigned)(i) & 1023u]))) & 7u].u) >= (1u)) {
                    cl23 = 0L;
                }
            }
        }
    }
    lw_print_l("kernel15 cl23", n, cl23);
    lw_print_u("kernel15 cl24", n, cl24);
}

int main(void) {
    for (int k = 0; k < 64; k++) {
        g_i[k] = lw_int(); g_u[k] = lw_uint(); g_f[k] = lw_float(); g_d[k] = lw_double();
    }
    for (int k = 0; k < 1024; k++) {
        in_i[k] = lw_int(); in_u[k] = lw_uint(); in_f[k] = lw_float(); in_d[k] = lw_double();
    }
    for (int k = 0; k < 64; k++) {
        g_l[k] = lw_long(); g_s[k] = (short)lw_int(); g_c[k] = (unsigned char)lw_uint();
    }
    for (int k = 0; k < 1024; k++) {
        in_l[k] = lw_long(); in_s[k] = (short)lw_int(); in_c[k] = (unsigned char)lw_uint();
    }
    kernel15(N > 0 ? N - 0 : 0);
    return 0;
}
