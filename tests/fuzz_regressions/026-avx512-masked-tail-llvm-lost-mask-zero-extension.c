/* reduced: -march=x86-64-v4: mismatch: line 1: expected `kernel24 at_add 0 120`, got `kernel24 at_add 0 128` (1 lines differ) */
/* lanewise-fuzz program, seed 60300 (crates/fuzz). */
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
#define N 126

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

static uint64_t lw_state = 0x7313d94afca3227dull;
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
typedef float lw_f4 __attribute__((vector_size(16)));
typedef unsigned lw_u4 __attribute__((vector_size(16)));
struct lw_rec { int i; unsigned u; float f; double d; long l; short s; unsigned char c; };

#pragma omp declare simd inbranch
double f0(void) {
    __atomic_fetch_add(&at_add[(unsigned)(((short)0)) & 15u], 1u, __ATOMIC_RELAXED);
    return 0.0;
}

#pragma omp declare simd notinbranch
unsigned char f1(unsigned char a11) {
    short l12 = ((short)0);
    struct lw_rec pa14[4];
    for (int z = 0; z < 4; z++) { pa14[z].i = z * 3 - 5; pa14[z].u = (unsigned)z * 2654435761u; pa14[z].f = (float)z * 0.25f - 1.5f; pa14[z].d = (double)z * -1.25 + 0.5; pa14[z].l = (long)z * 1000003l - 7l; pa14[z].s = (short)((l12) + z); pa14[z].c = (unsigned char)(z * 37 + 1); }
    switch ((unsigned)(((int)(((unsigned char)(g_i[(unsigned)(0) & 63u]))))) & 7u) {
    case 3u: {
        for (int k16 = 0; k16 < (int)((unsigned)(((int)((unsigned)(pa14[(unsigned)(0) & 3u].i) + (unsigned)(1)))) & 7u); k16++) {
            __atomic_fetch_and(&at_and[(unsigned)(g_u[(unsigned)(in_i[(unsigned)(0) & 1023u]) & 63u]) & 15u], g_u[(unsigned)(pa14[(unsigned)(k16) & 3u].l) & 63u], __ATOMIC_RELAXED);
        }
    } break;
    case 5u: {
    } /* falls through */
    case 6u: {
    } break;
    default: {
    } break;
    }
    return ((unsigned char)0);
}

#pragma omp declare simd
static float f2(unsigned char a17) {
    float l18 = ((((((g_u[(unsigned)(0) & 63u]) <= (0u))) && (((in_l[(unsigned)(0) & 1023u]) > (7L))))) ? (0.0f) : (((float)((-1e0)))));
    struct lw_rec pa20[4];
    for (int z = 0; z < 4; z++) { pa20[z].i = z * 3 - 5; pa20[z].u = (unsigned)z * 2654435761u; pa20[z].f = ((((g_d[(unsigned)(0) & 63u]) == (1e2))) ? (g_f[(unsigned)(3) & 63u]) : (l18)) + (float)z; pa20[z].d = (double)z * -1.25 + 0.5; pa20[z].l = (long)z * 1000003l - 7l; pa20[z].s = (short)(z * 5 - 9); pa20[z].c = (unsigned char)(z * 37 + 1); }
    {
        lw_f4 sv21 = {0.0f, ((float)(f1(((unsigned char)1)))), 0.0f, 0.0f};
        sv21 = sv21 - (lw_f4){0.0f, l18, 0.0f, 0.0f};
        sv21 = __builtin_shufflevector(sv21, sv21, 0, 1, 1, 7);
        l18 = sv21[1] + sv21[3];
    }
    return ((((float)(f1(a17)))) - (pa20[(unsigned)(38) & 3u].f));
}

static void kernel24(int n) {
    unsigned r26 = 0u;
    float cl34 = 0.0f;
    short cl35 = ((short)0);
    memset(at_add, 0x0, sizeof at_add);
    memset(at_and, 0xff, sizeof at_and);
    memset(at_or, 0x0, sizeof at_or);
    memset(at_xor, 0x0, sizeof at_xor);
    memset(at_min, 0xff, sizeof at_min);
    memset(at_max, 0x0, sizeof at_max);
#pragma omp simd reduction(^:r26) lastprivate(conditional: cl34, cl35) safelen(16)
    for (int i = 0; i < n; i++) {
        int c30 = i >= 23 ? out_i[i - 23] : (int)0;
        struct lw_rec ka33[8];
        for (int z = 0; z < 8; z++) { ka33[z].i = (int)((unsigned)(0) + (unsigned)z); ka33[z].u = (unsigned)z * 2654435761u; ka33[z].f = (float)z * 0.25f - 1.5f; ka33[z].d = (double)z * -1.25 + 0.5; ka33[z].l = (long)z * 1000003l - 7l; ka33[z].s = (short)(z * 5 - 9); ka33[z].c = (unsigned char)(z * 37 + 1); }
        switch ((unsigned)(lw_f2i(f2(((unsigned char)0)))) & 7u) {
        case 2u: {
            r26 ^= ((((0L) > (ka33[(unsigned)(i) & 7u].l))) ? (g_u[(unsigned)(0) & 63u]) : (0u));
        } break;
        case 7u: {
            if ((sqrt(in_d[(unsigned)(i) & 1023u])) >= (0.0)) {
            }
        } break;
        default: {
            for (int k36 = 0; k36 < (int)((unsigned)((~(0))) & 3u); k36++) {
                __atomic_fetch_and(&at_and[(unsigned)(lw_f2i(f2(((unsigned char)1)))) & 15u], 0u, __ATOMIC_RELAXED);
            }
        } break;
        }
        (void)f0();
    }
    for (int k = 0; k < 16; k++) lw_print_u("kernel24 at_add", k, at_add[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel24 at_and", k, at_and[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel24 at_or", k, at_or[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel24 at_xor", k, at_xor[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel24 at_min", k, at_min[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel24 at_max", k, at_max[k]);
    lw_print_u("kernel24 r26", 0, r26);
    lw_print_f("kernel24 cl34", n, cl34);
    lw_print_s("kernel24 cl35", n, cl35);
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
    kernel24(N > 6 ? N - 6 : 0);
    return 0;
}
