// 4x4 float matrix product, row-major: c[r][k] = sum over j of a[r][j] b[j][k],
// j in order. Row r of c is a[r][0] row0(b) + ... + a[r][3] row3(b): 4-wide
// rows of b, broadcasts of a's elements, 16 consecutive stores.
#include "../kernels.h"

static inline void mat4_mul_item(const float *restrict a, const float *restrict b,
                                 float *restrict c) {
    for (int r = 0; r < 4; r++)
        for (int k = 0; k < 4; k++)
            c[4 * r + k] = a[4 * r] * b[k] + a[4 * r + 1] * b[4 + k] +
                           a[4 * r + 2] * b[8 + k] + a[4 * r + 3] * b[12 + k];
}

void KERNEL(mat4_mul)(long n, const float *restrict a, const float *restrict b,
                      float *restrict c) {
    for (long i = 0; i < n; i++)
        mat4_mul_item(a + 16 * i, b + 16 * i, c + 16 * i);
}
