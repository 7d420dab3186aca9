// Lanewise's OpenCL C builtins, part 2: math (OpenCL 1.2 6.12.2), common
// (6.12.4) and geometric (6.12.5) functions, for float and double scalars
// and their 2-, 3-, 4-, 8- and 16-element vectors.
//
// Scalar functions map to clang's builtins: LLVM intrinsics where LLVM has
// one (sqrt, fabs, floor, fma, ...), which Lanewise widens to vector
// instructions, and the C math library otherwise (exp, sin, ...: correctly
// rounded or within 1 ulp, inside OpenCL's bounds), which Lanewise calls
// per lane or through libmvec as its vector-math setting allows. Vector
// forms apply the scalar form per element.

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define DEF __attribute__((overloadable, always_inline))

// ----- Per-element vector forms of scalar functions -----

#define VEC1(name, T)                                                                   \
    DEF T##2 name(T##2 x) { return (T##2)(name(x.s0), name(x.s1)); }                    \
    DEF T##3 name(T##3 x) { return (T##3)(name(x.s0), name(x.s1), name(x.s2)); }        \
    DEF T##4 name(T##4 x) { return (T##4)(name(x.s01), name(x.s23)); }                  \
    DEF T##8 name(T##8 x) { return (T##8)(name(x.lo), name(x.hi)); }                    \
    DEF T##16 name(T##16 x) { return (T##16)(name(x.lo), name(x.hi)); }

#define VEC2(name, T)                                                                   \
    DEF T##2 name(T##2 x, T##2 y) { return (T##2)(name(x.s0, y.s0), name(x.s1, y.s1)); } \
    DEF T##3 name(T##3 x, T##3 y) {                                                     \
        return (T##3)(name(x.s0, y.s0), name(x.s1, y.s1), name(x.s2, y.s2));            \
    }                                                                                   \
    DEF T##4 name(T##4 x, T##4 y) { return (T##4)(name(x.s01, y.s01), name(x.s23, y.s23)); } \
    DEF T##8 name(T##8 x, T##8 y) { return (T##8)(name(x.lo, y.lo), name(x.hi, y.hi)); } \
    DEF T##16 name(T##16 x, T##16 y) { return (T##16)(name(x.lo, y.lo), name(x.hi, y.hi)); }

#define VEC3(name, T)                                                                   \
    DEF T##2 name(T##2 x, T##2 y, T##2 z) {                                             \
        return (T##2)(name(x.s0, y.s0, z.s0), name(x.s1, y.s1, z.s1));                  \
    }                                                                                   \
    DEF T##3 name(T##3 x, T##3 y, T##3 z) {                                             \
        return (T##3)(name(x.s0, y.s0, z.s0), name(x.s1, y.s1, z.s1), name(x.s2, y.s2, z.s2)); \
    }                                                                                   \
    DEF T##4 name(T##4 x, T##4 y, T##4 z) {                                             \
        return (T##4)(name(x.s01, y.s01, z.s01), name(x.s23, y.s23, z.s23));            \
    }                                                                                   \
    DEF T##8 name(T##8 x, T##8 y, T##8 z) {                                             \
        return (T##8)(name(x.lo, y.lo, z.lo), name(x.hi, y.hi, z.hi));                  \
    }                                                                                   \
    DEF T##16 name(T##16 x, T##16 y, T##16 z) {                                         \
        return (T##16)(name(x.lo, y.lo, z.lo), name(x.hi, y.hi, z.hi));                 \
    }

// ----- Float and double: scalar forms through clang's builtins -----

#define UNARY(name, builtin_f, builtin_d)                                               \
    DEF float name(float x) { return builtin_f(x); }                                    \
    DEF double name(double x) { return builtin_d(x); }                                  \
    VEC1(name, float) VEC1(name, double)

#define BINARY(name, builtin_f, builtin_d)                                              \
    DEF float name(float x, float y) { return builtin_f(x, y); }                        \
    DEF double name(double x, double y) { return builtin_d(x, y); }                     \
    VEC2(name, float) VEC2(name, double)

