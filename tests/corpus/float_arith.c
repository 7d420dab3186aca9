// Covers: float +, -, *, /, negation, fused multiply-add (fmaf and
// __builtin_fmaf), with uniform and varying operands.
// lanewise-test: gcc-caller
// No notinbranch: masked variants are named too.
#include <math.h>

#pragma omp declare simd uniform(scale) notinbranch
float f32_mix(float a, float b, float scale) { return (a - b) * scale + a / (b * b + 1.0f) - (-a); }

#pragma omp declare simd
float f32_fma(float a, float b, float c) { return fmaf(a, b, c) + __builtin_fmaf(c, c, -a); }
