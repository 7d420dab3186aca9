// Lanewise's OpenCL C builtins, part 6: explicit conversions (OpenCL 1.2
// 6.2.3), convert_<T><n>[_sat][_rte|_rtz|_rtp|_rtn](<S><n>) for every pair
// of the ten scalar types and every vector size.
//
// The default forms are C casts (round toward zero to an integer, to
// nearest even to a floating type). The others go through one scalar
// conversion per (T, S) pair that takes the rounding mode and saturation
// as constants, which inlining folds away:
// - to an integer from a floating value: rint/trunc/ceil/floor, then, with
//   _sat, NaN to 0 and the out-of-range values to T's limits;
// - to an integer from an integer: with _sat, clamped to T's limits (the
//   rounding modes change nothing);
// - to a floating type: the nearest value, then one step toward zero, up or
//   down when it lies on the wrong side of the exact value (compared
//   exactly; _sat is not defined for floating destinations).

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define DEF __attribute__((overloadable, always_inline))
#define INLINE static __attribute__((always_inline))

enum { LW_RTE, LW_RTZ, LW_RTP, LW_RTN };

// ----- Default conversions: casts -----

#define CONVERT_SIZES(TO, FROM)                                                         \
    DEF TO convert_##TO(FROM x) { return (TO)x; }                                       \
    DEF TO##2 convert_##TO##2(FROM##2 x) { return __builtin_convertvector(x, TO##2); }  \
    DEF TO##3 convert_##TO##3(FROM##3 x) { return __builtin_convertvector(x, TO##3); }  \
    DEF TO##4 convert_##TO##4(FROM##4 x) { return __builtin_convertvector(x, TO##4); }  \
    DEF TO##8 convert_##TO##8(FROM##8 x) { return __builtin_convertvector(x, TO##8); }  \
    DEF TO##16 convert_##TO##16(FROM##16 x) { return __builtin_convertvector(x, TO##16); }

// ----- The scalar conversions with a mode -----

/* Round a floating value to an integral one in `mode`. */
INLINE float lw_round_f(float x, int mode) {
    return mode == LW_RTE ? rint(x) : mode == LW_RTZ ? trunc(x) : mode == LW_RTP ? ceil(x) : floor(x);
}
INLINE double lw_round_d(double x, int mode) {
    return mode == LW_RTE ? rint(x) : mode == LW_RTZ ? trunc(x) : mode == LW_RTP ? ceil(x) : floor(x);
}

/* Floating S to integer T, LO..HI its range. */
#define FLOAT_TO_INT(T, S, ROUND, LO, HI)                                               \
    INLINE T lw_cvt_##T##_##S(S x, int mode, int sat) {                                 \
        S r = ROUND(x, mode);                                                           \
        if (sat) {                                                                      \
            if (x != x) return (T)0;                                                    \
            if (r <= (S)(LO)) return (T)(LO);                                           \
            if (r >= (S)(HI)) return (T)(HI);                                           \
        }                                                                               \
        return (T)r;                                                                    \
    }

/* Integer S to integer T: with `sat`, clamped (compared as long for the
 * negative values, as ulong for the others). */
#define INT_TO_INT(T, S, LO, HI)                                                        \
    INLINE T lw_cvt_##T##_##S(S x, int mode, int sat) {                                 \
        if (sat) {                                                                      \
            if (x < (S)0) return (long)x < (long)(LO) ? (T)(LO) : (T)x;                 \
            if ((ulong)x > (ulong)(HI)) return (T)(HI);                                 \
        }                                                                               \
        return (T)x;                                                                    \
    }

/* To a floating type F from S: the nearest value `f`, then a step when it
 * lies on the wrong side of `x` for the mode. ABOVE(f, x) and BELOW(f, x)
 * compare exactly. */
#define TO_FLOAT(F, S, ABOVE, BELOW)                                                    \
    INLINE F lw_cvt_##F##_##S(S x, int mode, int sat) {                                 \
        F f = (F)x;                                                                     \
        if (mode == LW_RTE || f != f) return f;                                         \
        int above = ABOVE(f, x), below = BELOW(f, x);                                   \
        if (mode == LW_RTP && below) return nextafter(f, (F)INFINITY);                  \
        if (mode == LW_RTN && above) return nextafter(f, -(F)INFINITY);                 \
        if (mode == LW_RTZ && ((above && f > (F)0) || (below && f < (F)0)))             \
            return nextafter(f, (F)0);                                                  \
        return f;                                                                       \
    }

