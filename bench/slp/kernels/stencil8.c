// An unrolled 1-D 3-point stencil: 8 outputs from 10 inputs,
//   y[k] = 0.25 x[k] + 0.5 x[k+1] + 0.25 x[k+2].
// Three overlapping unaligned 8-float loads (x[0..7], x[1..8], x[2..9]) or
// one load and lane shifts; items are 10 floats apart, so no alignment.
#include "../kernels.h"

static inline void stencil8_item(const float *restrict x, float *restrict y) {
    for (int k = 0; k < 8; k++)
        y[k] = 0.25f * x[k] + 0.5f * x[k + 1] + 0.25f * x[k + 2];
}

void KERNEL(stencil8)(long n, const float *restrict x, float *restrict y) {
    for (long i = 0; i < n; i++)
        stencil8_item(x + 10 * i, y + 8 * i);
}
