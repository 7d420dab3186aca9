/* Translation unit 1: declare simd functions defined here, called from
 * simd loops in main.c (the variants must link across files). */
#include "kernels.h"

int escape_time(float cr, float ci, int limit) {
    float zr = 0.0f, zi = 0.0f;
    int k = 0;
    while (k < limit && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        k++;
    }
    return k;
}

float soft_threshold(float x, float lambda) {
    if (x > lambda) return x - lambda;
    if (x < -lambda) return x + lambda;
    return 0.0f;
}
