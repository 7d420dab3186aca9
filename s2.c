/* lanewise-fuzz program, seed 2 (crates/fuzz). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* Input arrays that end where a page mapped PROT_NONE begins, and start
 * after another one (the first page of `_pad`): a vector load that reads
 * one byte outside the pages of its active lanes' elements faults
 * (Lanewise's page-safe speculative loads may read inactive lanes' bytes
 * within those pages only). The guards are objects of their own, never
 * part of the array's: LLVM may widen a masked load into a plain one
 * where the whole vector lies within one object. The three objects are
 * laid out in one section in the order of their definitions, which
 * lw_guard checks before it protects anything. */
#define LW_GUARDED(type, name, len)                                                 \
    __attribute__((section(".lw_guarded"), aligned(4096), used)) static char        \
        name##_pad[4096 + (4096 - sizeof(type) * (len) % 4096) % 4096];             \
    __attribute__((section(".lw_guarded"))) static type name[len];                  \
    __attribute__((section(".lw_guarded"), aligned(4096), used)) static char        \
        name##_trail[4096]
static void lw_guard(char *pad, size_t pad_len, void *array, size_t len, char *trail) {
    uintptr_t p = (uintptr_t)pad, a = (uintptr_t)array, t = (uintptr_t)trail;
    __asm__ volatile("" : "+r"(p), "+r"(a), "+r"(t)); /* no folding of the tests */
    if (p + pad_len == a && a + len == t) {
        mprotect(pad, 4096, PROT_NONE);
        mprotect(trail, 4096, PROT_NONE);
    }
}

/* rv_any and rv_all of include/lanewise/rv.h (one-lane meaning in the
 * scalar build); used only as `if (rv_any(c)) if (c)`, `rv_all(c) || c`
 * and `rv_any(c) && c`, whose result per lane is that of `c`. */
#ifdef LANEWISE_RV_SCALAR
static inline bool rv_any(bool b) { return b; }
static inline bool rv_all(bool b) { return b; }
#elif defined(__cplusplus) /* a program compiled as C++ (`--cxx`) */
extern "C" bool rv_any(bool b);
extern "C" bool rv_all(bool b);
#else
extern bool rv_any(bool b);
extern bool rv_all(bool b);
#endif
/* RV_LANES_INDEPENDENT of the header: those guards keep every lane to its
 * own result, so a marked function may run in its one-lane form. */
#if defined(__clang__)
#define LW_LANES_INDEPENDENT __attribute__((annotate("lanewise.lanes-independent")))
#else
#define LW_LANES_INDEPENDENT
#endif

/* Division through helpers the optimizer sees as `memory(none)` but that
 * trap on a zero divisor (`Expr::GuardedDiv`): called only with a safe
 * divisor. */
__attribute__((noinline)) static int lw_sdiv(int a, int b) { return a / b; }
__attribute__((noinline)) static unsigned lw_udiv(unsigned a, unsigned b) { return a / b; }

/* The bit builtins with a defined result for zero (`MathFn::Clz`, ...). */
static inline unsigned lw_clz(unsigned x) { return x ? (unsigned)__builtin_clz(x) : 32u; }
static inline unsigned lw_ctz(unsigned x) { return x ? (unsigned)__builtin_ctz(x) : 32u; }
static inline unsigned lw_rotl(unsigned a, unsigned b) { return (a << (b & 31u)) | (a >> (-b & 31u)); }

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
#define N 289

static int g_i[64];
static unsigned g_u[64];
static float g_f[64];
static double g_d[64];
LW_GUARDED(int, in_i, 1024);
LW_GUARDED(unsigned, in_u, 1024);
LW_GUARDED(float, in_f, 1024);
LW_GUARDED(double, in_d, 1024);
static int out_i[400];
static unsigned out_u[400];
static float out_f[400];
static double out_d[400];
static unsigned at_add[16], at_and[16], at_or[16], at_xor[16], at_min[16], at_max[16];

static uint64_t lw_state = 0x3c6ef372fe94f82bull;
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
#pragma clang diagnostic ignored "-Wsometimes-uninitialized"
#pragma clang diagnostic ignored "-Wconditional-uninitialized"
struct lw_rec { int i; unsigned u; float f; double d; long l; short s; unsigned char c; };

