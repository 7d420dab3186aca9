// Covers (divergent): calls with side effects under varying conditions: the
// active lanes must call lw_record in lane order (guarded per lane), in
// straight-line code, in a divergent loop (lanes record a different number
// of times; the order is in iteration order, lanes in lane order within an iteration),
// and in a nested if whose inner condition is uniform. Within a loop each
// iteration records to its own site (site 10 + k): lanes run the iterations
// together, so only the order per iteration is the lane order.
#include "lw_test.h"

#pragma omp declare simd
int record_if_positive(int x) {
    if (x > 0) {
        lw_record(1, x);
        return x - 1;
    }
    lw_record(2, -(long)x);
    return 0;
}

#pragma omp declare simd uniform(verbose)
int record_in_divergent_loop(int x, int verbose) {
    int count = x & 7;
    unsigned sum = 0;
    for (int k = 0; k < count; k++) {
        sum += (unsigned)k * (unsigned)x;
        if (verbose & 1)
            lw_record(10 + k, (long)k * 1000 + count);
    }
    if (sum & 2u)
        lw_record(4, (long)sum);
    return (int)sum;
}

#pragma omp declare simd uniform(mode)
float record_nested(float x, int mode) {
    if (x > 10.0f) {
        if (mode & 1)
            lw_record(5, (long)(x > 1e9f ? 1e9f : x));
        else
            lw_record(6, mode);
        return x * 0.5f;
    }
    return x;
}
