// Lanewise's OpenCL C builtins, part 3: the integer functions (OpenCL 1.2
// 6.12.3) for every integer type and vector size, and the 32-bit atomic
// functions (6.12.11) on global and local memory.

#define DEF __attribute__((overloadable, always_inline))

// ----- Integer functions -----

// Vector forms apply the scalar form per element (always inlined and
// unrolled; Lanewise's lifting scalarizes short vectors anyway).
#define EACH_SIZE(M, ...) M(2, __VA_ARGS__) M(3, __VA_ARGS__) M(4, __VA_ARGS__) M(8, __VA_ARGS__) M(16, __VA_ARGS__)
#define EACH1(n, R, T, name)                                                            \
    DEF R##n name(T##n x) {                                                             \
        R##n r;                                                                         \
        for (int i = 0; i < n; i++) r[i] = name(x[i]);                                  \
        return r;                                                                       \
    }
#define EACH2(n, R, T, U, name)                                                         \
    DEF R##n name(T##n x, U##n y) {                                                     \
        R##n r;                                                                         \
        for (int i = 0; i < n; i++) r[i] = name(x[i], y[i]);                            \
        return r;                                                                       \
    }
#define EACH3(n, R, T, name)                                                            \
    DEF R##n name(T##n x, T##n y, T##n z) {                                             \
        R##n r;                                                                         \
        for (int i = 0; i < n; i++) r[i] = name(x[i], y[i], z[i]);                      \
        return r;                                                                       \
    }
/* min(gentype, sgentype) and the like: the scalar repeated. */
#define WITH_SCALAR(n, T)                                                               \
    DEF T##n min(T##n x, T y) { return min(x, (T##n)(y)); }                             \
    DEF T##n max(T##n x, T y) { return max(x, (T##n)(y)); }                             \
    DEF T##n clamp(T##n x, T lo, T hi) { return clamp(x, (T##n)(lo), (T##n)(hi)); }

/* T, its unsigned type UT, its width, and its smallest and largest values. */
#define INTEGER_SCALAR(T, UT, BITS, LO, HI)                                             \
    DEF UT abs(T x) { return x < (T)0 ? (UT)((UT)0 - (UT)x) : (UT)x; }                  \
    DEF UT abs_diff(T x, T y) { return x > y ? (UT)((UT)x - (UT)y) : (UT)((UT)y - (UT)x); } \
    DEF T add_sat(T x, T y) { return __builtin_elementwise_add_sat(x, y); }             \
    DEF T sub_sat(T x, T y) { return __builtin_elementwise_sub_sat(x, y); }             \
    DEF T hadd(T x, T y) { return (T)((x >> 1) + (y >> 1) + (x & y & 1)); }             \
    DEF T rhadd(T x, T y) { return (T)((x >> 1) + (y >> 1) + ((x | y) & 1)); }          \
    DEF T min(T x, T y) { return y < x ? y : x; }                                       \
    DEF T max(T x, T y) { return x < y ? y : x; }                                       \
    DEF T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }                        \
    DEF T clz(T x) { return x ? (T)__builtin_clzg((UT)x) : (T)BITS; }                   \
    DEF T popcount(T x) { return (T)__builtin_popcountg((UT)x); }                       \
    DEF T rotate(T x, T n) {                                                            \
        UT u = (UT)x, s = (UT)((UT)n & (UT)(BITS - 1));                                 \
        return (T)(s ? (UT)((UT)(u << s) | (UT)(u >> (BITS - s))) : u);                 \
    }                                                                                   \
    DEF T mad_hi(T a, T b, T c) { return (T)(mul_hi(a, b) + c); }                       \
    EACH_SIZE(EACH1, UT, T, abs) EACH_SIZE(EACH2, UT, T, T, abs_diff)                   \
    EACH_SIZE(EACH2, T, T, T, add_sat) EACH_SIZE(EACH2, T, T, T, sub_sat)               \
    EACH_SIZE(EACH2, T, T, T, hadd) EACH_SIZE(EACH2, T, T, T, rhadd)                    \
    EACH_SIZE(EACH2, T, T, T, min) EACH_SIZE(EACH2, T, T, T, max)                       \
    EACH_SIZE(EACH3, T, T, clamp) EACH_SIZE(EACH1, T, T, clz)                           \
    EACH_SIZE(EACH1, T, T, popcount) EACH_SIZE(EACH2, T, T, T, rotate)                  \
    EACH_SIZE(EACH2, T, T, T, mul_hi) EACH_SIZE(EACH3, T, T, mad_hi)                    \
    EACH_SIZE(EACH3, T, T, mad_sat) EACH_SIZE(WITH_SCALAR, T)

