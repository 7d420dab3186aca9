/* unreduced: -march=x86-64-v3 (seed 23489; also -v4, skylake-avx512, native): a lastprivate printed 0 where the scalar build prints -1 (kernel17 lp20). The scatter fast path added on 2026-11-27 stored bools with one <W x i1> vector store, packed bits where each scalar i1 store writes a byte. Fixed the same day: vector fast paths only for types that pack like memory. */
/* lanewise-fuzz program, seed 23489 (crates/fuzz). */
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
#define N 210

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

static uint64_t lw_state = 0x0017b518714302d5ull;
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

#pragma omp declare simd simdlen(8) uniform(a2)
__attribute__((noinline)) int f0(float a1, unsigned a2) {
    float l3 = (-(in_f[(unsigned)(28) & 1023u]));
    double l4 = floor(g_d[(unsigned)(18) & 63u]);
    l3 = in_f[(unsigned)(((((in_f[(unsigned)(184) & 1023u]) <= (1e-1f))) ? (in_i[(unsigned)(57) & 1023u]) : (((int)((unsigned)((-3)) << ((16) & 31)))))) & 1023u];
    l4 = (-(l4));
    return (((((((in_f[(unsigned)(13) & 1023u]) >= (1e-6f))) ? (31) : ((-6)))) != 0 && (((((in_f[(unsigned)(13) & 1023u]) >= (1e-6f))) ? (31) : ((-6)))) != -1) ? lw_sdiv(((in_i[(unsigned)(36) & 1023u]) / ((((-1)) & 15) + 1)), ((((in_f[(unsigned)(13) & 1023u]) >= (1e-6f))) ? (31) : ((-6)))) : (((in_i[(unsigned)(36) & 1023u]) / ((((-1)) & 15) + 1))));
}

#pragma omp declare simd inbranch simdlen(8) uniform(a6) uniform(a7)
static int f1(unsigned a5, int a6, const double *a7) {
    int l8 = ((((((2147483648u) / (((a5) & 15u) + 1u))) != (a5))) ? (((a6) | (in_i[(unsigned)(a6) & 1023u]))) : (((in_u[(unsigned)(a6) & 1023u]) < (0u))));
    int pa9[8];
    for (int z = 0; z < 8; z++) pa9[z] = (int)((unsigned)(((l8) >> ((15) & 31))) + (unsigned)z);
    pa9[(unsigned)(a6) & 7u] = f0(1e0f, 2u);
    a6 = ((int)((unsigned)(((in_f[(unsigned)(a6) & 1023u]) <= (g_f[(unsigned)(35) & 63u]))) << ((((g_i[(unsigned)(l8) & 63u]) | (((int)((unsigned)(a6) << ((pa9[(unsigned)(52) & 7u]) & 31)))))) & 31)));
    {
        int w10 = 0;
        if ((((5e-1) + (2e0))) > (1e1)) goto m11;
        while (w10 < 2 && (((g_i[(unsigned)(58) & 63u]) >= ((-14))))) {
            w10++;
        m11:;
            {
                int lw_c = (!(((((g_u[(unsigned)(a6) & 63u]) & (a5))) == (g_u[(unsigned)(a6) & 63u]))));
                if (rv_any(lw_c) && lw_c) {
                    if (((-(floor(1e1)))) != (sqrt(fabs(0.0)))) {
                        continue;
                    }
                    a6 = lw_d2i(1.5e0);
                }
            }
            switch ((unsigned)(((in_i[(unsigned)(6) & 1023u]) ^ (((int)(a5))))) & 7u) {
            case 5u: {
            } break;
            case 6u: {
                {
                    int lw_c = ((((in_u[(unsigned)(303) & 1023u]) >= (100u))) && (((((float)(a7[(unsigned)(64) & 63u]))) != (g_f[(unsigned)(a6) & 63u]))));
                    if (rv_all(lw_c) || lw_c) {
                        pa9[(unsigned)(f0(in_f[(unsigned)(w10) & 1023u], 48u)) & 7u] = f0(g_f[(unsigned)(w10) & 63u], 255u);
                        a5 = (0u - (((((in_f[(unsigned)(297) & 1023u]) == ((-1e-3f)))) ? (a5) : ((0u - (36u))))));
                        l8 = ((((((g_u[(unsigned)(8u) & 63u]) / (((((32u) + (a5))) & 15u) + 1u))) != (((((a6) != ((-14)))) ? (a5) : (3u))))) ? (g_i[(unsigned)((-11)) & 63u]) : (((g_i[(unsigned)(l8) & 63u]) & (((int)((unsigned)(a6) * (unsigned)(a6)))))));
                    }
                }
            } break;
            case 7u: {
                if ((g_d[(unsigned)(19) & 63u]) == (1e-1)) {
                    a6 = lw_d2i((-(((0.0) + (g_d[(unsigned)(l8) & 63u])))));
                }
            } break;
            default: {
            } break;
            }
        }
    }
    return ((int)((unsigned)((~(l8))) - (unsigned)(((1) >> ((3) & 31)))));
}

