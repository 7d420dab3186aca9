// Lanewise's OpenCL C builtins, part 3: conversions (OpenCL 1.2 6.2.3,
// default rounding), vector data loads and stores (6.12.7), the rest of the
// common integer functions (6.12.3), `select`/`any`/`all` (6.12.6) and the
// 32-bit atomic functions (6.12.11) on global and local memory.

#define DEF __attribute__((overloadable, always_inline))

// ----- Conversions: convert_<to><n>(<from><n>), default rounding -----

#define CONVERT_SIZES(TO, FROM)                                                         \
    DEF TO convert_##TO(FROM x) { return (TO)x; }                                       \
    DEF TO##2 convert_##TO##2(FROM##2 x) { return __builtin_convertvector(x, TO##2); }  \
    DEF TO##3 convert_##TO##3(FROM##3 x) { return __builtin_convertvector(x, TO##3); }  \
    DEF TO##4 convert_##TO##4(FROM##4 x) { return __builtin_convertvector(x, TO##4); }  \
    DEF TO##8 convert_##TO##8(FROM##8 x) { return __builtin_convertvector(x, TO##8); }  \
    DEF TO##16 convert_##TO##16(FROM##16 x) { return __builtin_convertvector(x, TO##16); }

#define CONVERT_FROM_ALL(TO)                                                            \
    CONVERT_SIZES(TO, char) CONVERT_SIZES(TO, uchar) CONVERT_SIZES(TO, short)           \
    CONVERT_SIZES(TO, ushort) CONVERT_SIZES(TO, int) CONVERT_SIZES(TO, uint)            \
    CONVERT_SIZES(TO, long) CONVERT_SIZES(TO, ulong) CONVERT_SIZES(TO, float)           \
    CONVERT_SIZES(TO, double)

CONVERT_FROM_ALL(char)
CONVERT_FROM_ALL(uchar)
CONVERT_FROM_ALL(short)
CONVERT_FROM_ALL(ushort)
CONVERT_FROM_ALL(int)
CONVERT_FROM_ALL(uint)
CONVERT_FROM_ALL(long)
CONVERT_FROM_ALL(ulong)
CONVERT_FROM_ALL(float)
CONVERT_FROM_ALL(double)

// ----- vloadn / vstoren -----

#define VLOAD_STORE_SPACE(T, n, SPACE)                                                  \
    DEF T##n vload##n(size_t offset, const SPACE T *p) {                                \
        T##n v;                                                                         \
        __builtin_memcpy(&v, p + offset * n, sizeof(T) * n);                            \
        return v;                                                                       \
    }                                                                                   \
    DEF void vstore##n(T##n v, size_t offset, SPACE T *p) {                             \
        __builtin_memcpy(p + offset * n, &v, sizeof(T) * n);                            \
    }

#define VLOAD_STORE_CONST(T, n)                                                         \
    DEF T##n vload##n(size_t offset, const __constant T *p) {                           \
        T##n v;                                                                         \
        for (int i = 0; i < n; i++) v[i] = p[offset * n + i];                           \
        return v;                                                                       \
    }

#define VLOAD_STORE(T, n)                                                               \
    VLOAD_STORE_SPACE(T, n, __global) VLOAD_STORE_SPACE(T, n, __local)                  \
    VLOAD_STORE_SPACE(T, n, __private) VLOAD_STORE_CONST(T, n)

#define VLOAD_STORE_ALL(T)                                                              \
    VLOAD_STORE(T, 2) VLOAD_STORE(T, 4) VLOAD_STORE(T, 8) VLOAD_STORE(T, 16)

VLOAD_STORE_ALL(char)
VLOAD_STORE_ALL(uchar)
VLOAD_STORE_ALL(short)
VLOAD_STORE_ALL(ushort)
VLOAD_STORE_ALL(int)
VLOAD_STORE_ALL(uint)
VLOAD_STORE_ALL(long)
VLOAD_STORE_ALL(ulong)
VLOAD_STORE_ALL(float)
VLOAD_STORE_ALL(double)

// ----- Integer functions -----

