// Covers: a vector result wider than one register: simdlen(8) with a double
// result is 512 bits, i.e. 4 SSE / 2 AVX registers. GCC returns such values
// in memory (the C ABI of a vector that large); the harness calls it the same way.
#pragma omp declare simd simdlen(8) notinbranch
double wide_double_result(float x) { return (double)x * 3.0; }