/* Exact comparisons of a rounded value with its source. Integers of up to
 * 32 bits and floats are exact in double. */
#define VIA_DOUBLE_ABOVE(f, x) ((double)(f) > (double)(x))
#define VIA_DOUBLE_BELOW(f, x) ((double)(f) < (double)(x))
/* 64-bit integers: exact in double below 2^53; above, the rounded value is
 * an integer, compared as one (2^63 and 2^64 are above every source). */
INLINE int lw_above_long(double f, long x) {
    if (fabs(f) < 0x1p53) return f > (double)x;
    if (f >= 0x1p63) return 1;
    return (long)f > x;
}
INLINE int lw_below_long(double f, long x) {
    if (fabs(f) < 0x1p53) return f < (double)x;
    if (f >= 0x1p63) return 0;
    return (long)f < x;
}
INLINE int lw_above_ulong(double f, ulong x) {
    if (f < 0x1p53) return f > (double)x;
    if (f >= 0x1p64) return 1;
    return (ulong)f > x;
}
INLINE int lw_below_ulong(double f, ulong x) {
    if (f < 0x1p53) return f < (double)x;
    if (f >= 0x1p64) return 0;
    return (ulong)f < x;
}
#define LONG_ABOVE(f, x) lw_above_long((double)(f), x)
#define LONG_BELOW(f, x) lw_below_long((double)(f), x)
#define ULONG_ABOVE(f, x) lw_above_ulong((double)(f), x)
#define ULONG_BELOW(f, x) lw_below_ulong((double)(f), x)

#define TO_INTEGER_FROM_INTEGERS(T, LO, HI)                                             \
    INT_TO_INT(T, char, LO, HI) INT_TO_INT(T, uchar, LO, HI)                            \
    INT_TO_INT(T, short, LO, HI) INT_TO_INT(T, ushort, LO, HI)                          \
    INT_TO_INT(T, int, LO, HI) INT_TO_INT(T, uint, LO, HI)                              \
    INT_TO_INT(T, long, LO, HI) INT_TO_INT(T, ulong, LO, HI)                            \
    FLOAT_TO_INT(T, float, lw_round_f, LO, HI) FLOAT_TO_INT(T, double, lw_round_d, LO, HI)

TO_INTEGER_FROM_INTEGERS(char, -128, 127)
TO_INTEGER_FROM_INTEGERS(uchar, 0, 255)
TO_INTEGER_FROM_INTEGERS(short, -32768, 32767)
TO_INTEGER_FROM_INTEGERS(ushort, 0, 65535)
TO_INTEGER_FROM_INTEGERS(int, -2147483647 - 1, 2147483647)
TO_INTEGER_FROM_INTEGERS(uint, 0, 4294967295U)
TO_INTEGER_FROM_INTEGERS(long, (long)0x8000000000000000UL, 0x7fffffffffffffffL)
TO_INTEGER_FROM_INTEGERS(ulong, 0, 0xffffffffffffffffUL)

#define TO_FLOATING(F)                                                                  \
    TO_FLOAT(F, char, VIA_DOUBLE_ABOVE, VIA_DOUBLE_BELOW)                               \
    TO_FLOAT(F, uchar, VIA_DOUBLE_ABOVE, VIA_DOUBLE_BELOW)                              \
    TO_FLOAT(F, short, VIA_DOUBLE_ABOVE, VIA_DOUBLE_BELOW)                              \
    TO_FLOAT(F, ushort, VIA_DOUBLE_ABOVE, VIA_DOUBLE_BELOW)                             \
    TO_FLOAT(F, int, VIA_DOUBLE_ABOVE, VIA_DOUBLE_BELOW)                                \
    TO_FLOAT(F, uint, VIA_DOUBLE_ABOVE, VIA_DOUBLE_BELOW)                               \
    TO_FLOAT(F, long, LONG_ABOVE, LONG_BELOW)                                           \
    TO_FLOAT(F, ulong, ULONG_ABOVE, ULONG_BELOW)                                        \
    TO_FLOAT(F, float, VIA_DOUBLE_ABOVE, VIA_DOUBLE_BELOW)                              \
    TO_FLOAT(F, double, VIA_DOUBLE_ABOVE, VIA_DOUBLE_BELOW)

TO_FLOATING(float)
TO_FLOATING(double)

// ----- The named forms -----

