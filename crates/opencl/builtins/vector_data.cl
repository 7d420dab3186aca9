// Lanewise's OpenCL C builtins, part 5: vector data loads and stores
// (OpenCL 1.2 6.12.7: vloadn/vstoren, and the half-precision forms
// vload_half/vloada_half/vstore_half/vstorea_half with every rounding
// mode), shuffle/shuffle2 (6.12.12), and the asynchronous copies and
// prefetch (6.12.10).

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define DEF __attribute__((overloadable, always_inline))

// ----- vloadn / vstoren -----

#define VLOAD_STORE_SPACE(T, n, SPACE)                                                  \
    DEF T##n vload##n(size_t offset, const SPACE T *p) {                                \
        T##n v;                                                                         \
        for (int i = 0; i < n; i++) v[i] = p[offset * n + i];                           \
        return v;                                                                       \
    }                                                                                   \
    DEF void vstore##n(T##n v, size_t offset, SPACE T *p) {                             \
        for (int i = 0; i < n; i++) p[offset * n + i] = v[i];                           \
    }

#define VLOAD_CONSTANT(T, n)                                                            \
    DEF T##n vload##n(size_t offset, const __constant T *p) {                           \
        T##n v;                                                                         \
        for (int i = 0; i < n; i++) v[i] = p[offset * n + i];                           \
        return v;                                                                       \
    }

#define VLOAD_STORE(T, n)                                                               \
    VLOAD_STORE_SPACE(T, n, __global) VLOAD_STORE_SPACE(T, n, __local)                  \
    VLOAD_STORE_SPACE(T, n, __private) VLOAD_CONSTANT(T, n)

#define VLOAD_STORE_ALL(T)                                                              \
    VLOAD_STORE(T, 2) VLOAD_STORE(T, 3) VLOAD_STORE(T, 4) VLOAD_STORE(T, 8)             \
    VLOAD_STORE(T, 16)

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

// ----- Half precision in memory -----

/* A half's bits as a float (exact). */
static float lw_half_to_float(ushort h) {
    uint sign = (uint)(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    if (exponent == 0) {
        float magnitude = (float)mantissa * 0x1p-24f;
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 31) return as_float(sign | 0x7f800000u | (mantissa << 13));
    return as_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

enum { LW_RTE, LW_RTZ, LW_RTP, LW_RTN };

/* A double rounded to a half's bits in `mode` (floats convert to double
 * exactly first, so one rounding happens). */
static ushort lw_double_to_half(double value, int mode) {
    ulong bits = as_ulong(value);
    ushort sign = (ushort)((bits >> 48) & 0x8000u);
    ulong magnitude = bits & 0x7fffffffffffffffUL;
    if (magnitude > 0x7ff0000000000000UL) /* NaN: quiet, the payload's top bits */
        return sign | 0x7e00u | (ushort)((magnitude >> 42) & 0x3ffu);
    if (magnitude == 0x7ff0000000000000UL) return sign | 0x7c00u;
    int exponent = (int)(magnitude >> 52) - 1023;
    /* The largest finite half, and infinity, by the rounding direction. */
    ushort largest = sign | 0x7bffu, infinity = sign | 0x7c00u;
    int toward_infinity = mode == LW_RTE || (mode == LW_RTP && !sign) || (mode == LW_RTN && sign);
    if (exponent > 15) return toward_infinity ? infinity : largest;
    ulong mantissa = (magnitude & 0xfffffffffffffUL) | (exponent > -1023 ? 0x10000000000000UL : 0);
    /* The bits below the half's last: 42 for a normal half, more below. */
    int shift = exponent >= -14 ? 42 : 42 + (-14 - exponent);
    ulong result, rest, halfway;
    if (shift > 53) {
        result = 0, rest = mantissa | (magnitude != 0), halfway = ~0UL;
    } else {
        result = mantissa >> shift;
        rest = mantissa & ((1UL << shift) - 1);
        halfway = 1UL << (shift - 1);
    }
    if (exponent >= -14) result = ((ulong)(exponent + 15) << 10) | (result & 0x3ffu);
    int up = mode == LW_RTE ? rest > halfway || (rest == halfway && (result & 1))
           : mode == LW_RTZ ? 0
           : rest != 0 && toward_infinity;
    result += up;
    if (result >= 0x7c00u && !toward_infinity) return largest;
    return sign | (ushort)result;
}

#define VLOAD_HALF_SPACE(SPACE)                                                         \
    DEF float vload_half(size_t offset, const SPACE half *p) {                          \
        return lw_half_to_float(((const SPACE ushort *)p)[offset]);                     \
    }                                                                                   \
    VLOAD_HALF_N(2, 2, SPACE) VLOAD_HALF_N(3, 3, SPACE) VLOAD_HALF_N(4, 4, SPACE)       \
    VLOAD_HALF_N(8, 8, SPACE) VLOAD_HALF_N(16, 16, SPACE)

/* vload_halfn at n elements per offset, vloada_halfn at `stride` (4 for 3). */
#define VLOAD_HALF_N(n, stride, SPACE)                                                  \
    DEF float##n vload_half##n(size_t offset, const SPACE half *p) {                    \
        float##n v;                                                                     \
        for (int i = 0; i < n; i++) v[i] = lw_half_to_float(((const SPACE ushort *)p)[offset * n + i]); \
        return v;                                                                       \
    }                                                                                   \
    DEF float##n vloada_half##n(size_t offset, const SPACE half *p) {                   \
        float##n v;                                                                     \
        for (int i = 0; i < n; i++)                                                     \
            v[i] = lw_half_to_float(((const SPACE ushort *)p)[offset * (stride == 3 ? 4 : stride) + i]); \
        return v;                                                                       \
    }

