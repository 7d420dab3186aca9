// Covers (divergent): SPMD-style loops controlled by rv_any and rv_all from
// lanewise/rv.h: a work loop that runs while any lane has work left (lanes
// without work skip the body under a varying branch), and an rv_all test
// that picks a uniform path only when every active lane agrees (the masked
// variants restrict both to the lanes of the mask).
#include "lanewise/rv.h"

#pragma omp declare simd
int drain_work(int work) {
    int remaining = work & 31;
    int done = 0;
    while (rv_any(remaining > 0)) {
        if (remaining > 0) {
            done += remaining & 3;
            remaining -= (remaining & 1) ? 1 : 2;
        }
    }
    return done;
}

#pragma omp declare simd
float all_positive_path(float x) {
    float result;
    if (rv_all(x > 0.0f)) {
        result = x * 0.5f;
    } else {
        if (x > 0.0f)
            result = x * 0.5f;
        else
            result = -x;
    }
    if (rv_any(result > 10.0f) && result > 10.0f)
        result = 10.0f;
    return result;
}