#define CONVERT_MODE_N(n, TO, FROM, SUFFIX, MODE, SAT)                                  \
    DEF TO##n convert_##TO##n##SUFFIX(FROM##n x) {                                      \
        TO##n r;                                                                        \
        for (int i = 0; i < n; i++) r[i] = lw_cvt_##TO##_##FROM(x[i], MODE, SAT);       \
        return r;                                                                       \
    }

#define CONVERT_MODE(TO, FROM, SUFFIX, MODE, SAT)                                       \
    DEF TO convert_##TO##SUFFIX(FROM x) { return lw_cvt_##TO##_##FROM(x, MODE, SAT); }  \
    CONVERT_MODE_N(2, TO, FROM, SUFFIX, MODE, SAT) CONVERT_MODE_N(3, TO, FROM, SUFFIX, MODE, SAT) \
    CONVERT_MODE_N(4, TO, FROM, SUFFIX, MODE, SAT) CONVERT_MODE_N(8, TO, FROM, SUFFIX, MODE, SAT) \
    CONVERT_MODE_N(16, TO, FROM, SUFFIX, MODE, SAT)

/* Integer destinations: the defaults, the rounding modes, _sat with each. */
#define TO_INTEGER(TO, FROM, DEFAULT_MODE)                                              \
    CONVERT_SIZES(TO, FROM)                                                             \
    CONVERT_MODE(TO, FROM, _rte, LW_RTE, 0) CONVERT_MODE(TO, FROM, _rtz, LW_RTZ, 0)     \
    CONVERT_MODE(TO, FROM, _rtp, LW_RTP, 0) CONVERT_MODE(TO, FROM, _rtn, LW_RTN, 0)     \
    CONVERT_MODE(TO, FROM, _sat, DEFAULT_MODE, 1)                                       \
    CONVERT_MODE(TO, FROM, _sat_rte, LW_RTE, 1) CONVERT_MODE(TO, FROM, _sat_rtz, LW_RTZ, 1) \
    CONVERT_MODE(TO, FROM, _sat_rtp, LW_RTP, 1) CONVERT_MODE(TO, FROM, _sat_rtn, LW_RTN, 1)

/* Floating destinations: the defaults and the rounding modes. */
#define TO_FLOAT_NAMED(TO, FROM)                                                        \
    CONVERT_SIZES(TO, FROM)                                                             \
    CONVERT_MODE(TO, FROM, _rte, LW_RTE, 0) CONVERT_MODE(TO, FROM, _rtz, LW_RTZ, 0)     \
    CONVERT_MODE(TO, FROM, _rtp, LW_RTP, 0) CONVERT_MODE(TO, FROM, _rtn, LW_RTN, 0)

/* From an integer the default integer conversion is exact (a cast, and
 * with _sat a clamp); from a floating type it rounds toward zero. */
#define TO_INTEGER_ALL(TO)                                                              \
    TO_INTEGER(TO, char, LW_RTZ) TO_INTEGER(TO, uchar, LW_RTZ)                          \
    TO_INTEGER(TO, short, LW_RTZ) TO_INTEGER(TO, ushort, LW_RTZ)                        \
    TO_INTEGER(TO, int, LW_RTZ) TO_INTEGER(TO, uint, LW_RTZ)                            \
    TO_INTEGER(TO, long, LW_RTZ) TO_INTEGER(TO, ulong, LW_RTZ)                          \
    TO_INTEGER(TO, float, LW_RTZ) TO_INTEGER(TO, double, LW_RTZ)

#define TO_FLOAT_ALL(TO)                                                                \
    TO_FLOAT_NAMED(TO, char) TO_FLOAT_NAMED(TO, uchar) TO_FLOAT_NAMED(TO, short)        \
    TO_FLOAT_NAMED(TO, ushort) TO_FLOAT_NAMED(TO, int) TO_FLOAT_NAMED(TO, uint)         \
    TO_FLOAT_NAMED(TO, long) TO_FLOAT_NAMED(TO, ulong) TO_FLOAT_NAMED(TO, float)        \
    TO_FLOAT_NAMED(TO, double)

TO_INTEGER_ALL(char)
TO_INTEGER_ALL(uchar)
TO_INTEGER_ALL(short)
TO_INTEGER_ALL(ushort)
TO_INTEGER_ALL(int)
TO_INTEGER_ALL(uint)
TO_INTEGER_ALL(long)
TO_INTEGER_ALL(ulong)
TO_FLOAT_ALL(float)
TO_FLOAT_ALL(double)
