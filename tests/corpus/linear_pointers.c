// Covers: linear pointer parameters: linear(p:1) on int, double and uint8_t
// pointers (steps of 4, 8 and 1 bytes: contiguous vector loads/stores),
// a negative step linear(q:-1), and a uniform offset added to a linear pointer.
#include <stdint.h>

#pragma omp declare simd linear(p:1) notinbranch
int linear_int_pointer(const int *p, int x) { return p[0] * x + p[3]; }

#pragma omp declare simd linear(in:1) linear(out:1) notinbranch
void linear_double_copy(const double *in, double *out, double scale) { *out = *in * scale; }

#pragma omp declare simd linear(bytes:1) uniform(offset) notinbranch
uint8_t linear_byte_pointer(const uint8_t *bytes, int offset) { return (uint8_t)(bytes[0] + bytes[offset & 15]); }

#pragma omp declare simd linear(q:-1) notinbranch
float linear_negative_step(const float *q, float x) { return *q + x; }