#pragma omp declare simd inbranch simdlen(8) uniform(a13)
__attribute__((noinline)) unsigned f2(double a12, int a13) {
    int l14 = a13;
    int l15 = f0(((1e0f) + (1e-1f)), 7u);
    double l16 = in_d[(unsigned)(24) & 1023u];
    a13 = in_i[(unsigned)(g_i[(unsigned)(((int)((unsigned)(l15) + (unsigned)(g_i[(unsigned)(l14) & 63u])))) & 63u]) & 1023u];
    a13 = ((int)((unsigned)((((((int)((unsigned)(l15) << ((l14) & 31)))) != 0 && (((int)((unsigned)(l15) << ((l14) & 31)))) != -1) ? lw_sdiv(in_i[(unsigned)(61) & 1023u], ((int)((unsigned)(l15) << ((l14) & 31)))) : (in_i[(unsigned)(61) & 1023u]))) * (unsigned)(a13)));
    switch ((unsigned)(((a13) ? (((l15) ? (l14) : (l15))) : (((int)((unsigned)(1) << ((l14) & 31)))))) & 7u) {
    case 7u: {
        l15 = g_i[(unsigned)(l15) & 63u];
        switch ((unsigned)(g_i[(unsigned)(f1(in_u[(unsigned)(61) & 1023u], 100, g_d)) & 63u]) & 7u) {
        case 1u: {
            l15 = ((int)((unsigned)(l14) - (unsigned)(((((in_u[(unsigned)(38) & 1023u]) == (g_u[(unsigned)(l14) & 63u]))) < (a13)))));
            {
                int lw_c = ((in_i[(unsigned)(g_u[(unsigned)(l15) & 63u]) & 1023u]) != (((((l14) < (g_i[(unsigned)(l14) & 63u]))) ? (in_i[(unsigned)(a13) & 1023u]) : ((-7)))));
                if (rv_any(lw_c) && lw_c) {
                    a12 = (-(((((in_f[(unsigned)(19) & 1023u]) > (1e2f))) ? (1e-9) : (((double)((-1e-3f)))))));
                    a13 = ((int)((unsigned)(in_i[(unsigned)(((31u) % (((in_u[(unsigned)(53) & 1023u]) & 15u) + 1u))) & 1023u]) - (unsigned)(in_i[(unsigned)((~(g_i[(unsigned)(a13) & 63u]))) & 1023u])));
                    l16 = (-(((in_d[(unsigned)(in_i[(unsigned)(l15) & 1023u]) & 1023u]) - (((g_d[(unsigned)(12) & 63u]) + (5e-1))))));
                }
            }
        } break;
        case 3u: {
            a12 = (-(floor(((double)(f0(1e0f, 15u))))));
        } break;
        default: {
        } break;
        }
        l15 = f0(((f0(g_f[(unsigned)(61) & 63u], 36u)) ? (((((in_u[(unsigned)(l14) & 1023u]) == (g_u[(unsigned)(7) & 63u]))) ? (2e0f) : (in_f[(unsigned)(l14) & 1023u]))) : (g_f[(unsigned)(l15) & 63u])), 255u);
    } break;
    default: {
    } break;
    }
    return 13u;
}

