// YUV444 to RGB in 8-bit fixed point (BT.601 studio range, the integer form
// of the ITU/Microsoft formulas), 8 byte pixels per item, interleaved
// (y, u, v, ...; r, g, b, ...):
//   c = y - 16, d = u - 128, e = v - 128
//   r = clamp((298 c + 409 e + 128) >> 8), g = clamp((298 c - 100 d - 208 e + 128) >> 8),
//   b = clamp((298 c + 516 d + 128) >> 8)
// Bytes widened to 32-bit ints, multiplies by constants, arithmetic shifts,
// clamps to [0, 255] (min/max), narrowing stores; stride-3 interleaving.
#include "../kernels.h"

static inline uint8_t clamp255(int x) { return (uint8_t)(x < 0 ? 0 : x > 255 ? 255 : x); }

static inline void yuv2rgb_pixel(const uint8_t *restrict yuv, uint8_t *restrict rgb) {
    int c = yuv[0] - 16, d = yuv[1] - 128, e = yuv[2] - 128;
    rgb[0] = clamp255((298 * c + 409 * e + 128) >> 8);
    rgb[1] = clamp255((298 * c - 100 * d - 208 * e + 128) >> 8);
    rgb[2] = clamp255((298 * c + 516 * d + 128) >> 8);
}

static inline void yuv2rgb_item(const uint8_t *restrict yuv, uint8_t *restrict rgb) {
    for (int p = 0; p < 8; p++)
        yuv2rgb_pixel(yuv + 3 * p, rgb + 3 * p);
}

void KERNEL(yuv2rgb)(long n, const uint8_t *restrict yuv, uint8_t *restrict rgb) {
    for (long i = 0; i < n; i++)
        yuv2rgb_item(yuv + 24 * i, rgb + 24 * i);
}
