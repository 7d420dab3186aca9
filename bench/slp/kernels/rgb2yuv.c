// RGB to YUV (BT.601, analog form) of 4 float pixels per item, stored
// interleaved (r, g, b, r, g, b, ...; y, u, v, ...). Per pixel three
// 3-term dot products with constant coefficients: a vectorizer either packs
// the 3 outputs of a pixel (3-wide, broadcasts of r, g, b) or the same
// channel of the 4 pixels (stride-3 loads and stores, shuffles).
#include "../kernels.h"

static inline void rgb2yuv_pixel(const float *restrict rgb, float *restrict yuv) {
    float r = rgb[0], g = rgb[1], b = rgb[2];
    yuv[0] = 0.299f * r + 0.587f * g + 0.114f * b;
    yuv[1] = -0.14713f * r - 0.28886f * g + 0.436f * b;
    yuv[2] = 0.615f * r - 0.51499f * g - 0.10001f * b;
}

static inline void rgb2yuv_item(const float *restrict rgb, float *restrict yuv) {
    for (int p = 0; p < 4; p++)
        rgb2yuv_pixel(rgb + 3 * p, yuv + 3 * p);
}

void KERNEL(rgb2yuv)(long n, const float *restrict rgb, float *restrict yuv) {
    for (long i = 0; i < n; i++)
        rgb2yuv_item(rgb + 12 * i, yuv + 12 * i);
}