#define INTEGER_SCALAR(T, UT, BITS)                                                     \
    DEF UT abs_diff(T x, T y) { return x > y ? (UT)x - (UT)y : (UT)y - (UT)x; }         \
    DEF T hadd(T x, T y) { return (x >> 1) + (y >> 1) + (x & y & 1); }                  \
    DEF T rhadd(T x, T y) { return (x >> 1) + (y >> 1) + ((x | y) & 1); }               \
    DEF T rotate(T x, T n) {                                                            \
        UT u = (UT)x, s = (UT)n & (BITS - 1);                                           \
        return (T)(s ? (u << s) | (u >> (BITS - s)) : u);                               \
    }                                                                                   \
    DEF T clz(T x) { return x ? (T)__builtin_clzg((UT)x) : (T)BITS; }                   \
    DEF T popcount(T x) { return (T)__builtin_popcountg((UT)x); }                       \
    DEF T add_sat(T x, T y) {                                                           \
        T r;                                                                            \
        if (__builtin_add_overflow(x, y, &r)) return (T)0 < y ? (T)~(T)0 > 0 ? (T)~(T)0 : (T)(((UT)1 << (BITS - 1)) - 1) : (T)((UT)1 << (BITS - 1)); \
        return r;                                                                       \
    }                                                                                   \
    DEF T sub_sat(T x, T y) {                                                           \
        T r;                                                                            \
        if (__builtin_sub_overflow(x, y, &r)) return (T)~(T)0 > 0 ? (T)0 : y < (T)0 ? (T)(((UT)1 << (BITS - 1)) - 1) : (T)((UT)1 << (BITS - 1)); \
        return r;                                                                       \
    }

INTEGER_SCALAR(int, uint, 32)
INTEGER_SCALAR(uint, uint, 32)
INTEGER_SCALAR(long, ulong, 64)
INTEGER_SCALAR(ulong, ulong, 64)

DEF int mul_hi(int x, int y) { return (int)(((long)x * (long)y) >> 32); }
DEF uint mul_hi(uint x, uint y) { return (uint)(((ulong)x * (ulong)y) >> 32); }
DEF int mad_hi(int a, int b, int c) { return mul_hi(a, b) + c; }
DEF uint mad_hi(uint a, uint b, uint c) { return mul_hi(a, b) + c; }
DEF long upsample(int hi, uint lo) { return (long)((ulong)(uint)hi << 32 | lo); }
DEF ulong upsample(uint hi, uint lo) { return (ulong)hi << 32 | lo; }

// ----- select, any, all (scalars and int vectors) -----

DEF int select(int a, int b, int c) { return c ? b : a; }
DEF uint select(uint a, uint b, int c) { return c ? b : a; }
DEF float select(float a, float b, int c) { return c ? b : a; }
DEF double select(double a, double b, long c) { return c ? b : a; }
DEF int4 select(int4 a, int4 b, int4 c) { return c < 0 ? b : a; }
DEF float4 select(float4 a, float4 b, int4 c) { return c < 0 ? b : a; }
DEF float4 select(float4 a, float4 b, uint4 c) { return (as_int4(c) < 0) ? b : a; }
DEF int any(int x) { return x < 0; }
DEF int all(int x) { return x < 0; }
DEF int any(int2 x) { return (x.s0 | x.s1) < 0; }
DEF int all(int2 x) { return (x.s0 & x.s1) < 0; }
DEF int any(int4 x) { return (x.s0 | x.s1 | x.s2 | x.s3) < 0; }
DEF int all(int4 x) { return (x.s0 & x.s1 & x.s2 & x.s3) < 0; }

// ----- 32-bit atomics, global and local memory (relaxed, as OpenCL 1.2) -----

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
    DEF T atom_add(volatile SPACE T *p, T v) { return atomic_add(p, v); }               \
    DEF T atom_inc(volatile SPACE T *p) { return atomic_inc(p); }

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
    DEF T atom_add(volatile __local T *p, T v) { return atomic_add(p, v); }             \
    DEF T atom_inc(volatile __local T *p) { return atomic_inc(p); }

LOCAL_ATOMICS(int)
LOCAL_ATOMICS(uint)

DEF float atomic_xchg(volatile __global float *p, float v) {
    return as_float(atomic_xchg((volatile __global int *)p, as_int(v)));
}
DEF float atomic_xchg(volatile __local float *p, float v) {
    return as_float(atomic_xchg((volatile __local int *)p, as_int(v)));
}
