// Covers: int8_t/uint8_t arithmetic (add, sub, mul, wrap-around in unsigned
// char), shifts by masked amounts, saturation and min/max through ternaries
// (selects). 8-bit characteristic type: 16/32/32/64 lanes.
#include <stdint.h>

#pragma omp declare simd notinbranch
uint8_t u8_mix(uint8_t a, uint8_t b) {
    uint8_t sum = (uint8_t)(a + b);
    uint8_t product = (uint8_t)(a * 3u);
    return (uint8_t)((sum ^ product) + (uint8_t)(b >> (a & 7)));
}

#pragma omp declare simd notinbranch
uint8_t u8_saturating_add(uint8_t a, uint8_t b) {
    unsigned wide = (unsigned)a + b;
    return wide > 255 ? 255 : (uint8_t)wide;
}

#pragma omp declare simd uniform(shift) notinbranch
int8_t s8_clamp_shift(int8_t a, int8_t b, int shift) {
    int value = (a - b) >> (shift & 3);
    int lo = a < b ? a : b;
    return (int8_t)(value < lo ? lo : value > 100 ? 100 : value);
}