#pragma omp declare simd simdlen(32)
float f0(int a1, int a2, double a3, double a4, double a5) {
    float l6 = in_f[(unsigned)(a1) & 1023u];
    unsigned l7 = ((((in_u[(unsigned)(a2) & 1023u]) ^ (g_u[(unsigned)(a1) & 63u]))) >> (((0u - (42u))) & 31u));
    double l8 = ((((((l7) & (12u))) > (g_u[(unsigned)(a2) & 63u]))) ? (g_d[(unsigned)(a1) & 63u]) : (((1e-1) - (a3))));
    int l9 = g_i[(unsigned)(41) & 63u];
    if (a1 <= 0 || a1 > 2) return (-1e-3f);
    {
        int lw_c = ((in_u[(unsigned)(184) & 1023u]) <= (18u));
        if (rv_any(lw_c) && lw_c) {
            if ((((((l7) >> ((l7) & 31u))) < (l7))) && (((((in_u[(unsigned)(515) & 1023u]) != (17u))) ? ((-6)) : (l9)))) {
                a2 = ((int)(lw_f2u(f0((a1 - 1), a1, ((((in_i[(unsigned)(777) & 1023u]) <= (7))) ? (a3) : (a5)), ((double)(f0((a1 - 1), l9, a5, 1e6, in_d[(unsigned)(l9) & 1023u]))), ((in_d[(unsigned)(l9) & 1023u]) - (a4))))));
                for (int k10 = 0; k10 < (int)((unsigned)(((int)((unsigned)(a1) - (unsigned)(l9)))) & 15u); k10++) {
                    l8 = ((fabs(((double)(g_f[(unsigned)(a1) & 63u])))) + (((double)(l7))));
                    if ((((((((0.0f) < (l6))) ? (l6) : (g_f[(unsigned)(45) & 63u]))) >= (2e0f))) || (((in_f[(unsigned)(l9) & 1023u]) > (g_f[(unsigned)(a1) & 63u])))) {
                        return ((l6) / (((float)(g_d[(unsigned)(a1) & 63u]))));
                    }
                }
                {
                    int ck11 = ((3e0f) > (((((3u) > (l7))) ? (l6) : (1.5e0f))));
                    double cu12;
                    if (ck11) cu12 = in_d[(unsigned)(a1) & 1023u];
                    {
                        lw_f4 sv13 = {l6, in_f[(unsigned)(g_i[(unsigned)(a2) & 63u]) & 1023u], (((&in_f[(unsigned)(l9) & 511u])[325]) + (l6)), f0((a1 - 1), in_i[(unsigned)(l9) & 1023u], 1e0, 1e1, a5)};
                        sv13 = sv13 + (lw_f4){((l6) + (l6)), (((-0.0f)) / (1e1f)), l6, ((g_f[(unsigned)(a1) & 63u]) - ((-1e-3f)))};
                        sv13 = __builtin_shufflevector(sv13, sv13, 6, 6, 7, 6);
                        l6 = sv13[2] - sv13[1];
                    }
                    if (ck11) a5 = cu12;
                }
            } else {
                {
                    a4 = ((((double)((&in_i[(unsigned)(13) & 511u])[391]))) + (in_d[(unsigned)((&g_i[(unsigned)(a1) & 31u])[21]) & 1023u]));
                    l8 = ((double)(f0((a1 - 1), lw_f2i(f0((a1 - 1), lw_f2i(2e0f), a5, ceil(g_d[(unsigned)(56) & 63u]), ((in_d[(unsigned)(a2) & 1023u]) - (1.5e0)))), (-((&in_d[(unsigned)(36) & 511u])[320])), ((0.0) - (l8)), 1e-9)));
                }
            }
        }
    }
    return ((((l6) * (l6))) / (((1e6f) / (in_f[(unsigned)(l9) & 1023u]))));
}
static unsigned ord_u[16];

