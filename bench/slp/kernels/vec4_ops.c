// 4-D vector operations on float4 (no normalization, so no square root):
// lerp(a, b, t) = a + t (b - a) and max(a, b) / 2 - min(a, b) t, with t one
// float per item. 4-wide consecutive loads and stores, a broadcast of t,
// min/max (written as comparisons, as users write them).
#include "../kernels.h"

static inline float min_f(float x, float y) { return x < y ? x : y; }
static inline float max_f(float x, float y) { return x > y ? x : y; }

static inline void vec4_ops_item(const float *restrict a, const float *restrict b, float t,
                                 float *restrict out) {
    for (int k = 0; k < 4; k++) {
        out[k] = a[k] + t * (b[k] - a[k]);
        out[4 + k] = max_f(a[k], b[k]) * 0.5f - min_f(a[k], b[k]) * t;
    }
}

void KERNEL(vec4_ops)(long n, const float *restrict a, const float *restrict b,
                      const float *restrict t, float *restrict out) {
    for (long i = 0; i < n; i++)
        vec4_ops_item(a + 4 * i, b + 4 * i, t[i], out + 8 * i);
}
