// Covers: conversions between integers of every width and float/double in
// both directions (sitofp, uitofp, fptosi, fptoui, fpext, fptrunc, sext,
// zext, trunc). Float-to-int inputs are clamped first (NaN included), since
// out-of-range conversions are undefined in C.
#include <math.h>
#include <stdint.h>

#pragma omp declare simd notinbranch
float conv_i8_u8_to_float(int8_t a, uint8_t b) { return (float)a * 0.5f + (float)b; }

#pragma omp declare simd notinbranch
double conv_i16_u16_to_double(int16_t a, uint16_t b) { return (double)a - (double)b * 0.25; }

#pragma omp declare simd notinbranch
float conv_i64_u32_to_float(int64_t a, uint32_t b) { return (float)a + (float)b; }

#pragma omp declare simd notinbranch
double conv_u64_to_double(uint64_t a) { return (double)a; }

#pragma omp declare simd notinbranch
int32_t conv_float_to_i32(float x) {
    float clamped = fminf(fmaxf(x, -2.0e9f), 2.0e9f);
    return (int32_t)clamped;
}

#pragma omp declare simd notinbranch
int64_t conv_double_to_i64(double x) {
    double clamped = fmin(fmax(x, -9.0e18), 9.0e18);
    return (int64_t)clamped;
}

#pragma omp declare simd notinbranch
uint8_t conv_float_to_u8(float x) {
    float clamped = fminf(fmaxf(x, 0.0f), 255.0f);
    return (uint8_t)clamped;
}

#pragma omp declare simd notinbranch
uint32_t conv_double_to_u32(double x) {
    double clamped = fmin(fmax(x, 0.0), 4.0e9);
    return (uint32_t)clamped;
}

#pragma omp declare simd notinbranch
float conv_double_to_float(double x, float y) { return (float)x + (float)((double)y * 3.0); }

#pragma omp declare simd notinbranch
int64_t conv_int_widths(int8_t a, int16_t b, int32_t c, uint8_t d) {
    return (int64_t)a * 1000000 + (int64_t)b * 1000 + c + (uint64_t)d + (int16_t)(c >> 3);
}
