/* OPEN BUG (not fixed; not run by fuzz_regressions.rs, which reads only the directory above). */
/* unreduced: every -march (seed 23277, also with b54e4c3): kernel34 out_f 53 prints 80000000 (-0.0) where clang's scalar build prints 00000000 (+0.0), 2 lines differ. Not investigated yet. */
/* lanewise-fuzz program, seed 23277 (crates/fuzz). */
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
#define N 259

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

static uint64_t lw_state = 0xfa26e77b07944171ull;
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
typedef float lw_f4 __attribute__((vector_size(16)));
typedef unsigned lw_u4 __attribute__((vector_size(16)));
struct lw_rec { int i; unsigned u; float f; double d; long l; short s; unsigned char c; };

#pragma omp declare simd simdlen(32) uniform(a4)
__attribute__((noinline)) static double f0(int a1, double a2, unsigned a3, const unsigned *a4) {
    int l5 = ((g_f[(unsigned)(in_u[(unsigned)(a1) & 1023u]) & 63u]) >= (in_f[(unsigned)(a1) & 1023u]));
    int l6 = ((((a1) >> (((-14)) & 31))) > (l5));
    {
        int lw_c = (((-2.5e0f)) >= (((float)(a3))));
        if (rv_any(lw_c)) {
            if (lw_c) {
                l6 = ((in_i[(unsigned)(((l6) % (((l5) & 15) + 1))) & 1023u]) ? (lw_d2i(in_d[(unsigned)(l6) & 1023u])) : (g_i[(unsigned)(((((a4[(unsigned)(60) & 63u]) > (15u))) ? (a3) : (48u))) & 63u]));
                for (int k7 = 0; k7 < (int)((unsigned)(in_i[(unsigned)(a1) & 1023u]) & 7u); k7++) {
                    if (lw_d2i(g_d[(unsigned)(in_i[(unsigned)(l5) & 1023u]) & 63u])) {
                        a3 = a4[(unsigned)(((int)((unsigned)(((k7) | (a1))) * (unsigned)((-1))))) & 63u];
                        l5 = ((g_i[(unsigned)(((int)((unsigned)(l6) - (unsigned)(g_i[(unsigned)(a1) & 63u])))) & 63u]) ^ ((((~(in_i[(unsigned)(a1) & 1023u]))) >> ((a1) & 31))));
                    }
                }
            }
        }
    }
    if ((in_i[(unsigned)(271) & 1023u]) <= ((-16))) {
        {
            int lw_c = ((((a1) ? (in_f[(unsigned)(17) & 1023u]) : (((3e0f) / ((-0.0f)))))) >= (((in_f[(unsigned)(l5) & 1023u]) / (in_f[(unsigned)(l6) & 1023u]))));
            if (rv_any(lw_c) && lw_c) {
            }
        }
    }
    return ((((2e0) * (g_d[(unsigned)(l6) & 63u]))) - (in_d[(unsigned)(in_i[(unsigned)(2) & 1023u]) & 1023u]));
}

