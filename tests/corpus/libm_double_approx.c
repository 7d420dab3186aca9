// Covers: double libm calls (exp, log, sin, cos, pow), one function each,
// with a uniform exponent for pow; libmvec may differ by a few ulp.
// Compiled with -fapprox-func: the calls are marked `afn`, so Lanewise's
// default `--vector-math auto` maps them to glibc's libmvec (within 4 ulp).
// lanewise-test: ulp=4 approx-func
#include "libm_double.c"
