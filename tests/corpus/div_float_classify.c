// Covers (divergent): an if/else chain on the class of a float (NaN,
// infinities, zeros, denormals by their bits, normal numbers by range), each
// arm computing something different and returning early; in double too.
#include <stdint.h>
#include <string.h>

#pragma omp declare simd
int float_class_code(float x) {
    uint32_t bits;
    memcpy(&bits, &x, 4);
    uint32_t exponent = (bits >> 23) & 0xffu;
    uint32_t mantissa = bits & 0x7fffffu;
    if (exponent == 0xffu) {
        if (mantissa != 0u)
            return (mantissa & 0x400000u) ? 1 : 2;
        return (bits >> 31) ? 3 : 4;
    }
    if (exponent == 0u) {
        if (mantissa == 0u)
            return (bits >> 31) ? 5 : 6;
        return 7 + (int)(mantissa & 7u);
    }
    if (x > 1.0f)
        return 100 + (int)exponent;
    if (x < -1.0f)
        return -100 - (int)exponent;
    return 50;
}

#pragma omp declare simd
double double_safe_log_ratio(double x, double y) {
    if (x != x || y != y)
        return 0.0;
    if (y == 0.0) {
        if (x == 0.0)
            return 1.0;
        return x > 0.0 ? 1e300 : -1e300;
    }
    double ratio = x / y;
    if (ratio < 0.0)
        return -ratio * 0.5;
    if (ratio > 1e100)
        return 1e100;
    return ratio;
}