#pragma omp declare simd notinbranch simdlen(4)
__attribute__((noinline)) unsigned f1(unsigned a8, float a9, float a10) {
    int l11 = ((int)((unsigned)(((8) % (((in_i[(unsigned)(29) & 1023u]) & 15) + 1))) * (unsigned)(lw_f2i(a10))));
    float pa12[4];
    for (int z = 0; z < 4; z++) pa12[z] = in_f[(unsigned)(30) & 1023u] + (float)z;
    {
        lw_f4 sv13 = {((1e6f) / (g_f[(unsigned)(3) & 63u])), ((1.2345678e4f) * (g_f[(unsigned)(l11) & 63u])), floorf(a9), g_f[(unsigned)(0) & 63u]};
        sv13 = sv13 - (lw_f4){((float)(f0(l11, 1e2, in_u[(unsigned)(l11) & 1023u], g_u))), ((g_f[(unsigned)(l11) & 63u]) - (a10)), in_f[(unsigned)(g_i[(unsigned)(l11) & 63u]) & 1023u], a9};
        sv13 = __builtin_shufflevector(sv13, sv13, 2, 1, 7, 0);
        a10 = sv13[3] - sv13[1];
    }
    if ((g_u[(unsigned)(l11) & 63u]) == (((in_i[(unsigned)(l11) & 1023u]) ? (g_u[(unsigned)(l11) & 63u]) : (a8)))) {
        return in_u[(unsigned)(((((in_u[(unsigned)(131) & 1023u]) <= (7u))) ? (l11) : (g_i[(unsigned)(5) & 63u]))) & 1023u];
    }
    a10 = pa12[(unsigned)(g_i[(unsigned)(l11) & 63u]) & 3u];
    {
        int w14 = 0;
        while (w14 < 4 && (((in_u[(unsigned)(57) & 1023u]) > (31u)))) {
            w14++;
            a9 = g_f[(unsigned)(((((((g_u[(unsigned)(60) & 63u]) % (((in_u[(unsigned)(w14) & 1023u]) & 15u) + 1u))) != (1u))) ? (g_u[(unsigned)(l11) & 63u]) : (((((in_f[(unsigned)(w14) & 1023u]) == (a9))) ? (20u) : (a8))))) & 63u];
        }
    }
    {
        int w15 = 0;
        while (w15 < 6 && (((g_u[(unsigned)(((in_i[(unsigned)(l11) & 1023u]) & ((-15)))) & 63u]) != (((3u) - (a8)))))) {
            w15++;
            {
                int w16 = 0;
                while (w16 < 6 && (((((in_i[(unsigned)(w15) & 1023u]) % (((2147483647) & 15) + 1))) / (((g_i[(unsigned)(31) & 63u]) & 15) + 1)))) {
                    w16++;
                    for (int k17 = 0; k17 < (int)((unsigned)(g_i[(unsigned)(in_i[(unsigned)(54) & 1023u]) & 63u]) & 7u); k17++) {
                        if ((((((in_f[(unsigned)(w15) & 1023u]) - (a10))) >= (a9))) && (((((3e0f) + ((-1e0f)))) == (1.5e0f)))) {
                            return ((unsigned)(g_i[(unsigned)(l11) & 63u]));
                        }
                        if ((in_d[(unsigned)(991) & 1023u]) > (5e-1)) {
                            break;
                        }
                    }
                    if ((g_i[(unsigned)(((((in_d[(unsigned)(l11) & 1023u]) == (1e-9))) ? (0) : (l11))) & 63u]) >= (((in_i[(unsigned)(w15) & 1023u]) ^ (2)))) {
                        break;
                    }
                }
            }
            if ((((((((in_f[(unsigned)(10) & 1023u]) >= (a10))) ? (3u) : (37u))) - (lw_d2u(f0(w15, g_d[(unsigned)(16) & 63u], a8, g_u))))) >= (((a8) % (((a8) & 15u) + 1u)))) {
                if ((lw_f2u((-2.5e0f))) < (a8)) {
                    l11 = lw_d2i(f0(l11, ((((((16u) == (in_u[(unsigned)(w15) & 1023u]))) || (in_i[(unsigned)(w15) & 1023u]))) ? (((l11) ? (1e1) : (in_d[(unsigned)(w15) & 1023u]))) : (1e-9)), ((((a8) & (in_u[(unsigned)(w15) & 1023u]))) % (((lw_d2u(1e0)) & 15u) + 1u)), g_u));
                    a10 = ((float)(a8));
                }
            }
        }
    }
    return lw_d2u(((g_d[(unsigned)(l11) & 63u]) + (in_d[(unsigned)(l11) & 1023u])));
}

