// 3-D vector geometry: the cross product of two float3 and their dot
// product, out = (a x b, a . b). Groups of 3 lanes (not a power of two), the
// yzx/zxy permutations of the cross product, and a 3-term reduction whose
// order is fixed (no reassociation without -ffast-math).
#include "../kernels.h"

static inline void vec3_geom_item(const float *restrict a, const float *restrict b,
                                  float *restrict out) {
    float ax = a[0], ay = a[1], az = a[2];
    float bx = b[0], by = b[1], bz = b[2];
    out[0] = ay * bz - az * by;
    out[1] = az * bx - ax * bz;
    out[2] = ax * by - ay * bx;
    out[3] = ax * bx + ay * by + az * bz;
}

void KERNEL(vec3_geom)(long n, const float *restrict a, const float *restrict b,
                       float *restrict out) {
    for (long i = 0; i < n; i++)
        vec3_geom_item(a + 3 * i, b + 3 * i, out + 4 * i);
}
