/* unreduced: -march=x86-64-v2 (seed 20333): lanewise cc never finished. Its clang step looped forever in LLVM 22's instruction selection for the e variant _ZGVeN8vl4vv_f1, whose target features were x86-64-v2's plus AVX-512F alone (reduced IR: tests/regressions/llc-avx512f-only-hang.ll). The other -march values were fine. */
/* lanewise-fuzz program, seed 20333 (crates/fuzz). */
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
#define N 217

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

static uint64_t lw_state = 0x7c2f12432f014ff1ull;
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

#pragma omp declare simd notinbranch simdlen(32) uniform(a1)
__attribute__((noinline)) double f0(const unsigned *a1) {
    double l2 = ((in_d[(unsigned)(in_i[(unsigned)(52) & 1023u]) & 1023u]) + (((g_d[(unsigned)(22) & 63u]) / (g_d[(unsigned)(33) & 63u]))));
    double l3 = ((double)(((in_f[(unsigned)(59) & 1023u]) / (2e0f))));
    int l4 = in_i[(unsigned)(((int)((unsigned)(g_i[(unsigned)(27) & 63u]) << ((g_i[(unsigned)(39) & 63u]) & 31)))) & 1023u];
    int l5 = (~(l4));
    float pa6[8];
    for (int z = 0; z < 8; z++) pa6[z] = ((3e0f) + (in_f[(unsigned)(7) & 1023u])) + (float)z;
    for (int k7 = 0; k7 < (int)((unsigned)(in_i[(unsigned)((-19)) & 1023u]) & 15u); k7++) {
        if ((!(((lw_d2i(l2)) != (g_i[(unsigned)(l4) & 63u]))))) {
            continue;
        }
    }
    {
        int lw_c = ((int)(0u - (unsigned)(l4)));
        if (rv_any(lw_c)) {
            if (lw_c) {
                l4 = l5;
            }
        }
    }
    for (int k8 = 0; k8 < (int)((unsigned)(((l5) / (((in_i[(unsigned)(28) & 1023u]) & 15) + 1))) & 3u); k8++) {
        {
            int lw_c = ((in_d[(unsigned)(875) & 1023u]) > ((-1e-3)));
            if (rv_any(lw_c)) {
                if (lw_c) {
                    switch ((unsigned)(in_i[(unsigned)(((65535) ^ (l5))) & 1023u]) & 7u) {
                    case 2u: {
                        l2 = ((((((g_u[(unsigned)(g_i[(unsigned)(l5) & 63u]) & 63u]) * (((((l2) == (1e-9))) ? (37u) : (3u))))) < (((8u) << ((0u) & 31u))))) ? (g_d[(unsigned)(in_i[(unsigned)(k8) & 1023u]) & 63u]) : (((floor(in_d[(unsigned)(k8) & 1023u])) - ((-(5e-1))))));
                        l3 = g_d[(unsigned)(((k8) / (((((3) >> ((k8) & 31))) & 15) + 1))) & 63u];
                    } break;
                    case 3u: {
                    } break;
                    default: {
                    } break;
                    }
                }
            }
        }
    }
    return (-(((((g_f[(unsigned)(l5) & 63u]) >= (pa6[(unsigned)(l5) & 7u]))) ? (g_d[(unsigned)(l4) & 63u]) : (1e6))));
}