#pragma omp declare simd notinbranch simdlen(4) linear(a18:2) uniform(a20) uniform(a22)
__attribute__((noinline)) static float f2(int a18, unsigned a19, const int *a20, double a21, unsigned a22) {
    float l23 = ((0.0f) / ((-(in_f[(unsigned)(a18) & 1023u]))));
    unsigned l24 = ((in_u[(unsigned)(a18) & 1023u]) << ((((28u) << ((a19) & 31u))) & 31u));
    double l25 = a21;
    float l26 = ((in_f[(unsigned)(a22) & 1023u]) * (((l23) * (g_f[(unsigned)(a18) & 63u]))));
    struct lw_rec pa27[8];
    for (int z = 0; z < 8; z++) { pa27[z].i = z * 3 - 5; pa27[z].u = ((28u) / (((a22) & 15u) + 1u)) + (unsigned)z; pa27[z].f = (float)z * 0.25f - 1.5f; pa27[z].d = (double)z * -1.25 + 0.5; pa27[z].l = (long)z * 1000003l - 7l; pa27[z].s = (short)(z * 5 - 9); pa27[z].c = (unsigned char)(z * 37 + 1); }
    {
        int lw_c = ((lw_d2i(((((g_i[(unsigned)(27) & 63u]) < (2147483647))) ? (pa27[(unsigned)(a18) & 7u].d) : (0.0)))) == (2));
        if (rv_all(lw_c) || lw_c) {
            pa27[(unsigned)(((((l24) % (((g_u[(unsigned)(a18) & 63u]) & 15u) + 1u))) >> ((((a22) & (21u))) & 31u))) & 7u].d = f0(((7) ^ (3)), g_d[(unsigned)(a18) & 63u], lw_f2u(l26), g_u);
            pa27[(unsigned)(lw_d2i(f0(a20[(unsigned)(a18) & 63u], l25, a22, g_u))) & 7u].u = lw_f2u(((1.5e0f) / (g_f[(unsigned)(a18) & 63u])));
        }
    }
    if ((((((a18) & (a18))) > (a18))) && (((in_f[(unsigned)((-1)) & 1023u]) != (l26)))) {
        l24 = ((a19) | (a22));
    }
    return pa27[(unsigned)(7u) & 7u].f;
}

static void kernel28(int n) {
    int r29 = (-2147483647 - 1);
    memset(out_u, 0, sizeof out_u);
#pragma omp simd reduction(max:r29)
    for (int i = 0; i < n; i++) {
        float t30 = f2((2 * i + -3), 8u, g_i, ((1e-9) - (in_d[(unsigned)(i) & 1023u])), 31u);
        unsigned t31 = (0u - (lw_d2u(f0(g_i[(unsigned)(n) & 63u], in_d[(unsigned)(i) & 1023u], 15u, g_u))));
        double t32 = ((((double)(f1(100u, 1.5e0f, t30)))) / (1e-9));
        {
            lw_f4 sv33 = {expf(t30), ((float)(t32)), ((((t32) == (1.5e0))) ? (t30) : (t30)), ((1e1f) - (t30))};
            sv33 = sv33 * (lw_f4){in_f[(unsigned)(38) & 1023u], ((((g_f[(unsigned)(37) & 63u]) <= ((-1e0f)))) ? (1.2345678e4f) : (in_f[(unsigned)(i) & 1023u])), t30, ((in_f[(unsigned)(i) & 1023u]) + (t30))};
            sv33 = __builtin_shufflevector(sv33, sv33, 6, 3, 2, 4);
            t30 = sv33[2] * sv33[3];
        }
        t31 = ((lw_f2u(t30)) | (in_u[(unsigned)(f1(t31, 2e0f, g_f[(unsigned)(n) & 63u])) & 1023u]));
        t30 = in_f[(unsigned)(n) & 1023u];
        out_u[i] = in_u[(unsigned)(i) & 1023u];
    }
    for (int i = 0; i < n; i++) lw_print_u("kernel28 out_u", i, out_u[i]);
    lw_print_i("kernel28 r29", 0, r29);
}

