// A 2x2 complex double matrix (row-major, interleaved re, im) times a
// complex 2-vector: out[r] = m[r][0] v[0] + m[r][1] v[1]. Double-precision
// complex products: 2-wide (xmm) re/im pairs with swaps and add-sub, or
// 4-wide across the two rows.
#include "../kernels.h"

static inline void zmat2_vec_item(const double *restrict m, const double *restrict v,
                                  double *restrict out) {
    for (int r = 0; r < 2; r++) {
        double re = 0.0, im = 0.0;
        for (int c = 0; c < 2; c++) {
            double mr = m[4 * r + 2 * c], mi = m[4 * r + 2 * c + 1];
            double vr = v[2 * c], vi = v[2 * c + 1];
            re += mr * vr - mi * vi;
            im += mr * vi + mi * vr;
        }
        out[2 * r] = re;
        out[2 * r + 1] = im;
    }
}

void KERNEL(zmat2_vec)(long n, const double *restrict m, const double *restrict v,
                       double *restrict out) {
    for (long i = 0; i < n; i++)
        zmat2_vec_item(m + 8 * i, v + 4 * i, out + 4 * i);
}
