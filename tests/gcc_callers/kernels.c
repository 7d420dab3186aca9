// Vector variants that GCC-vectorized loops call (see callers.c). Covers the
// ABI corners: a result narrower than its argument (double -> float: the
// argument takes two registers), a result wider than a register (simdlen(8)
// ints under SSE and AVX: returned through memory), and short integers.
#include <stdint.h>

#pragma omp declare simd notinbranch
float halve_to_float(double x) { return (float)x * 0.5f; }

#pragma omp declare simd notinbranch
int triple(int x) { return x * 3; }

#pragma omp declare simd simdlen(8) notinbranch
int triple8(int x) { return x * 3 + 1; }

#pragma omp declare simd notinbranch
int16_t mix16(int16_t a, uint16_t b) { return (int16_t)(a * 5 - (b >> 3)); }

#pragma omp declare simd uniform(table) linear(i) notinbranch
double scaled(const double *table, int i, double x) { return table[i] * x + 1.0; }
