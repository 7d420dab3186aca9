// Covers: double fabs, floor, ceil, trunc, round, sqrt, copysign, fmin, fmax,
// combined in one expression per kernel.
#include <math.h>

#pragma omp declare simd notinbranch
double f64_round_all(double x) { return floor(x) + ceil(x) * 2.0 + trunc(x) * 4.0 + round(x) * 8.0; }

#pragma omp declare simd notinbranch
double f64_sqrt_abs(double x, double y) { return sqrt(fabs(x)) + copysign(y, x); }

#pragma omp declare simd notinbranch
double f64_minmax(double x, double y) { return fmin(x, y) - fmax(x, 2.0 * y); }
