/* reduced: -march=native: crash: program exited with signal: 11 (SIGSEGV):  */
/* lanewise-fuzz program, seed 900042 (crates/fuzz). */
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
#define N 16

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

static uint64_t lw_state = 0x8c1c0322267a3f93ull;
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
LW_GUARDED(long, in_l, 1024);
LW_GUARDED(short, in_s, 1024);
LW_GUARDED(unsigned char, in_c, 1024);
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
static const struct lw_rec lw_recs[4] = {
    {-7, 3000000000u, 1.5f, -2.25, -5000000000L, -300, 200},
    {12, 5u, -0.125f, 1e10, 77L, 32000, 0},
    {0, 0u, 0.0f, -0.0, 0L, 0, 255},
    {-2147483647, 4294967295u, 3e38f, 1e-300, 9000000000000000000L, -32768, 1},
};

#pragma omp declare simd notinbranch simdlen(4) linear(a2)
unsigned char f0(int a1, unsigned *a2, struct lw_rec a3) {
    short l4 = ((((a3.s) != (((short)0)))) ? (g_s[(unsigned)(0) & 63u]) : (((short)0)));
    int pa5[8];
    for (int z = 0; z < 8; z++) pa5[z] = (int)((unsigned)(((in_d[(unsigned)(0) & 1023u]) == (0.0))) + (unsigned)z);
    for (int k6 = 0; k6 < (int)((unsigned)(((int)(g_l[(unsigned)(a3.i) & 63u]))) & 7u); k6++) {
        a3.c = ((unsigned char)((((((l4) < (((short)0)))) ? ((&in_c[(unsigned)(a1) & 511u])[56]) : (a3.c))) & (((unsigned char)10))));
    }
    if ((((((a3.c) >= (in_c[(unsigned)(5) & 1023u]))) ? (((short)(-(l4)))) : (((short)0)))) == (((short)((a3.s) / (((l4) & 15) + 1))))) {
        a3.c = ((((((int)(g_s[(unsigned)(l4) & 63u]))) <= ((~(a3.i))))) ? (((unsigned char)((in_c[(unsigned)(pa5[(unsigned)(0) & 7u]) & 1023u]) >> ((a3.c) & 7)))) : (((unsigned char)7)));
    }
    *a2 = ((a3.i) ? (((a3.u) ^ (15u))) : (0u));
    return ((unsigned char)((((unsigned char)((in_c[(unsigned)(0) & 1023u]) / (((a3.c) & 15) + 1)))) >> ((((unsigned char)1)) & 7)));
}

static void kernel14(int n) {
    long cl20 = 0L;
    unsigned cl21 = 0u;
    memset(out_u, 0, sizeof out_u);
#pragma omp simd lastprivate(conditional: cl20, cl21) safelen(8)
    for (int i = 0; i < n; i++) {
        int i_end = 1024 - n + i;
        (void)i_end;
        unsigned char c15 = i >= 15 ? out_c[i - 15] : (unsigned char)0;
        (void)f0(((int)(in_u[(unsigned)(i) & 1023u])), &out_u[1 * i], lw_recs[(unsigned)(0) & 3u]);
    }
    for (int i = 0; i < n; i++) lw_print_u("kernel14 out_u", i, out_u[i]);
    lw_print_l("kernel14 cl20", n, cl20);
    lw_print_u("kernel14 cl21", n, cl21);
}

int main(void) {
    lw_guard(in_i_pad, sizeof in_i_pad, in_i, sizeof in_i, in_i_trail);
    lw_guard(in_u_pad, sizeof in_u_pad, in_u, sizeof in_u, in_u_trail);
    lw_guard(in_f_pad, sizeof in_f_pad, in_f, sizeof in_f, in_f_trail);
    lw_guard(in_d_pad, sizeof in_d_pad, in_d, sizeof in_d, in_d_trail);
    lw_guard(in_l_pad, sizeof in_l_pad, in_l, sizeof in_l, in_l_trail);
    lw_guard(in_s_pad, sizeof in_s_pad, in_s, sizeof in_s, in_s_trail);
    lw_guard(in_c_pad, sizeof in_c_pad, in_c, sizeof in_c, in_c_trail);
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
    kernel14(N > 0 ? N - 0 : 0);
    return 0;
}
