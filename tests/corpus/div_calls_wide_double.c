// Covers: a declare-simd call whose result is wider than a vector
// register: 8 lanes of double are 512 bits, returned by the callee through
// a hidden first pointer (GCC's convention) at SSE, AVX and AVX2; the caller
// provides the buffer and reloads the parts. Also a masked call with a
// double result under a divergent branch, and double arguments split into
// register parts.
// crates/lanewise/tests/variant_calls.rs checks in the report that every
// call uses a variant.

#pragma omp declare simd simdlen(8)
__attribute__((noinline)) double wide_scale(float x, double y) { return (double)x * 3.0 + y; }

#pragma omp declare simd simdlen(8) notinbranch
double wide_caller(float x, double y) { return wide_scale(x, y) - wide_scale(-x, 1.0); }

#pragma omp declare simd simdlen(8) notinbranch
double wide_masked_caller(float x, double y) {
    double r = y;
    if (x > 0.0f)
        r = wide_scale(x, y * 2.0);
    return r;
}
