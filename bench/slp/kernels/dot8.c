// An unrolled 8-term double dot product, summed left to right as written:
// the 8 products fit two ymm (one zmm) multiplies, but without
// reassociation (no -ffast-math) the sum stays a chain of 7 dependent adds
// in this order, so a vectorizer may only extract the products one by one.
#include "../kernels.h"

static inline double dot8_item(const double *restrict a, const double *restrict b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] +
           a[5] * b[5] + a[6] * b[6] + a[7] * b[7];
}

void KERNEL(dot8)(long n, const double *restrict a, const double *restrict b,
                  double *restrict out) {
    for (long i = 0; i < n; i++)
        out[i] = dot8_item(a + 8 * i, b + 8 * i);
}