#define TERNARY(name, builtin_f, builtin_d)                                             \
    DEF float name(float x, float y, float z) { return builtin_f(x, y, z); }            \
    DEF double name(double x, double y, double z) { return builtin_d(x, y, z); }        \
    VEC3(name, float) VEC3(name, double)

UNARY(sqrt, __builtin_sqrtf, __builtin_sqrt)
UNARY(fabs, __builtin_fabsf, __builtin_fabs)
UNARY(floor, __builtin_floorf, __builtin_floor)
UNARY(ceil, __builtin_ceilf, __builtin_ceil)
UNARY(trunc, __builtin_truncf, __builtin_trunc)
UNARY(round, __builtin_roundf, __builtin_round)
UNARY(rint, __builtin_rintf, __builtin_rint)
UNARY(exp, __builtin_expf, __builtin_exp)
UNARY(exp2, __builtin_exp2f, __builtin_exp2)
UNARY(exp10, __builtin_exp10f, __builtin_exp10)
UNARY(expm1, __builtin_expm1f, __builtin_expm1)
UNARY(log, __builtin_logf, __builtin_log)
UNARY(log2, __builtin_log2f, __builtin_log2)
UNARY(log10, __builtin_log10f, __builtin_log10)
UNARY(log1p, __builtin_log1pf, __builtin_log1p)
UNARY(sin, __builtin_sinf, __builtin_sin)
UNARY(cos, __builtin_cosf, __builtin_cos)
UNARY(tan, __builtin_tanf, __builtin_tan)
UNARY(asin, __builtin_asinf, __builtin_asin)
UNARY(acos, __builtin_acosf, __builtin_acos)
UNARY(atan, __builtin_atanf, __builtin_atan)
UNARY(sinh, __builtin_sinhf, __builtin_sinh)
UNARY(cosh, __builtin_coshf, __builtin_cosh)
UNARY(tanh, __builtin_tanhf, __builtin_tanh)
UNARY(asinh, __builtin_asinhf, __builtin_asinh)
UNARY(acosh, __builtin_acoshf, __builtin_acosh)
UNARY(atanh, __builtin_atanhf, __builtin_atanh)
UNARY(cbrt, __builtin_cbrtf, __builtin_cbrt)
UNARY(erf, __builtin_erff, __builtin_erf)
UNARY(erfc, __builtin_erfcf, __builtin_erfc)
UNARY(tgamma, __builtin_tgammaf, __builtin_tgamma)
UNARY(lgamma, __builtin_lgammaf, __builtin_lgamma)
UNARY(logb, __builtin_logbf, __builtin_logb)

BINARY(pow, __builtin_powf, __builtin_pow)
BINARY(fmin, __builtin_fminf, __builtin_fmin)
BINARY(fmax, __builtin_fmaxf, __builtin_fmax)
BINARY(fmod, __builtin_fmodf, __builtin_fmod)
BINARY(atan2, __builtin_atan2f, __builtin_atan2)
BINARY(hypot, __builtin_hypotf, __builtin_hypot)
BINARY(copysign, __builtin_copysignf, __builtin_copysign)
BINARY(fdim, __builtin_fdimf, __builtin_fdim)
BINARY(nextafter, __builtin_nextafterf, __builtin_nextafter)
BINARY(remainder, __builtin_remainderf, __builtin_remainder)

TERNARY(fma, __builtin_fmaf, __builtin_fma)

// ----- sinpi, cospi, tanpi, powr, pown, rootn: OpenCL's accuracy and edge cases -----
// (OpenCL 1.2, sections 7.4 and 7.5.1). W is the type the float forms compute
// in (double: their results are within an ulp).

/* x reduced exactly to (-2, 2) by fmod (the period), then split into n/2 + y
 * with n = rint(2 x) and |y| <= 1/4, both exact; n's two low bits pick sin
 * or cos of pi y and its sign. Computing sin(pi x) directly loses every
 * digit for large x and most of them near the integers. */
