// Complex multiply-accumulate: acc[k] += a[k] * b[k] for 4 complex floats per
// item, stored interleaved (re, im). The real parts subtract and the
// imaginary parts add: an SLP vectorizer needs the even/odd (re/im) swaps of
// b, an alternating sub/add (addsub) and consecutive 8-float loads and stores.
#include "../kernels.h"

static inline void cmul_acc_item(const float *restrict a, const float *restrict b,
                                 float *restrict acc) {
    for (int k = 0; k < 4; k++) {
        float ar = a[2 * k], ai = a[2 * k + 1];
        float br = b[2 * k], bi = b[2 * k + 1];
        acc[2 * k] += ar * br - ai * bi;
        acc[2 * k + 1] += ar * bi + ai * br;
    }
}

void KERNEL(cmul_acc)(long n, const float *restrict a, const float *restrict b,
                      float *restrict acc) {
    for (long i = 0; i < n; i++)
        cmul_acc_item(a + 8 * i, b + 8 * i, acc + 8 * i);
}
