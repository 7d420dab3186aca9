// Covers: float fabsf, floorf, ceilf, truncf, roundf, rintf, sqrtf, copysignf,
// fminf, fmaxf (one kernel each, so a failure names the function). NaN
// results are checked bit for bit (no memory operands; fabs and copysign
// define the sign of a NaN).
// lanewise-test: nan=bits
#include <math.h>

#pragma omp declare simd notinbranch
float f32_fabs(float x) { return fabsf(x); }
#pragma omp declare simd notinbranch
float f32_floor(float x) { return floorf(x); }
#pragma omp declare simd notinbranch
float f32_ceil(float x) { return ceilf(x); }
#pragma omp declare simd notinbranch
float f32_trunc(float x) { return truncf(x); }
#pragma omp declare simd notinbranch
float f32_round(float x) { return roundf(x); }
#pragma omp declare simd notinbranch
float f32_rint(float x) { return rintf(x); }
#pragma omp declare simd notinbranch
float f32_sqrt(float x) { return sqrtf(x); }
#pragma omp declare simd notinbranch
float f32_copysign(float x, float y) { return copysignf(x, y); }
#pragma omp declare simd notinbranch
float f32_fmin(float x, float y) { return fminf(x, y); }
#pragma omp declare simd notinbranch
float f32_fmax(float x, float y) { return fmaxf(x, y); }