#define PI_FUNCTIONS(T, W)                                                              \
    DEF T sinpi(T x) {                                                                  \
        if (!isfinite(x)) return x - x;                                                 \
        T reduced = fmod(x, (T)2);                                                      \
        T n = rint(reduced * (T)2);                                                     \
        W y = (W)(reduced - n * (T)0.5) * (W)M_PI;                                      \
        int quadrant = (int)n & 3;                                                      \
        W r = quadrant == 0 ? sin(y) : quadrant == 1 ? cos(y)                           \
            : quadrant == 2 ? -sin(y) : -cos(y);                                        \
        /* sinpi(n) is +0 for positive n, -0 for negative n. */                         \
        return r == (W)0 ? copysign((T)0, x) : (T)r;                                    \
    }                                                                                   \
    DEF T cospi(T x) {                                                                  \
        if (!isfinite(x)) return x - x;                                                 \
        T reduced = fmod(fabs(x), (T)2);                                                \
        T n = rint(reduced * (T)2);                                                     \
        W y = (W)(reduced - n * (T)0.5) * (W)M_PI;                                      \
        int quadrant = (int)n & 3;                                                      \
        W r = quadrant == 0 ? cos(y) : quadrant == 1 ? -sin(y)                          \
            : quadrant == 2 ? -cos(y) : sin(y);                                         \
        /* cospi(n + 0.5) is +0. */                                                     \
        return r == (W)0 ? (T)0 : (T)r;                                                 \
    }                                                                                   \
    DEF T tanpi(T x) {                                                                  \
        if (!isfinite(x)) return x - x;                                                 \
        T reduced = fmod(x, (T)2);                                                      \
        T n = rint(reduced * (T)2);                                                     \
        T y = reduced - n * (T)0.5;                                                     \
        int quadrant = (int)n & 3;                                                      \
        if (y == (T)0) {                                                                \
            /* tanpi(n + 0.5) is +inf for even n, -inf for odd n; tanpi(n) is */        \
            /* copysign(0, n) for even n, copysign(0, -n) for odd n. */                 \
            if (quadrant == 1) return (T)INFINITY;                                      \
            if (quadrant == 3) return (T)-INFINITY;                                     \
            return copysign((T)0, quadrant == 0 ? x : -x);                              \
        }                                                                               \
        W s = sin((W)y * (W)M_PI), c = cos((W)y * (W)M_PI);                             \
        return (T)((quadrant & 1) ? -c / s : s / c);                                    \
    }                                                                                   \
    /* NaN for x < 0, powr(±0, ±0), powr(+inf, ±0), powr(+1, ±inf) and any NaN */       \
    /* operand; powr(-0, y) is powr(+0, y). */                                          \
    DEF T powr(T x, T y) {                                                              \
        if (x < (T)0 || isnan(x) || isnan(y) || (x == (T)0 && y == (T)0)                \
            || (isinf(x) && y == (T)0) || (x == (T)1 && isinf(y)))                      \
            return (T)NAN;                                                              \
        return pow(fabs(x), y);                                                         \
    }                                                                                   \
    /* n converted to W keeps its parity (a float does not above 2^24). */              \
    DEF T pown(T x, int n) { return (T)pow((W)x, (W)n); }

PI_FUNCTIONS(float, double)
PI_FUNCTIONS(double, double)

/* The real n-th root: of a negative x for odd n, NaN for even n and for
 * n = 0; the sign of a zero or an infinity kept for odd n. The float form
 * takes 1/n in double, which is exact enough; the double form adds the
 * correction for 1/n's rounding, low = 1/n - e (an fma gives it exactly):
 * x^(e + low) = x^e (1 + low ln x). */
DEF float rootn(float x, int n) {
    if (n == 0 || (x < 0.0f && (n & 1) == 0)) return NAN;
    float r = (float)pow((double)fabs(x), 1.0 / (double)n);
    return (n & 1) ? copysign(r, x) : r;
}
DEF double rootn(double x, int n) {
    if (n == 0 || (x < 0.0 && (n & 1) == 0)) return (double)NAN;
    double e = 1.0 / (double)n;
    double r = pow(fabs(x), e);
    if (r != 0.0 && isfinite(r)) {
        double low = fma(-e, (double)n, 1.0) / (double)n;
        r = fma(r, low * log(fabs(x)), r);
    }
    return (n & 1) ? copysign(r, x) : r;
}

