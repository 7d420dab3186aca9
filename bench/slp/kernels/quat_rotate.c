// Rotation of a float3 by a unit quaternion q = (x, y, z, w):
//   t = 2 (q.xyz x v),  v' = v + w t + q.xyz x t
// (the form of GLM and Eigen). Two dependent cross products (yzx/zxy
// shuffles of 3-wide groups), a broadcast of w, 3-float stores.
#include "../kernels.h"

static inline void cross3(const float u[3], const float v[3], float out[3]) {
    out[0] = u[1] * v[2] - u[2] * v[1];
    out[1] = u[2] * v[0] - u[0] * v[2];
    out[2] = u[0] * v[1] - u[1] * v[0];
}

static inline void quat_rotate_item(const float *restrict q, const float *restrict v,
                                    float *restrict out) {
    float u[3] = {q[0], q[1], q[2]}, w = q[3];
    float p[3] = {v[0], v[1], v[2]};
    float c[3], t[3], d[3];
    cross3(u, p, c);
    for (int k = 0; k < 3; k++)
        t[k] = 2.0f * c[k];
    cross3(u, t, d);
    for (int k = 0; k < 3; k++)
        out[k] = p[k] + w * t[k] + d[k];
}

void KERNEL(quat_rotate)(long n, const float *restrict q, const float *restrict v,
                         float *restrict out) {
    for (long i = 0; i < n; i++)
        quat_rotate_item(q + 4 * i, v + 3 * i, out + 3 * i);
}