/* The types narrower than 64 bits: products in the wider type W. */
#define NARROW_INTEGER(T, UT, BITS, LO, HI, W, UW)                                      \
    DEF T mul_hi(T x, T y) { return (T)(((W)x * (W)y) >> BITS); }                       \
    DEF T mad_sat(T a, T b, T c) {                                                      \
        long r = (long)a * (long)b + (long)c;                                           \
        return r < (long)(LO) ? (T)(LO) : r > (long)(HI) ? (T)(HI) : (T)r;              \
    }                                                                                   \
    DEF W upsample(T hi, UT lo) { return (W)(((UW)(UT)hi << BITS) | (UW)lo); }          \
    EACH_SIZE(EACH2, W, T, UT, upsample)                                                \
    INTEGER_SCALAR(T, UT, BITS, LO, HI)

/* 64 bits: the high half of a product from 32-bit halves. */
DEF ulong mul_hi(ulong x, ulong y) {
    ulong xl = x & 0xffffffffUL, xh = x >> 32, yl = y & 0xffffffffUL, yh = y >> 32;
    ulong ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
    ulong mid = (ll >> 32) + (lh & 0xffffffffUL) + (hl & 0xffffffffUL);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
DEF long mul_hi(long x, long y) {
    ulong hi = mul_hi((ulong)x, (ulong)y);
    return (long)(hi - (x < 0 ? (ulong)y : 0UL) - (y < 0 ? (ulong)x : 0UL));
}
DEF ulong mad_sat(ulong a, ulong b, ulong c) {
    ulong hi = mul_hi(a, b), lo = a * b, sum = lo + c;
    return hi != 0 || sum < lo ? 0xffffffffffffffffUL : sum;
}
DEF long mad_sat(long a, long b, long c) {
    /* The 128-bit a * b + c, then whether it fits in 64 bits. */
    ulong lo = (ulong)a * (ulong)b, sum = lo + (ulong)c;
    long hi = mul_hi(a, b) + (c < 0 ? -1L : 0L) + (sum < lo ? 1L : 0L);
    if (hi == ((long)sum >> 63)) return (long)sum;
    return hi < 0 ? (long)0x8000000000000000UL : 0x7fffffffffffffffL;
}

NARROW_INTEGER(char, uchar, 8, -128, 127, short, ushort)
NARROW_INTEGER(uchar, uchar, 8, 0, 255, ushort, ushort)
NARROW_INTEGER(short, ushort, 16, -32768, 32767, int, uint)
NARROW_INTEGER(ushort, ushort, 16, 0, 65535, uint, uint)
NARROW_INTEGER(int, uint, 32, -2147483647 - 1, 2147483647, long, ulong)
NARROW_INTEGER(uint, uint, 32, 0, 4294967295U, ulong, ulong)
INTEGER_SCALAR(long, ulong, 64, 0, 0)
INTEGER_SCALAR(ulong, ulong, 64, 0, 0)

/* mad24 and mul24 (int and uint; exact for 24-bit operands as required). */
DEF int mul24(int a, int b) { return a * b; }
DEF uint mul24(uint a, uint b) { return a * b; }
DEF int mad24(int a, int b, int c) { return a * b + c; }
DEF uint mad24(uint a, uint b, uint c) { return a * b + c; }
EACH_SIZE(EACH2, int, int, int, mul24) EACH_SIZE(EACH2, uint, uint, uint, mul24)
EACH_SIZE(EACH3, int, int, mad24) EACH_SIZE(EACH3, uint, uint, mad24)

// ----- 32-bit atomics, global and local memory (relaxed, as OpenCL 1.2) -----

/* The cl_khr_{global,local}_int32_{base,extended}_atomics names. */
#define ATOM_ALIASES(T, SPACE)                                                          \
    DEF T atom_add(volatile SPACE T *p, T v) { return atomic_add(p, v); }               \
    DEF T atom_sub(volatile SPACE T *p, T v) { return atomic_sub(p, v); }               \
    DEF T atom_xchg(volatile SPACE T *p, T v) { return atomic_xchg(p, v); }             \
    DEF T atom_inc(volatile SPACE T *p) { return atomic_inc(p); }                       \
    DEF T atom_dec(volatile SPACE T *p) { return atomic_dec(p); }                       \
    DEF T atom_cmpxchg(volatile SPACE T *p, T cmp, T v) { return atomic_cmpxchg(p, cmp, v); } \
    DEF T atom_min(volatile SPACE T *p, T v) { return atomic_min(p, v); }               \
    DEF T atom_max(volatile SPACE T *p, T v) { return atomic_max(p, v); }               \
    DEF T atom_and(volatile SPACE T *p, T v) { return atomic_and(p, v); }               \
    DEF T atom_or(volatile SPACE T *p, T v) { return atomic_or(p, v); }                 \
    DEF T atom_xor(volatile SPACE T *p, T v) { return atomic_xor(p, v); }

#define ATOMIC_OP(name, builtin, T, SPACE)                                              \
    DEF T name(volatile SPACE T *p, T v) { return builtin((SPACE T *)p, v, __ATOMIC_RELAXED); }

#define ATOMICS(T, SPACE)                                                               \
    ATOMIC_OP(atomic_add, __atomic_fetch_add, T, SPACE)                                 \
    ATOMIC_OP(atomic_sub, __atomic_fetch_sub, T, SPACE)                                 \
    ATOMIC_OP(atomic_and, __atomic_fetch_and, T, SPACE)                                 \
    ATOMIC_OP(atomic_or, __atomic_fetch_or, T, SPACE)                                   \
    ATOMIC_OP(atomic_xor, __atomic_fetch_xor, T, SPACE)                                 \
    ATOMIC_OP(atomic_min, __atomic_fetch_min, T, SPACE)                                 \
    ATOMIC_OP(atomic_max, __atomic_fetch_max, T, SPACE)                                 \
    ATOMIC_OP(atomic_xchg, __atomic_exchange_n, T, SPACE)                               \
    DEF T atomic_inc(volatile SPACE T *p) { return atomic_add(p, (T)1); }               \
    DEF T atomic_dec(volatile SPACE T *p) { return atomic_sub(p, (T)1); }               \
    DEF T atomic_cmpxchg(volatile SPACE T *p, T expected, T desired) {                  \
        __atomic_compare_exchange_n((SPACE T *)p, &expected, desired, 0, __ATOMIC_RELAXED, \
                                    __ATOMIC_RELAXED);                                  \
        return expected;                                                                \
    }                                                                                   \
    ATOM_ALIASES(T, SPACE)

ATOMICS(int, __global)
ATOMICS(uint, __global)

// Local memory belongs to one work-group, and the runtime runs all of a
// work-group on one thread (executor.rs): its atomic functions need no
// atomic instruction. They call the runtime's plain read-modify-write
// functions (runtime.c), which Lanewise calls once per lane in lane order
// (calls it cannot see into), and which the final compilation inlines:
// a load, the operation and a store per lane instead of a locked one.
int __lw_local_add(__local int *p, int v);
int __lw_local_sub(__local int *p, int v);
int __lw_local_and(__local int *p, int v);
int __lw_local_or(__local int *p, int v);
int __lw_local_xor(__local int *p, int v);
int __lw_local_xchg(__local int *p, int v);
int __lw_local_min_int(__local int *p, int v);
int __lw_local_max_int(__local int *p, int v);
uint __lw_local_min_uint(__local uint *p, uint v);
uint __lw_local_max_uint(__local uint *p, uint v);
int __lw_local_cmpxchg(__local int *p, int expected, int desired);

#define LOCAL_BITS_OP(name, helper, T)                                                  \
    DEF T name(volatile __local T *p, T v) { return (T)helper((__local int *)p, (int)v); }

#define LOCAL_ATOMICS(T)                                                                \
    LOCAL_BITS_OP(atomic_add, __lw_local_add, T)                                        \
    LOCAL_BITS_OP(atomic_sub, __lw_local_sub, T)                                        \
    LOCAL_BITS_OP(atomic_and, __lw_local_and, T)                                        \
    LOCAL_BITS_OP(atomic_or, __lw_local_or, T)                                          \
    LOCAL_BITS_OP(atomic_xor, __lw_local_xor, T)                                        \
    LOCAL_BITS_OP(atomic_xchg, __lw_local_xchg, T)                                      \
    DEF T atomic_min(volatile __local T *p, T v) { return __lw_local_min_##T((__local T *)p, v); } \
    DEF T atomic_max(volatile __local T *p, T v) { return __lw_local_max_##T((__local T *)p, v); } \
    DEF T atomic_inc(volatile __local T *p) { return atomic_add(p, (T)1); }             \
    DEF T atomic_dec(volatile __local T *p) { return atomic_sub(p, (T)1); }             \
    DEF T atomic_cmpxchg(volatile __local T *p, T expected, T desired) {                \
        return (T)__lw_local_cmpxchg((__local int *)p, (int)expected, (int)desired);    \
    }                                                                                   \
    ATOM_ALIASES(T, __local)

LOCAL_ATOMICS(int)
LOCAL_ATOMICS(uint)

DEF float atomic_xchg(volatile __global float *p, float v) {
    return as_float(atomic_xchg((volatile __global int *)p, as_int(v)));
}
DEF float atomic_xchg(volatile __local float *p, float v) {
    return as_float(atomic_xchg((volatile __local int *)p, as_int(v)));
}