// Functions defined from the ones above.
#define DERIVED_FLOAT(T)                                                                \
    DEF T rsqrt(T x) { return (T)1 / sqrt(x); }                                         \
    DEF T mad(T a, T b, T c) { return a * b + c; }                                      \
    DEF T asinpi(T x) { return asin(x) / (T)M_PI; }                                     \
    DEF T acospi(T x) { return acos(x) / (T)M_PI; }                                     \
    DEF T atanpi(T x) { return atan(x) / (T)M_PI; }                                     \
    DEF T atan2pi(T y, T x) { return atan2(y, x) / (T)M_PI; }                           \
    DEF T maxmag(T x, T y) { return fabs(x) > fabs(y) ? x : fabs(y) > fabs(x) ? y : fmax(x, y); } \
    DEF T minmag(T x, T y) { return fabs(x) < fabs(y) ? x : fabs(y) < fabs(x) ? y : fmin(x, y); } \
    DEF T clamp(T x, T lo, T hi) { return fmin(fmax(x, lo), hi); }                      \
    DEF T min(T x, T y) { return y < x ? y : x; }                                       \
    DEF T max(T x, T y) { return x < y ? y : x; }                                       \
    DEF T mix(T x, T y, T a) { return x + (y - x) * a; }                                \
    DEF T step(T edge, T x) { return x < edge ? (T)0 : (T)1; }                          \
    DEF T smoothstep(T e0, T e1, T x) {                                                 \
        T t = clamp((x - e0) / (e1 - e0), (T)0, (T)1);                                  \
        return t * t * ((T)3 - (T)2 * t);                                               \
    }                                                                                   \
    DEF T sign(T x) { return x > (T)0 ? (T)1 : x < (T)0 ? (T)-1 : x != x ? (T)0 : x; }  \
    DEF T radians(T x) { return x * (T)(M_PI / 180.0); }                                \
    DEF T degrees(T x) { return x * (T)(180.0 / M_PI); }

DERIVED_FLOAT(float)
DERIVED_FLOAT(double)

#define DERIVED_VEC(T)                                                                  \
    VEC1(rsqrt, T) VEC3(mad, T) VEC2(powr, T) VEC2(maxmag, T) VEC2(minmag, T)            \
    VEC3(clamp, T) VEC2(min, T) VEC2(max, T) VEC3(mix, T) VEC2(step, T)                 \
    VEC3(smoothstep, T) VEC1(sign, T) VEC1(radians, T) VEC1(degrees, T)                 \
    VEC1(sinpi, T) VEC1(cospi, T) VEC1(tanpi, T) VEC1(asinpi, T) VEC1(acospi, T)        \
    VEC1(atanpi, T) VEC2(atan2pi, T)

DERIVED_VEC(float)
DERIVED_VEC(double)

// Vector-scalar forms of the common functions.
#define SCALAR_ARG_FORMS(T, n)                                                          \
    DEF T##n min(T##n x, T y) { return min(x, (T##n)(y)); }                             \
    DEF T##n max(T##n x, T y) { return max(x, (T##n)(y)); }                             \
    DEF T##n fmin(T##n x, T y) { return fmin(x, (T##n)(y)); }                           \
    DEF T##n fmax(T##n x, T y) { return fmax(x, (T##n)(y)); }                           \
    DEF T##n clamp(T##n x, T lo, T hi) { return clamp(x, (T##n)(lo), (T##n)(hi)); }     \
    DEF T##n mix(T##n x, T##n y, T a) { return mix(x, y, (T##n)(a)); }                  \
    DEF T##n step(T edge, T##n x) { return step((T##n)(edge), x); }

