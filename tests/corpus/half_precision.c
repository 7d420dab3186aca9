// Covers: _Float16 parameters and results: half arithmetic (computed through
// float by clang on x86 without AVX512-FP16), conversions half<->float and
// half->int, and a half vector argument mixed with float.
#include <math.h>

#pragma omp declare simd notinbranch
_Float16 f16_mul_add(_Float16 a, _Float16 b) { return a * b + a; }

#pragma omp declare simd notinbranch
float f16_to_float_mix(_Float16 h, float x) { return (float)h * x + 1.0f; }

#pragma omp declare simd notinbranch
_Float16 f16_from_float(float x) { return (_Float16)(x * 0.5f); }

#pragma omp declare simd notinbranch
int f16_to_int(_Float16 h) {
    float clamped = fminf(fmaxf((float)h, -1000.0f), 1000.0f);
    return (int)clamped;
}
