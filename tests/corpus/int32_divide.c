// Covers: signed and unsigned 32-bit division and remainder by a varying
// divisor forced nonzero (and positive for signed, so INT_MIN / -1 cannot
// happen), division by a uniform divisor, and by constants.
#include <stdint.h>

#pragma omp declare simd notinbranch
int32_t s32_divide(int32_t a, int32_t d) {
    int32_t divisor = (d & 0xffff) | 1;
    return a / divisor + a % divisor * 7;
}

#pragma omp declare simd notinbranch
uint32_t u32_divide(uint32_t a, uint32_t d) {
    uint32_t divisor = d | 1u;
    return a / divisor ^ a % divisor ^ a / 10u;
}

#pragma omp declare simd uniform(d) notinbranch
int32_t s32_divide_uniform(int32_t a, int32_t d) {
    int32_t divisor = (d & 0xff) + 1;
    return a / divisor - a / 3;
}