static void kernel34(int n) {
    float r35 = 3.0e38f;
    double lp36 = 0.0;
    float lp37 = 0.0f;
    memset(out_f, 0, sizeof out_f);
    memset(out_i, 0, sizeof out_i);
#pragma omp simd reduction(inscan, min:r35) lastprivate(lp36, lp37)
    for (int i = 0; i < n; i++) {
        lp36 = ((((double)(1e-6f))) + (((in_d[(unsigned)(i) & 1023u]) * (3e0))));
        lp37 = 2e0f;
        float t38 = r35;
        double t39 = in_d[(unsigned)(((3u) + (3u))) & 1023u];
        unsigned t40 = ((((in_u[(unsigned)(i) & 1023u]) + (in_u[(unsigned)(i) & 1023u]))) - (lw_d2u(f0(g_i[(unsigned)(52) & 63u], in_d[(unsigned)(i) & 1023u], g_u[(unsigned)(n) & 63u], g_u))));
        double t41 = t39;
        t38 = ((((((1e2f) * (5e-1f))) * (expf(t38)))) + (((float)(f0(i, ((double)(f1(t40, t38, in_f[(unsigned)(i) & 1023u]))), lw_d2u(lp36), g_u)))));
        if (lw_d2i(lp36)) {
            for (int k42 = 0; k42 < (int)((unsigned)(lw_f2i(in_f[(unsigned)(i) & 1023u])) & 3u); k42++) {
                switch ((unsigned)(((in_f[(unsigned)(616) & 1023u]) > (2e0f))) & 7u) {
                case 0u: {
                    lp37 = ((r35) * ((((((((-0.0)) <= (1.2345678e4))) ? (t38) : (g_f[(unsigned)(k42) & 63u]))) - (((t38) / (r35))))));
                    if ((in_d[(unsigned)(168) & 1023u]) > (3e0)) {
                        continue;
                    }
                    out_f[i] = ((1.5e0f) * (r35));
                } break;
                case 5u: {
                    out_f[i] = ((float)(f1(((lw_f2u(f2((2 * i + -1), 21u, g_i, in_d[(unsigned)(i) & 1023u], 255u))) / (((lw_f2u(lp37)) & 15u) + 1u)), ((in_f[(unsigned)(i) & 1023u]) / (2e0f)), fabsf(sqrtf(1e0f)))));
                } break;
                default: {
                    if ((g_f[(unsigned)(36) & 63u]) >= ((-2.5e0f))) {
                        break;
                    }
                    t40 = (0u - (((t40) * (f1(g_u[(unsigned)(n) & 63u], (-0.0f), g_f[(unsigned)(k42) & 63u])))));
                } break;
                }
            }
            for (int k43 = 0; k43 < (int)((unsigned)(((n) % (((i) & 15) + 1))) & 3u); k43++) {
                if ((f0(((int)(0u - (unsigned)((-100)))), 3e0, ((g_u[(unsigned)(n) & 63u]) & (39u)), g_u)) >= (exp(g_d[(unsigned)(k43) & 63u]))) {
                    continue;
                }
                lp36 = ((lw_f2i(g_f[(unsigned)(18u) & 63u])) ? ((((((-1e0)) + (lp36))) * (((t41) / (lp36))))) : (((((lp36) * (lp36))) - (g_d[(unsigned)(in_i[(unsigned)(k43) & 1023u]) & 63u]))));
                {
                    int lw_c = ((24u) < (2u));
                    if (rv_all(lw_c) || lw_c) {
                        out_i[i] = ((((g_d[(unsigned)(((g_d[(unsigned)(n) & 63u]) != (1e1))) & 63u]) == (g_d[(unsigned)(12) & 63u]))) ? (g_i[(unsigned)(n) & 63u]) : (((lw_d2i(f0(g_i[(unsigned)(k43) & 63u], in_d[(unsigned)(i) & 1023u], 15u, g_u))) >> ((((i) | (g_i[(unsigned)(22) & 63u]))) & 31))));
                    }
                }
            }
        }
        out_i[i] = ((((lw_d2u(f0(i, 3e0, t40, g_u))) >= (in_u[(unsigned)(i) & 1023u]))) >> ((((int)(f1(((t40) << ((15u) & 31u)), ((r35) * (1e2f)), ((g_f[(unsigned)(n) & 63u]) / (1e0f)))))) & 31));
#pragma omp scan exclusive(r35)
        if ((((((((0.0f) <= (in_f[(unsigned)(n) & 1023u]))) ? ((-0.0f)) : (g_f[(unsigned)(15) & 63u]))) / (((in_f[(unsigned)(i) & 1023u]) + (g_f[(unsigned)(21) & 63u]))))) < r35) r35 = ((((((0.0f) <= (in_f[(unsigned)(n) & 1023u]))) ? ((-0.0f)) : (g_f[(unsigned)(15) & 63u]))) / (((in_f[(unsigned)(i) & 1023u]) + (g_f[(unsigned)(21) & 63u]))));
    }
    for (int i = 0; i < n; i++) lw_print_f("kernel34 out_f", i, out_f[i]);
    for (int i = 0; i < n; i++) lw_print_i("kernel34 out_i", i, out_i[i]);
    lw_print_f("kernel34 r35", 0, r35 + 0.0f);
    lw_print_d("kernel34 lp36", n, lp36);
    lw_print_f("kernel34 lp37", n, lp37);
}

