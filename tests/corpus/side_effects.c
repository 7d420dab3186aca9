// Covers: side effects that must happen per lane in lane order: calls to
// lw_record (an external function) with varying values, under a uniform
// branch and in a uniform loop; the driver compares the per-site sequences.
// record_each_lane has no notinbranch: masked variants are named too.
#include <math.h>

#include "lw_test.h"

#pragma omp declare simd
int record_each_lane(int x) {
    lw_record(1, x);
    lw_record(2, (long)x * 3);
    return x + 1;
}

#pragma omp declare simd uniform(count) notinbranch
void record_in_loop(int x, int count) {
    for (int k = 0; k < (count & 3); k++)
        lw_record(10 + k, x + k);
}

#pragma omp declare simd uniform(enabled) notinbranch
float record_if_enabled(float x, int enabled) {
    if (enabled & 1)
        lw_record(20, (long)fminf(fmaxf(x * 100.0f, -1e9f), 1e9f));
    return x;
}
