/* OPEN BUG (not fixed; not run by fuzz_regressions.rs, which reads only the directory above). */
/* not reduced: every -march: crash: the program dies with SIGSEGV in _ZGVbM4l3_f0, the masked SSE variant of `#pragma omp declare simd inbranch simdlen(4) linear(a1:3)` float f0(int a1), called from main (clang-22 -O2 -fopenmp-simd -DLANEWISE_RV_SCALAR alone runs it); also with lanewise 1bfb4f0, so older than the changes of 2026-11-27 afternoon. Seed 18549 of lanewise-fuzz at e9e8bf2. */
/* lanewise-fuzz program, seed 18549 (crates/fuzz). */
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
#define N 62

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

static uint64_t lw_state = 0xe996cd941ff09d99ull;
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
struct lw_rec { int i; unsigned u; float f; double d; long l; short s; unsigned char c; };

#pragma omp declare simd inbranch simdlen(4) linear(a1:3)
float f0(int a1) {
    float l2 = 1.5e0f;
    float l3 = (((-(in_f[(unsigned)(a1) & 1023u]))) / (l2));
    unsigned l4 = ((((g_i[(unsigned)(1) & 63u]) <= (100))) ? (((g_u[(unsigned)(34) & 63u]) * (in_u[(unsigned)(a1) & 1023u]))) : (((49u) * (g_u[(unsigned)(6) & 63u]))));
    float l5 = ((l2) + (l2));
    if (in_i[(unsigned)(((a1) % (((in_i[(unsigned)(a1) & 1023u]) & 15) + 1))) & 1023u]) {
        {
            int lw_c = ((in_d[(unsigned)(24) & 1023u]) != (2e0));
            if (rv_any(lw_c) && lw_c) {
                l2 = ((((((((1e-1) <= (1.2345678e4))) && (((l2) < (l5))))) || ((((-(l5))) < (l3))))) ? (in_f[(unsigned)(((a1) >= ((-13)))) & 1023u]) : (g_f[(unsigned)(((int)((unsigned)(in_i[(unsigned)(70) & 1023u]) + (unsigned)(a1)))) & 63u]));
                l4 = ((l4) - (((48u) * (l4))));
                l3 = (((-((-1e0f)))) * (((((in_i[(unsigned)(a1) & 1023u]) > (a1))) ? ((((!(((in_u[(unsigned)(a1) & 1023u]) < (l4))))) ? (l2) : (3e0f))) : (l3))));
            }
        }
        l4 = (((((((in_u[(unsigned)(a1) & 1023u]) != 0u) ? (g_u[(unsigned)(14) & 63u]) / (in_u[(unsigned)(a1) & 1023u]) : (g_u[(unsigned)(14) & 63u]))) + (in_u[(unsigned)(a1) & 1023u]))) + ((((((!(((g_f[(unsigned)(a1) & 63u]) >= (l2))))) ? (1u) : (l4))) & (((l4) | (26u))))));
    }
    l2 = ((sqrtf(((l3) - (l5)))) + (((float)(((a1) ^ (in_i[(unsigned)(a1) & 1023u]))))));
    l4 = (0u - (l4));
    __atomic_fetch_max(&at_max[(unsigned)(((int)((unsigned)(a1) << ((in_i[(unsigned)(a1) & 1023u]) & 31)))) & 15u], ((((((3e0) != (in_d[(unsigned)(a1) & 1023u]))) == (a1))) ? (((g_u[(unsigned)(a1) & 63u]) - (in_u[(unsigned)(a1) & 1023u]))) : (l4)), __ATOMIC_RELAXED);
    l5 = (-(l5));
    return ((((((l3) != (1e1f))) != (a1))) ? (((((g_u[(unsigned)(32) & 63u]) <= (24u))) ? (l2) : (1e-6f))) : (((l3) * (l5))));
}

#pragma omp declare simd simdlen(8) uniform(a7)
__attribute__((noinline)) unsigned f1(float a6, const double *a7, int a8) {
    unsigned l9 = (((((4294967295u) & (7u))) != 0u) ? lw_udiv(lw_f2u(a6), ((4294967295u) & (7u))) : (lw_f2u(a6)));
    double pa10[4];
    for (int z = 0; z < 4; z++) pa10[z] = ((in_d[(unsigned)(53) & 1023u]) + ((-2.5e0))) + (double)z;
    unsigned pa11[16];
    for (int z = 0; z < 16; z++) pa11[z] = ((l9) + (7u)) + (unsigned)z;
    l9 = g_u[(unsigned)(((int)(0u - (unsigned)(a8)))) & 63u];
    pa11[(unsigned)(((lw_f2i(1e-6f)) | (((int)((unsigned)((-2147483647)) << ((g_i[(unsigned)(a8) & 63u]) & 31)))))) & 15u] = ((((a8) != (11))) ? (l9) : (in_u[(unsigned)(a8) & 1023u]));
    return ((8u) - (pa11[(unsigned)(a8) & 15u]));
}

