// Covers: double arithmetic, division, fused multiply-add (fma), and a float
// parameter mixed into a double computation (fpext). 64-bit characteristic
// type: 2/4/4/8 lanes.
#include <math.h>

#pragma omp declare simd notinbranch
double f64_mix(double a, double b, float c) { return (a + c) * (b - c) / (a * a + 2.0) + fma(a, b, (double)c); }

#pragma omp declare simd uniform(k) notinbranch
double f64_horner3(double x, double k) { return ((k * x + 1.5) * x - 0.25) * x + k; }
