// Covers (divergent): uniform branches inside divergent regions: a branch
// on a uniform parameter nested in a varying if and in a divergent loop
// (PLDI'18 keeps such branches when Theorem 4.5 allows: the uniform branch
// stays a branch while its region runs under the varying mask), and an
// rv_all-guarded fast path whose result equals the slow path's.
#include "lanewise/rv.h"

#pragma omp declare simd uniform(mode)
float uniform_inside_varying(float x, int mode) {
    float result = x;
    if (x > 0.0f) {
        if (mode & 1)
            result = x * 3.0f;
        else
            result = x + 3.0f;
        if (mode & 2)
            result = result - 1.0f;
    } else {
        if (mode & 4)
            result = -x;
    }
    return result;
}

#pragma omp declare simd uniform(mode)
int uniform_inside_divergent_loop(int x, int mode) {
    unsigned value = (unsigned)x;
    int steps = 0;
    while ((value & 1u) == 0u && steps < 20) {
        if (mode & 1)
            value = (value >> 1) | 0x80000000u;
        else
            value = value >> 1;
        if (mode & 2)
            value ^= 4u;
        steps++;
    }
    return steps * 1000 + (int)(value & 511u);
}

#pragma omp declare simd
int all_lanes_fast_path(int x) {
    int small = x & 0xffff;
    if (rv_all(small < 0x8000)) {
        return small * 2;
    }
    if (small < 0x8000)
        return small + small;
    return small - 0x8000;
}