#pragma omp declare simd notinbranch simdlen(8) linear(a10:1)
double f1(unsigned a9, const unsigned *a10, float a11, int a12) {
    int l13 = ((int)((unsigned)(a12) - (unsigned)(((int)((unsigned)(a12) + (unsigned)((-12)))))));
    unsigned l14 = ((((in_i[(unsigned)(a12) & 1023u]) ^ (a12))) ? (a10[(unsigned)(in_i[(unsigned)(l13) & 1023u]) & 1u]) : (lw_d2u(f0(g_u))));
    double l15 = g_d[(unsigned)(l13) & 63u];
    unsigned pa16[16];
    for (int z = 0; z < 16; z++) pa16[z] = in_u[(unsigned)(1) & 1023u] + (unsigned)z;
    double pa17[4];
    for (int z = 0; z < 4; z++) pa17[z] = ((g_d[(unsigned)(a12) & 63u]) + ((-1e-3))) + (double)z;
    {
        int lw_c = ((g_d[(unsigned)(26) & 63u]) != ((-1e0)));
        if (rv_any(lw_c)) {
            if (lw_c) {
                {
                    l14 = ((((unsigned)(((g_i[(unsigned)(33) & 63u]) % (((a12) & 15) + 1))))) / (((g_u[(unsigned)(a12) & 63u]) & 15u) + 1u));
                    if ((((((float)(a9))) <= (in_f[(unsigned)(a12) & 1023u]))) || (((((in_f[(unsigned)(l13) & 1023u]) + (in_f[(unsigned)(a12) & 1023u]))) > (a11)))) {
                        l13 = ((int)(0u - (unsigned)(l13)));
                        pa17[(unsigned)(((((((int)(0u - (unsigned)(l13)))) < (a12))) ? (((l14) << ((a10[(unsigned)(5) & 1u]) & 31u))) : (a10[(unsigned)(20) & 1u]))) & 3u] = l15;
                        l14 = a10[(unsigned)(a10[(unsigned)(lw_d2i(f0(g_u))) & 1u]) & 1u];
                    }
                    a9 = ((2147483648u) << ((((((3u) / (((a10[(unsigned)(l13) & 1u]) & 15u) + 1u))) >> ((a9) & 31u))) & 31u));
                }
                pa16[(unsigned)(((int)((unsigned)(((((a12) > (l13))) ? (a12) : (a12))) * (unsigned)(g_i[(unsigned)(a12) & 63u])))) & 15u] = lw_f2u(in_f[(unsigned)(a12) & 1023u]);
            }
        }
    }
    for (int k19 = 0; k19 < (int)((unsigned)(lw_d2i(f0(g_u))) & 3u); k19++) {
        if ((((((l14) >> ((l14) & 31u))) < (a9))) && (((g_i[(unsigned)(26) & 63u]) <= ((-100))))) {
            break;
        }
        {
            {
                int lw_c = ((a11) < (a11));
                if (rv_any(lw_c)) {
                    if (lw_c) {
                        a9 = g_u[(unsigned)(k19) & 63u];
                        if ((g_d[(unsigned)(in_i[(unsigned)(k19) & 1023u]) & 63u]) != (f0(g_u))) {
                            break;
                        }
                        a9 = ((((g_d[(unsigned)(13) & 63u]) >= (1e1))) ? (((pa16[(unsigned)(k19) & 15u]) << ((l14) & 31u))) : (((((in_f[(unsigned)(l13) & 1023u]) < (a11))) ? (l14) : (l14))));
                    }
                }
            }
            if ((in_f[(unsigned)(15u) & 1023u]) != (((g_f[(unsigned)(49) & 63u]) + (a11)))) {
                break;
            }
        }
    }
    l15 = ((double)(((lw_f2u(g_f[(unsigned)(l13) & 63u])) & (((pa16[(unsigned)(16) & 15u]) << ((g_u[(unsigned)(13) & 63u]) & 31u))))));
    return floor(floor(l15));
}

