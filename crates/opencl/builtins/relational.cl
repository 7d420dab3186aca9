// Lanewise's OpenCL C builtins, part 4: the relational functions (OpenCL
// 1.2 6.12.6) for float and double scalars and vectors, `any`/`all` for
// the signed integer types, and `bitselect`/`select` for every type.
// A scalar test returns 1 or 0; a vector test -1 (all bits set) or 0 per
// element, in the signed integer type of the element's size, which is what
// OpenCL C's own vector comparisons give.

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define DEF __attribute__((overloadable, always_inline))
#define EACH_SIZE(M, ...) M(2, __VA_ARGS__) M(3, __VA_ARGS__) M(4, __VA_ARGS__) M(8, __VA_ARGS__) M(16, __VA_ARGS__)

/* F: the floating type, I: the integer type of its size, MIN_NORMAL: its smallest
 * normal value. `as_I##n(x) < 0` is the sign bit. */
#define RELATIONAL_VECTOR(n, F, I, MIN_NORMAL)                                          \
    DEF I##n isequal(F##n x, F##n y) { return x == y; }                                 \
    DEF I##n isnotequal(F##n x, F##n y) { return x != y; }                              \
    DEF I##n isgreater(F##n x, F##n y) { return x > y; }                                \
    DEF I##n isgreaterequal(F##n x, F##n y) { return x >= y; }                          \
    DEF I##n isless(F##n x, F##n y) { return x < y; }                                   \
    DEF I##n islessequal(F##n x, F##n y) { return x <= y; }                             \
    DEF I##n islessgreater(F##n x, F##n y) { return (x < y) | (x > y); }                \
    DEF I##n isordered(F##n x, F##n y) { return (x == x) & (y == y); }                  \
    DEF I##n isunordered(F##n x, F##n y) { return (x != x) | (y != y); }                \
    DEF I##n isnan(F##n x) { return x != x; }                                           \
    DEF I##n isinf(F##n x) { return fabs(x) == (F##n)(INFINITY); }                      \
    DEF I##n isfinite(F##n x) { return fabs(x) < (F##n)(INFINITY); }                    \
    DEF I##n isnormal(F##n x) {                                                         \
        return (fabs(x) >= (F##n)(MIN_NORMAL)) & (fabs(x) < (F##n)(INFINITY));          \
    }                                                                                   \
    DEF I##n signbit(F##n x) { return as_##I##n(x) < (I##n)(0); }

#define RELATIONAL(F, I, MIN_NORMAL)                                                    \
    DEF int isequal(F x, F y) { return x == y; }                                        \
    DEF int isnotequal(F x, F y) { return x != y; }                                     \
    DEF int isgreater(F x, F y) { return x > y; }                                       \
    DEF int isgreaterequal(F x, F y) { return x >= y; }                                 \
    DEF int isless(F x, F y) { return x < y; }                                          \
    DEF int islessequal(F x, F y) { return x <= y; }                                    \
    DEF int islessgreater(F x, F y) { return x < y || x > y; }                          \
    DEF int isordered(F x, F y) { return x == x && y == y; }                            \
    DEF int isunordered(F x, F y) { return x != x || y != y; }                          \
    DEF int isnan(F x) { return x != x; }                                               \
    DEF int isinf(F x) { return fabs(x) == (F)INFINITY; }                               \
    DEF int isfinite(F x) { return fabs(x) < (F)INFINITY; }                             \
    DEF int isnormal(F x) { return fabs(x) >= (F)(MIN_NORMAL) && fabs(x) < (F)INFINITY; } \
    DEF int signbit(F x) { return as_##I(x) < 0; }                                      \
    EACH_SIZE(RELATIONAL_VECTOR, F, I, MIN_NORMAL)

RELATIONAL(float, int, FLT_MIN)
RELATIONAL(double, long, DBL_MIN)

// ----- any, all: the most significant bit of each element -----

#define ANY_ALL_VECTOR(n, T)                                                            \
    DEF int any(T##n x) {                                                               \
        for (int i = 0; i < n; i++)                                                     \
            if (x[i] < 0) return 1;                                                     \
        return 0;                                                                       \
    }                                                                                   \
    DEF int all(T##n x) {                                                               \
        for (int i = 0; i < n; i++)                                                     \
            if (x[i] >= 0) return 0;                                                    \
        return 1;                                                                       \
    }

#define ANY_ALL(T)                                                                      \
    DEF int any(T x) { return x < 0; }                                                  \
    DEF int all(T x) { return x < 0; }                                                  \
    EACH_SIZE(ANY_ALL_VECTOR, T)

ANY_ALL(char)
ANY_ALL(short)
ANY_ALL(int)
ANY_ALL(long)

// ----- bitselect and select -----

/* bitselect: each bit of the result from b where c has it set, else from a.
 * U is the unsigned integer type of T's size (T itself for integers). */
#define BITSELECT_VECTOR(n, T, U)                                                       \
    DEF T##n bitselect(T##n a, T##n b, T##n c) {                                        \
        return as_##T##n((as_##U##n(a) & ~as_##U##n(c)) | (as_##U##n(b) & as_##U##n(c))); \
    }
#define BITSELECT(T, U)                                                                 \
    DEF T bitselect(T a, T b, T c) {                                                    \
        return as_##T((U)((as_##U(a) & (U)~as_##U(c)) | (as_##U(b) & as_##U(c))));       \
    }                                                                                   \
    EACH_SIZE(BITSELECT_VECTOR, T, U)

/* select: a scalar condition picks b when nonzero; a vector condition per
 * element when its most significant bit is set. S and U are the signed and
 * unsigned integer types of T's size. */
#define SELECT_VECTOR(n, T, S, U)                                                       \
    DEF T##n select(T##n a, T##n b, S##n c) { return c < (S##n)(0) ? b : a; }           \
    DEF T##n select(T##n a, T##n b, U##n c) { return as_##S##n(c) < (S##n)(0) ? b : a; }
#define SELECT(T, S, U)                                                                 \
    DEF T select(T a, T b, S c) { return c ? b : a; }                                   \
    DEF T select(T a, T b, U c) { return c ? b : a; }                                   \
    EACH_SIZE(SELECT_VECTOR, T, S, U)

#define BITSELECT_SELECT(T, S, U) BITSELECT(T, U) SELECT(T, S, U)

BITSELECT_SELECT(char, char, uchar)
BITSELECT_SELECT(uchar, char, uchar)
BITSELECT_SELECT(short, short, ushort)
BITSELECT_SELECT(ushort, short, ushort)
BITSELECT_SELECT(int, int, uint)
BITSELECT_SELECT(uint, int, uint)
BITSELECT_SELECT(long, long, ulong)
BITSELECT_SELECT(ulong, long, ulong)
BITSELECT_SELECT(float, int, uint)
BITSELECT_SELECT(double, long, ulong)
