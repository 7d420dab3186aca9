// Covers: float libm calls that a vectorizer may map to glibc libmvec
// (sinf, cosf, expf, logf, powf), one function each; libmvec may differ
// from the scalar libm by a few ulp.
// Compiled with -fapprox-func: the calls are marked `afn`, so Lanewise's
// default `--vector-math auto` maps them to glibc's libmvec (within 4 ulp).
// lanewise-test: ulp=4 approx-func
#include "libm_float.c"