#pragma omp declare simd linear(a23)
__attribute__((noinline)) float f2(unsigned a21, double a22, double *a23) {
    unsigned l24 = ((((in_i[(unsigned)(347) & 1023u]) > (13))) ? (g_u[(unsigned)(37) & 63u]) : (a21));
    double l25 = ((double)(((a21) << ((l24) & 31u))));
    int pa26[8];
    for (int z = 0; z < 8; z++) pa26[z] = (int)((unsigned)(((int)((unsigned)(2147483647) * (unsigned)(g_i[(unsigned)(0) & 63u])))) + (unsigned)z);
    switch ((unsigned)(g_i[(unsigned)(17) & 63u]) & 7u) {
    case 3u: {
        l24 = ((((((double)(((((g_i[(unsigned)(27) & 63u]) < (3))) ? (in_i[(unsigned)(8) & 1023u]) : (13))))) >= (a22))) ? (((unsigned)(((g_i[(unsigned)(61) & 63u]) ^ (in_i[(unsigned)(23) & 1023u]))))) : (a21));
        for (int k27 = 0; k27 < (int)((unsigned)((((-1)) % (((2147483647) & 15) + 1))) & 15u); k27++) {
            a22 = ((in_d[(unsigned)(k27) & 1023u]) * (1e0));
            {
                int w28 = 0;
                if ((l25) <= (a22)) goto m29;
                while (w28 < 6 && (((l24) < (((g_u[(unsigned)(k27) & 63u]) - (2147483648u)))))) {
                    w28++;
                    a21 = ((g_u[(unsigned)(pa26[(unsigned)(k27) & 7u]) & 63u]) & ((((((-1)) ? (in_u[(unsigned)(k27) & 1023u]) : (a21))) & (((((in_d[(unsigned)(497) & 1023u]) <= (5e-1))) ? (22u) : (7u))))));
                    a22 = in_d[(unsigned)(((2) >> ((w28) & 31))) & 1023u];
                m29:;
                }
            }
            if ((((int)((unsigned)(((a22) < (l25))) - (unsigned)(lw_f2i(5e-1f))))) == (((((g_d[(unsigned)(k27) & 63u]) > (in_d[(unsigned)(k27) & 1023u]))) ? (8) : (k27)))) {
                a21 = ((1u) << ((g_u[(unsigned)(((g_f[(unsigned)(53) & 63u]) > ((-2.5e0f)))) & 63u]) & 31u));
            }
        }
    } /* falls through */
    case 4u: {
        a22 = ((double)(5));
        if (lw_d2i(f0(g_u))) {
            if ((((int)((unsigned)(((int)(0u - (unsigned)(g_i[(unsigned)(21) & 63u])))) + (unsigned)((((-12)) >> ((8) & 31)))))) >= (100)) {
                a21 = (0u - (a21));
            } else {
                l25 = ((((((0.0) * (a22))) / (((l25) / (l25))))) - (((((1e1) + (g_d[(unsigned)(10) & 63u]))) * (((g_d[(unsigned)(29) & 63u]) / (in_d[(unsigned)(43) & 1023u]))))));
                a21 = ((((((((g_u[(unsigned)(2) & 63u]) == (l24))) ? (l24) : (a21))) - (g_u[(unsigned)(a21) & 63u]))) / (((((((in_u[(unsigned)(44) & 1023u]) ^ (in_u[(unsigned)(30) & 1023u]))) | (in_u[(unsigned)(g_i[(unsigned)(33) & 63u]) & 1023u]))) & 15u) + 1u));
            }
            {
                pa26[(unsigned)(in_u[(unsigned)(((int)(0u - (unsigned)(31)))) & 1023u]) & 7u] = ((int)(0u - (unsigned)(pa26[(unsigned)(38) & 7u])));
                l25 = ((((double)(((g_f[(unsigned)(65) & 63u]) * (in_f[(unsigned)(54) & 1023u]))))) + (((((((10) == (2147483647))) || ((((-1e0)) == (a22))))) ? (((a22) + (l25))) : (a22))));
            }
        }
    } break;
    default: {
    } break;
    }
    *a23 = ((((((((in_f[(unsigned)(30) & 1023u]) > (g_f[(unsigned)(5) & 63u]))) ? (1e0) : (a22))) < (l25))) ? (((l25) - (l25))) : (((l25) + (g_d[(unsigned)(38) & 63u]))));
    return (((((-0.0f)) - (in_f[(unsigned)(61) & 1023u]))) * (((in_f[(unsigned)(35) & 1023u]) * (g_f[(unsigned)(23) & 63u]))));
}

static void kernel31(int n) {
    float r32 = -3.0e38f;
    int r33 = (-2147483647 - 1);
    double cl37 = 0.0;
    memset(out_d, 0, sizeof out_d);
#pragma omp simd reduction(max:r32) reduction(max:r33) lastprivate(conditional: cl37) safelen(4)
    for (int i = 0; i < n; i++) {
        double c34 = i >= 6 ? out_d[i - 6] : (double)0;
        int t35 = ((int)((unsigned)(((n) <= (8))) << ((((int)((unsigned)(15) + (unsigned)(1)))) & 31)));
        float t36 = g_f[(unsigned)(n) & 63u];
        for (int k38 = 0; k38 < (int)((unsigned)(g_i[(unsigned)(t35) & 63u]) & 3u); k38++) {
            t36 = ((t36) + (((float)(in_i[(unsigned)(i) & 1023u]))));
            {
                int lw_c = ((((((double)(n))) == (1e-9))) || (((in_f[(unsigned)(i) & 1023u]) >= (g_f[(unsigned)(k38) & 63u]))));
                if (rv_all(lw_c) || lw_c) {
                    {
                        t35 = ((int)((unsigned)(((n) / (((in_i[(unsigned)(i) & 1023u]) & 15) + 1))) - (unsigned)(((int)((unsigned)(k38) + (unsigned)(in_i[(unsigned)(i) & 1023u]))))));
                        t36 = (-((-(((1e-6f) / (1.5e0f))))));
                        t36 = ((((((in_f[(unsigned)(68) & 1023u]) / (t36))) * (t36))) + (t36));
                    }
                }
            }
        }
        out_d[i] = ((c34) + (in_d[(unsigned)(i) & 1023u]));
    }
    for (int i = 0; i < n; i++) lw_print_d("kernel31 out_d", i, out_d[i]);
    lw_print_f("kernel31 r32", 0, r32 + 0.0f);
    lw_print_i("kernel31 r33", 0, r33);
    lw_print_d("kernel31 cl37", n, cl37);
}

