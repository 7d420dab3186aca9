// Covers: simdlen clauses that differ from the ISA's default width: a smaller
// simdlen(4) for int, a larger simdlen(16) for float (vector arguments split
// over several registers on SSE/AVX), simdlen(2) for double, and an
// explicit inbranch-free notinbranch on a function with uniform and linear.
#pragma omp declare simd simdlen(4) notinbranch
int simdlen_four(int x, int y) { return x * y - (x ^ y); }

#pragma omp declare simd simdlen(16) notinbranch
float simdlen_sixteen(float x, float y) { return x * 0.5f + y; }

#pragma omp declare simd simdlen(2) uniform(a) linear(i:1) notinbranch
double simdlen_two(const double *a, int i, double x) { return a[i] * x; }