VLOAD_HALF_SPACE(__global)
VLOAD_HALF_SPACE(__local)
VLOAD_HALF_SPACE(__constant)
VLOAD_HALF_SPACE(__private)
DEF float vloada_half(size_t offset, const __global half *p) { return vload_half(offset, p); }
DEF float vloada_half(size_t offset, const __local half *p) { return vload_half(offset, p); }
DEF float vloada_half(size_t offset, const __constant half *p) { return vload_half(offset, p); }
DEF float vloada_half(size_t offset, const __private half *p) { return vload_half(offset, p); }

/* vstore_half[n][_mode] and vstorea_half[n][_mode] for float and double. */
#define VSTORE_HALF_N(T, n, SUFFIX, MODE, SPACE)                                        \
    DEF void vstore_half##n##SUFFIX(T##n v, size_t offset, SPACE half *p) {             \
        for (int i = 0; i < n; i++)                                                     \
            ((SPACE ushort *)p)[offset * n + i] = lw_double_to_half((double)v[i], MODE); \
    }                                                                                   \
    DEF void vstorea_half##n##SUFFIX(T##n v, size_t offset, SPACE half *p) {            \
        for (int i = 0; i < n; i++)                                                     \
            ((SPACE ushort *)p)[offset * (n == 3 ? 4 : n) + i] =                        \
                lw_double_to_half((double)v[i], MODE);                                  \
    }

#define VSTORE_HALF_MODE(T, SUFFIX, MODE, SPACE)                                        \
    DEF void vstore_half##SUFFIX(T v, size_t offset, SPACE half *p) {                   \
        ((SPACE ushort *)p)[offset] = lw_double_to_half((double)v, MODE);               \
    }                                                                                   \
    DEF void vstorea_half##SUFFIX(T v, size_t offset, SPACE half *p) {                  \
        vstore_half##SUFFIX(v, offset, p);                                              \
    }                                                                                   \
    VSTORE_HALF_N(T, 2, SUFFIX, MODE, SPACE) VSTORE_HALF_N(T, 3, SUFFIX, MODE, SPACE)   \
    VSTORE_HALF_N(T, 4, SUFFIX, MODE, SPACE) VSTORE_HALF_N(T, 8, SUFFIX, MODE, SPACE)   \
    VSTORE_HALF_N(T, 16, SUFFIX, MODE, SPACE)

#define VSTORE_HALF_SPACE(T, SPACE)                                                     \
    VSTORE_HALF_MODE(T, , LW_RTE, SPACE) VSTORE_HALF_MODE(T, _rte, LW_RTE, SPACE)       \
    VSTORE_HALF_MODE(T, _rtz, LW_RTZ, SPACE) VSTORE_HALF_MODE(T, _rtp, LW_RTP, SPACE)   \
    VSTORE_HALF_MODE(T, _rtn, LW_RTN, SPACE)