static void kernel40(int n) {
    int r41 = 2147483647;
    memset(out_d, 0, sizeof out_d);
    memset(out_i, 0, sizeof out_i);
#pragma omp simd reduction(inscan, min:r41) simdlen(4)
    for (int i = 0; i < n; i++) {
        unsigned t42 = 47u;
        int t43 = ((n) ^ (lw_d2i(f1(g_u[(unsigned)(n) & 63u], &in_u[1 * i], g_f[(unsigned)(i) & 63u], g_i[(unsigned)(i) & 63u]))));
        unsigned t44 = ((((((in_f[(unsigned)(978) & 1023u]) > (1e2f))) ? (22u) : (t42))) >> ((((2u) - (t42))) & 31u));
        float ka45[8];
        for (int z = 0; z < 8; z++) ka45[z] = ((((5e-1) >= (g_d[(unsigned)(t43) & 63u]))) ? (g_f[(unsigned)(i) & 63u]) : (1.5e0f)) + (float)z;
        struct lw_rec ka46[4];
        for (int z = 0; z < 4; z++) { ka46[z].i = z * 3 - 5; ka46[z].u = ((unsigned)(n)) + (unsigned)z; ka46[z].f = (float)z * 0.25f - 1.5f; ka46[z].d = (double)z * -1.25 + 0.5; ka46[z].l = (long)z * 1000003l - 7l; ka46[z].s = (short)(z * 5 - 9); ka46[z].c = (unsigned char)(z * 37 + 1); }
        switch ((unsigned)(g_i[(unsigned)(67) & 63u]) & 7u) {
        case 1u: {
            out_d[i] = (-1e-3);
        } break;
        case 7u: {
            t43 = ((((int)((unsigned)(ka46[(unsigned)(8) & 3u].i) + (unsigned)(((((g_u[(unsigned)(i) & 63u]) >= (t44))) ? (3) : (in_i[(unsigned)(i) & 1023u])))))) | (ka46[(unsigned)(n) & 3u].i));
            (void)f2(in_u[(unsigned)(ka46[(unsigned)(35u) & 3u].i) & 1023u], 5e-1, &out_d[1 * i]);
            t43 = ((((((((double)(g_f[(unsigned)(i) & 63u]))) + (f0(g_u)))) < (((((1e6f) < (2e0f))) ? ((-0.0)) : (ka46[(unsigned)(67) & 3u].d))))) ? (t43) : (((((int)((unsigned)((-7)) + (unsigned)(i)))) ^ (((ka46[(unsigned)(51) & 3u].i) >> ((g_i[(unsigned)(50) & 63u]) & 31))))));
        } break;
        default: {
            (void)f2(((((t44) - (t42))) | ((((((-7)) != (ka46[(unsigned)(r41) & 3u].i))) ? (t44) : (43u)))), 3e0, &out_d[1 * i]);
        } break;
        }
        ka46[(unsigned)(lw_d2i(f0(g_u))) & 3u].d = ka46[(unsigned)((~(ka46[(unsigned)(28) & 3u].i))) & 3u].d;
        t43 = ((((((((15) | (t43))) % (((t43) & 15) + 1))) == (((43u) != (t42))))) ? (i) : (((int)(((t42) >> ((t44) & 31u))))));
        {
            int lw_c = ((1e6f) > (((ka45[(unsigned)(47) & 7u]) * ((-2.5e0f)))));
            if (rv_any(lw_c) && lw_c) {
                t44 = (0u - (t44));
            }
        }
        t43 = 3;
        out_i[i] = r41;
#pragma omp scan exclusive(r41)
        if ((in_i[(unsigned)(i) & 1023u]) < r41) r41 = in_i[(unsigned)(i) & 1023u];
    }
    for (int i = 0; i < n; i++) lw_print_d("kernel40 out_d", i, out_d[i]);
    for (int i = 0; i < n; i++) lw_print_i("kernel40 out_i", i, out_i[i]);
    lw_print_i("kernel40 r41", 0, r41);
}