#define SCALAR_ARG_ALL(T)                                                               \
    SCALAR_ARG_FORMS(T, 2) SCALAR_ARG_FORMS(T, 3) SCALAR_ARG_FORMS(T, 4)                \
    SCALAR_ARG_FORMS(T, 8) SCALAR_ARG_FORMS(T, 16)

SCALAR_ARG_ALL(float)
SCALAR_ARG_ALL(double)

// native_ and half_ forms: the full-precision functions (allowed: their
// precision is implementation-defined).
#define NATIVE(name)                                                                    \
    DEF float native_##name(float x) { return name(x); }                                \
    DEF float half_##name(float x) { return name(x); }                                  \
    VEC1(native_##name, float) VEC1(half_##name, float)

NATIVE(sqrt) NATIVE(rsqrt) NATIVE(exp) NATIVE(exp2) NATIVE(exp10) NATIVE(log) NATIVE(log2)
NATIVE(log10) NATIVE(sin) NATIVE(cos) NATIVE(tan)

DEF float native_recip(float x) { return 1.0f / x; }
DEF float half_recip(float x) { return 1.0f / x; }
DEF float native_divide(float x, float y) { return x / y; }
DEF float half_divide(float x, float y) { return x / y; }
DEF float native_powr(float x, float y) { return pow(x, y); }
DEF float half_powr(float x, float y) { return pow(x, y); }
VEC1(native_recip, float) VEC1(half_recip, float) VEC2(native_divide, float)
VEC2(half_divide, float) VEC2(native_powr, float) VEC2(half_powr, float)

// ----- Geometric functions (float and double, 1 to 4 elements) -----

#define GEOMETRIC(T)                                                                    \
    DEF T dot(T x, T y) { return x * y; }                                               \
    DEF T dot(T##2 x, T##2 y) { return x.s0 * y.s0 + x.s1 * y.s1; }                     \
    DEF T dot(T##3 x, T##3 y) { return x.s0 * y.s0 + x.s1 * y.s1 + x.s2 * y.s2; }       \
    DEF T dot(T##4 x, T##4 y) {                                                         \
        return x.s0 * y.s0 + x.s1 * y.s1 + x.s2 * y.s2 + x.s3 * y.s3;                   \
    }                                                                                   \
    DEF T length(T x) { return fabs(x); }                                               \
    DEF T distance(T x, T y) { return length(x - y); }                                  \
    DEF T normalize(T x) { return x != x ? x : sign(x); }                               \
    DEF T##3 cross(T##3 a, T##3 b) {                                                    \
        return (T##3)(a.s1 * b.s2 - a.s2 * b.s1, a.s2 * b.s0 - a.s0 * b.s2,             \
                      a.s0 * b.s1 - a.s1 * b.s0);                                       \
    }                                                                                   \
    DEF T##4 cross(T##4 a, T##4 b) {                                                    \
        return (T##4)(cross(a.s012, b.s012), (T)0);                                     \
    }

GEOMETRIC(float)
GEOMETRIC(double)


// ----- The functions with a pointer argument (in each address space) -----

#define EACH_SIZE(M, ...) M(2, __VA_ARGS__) M(3, __VA_ARGS__) M(4, __VA_ARGS__) M(8, __VA_ARGS__) M(16, __VA_ARGS__)

/* lgamma_r through the C library's reentrant form (libm, linked into every
 * program). */
float __lw_lgammaf_r(float x, int *sign) __asm__("lgammaf_r");
double __lw_lgamma_r(double x, int *sign) __asm__("lgamma_r");

/* T: the floating type, LIMIT: the largest T below 1 (fract's bound; the
 * fraction of an infinity is +0, as in libclc and PoCL). remquo's quotient:
 * OpenCL wants at least its 7 low bits, glibc gives 3, so the 7 come from
 * |x| reduced modulo 128 |y| (`fmod` is exact), whose quotient by |y| has
 * the same low 7 bits and parity (so the same rounding to even); the
 * product's rounding error is far below the 0.5 `rint` allows. PoCL gives
 * the same 7 bits. */
#define POINTER_SCALAR(T, SPACE, LIMIT, LGAMMA_R, FREXP, MODF, REMQUO)                  \
    DEF T fract(T x, SPACE T *iptr) {                                                   \
        T whole = floor(x);                                                             \
        *iptr = whole;                                                                  \
        return x != x ? x : isinf(x) ? (T)0 : fmin(x - whole, LIMIT);                   \
    }                                                                                   \
    DEF T frexp(T x, SPACE int *exp) {                                                  \
        int e;                                                                          \
        T m = FREXP(x, &e);                                                      \
        *exp = e;                                                                       \
        return m;                                                                       \
    }                                                                                   \
    DEF T modf(T x, SPACE T *iptr) {                                                    \
        T whole;                                                                        \
        T r = MODF(x, &whole);                                                        \
        *iptr = whole;                                                                  \
        return r;                                                                       \
    }                                                                                   \
    DEF T remquo(T x, T y, SPACE int *quo) {                                            \
        int q;                                                                          \
        T r = REMQUO(x, y, &q);                                                         \
        q = 0; /* when the remainder is a NaN (glibc leaves it unset) */                \
        if (isfinite(x) && !isnan(y) && y != (T)0) {                                    \
            T ay = fabs(y);                                                             \
            T m = fmod(fabs(x), ay * (T)128);                                           \
            int k = (int)rint((m - remainder(m, ay)) / ay) & 127;                       \
            q = signbit(x) != signbit(y) ? -k : k;                                      \
        }                                                                               \
        *quo = q;                                                                       \
        return r;                                                                       \
    }                                                                                   \
    DEF T sincos(T x, SPACE T *cosval) {                                                \
        *cosval = cos(x);                                                               \
        return sin(x);                                                                  \
    }                                                                                   \
    DEF T lgamma_r(T x, SPACE int *signp) {                                             \
        int s;                                                                          \
        T r = LGAMMA_R(x, &s);                                                          \
        *signp = s;                                                                     \
        return r;                                                                       \
    }

#define POINTER_VECTOR(n, T, SPACE)                                                     \
    DEF T##n fract(T##n x, SPACE T##n *iptr) {                                          \
        T##n r, w;                                                                      \
        for (int i = 0; i < n; i++) {                                                   \
            T e;                                                                        \
            r[i] = fract(x[i], &e);                                                     \
            w[i] = e;                                                                   \
        }                                                                               \
        *iptr = w;                                                                      \
        return r;                                                                       \
    }                                                                                   \
    DEF T##n frexp(T##n x, SPACE int##n *exp) {                                         \
        T##n r;                                                                         \
        int##n w;                                                                       \
        for (int i = 0; i < n; i++) {                                                   \
            int e;                                                                      \
            r[i] = frexp(x[i], &e);                                                     \
            w[i] = e;                                                                   \
        }                                                                               \
        *exp = w;                                                                       \
        return r;                                                                       \
    }                                                                                   \
    DEF T##n modf(T##n x, SPACE T##n *iptr) {                                           \
        T##n r, w;                                                                      \
        for (int i = 0; i < n; i++) {                                                   \
            T e;                                                                        \
            r[i] = modf(x[i], &e);                                                      \
            w[i] = e;                                                                   \
        }                                                                               \
        *iptr = w;                                                                      \
        return r;                                                                       \
    }                                                                                   \
    DEF T##n remquo(T##n x, T##n y, SPACE int##n *quo) {                                \
        T##n r;                                                                         \
        int##n w;                                                                       \
        for (int i = 0; i < n; i++) {                                                   \
            int e;                                                                      \
            r[i] = remquo(x[i], y[i], &e);                                              \
            w[i] = e;                                                                   \
        }                                                                               \
        *quo = w;                                                                       \
        return r;                                                                       \
    }                                                                                   \
    DEF T##n sincos(T##n x, SPACE T##n *cosval) {                                       \
        *cosval = cos(x);                                                               \
        return sin(x);                                                                  \
    }                                                                                   \
    DEF T##n lgamma_r(T##n x, SPACE int##n *signp) {                                    \
        T##n r;                                                                         \
        int##n w;                                                                       \
        for (int i = 0; i < n; i++) {                                                   \
            int e;                                                                      \
            r[i] = lgamma_r(x[i], &e);                                                  \
            w[i] = e;                                                                   \
        }                                                                               \
        *signp = w;                                                                     \
        return r;                                                                       \
    }

