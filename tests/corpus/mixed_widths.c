// Covers: parameters wider than the characteristic type: an int8_t result
// with int32/int64 arguments (16 lanes of i64 span 8 SSE registers), a float
// result with double arguments, and a double result with int8 arguments
// (vectors narrower than one register).
#include <stdint.h>

#pragma omp declare simd notinbranch
int8_t narrow_result_wide_args(int32_t a, int16_t b) { return (int8_t)(a ^ (b >> 2)); }

#pragma omp declare simd notinbranch
float float_result_double_args(double a, double b) { return (float)(a * b); }

#pragma omp declare simd notinbranch
double double_result_byte_args(int8_t a, uint8_t b) { return (double)a * (double)b; }

#pragma omp declare simd uniform(scale) notinbranch
int16_t short_result_long_arg(int64_t a, int scale) { return (int16_t)((a >> 7) * scale); }
