// Covers: int16_t/uint16_t arithmetic: high half of a 16x16 product, average,
// absolute difference, arithmetic and logical shifts, select-based min/max.
// Mixed with an int8 uniform parameter (signext scalar).
#include <stdint.h>

#pragma omp declare simd notinbranch
int16_t s16_mulhi(int16_t a, int16_t b) { return (int16_t)(((int32_t)a * b) >> 16); }

#pragma omp declare simd notinbranch
uint16_t u16_average_absdiff(uint16_t a, uint16_t b) {
    uint16_t average = (uint16_t)(((unsigned)a + b + 1) >> 1);
    uint16_t high = a > b ? a : b;
    uint16_t low = a > b ? b : a;
    uint16_t difference = (uint16_t)(high - low);
    return (uint16_t)(average ^ difference);
}

#pragma omp declare simd uniform(bias) notinbranch
int16_t s16_bias_minmax(int16_t a, int16_t b, int8_t bias) {
    int16_t low = a < b ? a : b;
    int16_t high = a < b ? b : a;
    return (int16_t)((uint16_t)(high - low) + (uint16_t)(bias << 2) + (uint16_t)(low >> 3));
}