static void kernel15(int n) {
    int r16 = 2147483647;
    int r17 = (-2147483647 - 1);
    int r18 = (-2147483647 - 1);
    double lp19 = 0.0;
    memset(out_f, 0, sizeof out_f);
    memset(ord_u, 0, sizeof ord_u);
#pragma omp simd reduction(min:r16) reduction(max:r17) reduction(max:r18) lastprivate(lp19) simdlen(8)
    for (int i = 0; i < n; i++) {
        int i_end = 1024 - n + i;
        (void)i_end;
        lp19 = ((double)(lw_f2u(1e-6f)));
        double t20 = lp19;
        int t21 = in_i[(unsigned)(i) & 1023u];
        double t22 = g_d[(unsigned)(((8) % (((g_i[(unsigned)(n) & 63u]) & 15) + 1))) & 63u];
        unsigned ka23[4];
        for (int z = 0; z < 4; z++) ka23[z] = 42u + (unsigned)z;
        double ka24[8];
        for (int z = 0; z < 8; z++) ka24[z] = ((1e1) * (0.0)) + (double)z;
        t21 = ((((g_d[(unsigned)(41) & 63u]) >= (0.0))) ? (t21) : ((&in_i[(unsigned)(i) & 511u])[452]));
        if ((((int)((unsigned)(((int)((unsigned)(i) << ((n) & 31)))) - (unsigned)(((t21) & (16)))))) > (((t21) % (((t21) & 15) + 1)))) {
            continue;
        }
        out_f[i] = in_f[(unsigned)(i_end) & 1023u];
    }
    for (int i = 0; i < n; i++) lw_print_f("kernel15 out_f", i, out_f[i]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel15 ord_u", k, ord_u[k]);
    lw_print_i("kernel15 r16", 0, r16);
    lw_print_i("kernel15 r17", 0, r17);
    lw_print_i("kernel15 r18", 0, r18);
    lw_print_d("kernel15 lp19", n, lp19);
}

static void kernel25(int n) {
    int r26 = 2147483647;
    float r27 = 3.0e38f;
    float lp28 = 0.0f;
    memset(out_d, 0, sizeof out_d);
    memset(ord_u, 0, sizeof ord_u);
#pragma omp simd reduction(min:r26) reduction(min:r27) lastprivate(lp28) simdlen(32)
    for (int i = 0; i < n; i++) {
        int i_end = 1024 - n + i;
        (void)i_end;
        lp28 = (&g_f[(unsigned)(i) & 31u])[7];
        unsigned t29 = g_u[(unsigned)(n) & 63u];
        unsigned t30 = t29;
        float ka31[4];
        for (int z = 0; z < 4; z++) ka31[z] = (-(1.2345678e4f)) + (float)z;
        int ka32[16] = {(-1), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
        lp28 = f0(((lw_f2i(f0(n, i, in_d[(unsigned)(i_end) & 1023u], (-1e0), in_d[(unsigned)(70) & 1023u]))) / (((11) & 15) + 1)), ((((in_u[(unsigned)(i) & 1023u]) << ((7u) & 31u))) != (g_u[(unsigned)(i) & 63u])), (((((&in_d[(unsigned)(i_end) & 511u])[122]) / ((-0.0)))) - (in_d[(unsigned)(i) & 1023u])), ((double)(f0(ka32[(unsigned)(n) & 15u], n, (((-1e-3)) - (in_d[(unsigned)(i) & 1023u])), (((&in_d[(unsigned)(63) & 511u])[432]) - (1.5e0)), ((double)(in_u[(unsigned)(i) & 1023u]))))), ((in_d[(unsigned)(i_end) & 1023u]) / (rint((&g_d[(unsigned)(n) & 31u])[18]))));
        lp28 = (-(g_f[(unsigned)(i) & 63u]));
        lp28 = f0(((int)((unsigned)(((int)((unsigned)(i) + (unsigned)(i)))) - (unsigned)(((int)((unsigned)(n) - (unsigned)(i)))))), i, (-2.5e0), 1e0, ((double)(f0(((int)(0u - (unsigned)(16))), (&g_i[(unsigned)(i) & 31u])[1], ((double)(f0(i, i, in_d[(unsigned)(n) & 1023u], g_d[(unsigned)(n) & 63u], in_d[(unsigned)(n) & 1023u]))), ((double)(f0(in_i[(unsigned)(i) & 1023u], i, g_d[(unsigned)(8) & 63u], g_d[(unsigned)(i) & 63u], 5e-1))), ((double)(t30))))));
        if ((!(((n) <= (16))))) {
            if ((1e-6f) < r27) r27 = 1e-6f;
        } else {
            {
                int w33 = 0;
                while (w33 < 4 && (((in_d[(unsigned)(186) & 1023u]) > (1e0)))) {
                    w33++;
                    {
                        int w34 = 0;
                        if ((255u) < (g_u[(unsigned)(31) & 63u])) goto m35;
                        while (w34 < 5 && (((in_f[(unsigned)(45) & 1023u]) < (1e-1f)))) {
                            w34++;
                        m35:;
                        }
                    }
                }
            }
        }
        out_d[i] = 5e-1;
    }
    for (int i = 0; i < n; i++) lw_print_d("kernel25 out_d", i, out_d[i]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel25 ord_u", k, ord_u[k]);
    lw_print_i("kernel25 r26", 0, r26);
    lw_print_f("kernel25 r27", 0, r27 + 0.0f);
    lw_print_f("kernel25 lp28", n, lp28);
}

static void kernel36(int n) {
    int r37 = (-2147483647 - 1);
    memset(out_i, 0, sizeof out_i);
    memset(ord_u, 0, sizeof ord_u);
#pragma omp simd reduction(max:r37)
    for (int i = n - 1; i >= 0; i--) {
        int i_end = 1024 - n + i;
        (void)i_end;
        double t38 = ((double)((0u - (1000u))));
        unsigned t39 = g_u[(unsigned)(i) & 63u];
        int t40 = n;
        struct lw_rec ka41[4];
        for (int z = 0; z < 4; z++) { ka41[z].i = z * 3 - 5; ka41[z].u = g_u[(unsigned)((-11)) & 63u] + (unsigned)z; ka41[z].f = (float)z * 0.25f - 1.5f; ka41[z].d = (double)z * -1.25 + 0.5; ka41[z].l = (long)z * 1000003l - 7l; ka41[z].s = (short)(z * 5 - 9); ka41[z].c = (unsigned char)(z * 37 + 1); }
        t39 = ((((g_u[(unsigned)(g_i[(unsigned)(t40) & 63u]) & 63u]) << ((4294967295u) & 31u))) << ((((((log2(t38)) >= (t38))) ? (((100u) / (((22u) & 15u) + 1u))) : (((in_u[(unsigned)(i_end) & 1023u]) * (21u))))) & 31u));
        t39 = ((((((((g_f[(unsigned)(n) & 63u]) - ((-1e0f)))) - (((1e2f) + (3e0f))))) < ((&in_f[(unsigned)(i_end) & 511u])[120]))) ? (((t39) ^ (ka41[(unsigned)(n) & 3u].u))) : (lw_f2u(f0(lw_f2i(f0((&g_i[(unsigned)(i) & 31u])[15], i, t38, t38, (&g_d[(unsigned)(t40) & 31u])[21])), ((ka41[(unsigned)(i) & 3u].i) | (n)), ((g_d[(unsigned)(12) & 63u]) + (3e0)), (((&in_d[(unsigned)(19) & 511u])[4]) + (g_d[(unsigned)(n) & 63u])), ka41[(unsigned)(30) & 3u].d))));
        #pragma omp ordered simd
        { unsigned lw_k = (unsigned)(g_i[(unsigned)((((-1e-3)) <= (t38))) & 63u]) & 15u; ord_u[lw_k] = ord_u[lw_k] * 33u + lw_f2u(((1e-1f) + ((&ka41[(unsigned)(n) & 1u])[2].f))); }
        out_i[i] = ((t40) & (t40));
    }
    for (int i = 0; i < n; i++) lw_print_i("kernel36 out_i", i, out_i[i]);
    for (int k = 0; k < 16; k++) lw_print_u("kernel36 ord_u", k, ord_u[k]);
    lw_print_i("kernel36 r37", 0, r37);
}

int main(void) {
    lw_guard(in_i_pad, sizeof in_i_pad, in_i, sizeof in_i, in_i_trail);
    lw_guard(in_u_pad, sizeof in_u_pad, in_u, sizeof in_u, in_u_trail);
    lw_guard(in_f_pad, sizeof in_f_pad, in_f, sizeof in_f, in_f_trail);
    lw_guard(in_d_pad, sizeof in_d_pad, in_d, sizeof in_d, in_d_trail);
    for (int k = 0; k < 64; k++) {
        g_i[k] = lw_int(); g_u[k] = lw_uint(); g_f[k] = lw_float(); g_d[k] = lw_double();
    }
    for (int k = 0; k < 1024; k++) {
        in_i[k] = lw_int(); in_u[k] = lw_uint(); in_f[k] = lw_float(); in_d[k] = lw_double();
    }
    kernel15(N > 4 ? N - 4 : 0);
    kernel25(N > 7 ? N - 7 : 0);
    kernel36(N > 1 ? N - 1 : 0);
    return 0;
}
