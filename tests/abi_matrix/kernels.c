#include "kernels.h"

#pragma omp declare simd notinbranch simdlen(16) uniform(k)
float kf(float x, int k) { return x * 2.0f + (float)k; }

#pragma omp declare simd notinbranch simdlen(16)
int ki(int x) { return x * 3 + (x >> 4); }

#pragma omp declare simd inbranch simdlen(16)
float km(float x) { return x - 1.5f; }

#pragma omp declare simd notinbranch simdlen(8)
double kd(double x, double y) { return x * 0.25 - y; }

#pragma omp declare simd notinbranch
float kg(float x) { return x * 0.75f + 2.0f; }

#pragma omp declare simd notinbranch simdlen(32)
int kn(int seed) {
    unsigned x = (unsigned)seed & 0xffffu;
    int n = 0;
    while (x > 1u && n < 300) {
        x = (x & 1u) ? 3u * x + 1u : x >> 1;
        n++;
    }
    return n;
}