static void kernel44(int n) {
    int r46 = 2147483647;
    int lp47 = 0;
    unsigned lp48 = 0u;
    int j45 = 2;
    memset(out_d, 0, sizeof out_d);
#pragma omp simd reduction(min:r46) lastprivate(lp47, lp48) linear(j45:3) safelen(4)
    for (int i = 0; i < n; i++) {
        lp47 = ((((int)(0u - (unsigned)(n)))) & (((int)(0u - (unsigned)((-16))))));
        lp48 = ((3) ? (0u) : ((0u - (g_u[(unsigned)(n) & 63u]))));
        double c49 = i >= 6 ? out_d[i - 6] : (double)0;
        float t50 = ((1e1f) - (g_f[(unsigned)(i) & 63u]));
        float t51 = ((((in_f[(unsigned)(559) & 1023u]) == (1e1f))) ? (((t50) - (t50))) : (((t50) * ((-0.0f)))));
        unsigned t52 = in_u[(unsigned)(i) & 1023u];
        if (((~(lp48))) < (t52)) {
            {
                lw_f4 sv53 = {t51, (-(t51)), in_f[(unsigned)(i) & 1023u], ((t51) * (t51))};
                sv53 = sv53 - (lw_f4){t50, ((0.0f) / (t51)), ((g_f[(unsigned)(n) & 63u]) - (in_f[(unsigned)(i) & 1023u])), in_f[(unsigned)(i) & 1023u]};
                sv53 = __builtin_shufflevector(sv53, sv53, 5, 6, 3, 1);
                t51 = sv53[2] - sv53[0];
            }
            out_d[i] = ((1.5e0) + (c49));
        } else {
            t51 = ((g_f[(unsigned)(((((c49) == (1e0))) ? (lp48) : (lp48))) & 63u]) / (((float)(f1(in_u[(unsigned)(i) & 1023u], ((t51) - (in_f[(unsigned)(j45) & 1023u])), in_f[(unsigned)(i) & 1023u])))));
            lp47 = lw_f2i(((t51) + (t51)));
            {
                int w54 = 0;
                while (w54 < 2 && ((((~((((-2147483647)) | (i))))) >= (((in_i[(unsigned)(j45) & 1023u]) | (8)))))) {
                    w54++;
                    if ((((int)(0u - (unsigned)(in_i[(unsigned)(i) & 1023u])))) < r46) r46 = ((int)(0u - (unsigned)(in_i[(unsigned)(i) & 1023u])));
                    t52 = lw_d2u(in_d[(unsigned)(30) & 1023u]);
                }
            }
        }
        out_d[i] = ((c49) + ((((-(c49))) + (c49))));
        j45 += 3;
    }
    for (int i = 0; i < n; i++) lw_print_d("kernel44 out_d", i, out_d[i]);
    lw_print_i("kernel44 r46", 0, r46);
    lw_print_i("kernel44 j45", n, j45);
    lw_print_i("kernel44 lp47", n, lp47);
    lw_print_u("kernel44 lp48", n, lp48);
}

int main(void) {
    for (int k = 0; k < 64; k++) {
        g_i[k] = lw_int(); g_u[k] = lw_uint(); g_f[k] = lw_float(); g_d[k] = lw_double();
    }
    for (int k = 0; k < 1024; k++) {
        in_i[k] = lw_int(); in_u[k] = lw_uint(); in_f[k] = lw_float(); in_d[k] = lw_double();
    }
    kernel28(N > 3 ? N - 3 : 0);
    kernel34(N > 6 ? N - 6 : 0);
    kernel44(N > 7 ? N - 7 : 0);
    return 0;
}
