// 4x4 float matrix (column-major, as OpenGL and GLM store it) times a float4:
// out = m[.,0] v0 + m[.,1] v1 + m[.,2] v2 + m[.,3] v3, summed in that order.
// Each column is 4 consecutive floats: 4-wide loads, broadcasts of v[j],
// vector multiplies and adds.
#include "../kernels.h"

static inline void mat4_vec_item(const float *restrict m, const float *restrict v,
                                 float *restrict out) {
    float v0 = v[0], v1 = v[1], v2 = v[2], v3 = v[3];
    for (int r = 0; r < 4; r++)
        out[r] = m[r] * v0 + m[4 + r] * v1 + m[8 + r] * v2 + m[12 + r] * v3;
}

void KERNEL(mat4_vec)(long n, const float *restrict m, const float *restrict v,
                      float *restrict out) {
    for (long i = 0; i < n; i++)
        mat4_vec_item(m + 16 * i, v + 4 * i, out + 4 * i);
}