#pragma omp declare simd inbranch uniform(a14)
unsigned f2(double a12, double a13, const int *a14, double a15, double a16) {
    float l17 = ((float)(0));
    int l18 = ((lw_f2i(in_f[(unsigned)(29) & 1023u])) / (((((2) % (((12) & 15) + 1))) & 15) + 1));
    unsigned l19 = lw_d2u(g_d[(unsigned)(7) & 63u]);
    double l20 = in_d[(unsigned)(((int)(g_u[(unsigned)(l18) & 63u]))) & 1023u];
    a13 = g_d[(unsigned)(((int)((unsigned)(((int)((unsigned)((-2)) << ((l18) & 31)))) + (unsigned)(((in_i[(unsigned)(l18) & 1023u]) | (l18)))))) & 63u];
    __atomic_fetch_and(&at_and[(unsigned)(8) & 15u], (((((in_u[(unsigned)(l18) & 1023u]) % (((l19) & 15u) + 1u))) != 0u) ? lw_udiv(((((l19) != (29u))) ? (l19) : (18u)), ((in_u[(unsigned)(l18) & 1023u]) % (((l19) & 15u) + 1u))) : (((((l19) != (29u))) ? (l19) : (18u)))), __ATOMIC_RELAXED);
    __atomic_fetch_or(&at_or[(unsigned)((((!(((100u) > (31u))))) ? (((a14[(unsigned)(l18) & 63u]) ? (2) : (a14[(unsigned)(38) & 63u]))) : (l18))) & 15u], ((((l19) << ((in_u[(unsigned)(l18) & 1023u]) & 31u))) * (((in_u[(unsigned)(l18) & 1023u]) / (((l19) & 15u) + 1u)))), __ATOMIC_RELAXED);
    l19 = ((g_u[(unsigned)(((int)((unsigned)(l18) * (unsigned)(3)))) & 63u]) + (f1(expf(g_f[(unsigned)(l18) & 63u]), g_d, l18)));
    __atomic_fetch_max(&at_max[(unsigned)(((lw_d2i(1.5e0)) ^ (((int)((unsigned)((-4)) + (unsigned)(in_i[(unsigned)(l18) & 1023u])))))) & 15u], ((lw_d2u(a12)) % (((((((3) != (l18))) ? (2u) : (in_u[(unsigned)(l18) & 1023u]))) & 15u) + 1u)), __ATOMIC_RELAXED);
    {
        int lw_c = ((a14[(unsigned)(62) & 63u]) < (12));
        if (rv_any(lw_c) && lw_c) {
            if (((int)(f1(in_f[(unsigned)(in_u[(unsigned)(l18) & 1023u]) & 1023u], g_d, in_i[(unsigned)(l18) & 1023u])))) {
                {
                    __atomic_fetch_add(&at_add[(unsigned)(((((int)((unsigned)(l18) - (unsigned)(in_i[(unsigned)(1) & 1023u])))) & (in_i[(unsigned)(l18) & 1023u]))) & 15u], lw_f2u(l17), __ATOMIC_RELAXED);
                    l17 = (-(l17));
                }
            } else {
                if ((((((a13) + (l20))) + (g_d[(unsigned)(l18) & 63u]))) != (fabs(a12))) {
                    return (((0u - (255u))) >> ((((g_u[(unsigned)(l18) & 63u]) / (((l19) & 15u) + 1u))) & 31u));
                }
            }
            a15 = ((((double)(f1(((3e0f) - (0.0f)), g_d, a14[(unsigned)(7u) & 63u])))) * ((-(in_d[(unsigned)(a14[(unsigned)(l18) & 63u]) & 1023u]))));
        }
    }
    return lw_f2u(sqrtf(fabsf(l17)));
}

