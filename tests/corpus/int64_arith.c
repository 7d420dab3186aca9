// Covers: int64_t arithmetic: division and remainder by a divisor forced
// nonzero and positive, unsigned 64-bit division, popcountll, 64-bit rotates,
// shifts by masked amounts, and a 64-bit product (unsigned, wrapping).
#include <stdint.h>

#pragma omp declare simd notinbranch
int64_t s64_divide(int64_t a, int64_t d) {
    int64_t divisor = (d & 0xfffffff) | 1;
    return a / divisor + a % divisor;
}

#pragma omp declare simd notinbranch
uint64_t u64_divide(uint64_t a, uint64_t d) { return a / (d | 1u) + a % 1000003u; }

#pragma omp declare simd notinbranch
uint64_t u64_bits(uint64_t x, uint64_t s) {
    unsigned r = (unsigned)(s & 63);
    uint64_t rotated = (x << r) | (x >> ((64 - r) & 63));
    return rotated * 0x9e3779b97f4a7c15ull + (uint64_t)__builtin_popcountll(x) + ((int64_t)x >> (s & 31));
}