static void kernel17(int n) {
    int r19 = (-2147483647 - 1);
    int lp20 = 0;
    int j18 = 20;
    memset(out_u, 0, sizeof out_u);
    memset(at_add, 0x0, sizeof at_add);
    memset(at_and, 0xff, sizeof at_and);
    memset(at_or, 0x0, sizeof at_or);
    memset(at_xor, 0x0, sizeof at_xor);
    memset(at_min, 0xff, sizeof at_min);
    memset(at_max, 0x0, sizeof at_max);
#pragma omp simd reduction(max:r19) lastprivate(lp20) linear(j18:4) safelen(2)
    for (int i = 0; i < n; i++) {
        lp20 = ((((((g_d[(unsigned)(26) & 63u]) * (g_d[(unsigned)(n) & 63u]))) == (1.2345678e4))) ? (((g_i[(unsigned)(0) & 63u]) | (in_i[(unsigned)(i) & 1023u]))) : ((~(i))));
        unsigned c21 = i >= 3 ? out_u[i - 3] : (unsigned)0;
        float t22 = ((in_f[(unsigned)(i) & 1023u]) - (0.0f));
        double t23 = ((((lp20) && (13))) ? (in_d[(unsigned)(i) & 1023u]) : (in_d[(unsigned)(i) & 1023u]));
        unsigned t24 = g_u[(unsigned)(((0.0f) <= (t22))) & 63u];
        {
            if (((!(((((t23) > ((-1e-3)))) || (((in_d[(unsigned)(i) & 1023u]) != (t23))))))) > r19) r19 = (!(((((t23) > ((-1e-3)))) || (((in_d[(unsigned)(i) & 1023u]) != (t23))))));
            t23 = g_d[(unsigned)(in_i[(unsigned)(((int)((unsigned)(lp20) + (unsigned)(lp20)))) & 1023u]) & 63u];
            {
                int w26 = 0;
                while (w26 < 6 && (((((float)(g_i[(unsigned)(j18) & 63u]))) >= (((t22) / (t22)))))) {
                    w26++;
                    __atomic_fetch_xor(&at_xor[(unsigned)(((int)((unsigned)(((int)(c21))) + (unsigned)(((t23) >= ((-0.0))))))) & 15u], (0u - (lw_f2u(1e-1f))), __ATOMIC_RELAXED);
                    if ((((((int)((unsigned)(((int)((unsigned)(11) + (unsigned)(g_i[(unsigned)(w26) & 63u])))) + (unsigned)((~(lp20)))))) >> ((n) & 31))) > r19) r19 = ((((int)((unsigned)(((int)((unsigned)(11) + (unsigned)(g_i[(unsigned)(w26) & 63u])))) + (unsigned)((~(lp20)))))) >> ((n) & 31));
                }
            }
        }
        lp20 = (((((((-17)) >> ((2147483647) & 31))) % (((((int)((unsigned)(i) - (unsigned)(g_i[(unsigned)(n) & 63u])))) & 15) + 1))) >> ((((in_i[(unsigned)(lp20) & 1023u]) | (lw_f2i(t22)))) & 31));
        __atomic_fetch_max(&at_max[(unsigned)(in_u[(unsigned)(i) & 1023u]) & 15u], g_u[(unsigned)(((((in_d[(unsigned)(543) & 1023u]) <= (1e2))) ? (t24) : (in_u[(unsigned)(lp20) & 1023u]))) & 63u], __ATOMIC_RELAXED);
        out_u[i] = ((c21) + (c21));
        j18 += 4;
    }
    for (int i = 0; i < n; i++) lw_print_u("kernel17 out_u", i, out_u[i]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel17 at_add", k, at_add[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel17 at_and", k, at_and[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel17 at_or", k, at_or[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel17 at_xor", k, at_xor[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel17 at_min", k, at_min[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel17 at_max", k, at_max[k]);
    lw_print_i("kernel17 r19", 0, r19);
    lw_print_i("kernel17 j18", n, j18);
    lw_print_i("kernel17 lp20", n, lp20);
}

static void kernel27(int n) {
    float r28 = -3.0e38f;
    int lp29 = 0;
    unsigned lp30 = 0u;
    memset(out_f, 0, sizeof out_f);
    memset(at_add, 0x0, sizeof at_add);
    memset(at_and, 0xff, sizeof at_and);
    memset(at_or, 0x0, sizeof at_or);
    memset(at_xor, 0x0, sizeof at_xor);
    memset(at_min, 0xff, sizeof at_min);
    memset(at_max, 0x0, sizeof at_max);
#pragma omp simd reduction(inscan, max:r28) lastprivate(lp29, lp30)
    for (int i = 0; i < n; i++) {
        lp29 = ((in_i[(unsigned)(in_i[(unsigned)(i) & 1023u]) & 1023u]) >> ((((int)(f2(in_d[(unsigned)(i) & 1023u], (-2147483647))))) & 31));
        lp30 = (0u - (1000u));
        if ((((i) < (in_i[(unsigned)(i) & 1023u]))) || (((((3e0f) < (1e0f))) ? (n) : (n)))) {
            if ((1e1f) > r28) r28 = 1e1f;
        }
#pragma omp scan inclusive(r28)
        float t31 = ((in_f[(unsigned)(n) & 1023u]) / (r28));
        int t32 = n;
        double ka33[4];
        for (int z = 0; z < 4; z++) ka33[z] = g_d[(unsigned)(lp30) & 63u] + (double)z;
        lp29 = (-7);
        out_f[i] = in_f[(unsigned)(i) & 1023u];
    }
    for (int i = 0; i < n; i++) lw_print_f("kernel27 out_f", i, out_f[i]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel27 at_add", k, at_add[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel27 at_and", k, at_and[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel27 at_or", k, at_or[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel27 at_xor", k, at_xor[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel27 at_min", k, at_min[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel27 at_max", k, at_max[k]);
    lw_print_f("kernel27 r28", 0, r28 + 0.0f);
    lw_print_i("kernel27 lp29", n, lp29);
    lw_print_u("kernel27 lp30", n, lp30);
}

static void kernel34(int n) {
    int r36 = 2147483647;
    unsigned lp37 = 0u;
    int j35 = (-7);
    memset(out_d, 0, sizeof out_d);
    memset(out_u, 0, sizeof out_u);
    memset(at_add, 0x0, sizeof at_add);
    memset(at_and, 0xff, sizeof at_and);
    memset(at_or, 0x0, sizeof at_or);
    memset(at_xor, 0x0, sizeof at_xor);
    memset(at_min, 0xff, sizeof at_min);
    memset(at_max, 0x0, sizeof at_max);
#pragma omp simd reduction(min:r36) lastprivate(lp37) linear(j35:4) simdlen(4)
    for (int i = 0; i < n; i++) {
        lp37 = ((((unsigned)(f1(g_u[(unsigned)(i) & 63u], 8, g_d)))) / (((1000u) & 15u) + 1u));
        double t38 = 1.5e0;
        struct lw_rec ka39[16];
        for (int z = 0; z < 16; z++) { ka39[z].i = z * 3 - 5; ka39[z].u = (unsigned)z * 2654435761u; ka39[z].f = (float)z * 0.25f - 1.5f; ka39[z].d = t38 + (double)z; ka39[z].l = (long)z * 1000003l - 7l; ka39[z].s = (short)(z * 5 - 9); ka39[z].c = (unsigned char)(z * 37 + 1); }
        unsigned ka40[4];
        for (int z = 0; z < 4; z++) ka40[z] = lw_f2u(ka39[(unsigned)(58) & 15u].f) + (unsigned)z;
        {
            int w41 = 0;
            while (w41 < 5 && (((in_u[(unsigned)(156) & 1023u]) <= (42u)))) {
                w41++;
                switch ((unsigned)(((int)(f2(5e-1, (-19))))) & 7u) {
                case 3u: {
                    out_d[i] = ((ka39[(unsigned)(w41) & 15u].d) / (g_d[(unsigned)(((((g_i[(unsigned)(w41) & 63u]) > (in_i[(unsigned)(43) & 1023u]))) ? (w41) : (in_i[(unsigned)(i) & 1023u]))) & 63u]));
                } break;
                default: {
                } break;
                }
                t38 = exp(((double)((0u - (ka40[(unsigned)(i) & 3u])))));
            }
        }
        out_u[i] = f2(((((1.5e0) / (t38))) / (g_d[(unsigned)(ka39[(unsigned)(58) & 15u].i) & 63u])), (-2147483647));
        j35 += 4;
    }
    for (int i = 0; i < n; i++) lw_print_d("kernel34 out_d", i, out_d[i]);
    for (int i = 0; i < n; i++) lw_print_u("kernel34 out_u", i, out_u[i]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel34 at_add", k, at_add[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel34 at_and", k, at_and[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel34 at_or", k, at_or[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel34 at_xor", k, at_xor[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel34 at_min", k, at_min[k]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel34 at_max", k, at_max[k]);
    lw_print_i("kernel34 r36", 0, r36);
    lw_print_i("kernel34 j35", n, j35);
    lw_print_u("kernel34 lp37", n, lp37);
}

int main(void) {
    for (int k = 0; k < 64; k++) {
        g_i[k] = lw_int(); g_u[k] = lw_uint(); g_f[k] = lw_float(); g_d[k] = lw_double();
    }
    for (int k = 0; k < 1024; k++) {
        in_i[k] = lw_int(); in_u[k] = lw_uint(); in_f[k] = lw_float(); in_d[k] = lw_double();
    }
    kernel17(N > 0 ? N - 0 : 0);
    kernel27(N > 0 ? N - 0 : 0);
    kernel34(N > 7 ? N - 7 : 0);
    return 0;
}
