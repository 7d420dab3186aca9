// Covers: `_Bool` parameters and results (lanes of bytes holding 0 or 1,
// as GCC's callers pass and read them), in straight-line and divergent
// code, and a `_Bool` that decides a loop.
// lanewise-test: gcc-caller
#include <stdbool.h>

#pragma omp declare simd
bool in_band(float x, float lo) { return x > lo && x < lo + 1.0f; }

#pragma omp declare simd
bool parity_flip(bool b, int x) {
    bool odd = __builtin_popcount((unsigned)x) & 1;
    return b != odd;
}

#pragma omp declare simd
int count_while(bool keep_going, int x) {
    int n = 0;
    while (keep_going && n < 20) {
        x = x * 3 + 1;
        keep_going = (x & 7) != 0;
        n++;
    }
    return n;
}

#pragma omp declare simd
bool any_small(double a, double b, double c) {
    if (a < 0.0)
        return b < 1.0;
    return a < 1.0 || b < 1.0 || c < 1.0;
}
