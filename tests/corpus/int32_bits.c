// Covers: 32-bit bit tricks: rotates, popcount (__builtin_popcount), count
// leading/trailing zeros on a value forced nonzero, byte swap, abs without
// overflow, isolate-lowest-bit, sign extraction; unsigned arithmetic wraps.
// lanewise-test: gcc-caller
// u32_rotate has no notinbranch: masked variants are named too.
#include <stdint.h>

#pragma omp declare simd
uint32_t u32_rotate(uint32_t x, uint32_t r) {
    r &= 31;
    return (x << r) | (x >> ((32 - r) & 31));
}

#pragma omp declare simd notinbranch
int32_t s32_bit_counts(uint32_t x) {
    return __builtin_popcount(x) * 100 + __builtin_clz(x | 1) * 10 + __builtin_ctz(x | 0x80000000u);
}

#pragma omp declare simd notinbranch
uint32_t u32_tricks(uint32_t x, uint32_t y) {
    uint32_t lowest = x & (0u - x);
    uint32_t swapped = __builtin_bswap32(y);
    int32_t sign = (int32_t)x >> 31;
    uint32_t magnitude = ((uint32_t)(int32_t)x ^ (uint32_t)sign) - (uint32_t)sign;
    return lowest ^ swapped ^ magnitude ^ (x * 2654435761u);
}
