// Covers: double libm calls (exp, log, sin, cos, pow), one function each,
// with a uniform exponent for pow; libmvec may differ by a few ulp.
// Compiled with -fapprox-func: the calls are marked `afn`, so Lanewise's
// default `--vector-math auto` maps them to glibc's libmvec (within 4 ulp).
// lanewise-test: ulp=4 approx-func
#include <math.h>

#pragma omp declare simd notinbranch
double f64_exp(double x) { return exp(x); }
#pragma omp declare simd notinbranch
double f64_log(double x) { return log(x); }
#pragma omp declare simd notinbranch
double f64_sin(double x) { return sin(x); }
#pragma omp declare simd notinbranch
double f64_cos(double x) { return cos(x); }
#pragma omp declare simd uniform(y) notinbranch
double f64_pow_uniform(double x, double y) { return pow(x, y); }