static void kernel47(int n) {
    int r48 = 2147483647;
    unsigned r49 = 0u;
    double lp50 = 0.0;
    double lp51 = 0.0;
    memset(out_d, 0, sizeof out_d);
    memset(out_i, 0, sizeof out_i);
#pragma omp simd reduction(min:r48) reduction(^:r49) lastprivate(lp50, lp51)
    for (int i = 0; i < n; i++) {
        lp50 = ((((n) < (16))) ? (f1(g_u[(unsigned)(4) & 63u], &in_u[1 * i], g_f[(unsigned)(57) & 63u], g_i[(unsigned)(i) & 63u])) : ((((-2.5e0)) - (g_d[(unsigned)(i) & 63u]))));
        lp51 = 2e0;
        float t52 = in_f[(unsigned)(g_i[(unsigned)(10) & 63u]) & 1023u];
        int t53 = n;
        unsigned t54 = ((((6u) ^ (g_u[(unsigned)(n) & 63u]))) & (((((4294967295u) < (in_u[(unsigned)(i) & 1023u]))) ? (g_u[(unsigned)(t53) & 63u]) : (4u))));
        double t55 = 2e0;
        struct lw_rec ka56[8];
        for (int z = 0; z < 8; z++) { ka56[z].i = z * 3 - 5; ka56[z].u = (unsigned)z * 2654435761u; ka56[z].f = t52 + (float)z; ka56[z].d = (double)z * -1.25 + 0.5; ka56[z].l = (long)z * 1000003l - 7l; ka56[z].s = (short)(z * 5 - 9); ka56[z].c = (unsigned char)(z * 37 + 1); }
        struct lw_rec ka57[8];
        for (int z = 0; z < 8; z++) { ka57[z].i = (int)((unsigned)(g_i[(unsigned)(47u) & 63u]) + (unsigned)z); ka57[z].u = (unsigned)z * 2654435761u; ka57[z].f = (float)z * 0.25f - 1.5f; ka57[z].d = (double)z * -1.25 + 0.5; ka57[z].l = (long)z * 1000003l - 7l; ka57[z].s = (short)(z * 5 - 9); ka57[z].c = (unsigned char)(z * 37 + 1); }
        t55 = ((double)(((ka56[(unsigned)(29) & 7u].u) - (((((15u) > (t54))) ? (ka56[(unsigned)(i) & 7u].u) : (in_u[(unsigned)(55) & 1023u]))))));
        out_d[i] = ((((1e6) / (((t55) - (t55))))) + (exp((((-1e0)) + (ka57[(unsigned)(t53) & 7u].d)))));
        if ((!(((i) >> ((12) & 31))))) {
            if ((in_i[(unsigned)(i) & 1023u]) == (((((ka57[(unsigned)(33) & 7u].d) > (lp51))) ? (4) : (n)))) {
                t54 = ((((lp50) >= (((in_d[(unsigned)(68) & 1023u]) + (ka57[(unsigned)(i) & 7u].d))))) ? (((unsigned)(lw_f2i(t52)))) : (27u));
                t52 = f2(lw_d2u((-(lp51))), (-(f1(in_u[(unsigned)(i) & 1023u], &in_u[1 * i], t52, i))), &out_d[1 * i]);
                {
                    int w58 = 0;
                    while (w58 < 5 && (((g_i[(unsigned)(t53) & 63u]) < (g_i[(unsigned)(6u) & 63u])))) {
                        w58++;
                        lp50 = 1e-9;
                    }
                }
            }
        }
        out_i[i] = g_i[(unsigned)(((((int)(0u - (unsigned)(n)))) ^ (((i) | (i))))) & 63u];
    }
    for (int i = 0; i < n; i++) lw_print_d("kernel47 out_d", i, out_d[i]);
    for (int i = 0; i < n; i++) lw_print_i("kernel47 out_i", i, out_i[i]);
    lw_print_i("kernel47 r48", 0, r48);
    lw_print_u("kernel47 r49", 0, r49);
    lw_print_d("kernel47 lp50", n, lp50);
    lw_print_d("kernel47 lp51", n, lp51);
}

int main(void) {
    for (int k = 0; k < 64; k++) {
        g_i[k] = lw_int(); g_u[k] = lw_uint(); g_f[k] = lw_float(); g_d[k] = lw_double();
    }
    for (int k = 0; k < 1024; k++) {
        in_i[k] = lw_int(); in_u[k] = lw_uint(); in_f[k] = lw_float(); in_d[k] = lw_double();
    }
    kernel31(N > 7 ? N - 7 : 0);
    kernel40(N > 0 ? N - 0 : 0);
    kernel47(N > 6 ? N - 6 : 0);
    return 0;
}