static void kernel22(int n) {
    unsigned r24 = 0u;
    int r25 = 2147483647;
    int r26 = (-2147483647 - 1);
    int lp27 = 0;
    int j23 = (-7);
    memset(out_f, 0, sizeof out_f);
    memset(out_i, 0, sizeof out_i);
    memset(at_add, 0x0, sizeof at_add);
    memset(at_and, 0xff, sizeof at_and);
    memset(at_or, 0x0, sizeof at_or);
    memset(at_xor, 0x0, sizeof at_xor);
    memset(at_min, 0xff, sizeof at_min);
    memset(at_max, 0x0, sizeof at_max);
#pragma omp simd reduction(^:r24) reduction(min:r25) reduction(max:r26) lastprivate(lp27) linear(j23:1)
    for (int i = 0; i < n; i++) {
        lp27 = ((((in_i[(unsigned)(i) & 1023u]) & (i))) / (((((int)((unsigned)(n) + (unsigned)(n)))) & 15) + 1));
        float t28 = ((((((1) ? (in_u[(unsigned)(i) & 1023u]) : (15u))) >= (in_u[(unsigned)(i) & 1023u]))) ? (sqrtf(fabsf(g_f[(unsigned)(i) & 63u]))) : (((1e6f) - (5e-1f))));
        int t29 = ((j23) == (g_i[(unsigned)(n) & 63u]));
        int t30 = ((int)(((in_u[(unsigned)(i) & 1023u]) % (((in_u[(unsigned)(n) & 1023u]) & 15u) + 1u))));
        double t31 = (-(((in_d[(unsigned)(i) & 1023u]) * (1e-9))));
        int ka32[16];
        for (int z = 0; z < 16; z++) ka32[z] = (int)((unsigned)(((int)(f1((-2.5e0f), g_d, t30)))) + (unsigned)z);
        if ((((((float)(f1(g_f[(unsigned)(lp27) & 63u], g_d, 3)))) * (g_f[(unsigned)((-3)) & 63u]))) <= (((((t31) < (in_d[(unsigned)(j23) & 1023u]))) ? (g_f[(unsigned)(15) & 63u]) : ((-1e0f))))) {
            if ((((double)(f1(expf((-2.5e0f)), g_d, (-100))))) >= ((((-9)) ? (g_d[(unsigned)(n) & 63u]) : (t31)))) {
                if ((in_u[(unsigned)(725) & 1023u]) <= (24u)) {
                    t28 = ((float)((((((-10)) & ((-2147483647)))) | (t29))));
                    t30 = (-11);
                    __atomic_fetch_min(&at_min[(unsigned)(((lw_f2i(t28)) & (g_i[(unsigned)(in_i[(unsigned)(j23) & 1023u]) & 63u]))) & 15u], ((((35u) / (((100u) & 15u) + 1u))) % (((g_u[(unsigned)(1) & 63u]) & 15u) + 1u)), __ATOMIC_RELAXED);
                } else {
                    lp27 = 15;
                    t29 = ka32[(unsigned)(23) & 15u];
                    __atomic_fetch_max(&at_max[(unsigned)(((((1000u) << ((g_u[(unsigned)(t29) & 63u]) & 31u))) ^ ((0u - (2147483648u))))) & 15u], ((((((g_u[(unsigned)(n) & 63u]) << ((in_u[(unsigned)(i) & 1023u]) & 31u))) == (4u))) ? (((g_u[(unsigned)(n) & 63u]) ^ (g_u[(unsigned)(j23) & 63u]))) : (g_u[(unsigned)(n) & 63u])), __ATOMIC_RELAXED);
                }
                lp27 = ((int)((unsigned)(ka32[(unsigned)(in_i[(unsigned)(i) & 1023u]) & 15u]) - (unsigned)(in_i[(unsigned)(i) & 1023u])));
                out_i[i] = ((((int)((unsigned)(in_i[(unsigned)(i) & 1023u]) * (unsigned)(((i) | (ka32[(unsigned)(t29) & 15u])))))) ^ (((((2147483648u) <= (g_u[(unsigned)(n) & 63u]))) | (t29))));
            }
            lp27 = ((((int)((unsigned)(ka32[(unsigned)(in_i[(unsigned)(i) & 1023u]) & 15u]) + (unsigned)(g_i[(unsigned)(63) & 63u])))) ^ (t29));
        } else {
            switch ((unsigned)(((int)(f1(((t28) - (t28)), g_d, 7)))) & 7u) {
            case 2u: {
                ka32[(unsigned)(((int)((unsigned)((((-15)) ? (t30) : (lp27))) << ((t30) & 31)))) & 15u] = g_i[(unsigned)(((((t31) >= (1e0))) ? (t29) : (j23))) & 63u];
            } break;
            case 4u: {
            } break;
            default: {
            } break;
            }
        }
        out_f[i] = ((((floorf(g_f[(unsigned)(lp27) & 63u])) >= ((-(in_f[(unsigned)(54) & 1023u]))))) ? (((((t28) + (1.5e0f))) * (in_f[(unsigned)(lp27) & 1023u]))) : (g_f[(unsigned)(n) & 63u]));
        j23 += 1;
    }
    for (int i = 0; i < n; i++) lw_print_f("kernel22 out_f", i, out_f[i]);
    for (int i = 0; i < n; i++) lw_print_i("kernel22 out_i", i, out_i[i]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel22 at_add", k, at_add[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel22 at_and", k, at_and[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel22 at_or", k, at_or[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel22 at_xor", k, at_xor[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel22 at_min", k, at_min[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel22 at_max", k, at_max[k]);
    lw_print_u("kernel22 r24", 0, r24);
    lw_print_i("kernel22 r25", 0, r25);
    lw_print_i("kernel22 r26", 0, r26);
    lw_print_i("kernel22 j23", n, j23);
    lw_print_i("kernel22 lp27", n, lp27);
}

static void kernel33(int n) {
    unsigned r34 = 0u;
    unsigned r35 = 0u;
    memset(out_u, 0, sizeof out_u);
    memset(at_add, 0x0, sizeof at_add);
    memset(at_and, 0xff, sizeof at_and);
    memset(at_or, 0x0, sizeof at_or);
    memset(at_xor, 0x0, sizeof at_xor);
    memset(at_min, 0xff, sizeof at_min);
    memset(at_max, 0x0, sizeof at_max);
#pragma omp simd reduction(inscan, ^:r34) reduction(inscan, +:r35)
    for (int i = 0; i < n; i++) {
        double t36 = in_d[(unsigned)(i) & 1023u];
        float t37 = (-1e-3f);
        struct lw_rec ka38[16];
        for (int z = 0; z < 16; z++) { ka38[z].i = z * 3 - 5; ka38[z].u = (unsigned)z * 2654435761u; ka38[z].f = (float)z * 0.25f - 1.5f; ka38[z].d = exp(g_d[(unsigned)(n) & 63u]) + (double)z; ka38[z].l = (long)z * 1000003l - 7l; ka38[z].s = (short)(z * 5 - 9); ka38[z].c = (unsigned char)(z * 37 + 1); }
        int ka39[8];
        for (int z = 0; z < 8; z++) ka39[z] = (int)((unsigned)(n) + (unsigned)z);
        t37 = in_f[(unsigned)(i) & 1023u];
        out_u[i] = 16u;
#pragma omp scan exclusive(r34, r35)
        r34 ^= (((((g_u[(unsigned)(n) & 63u]) != 0u) ? lw_udiv(1000u, g_u[(unsigned)(n) & 63u]) : (1000u))) & (((((n) > (6))) ? (2u) : (in_u[(unsigned)(i) & 1023u]))));
        if ((((int)((unsigned)(i) + (unsigned)(n)))) >= (((int)(f1(in_f[(unsigned)(i) & 1023u], g_d, i))))) {
            r35 += ((in_u[(unsigned)(49) & 1023u]) ^ (100u));
        }
    }
    for (int i = 0; i < n; i++) lw_print_u("kernel33 out_u", i, out_u[i]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel33 at_add", k, at_add[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel33 at_and", k, at_and[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel33 at_or", k, at_or[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel33 at_xor", k, at_xor[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel33 at_min", k, at_min[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel33 at_max", k, at_max[k]);
    lw_print_u("kernel33 r34", 0, r34);
    lw_print_u("kernel33 r35", 0, r35);
}

static void kernel40(int n) {
    int r41 = (-2147483647 - 1);
    float lp42 = 0.0f;
    memset(out_f, 0, sizeof out_f);
    memset(out_i, 0, sizeof out_i);
    memset(at_add, 0x0, sizeof at_add);
    memset(at_and, 0xff, sizeof at_and);
    memset(at_or, 0x0, sizeof at_or);
    memset(at_xor, 0x0, sizeof at_xor);
    memset(at_min, 0xff, sizeof at_min);
    memset(at_max, 0x0, sizeof at_max);
#pragma omp simd reduction(max:r41) lastprivate(lp42)
    for (int i = 0; i < n; i++) {
        lp42 = ((in_f[(unsigned)(36u) & 1023u]) + (((1e0f) / (5e-1f))));
        double t43 = g_d[(unsigned)(in_i[(unsigned)(in_i[(unsigned)(i) & 1023u]) & 1023u]) & 63u];
        float t44 = ((((lp42) - (lp42))) / (g_f[(unsigned)(12) & 63u]));
        double t45 = ((g_d[(unsigned)(g_i[(unsigned)(i) & 63u]) & 63u]) + (sqrt(fabs(t43))));
        unsigned t46 = lw_d2u(t45);
        struct lw_rec ka47[4];
        for (int z = 0; z < 4; z++) { ka47[z].i = z * 3 - 5; ka47[z].u = (unsigned)z * 2654435761u; ka47[z].f = (float)z * 0.25f - 1.5f; ka47[z].d = ((((n) > ((-1)))) ? (t43) : (in_d[(unsigned)(i) & 1023u])) + (double)z; ka47[z].l = (long)z * 1000003l - 7l; ka47[z].s = (short)(z * 5 - 9); ka47[z].c = (unsigned char)(z * 37 + 1); }
        t44 = f0((3 * i + -2));
        if ((g_d[(unsigned)(60) & 63u]) >= (0.0)) {
            continue;
        }
        {
            int lw_c = ((((float)(f1(((t44) + (lp42)), g_d, n)))) >= (((t44) * (1.2345678e4f))));
            if (rv_any(lw_c)) {
                if (lw_c) {
                    t46 = 6u;
                    if ((((int)((unsigned)(lw_f2i(f0((3 * i + -3)))) - (unsigned)(g_i[(unsigned)(t46) & 63u])))) >= ((((i) != 0 && (i) != -1) ? lw_sdiv(g_i[(unsigned)(n) & 63u], i) : (g_i[(unsigned)(n) & 63u])))) {
                        __atomic_fetch_xor(&at_xor[(unsigned)(ka47[(unsigned)((-14)) & 3u].u) & 15u], ((((ka47[(unsigned)(i) & 3u].u) * (in_u[(unsigned)(i) & 1023u]))) >> ((f2(in_d[(unsigned)(22) & 1023u], t43, g_i, (-0.0), 1e2)) & 31u)), __ATOMIC_RELAXED);
                    } else {
                        if (((-13)) > r41) r41 = (-13);
                        ka47[(unsigned)(15) & 3u].i = ((((((t43) == (t45))) ? (0) : ((-14)))) % (((((int)((unsigned)((-20)) - (unsigned)((-4))))) & 15) + 1));
                    }
                }
            }
        }
        out_f[i] = ((((((float)(t45))) / (((t44) * (lp42))))) * (lp42));
        {
            int w48 = 0;
            while (w48 < 5 && (((t46) > (((0u) * (t46)))))) {
                w48++;
                ka47[(unsigned)(((unsigned)(w48))) & 3u].f = t44;
            }
        }
        out_i[i] = ((int)((unsigned)(lw_d2i(((1e6) / (t43)))) * (unsigned)(((int)((unsigned)(i) + (unsigned)(n))))));
    }
    for (int i = 0; i < n; i++) lw_print_f("kernel40 out_f", i, out_f[i]);
    for (int i = 0; i < n; i++) lw_print_i("kernel40 out_i", i, out_i[i]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel40 at_add", k, at_add[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel40 at_and", k, at_and[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel40 at_or", k, at_or[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel40 at_xor", k, at_xor[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel40 at_min", k, at_min[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel40 at_max", k, at_max[k]);
    lw_print_i("kernel40 r41", 0, r41);
    lw_print_f("kernel40 lp42", n, lp42);
}

int main(void) {
    for (int k = 0; k < 64; k++) {
        g_i[k] = lw_int(); g_u[k] = lw_uint(); g_f[k] = lw_float(); g_d[k] = lw_double();
    }
    for (int k = 0; k < 1024; k++) {
        in_i[k] = lw_int(); in_u[k] = lw_uint(); in_f[k] = lw_float(); in_d[k] = lw_double();
    }
    kernel22(N > 5 ? N - 5 : 0);
    kernel33(N > 0 ? N - 0 : 0);
    kernel40(N > 1 ? N - 1 : 0);
    return 0;
}