#define POINTER_FUNCTIONS_F(SPACE)                                                      \
    POINTER_SCALAR(float, SPACE, 0x1.fffffep-1f, __lw_lgammaf_r, __builtin_frexpf,      \
                   __builtin_modff, __builtin_remquof)                                  \
    EACH_SIZE(POINTER_VECTOR, float, SPACE)
#define POINTER_FUNCTIONS_D(SPACE)                                                      \
    POINTER_SCALAR(double, SPACE, 0x1.fffffffffffffp-1, __lw_lgamma_r, __builtin_frexp, \
                   __builtin_modf, __builtin_remquo)                                    \
    EACH_SIZE(POINTER_VECTOR, double, SPACE)

POINTER_FUNCTIONS_F(__private)
POINTER_FUNCTIONS_F(__global)
POINTER_FUNCTIONS_F(__local)
POINTER_FUNCTIONS_D(__private)
POINTER_FUNCTIONS_D(__global)
POINTER_FUNCTIONS_D(__local)

// ----- ldexp, ilogb, nan, pown/rootn vectors and the remaining forms -----

#define EXPONENT_VECTOR(n, T, I)                                                        \
    DEF T##n ldexp(T##n x, int##n k) {                                                  \
        T##n r;                                                                         \
        for (int i = 0; i < n; i++) r[i] = ldexp(x[i], k[i]);                           \
        return r;                                                                       \
    }                                                                                   \
    DEF T##n ldexp(T##n x, int k) { return ldexp(x, (int##n)(k)); }                     \
    DEF int##n ilogb(T##n x) {                                                          \
        int##n r;                                                                       \
        for (int i = 0; i < n; i++) r[i] = ilogb(x[i]);                                 \
        return r;                                                                       \
    }                                                                                   \
    DEF T##n pown(T##n x, int##n k) {                                                   \
        T##n r;                                                                         \
        for (int i = 0; i < n; i++) r[i] = pown(x[i], k[i]);                            \
        return r;                                                                       \
    }                                                                                   \
    DEF T##n rootn(T##n x, int##n k) {                                                  \
        T##n r;                                                                         \
        for (int i = 0; i < n; i++) r[i] = rootn(x[i], k[i]);                           \
        return r;                                                                       \
    }                                                                                   \
    DEF T##n nan(I##n code) {                                                           \
        T##n r;                                                                         \
        for (int i = 0; i < n; i++) r[i] = nan(code[i]);                                \
        return r;                                                                       \
    }                                                                                   \
    DEF T##n smoothstep(T e0, T e1, T##n x) { return smoothstep((T##n)(e0), (T##n)(e1), x); }

