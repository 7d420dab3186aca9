// Covers (divergent): divergent control flow on 8- and 16-bit values (the
// masked variants take masks of char / short vectors: the characteristic
// data type is the return type), and a void function whose first vector
// parameter is a pointer (mask of 64-bit integers).
#include <stdint.h>

#pragma omp declare simd
int8_t saturating_step(int8_t x, int8_t y) {
    int sum = x + y;
    if (sum > 100)
        return 100;
    if (sum < -100)
        return (int8_t)(-100 + (y & 3));
    while (sum > 50)
        sum -= 7;
    return (int8_t)sum;
}

#pragma omp declare simd
uint16_t halving_count(uint16_t x) {
    uint16_t count = 0;
    uint16_t value = x;
    while (value > 1) {
        value = (value & 1) ? (uint16_t)(value - 1) : (uint16_t)(value >> 1);
        count++;
    }
    return count;
}

#pragma omp declare simd
void clamp_in_place(int16_t *cell, int16_t limit) {
    int16_t value = cell[0];
    if (value > limit)
        cell[0] = limit;
    else if (value < -limit && limit > 0)
        cell[1] = (int16_t)-limit;
}
