// Covers: float libm calls that a vectorizer may map to glibc libmvec
// (sinf, cosf, expf, logf, powf), one function each; libmvec may differ
// from the scalar libm by a few ulp.
// Compiled with -fapprox-func: the calls are marked `afn`, so Lanewise's
// default `--vector-math auto` maps them to glibc's libmvec (within 4 ulp).
// lanewise-test: ulp=4 approx-func
#include <math.h>

#pragma omp declare simd notinbranch
float f32_sin(float x) { return sinf(x); }
#pragma omp declare simd notinbranch
float f32_cos(float x) { return cosf(x); }
#pragma omp declare simd notinbranch
float f32_exp(float x) { return expf(x); }
#pragma omp declare simd notinbranch
float f32_log(float x) { return logf(x); }
#pragma omp declare simd notinbranch
float f32_pow(float x, float y) { return powf(x, y); }