DEF float ldexp(float x, int k) { return __builtin_ldexpf(x, k); }
DEF double ldexp(double x, int k) { return __builtin_ldexp(x, k); }
/* glibc's ilogb of a NaN is INT_MIN (its FP_ILOGB0); OpenCL's FP_ILOGBNAN
 * is INT_MAX. */
DEF int ilogb(float x) { return isnan(x) ? FP_ILOGBNAN : __builtin_ilogbf(x); }
DEF int ilogb(double x) { return isnan(x) ? FP_ILOGBNAN : __builtin_ilogb(x); }
/* A quiet NaN whose payload holds `code` (as much of it as fits). */
DEF float nan(uint code) { return as_float(0x7fc00000u | (code & 0x3fffffu)); }
DEF double nan(ulong code) { return as_double(0x7ff8000000000000UL | (code & 0x7ffffffffffffUL)); }
EACH_SIZE(EXPONENT_VECTOR, float, uint)
EACH_SIZE(EXPONENT_VECTOR, double, ulong)

/* length and normalize of 2-4 elements without overflow or underflow: the
 * sum of squares in T when it lies in [TINY, inf) (TINY leaves room for the
 * squares that underflowed), else of the elements scaled by a power of two
 * (exact) that brings the largest to [1, 2). normalize returns a zero vector
 * as it is, a vector with a NaN as NaNs, and treats infinite elements as
 * +-1 and the others as 0 (OpenCL 2.0 wrote these cases down; 1.2 leaves
 * them open). The rare cases sit behind a branch so the common one costs
 * what it did. */