VSTORE_HALF_SPACE(float, __global)
VSTORE_HALF_SPACE(float, __local)
VSTORE_HALF_SPACE(float, __private)
VSTORE_HALF_SPACE(double, __global)
VSTORE_HALF_SPACE(double, __local)
VSTORE_HALF_SPACE(double, __private)

// ----- shuffle, shuffle2 -----

/* T: the element type, U: the unsigned type of its size (the mask's). */
#define SHUFFLE_MN(m, n, T, U)                                                          \
    DEF T##n shuffle(T##m x, U##n mask) {                                               \
        T##n r;                                                                         \
        for (int i = 0; i < n; i++) r[i] = x[mask[i] % m];                              \
        return r;                                                                       \
    }                                                                                   \
    DEF T##n shuffle2(T##m x, T##m y, U##n mask) {                                      \
        T##n r;                                                                         \
        for (int i = 0; i < n; i++) {                                                   \
            U k = mask[i] % (2 * m);                                                    \
            r[i] = k < m ? x[k] : y[k - m];                                             \
        }                                                                               \
        return r;                                                                       \
    }

#define SHUFFLE_M(m, T, U)                                                              \
    SHUFFLE_MN(m, 2, T, U) SHUFFLE_MN(m, 4, T, U) SHUFFLE_MN(m, 8, T, U)                \
    SHUFFLE_MN(m, 16, T, U)

#define SHUFFLE(T, U) SHUFFLE_M(2, T, U) SHUFFLE_M(4, T, U) SHUFFLE_M(8, T, U) SHUFFLE_M(16, T, U)

SHUFFLE(char, uchar)
SHUFFLE(uchar, uchar)
SHUFFLE(short, ushort)
SHUFFLE(ushort, ushort)
SHUFFLE(int, uint)
SHUFFLE(uint, uint)
SHUFFLE(long, ulong)
SHUFFLE(ulong, ulong)
SHUFFLE(float, uint)
SHUFFLE(double, ulong)

// ----- async_work_group_copy, async_work_group_strided_copy, prefetch -----

/* One thread runs the whole work-group, work-item 0 first in every stretch
 * between barriers (the SIMD groups and work-items run in order): work-item
 * 0 copies everything when it reaches the call, so every work-item finds
 * the data in place after its wait_group_events, which has nothing left to
 * wait for. */
static int lw_first_work_item(void) {
    return get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0;
}

#define ASYNC_COPY_N(T, DST, SRC)                                                       \
    DEF event_t async_work_group_copy(DST T *dst, const SRC T *src, size_t count, event_t event) { \
        if (lw_first_work_item())                                                       \
            for (size_t i = 0; i < count; i++) dst[i] = src[i];                         \
        return event;                                                                   \
    }                                                                                   \
    DEF event_t async_work_group_strided_copy(DST T *dst, const SRC T *src, size_t count, \
                                              size_t stride, event_t event) {           \
        if (lw_first_work_item())                                                       \
            for (size_t i = 0; i < count; i++) ASYNC_STRIDED_##DST(dst, src, i, stride);  \
        return event;                                                                   \
    }
/* Strided copies gather from global memory into local, scatter back. */
#define ASYNC_STRIDED___local(dst, src, i, stride) dst[i] = src[(i) * (stride)]
#define ASYNC_STRIDED___global(dst, src, i, stride) dst[(i) * (stride)] = src[i]

#define ASYNC_COPY_TYPE(T)                                                              \
    ASYNC_COPY_N(T, __local, __global) ASYNC_COPY_N(T, __global, __local)               \
    DEF void prefetch(const __global T *p, size_t count) {}

#define ASYNC_COPY_SIZES(T)                                                             \
    ASYNC_COPY_TYPE(T) ASYNC_COPY_TYPE(T##2) ASYNC_COPY_TYPE(T##3) ASYNC_COPY_TYPE(T##4) \
    ASYNC_COPY_TYPE(T##8) ASYNC_COPY_TYPE(T##16)

ASYNC_COPY_SIZES(char)
ASYNC_COPY_SIZES(uchar)
ASYNC_COPY_SIZES(short)
ASYNC_COPY_SIZES(ushort)
ASYNC_COPY_SIZES(int)
ASYNC_COPY_SIZES(uint)
ASYNC_COPY_SIZES(long)
ASYNC_COPY_SIZES(ulong)
ASYNC_COPY_SIZES(float)
ASYNC_COPY_SIZES(double)

DEF void wait_group_events(int count, event_t *events) {}
