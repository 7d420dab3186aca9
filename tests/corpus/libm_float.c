// Covers: float libm calls (sinf, cosf, expf, logf, powf), one function
// each, compiled without fast-math: the calls are not marked `afn`, so
// Lanewise's default `--vector-math auto` calls libm per lane and the
// results are bit-exact (libm_float_approx.c: the same with libmvec).
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