#define SCALED_GEOMETRIC(T, n, TINY)                                                    \
    DEF T __lw_largest_magnitude(T##n x);                                               \
    DEF T length(T##n x) {                                                              \
        T sum = dot(x, x);                                                              \
        if (sum >= TINY && sum < (T)INFINITY) return sqrt(sum);                         \
        if (isnan(sum)) return sum;                                                     \
        if (any(isinf(x))) return (T)INFINITY;                                          \
        T largest = __lw_largest_magnitude(x);                                          \
        if (largest == (T)0) return (T)0;                                               \
        int e = ilogb(largest);                                                         \
        T##n y = ldexp(x, -e);                                                          \
        return ldexp(sqrt(dot(y, y)), e);                                               \
    }                                                                                   \
    DEF T distance(T##n x, T##n y) { return length(x - y); }                            \
    DEF T##n normalize(T##n x) {                                                        \
        T sum = dot(x, x);                                                              \
        if (sum >= TINY && sum < (T)INFINITY) return x / sqrt(sum);                     \
        if (any(isnan(x))) return (T##n)((T)NAN);                                       \
        if (any(isinf(x))) x = select(x * (T)0, copysign((T##n)(1), x), isinf(x));     \
        T largest = __lw_largest_magnitude(x);                                          \
        if (largest == (T)0) return x;                                                  \
        T##n y = ldexp(x, -ilogb(largest));                                             \
        return y / sqrt(dot(y, y));                                                     \
    }

DEF float __lw_largest_magnitude(float2 x) { return fmax(fabs(x.s0), fabs(x.s1)); }
DEF float __lw_largest_magnitude(float3 x) { return fmax(fmax(fabs(x.s0), fabs(x.s1)), fabs(x.s2)); }
DEF float __lw_largest_magnitude(float4 x) { return fmax(__lw_largest_magnitude(x.s012), fabs(x.s3)); }
DEF double __lw_largest_magnitude(double2 x) { return fmax(fabs(x.s0), fabs(x.s1)); }
DEF double __lw_largest_magnitude(double3 x) { return fmax(fmax(fabs(x.s0), fabs(x.s1)), fabs(x.s2)); }
DEF double __lw_largest_magnitude(double4 x) { return fmax(__lw_largest_magnitude(x.s012), fabs(x.s3)); }
SCALED_GEOMETRIC(float, 2, 0x1p-100f) SCALED_GEOMETRIC(float, 3, 0x1p-100f)
SCALED_GEOMETRIC(float, 4, 0x1p-100f)
SCALED_GEOMETRIC(double, 2, 0x1p-960) SCALED_GEOMETRIC(double, 3, 0x1p-960)
SCALED_GEOMETRIC(double, 4, 0x1p-960)

DEF float fast_length(float x) { return length(x); }
DEF float fast_length(float2 x) { return length(x); }
DEF float fast_length(float3 x) { return length(x); }
DEF float fast_length(float4 x) { return length(x); }
DEF float4 fast_normalize(float4 x) { return normalize(x); }
DEF float3 fast_normalize(float3 x) { return normalize(x); }
DEF float2 fast_normalize(float2 x) { return normalize(x); }
DEF float fast_distance(float x, float y) { return distance(x, y); }
DEF float fast_distance(float2 x, float2 y) { return distance(x, y); }
DEF float fast_distance(float3 x, float3 y) { return distance(x, y); }
DEF float fast_distance(float4 x, float4 y) { return distance(x, y); }
DEF float fast_normalize(float x) { return normalize(x); }
