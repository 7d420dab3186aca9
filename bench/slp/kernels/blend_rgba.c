// Alpha blending of 8 RGBA byte pixels over 8 others in 16-bit arithmetic,
// alpha from the source pixel, alpha channel blended like the others:
//   t = s a + d (255 - a) + 128,  out = (t + (t >> 8)) >> 8   (= round(t' / 255))
// t <= 255 * 255 + 128 and t + (t >> 8) < 65536: no saturation needed.
// Bytes widened to 16 bits, each pixel's alpha broadcast to its 4 channels
// (a shuffle), 16-bit multiplies, shifts, narrowing back to bytes.
#include "../kernels.h"

static inline void blend_pixel(const uint8_t *restrict s, const uint8_t *restrict d,
                               uint8_t *restrict o) {
    uint16_t a = s[3], na = (uint16_t)(255 - a);
    for (int c = 0; c < 4; c++) {
        uint16_t t = (uint16_t)(s[c] * a + d[c] * na + 128);
        o[c] = (uint8_t)((uint16_t)(t + (t >> 8)) >> 8);
    }
}

static inline void blend_rgba_item(const uint8_t *restrict s, const uint8_t *restrict d,
                                   uint8_t *restrict o) {
    for (int p = 0; p < 8; p++)
        blend_pixel(s + 4 * p, d + 4 * p, o + 4 * p);
}

void KERNEL(blend_rgba)(long n, const uint8_t *restrict src, const uint8_t *restrict dst,
                        uint8_t *restrict out) {
    for (long i = 0; i < n; i++)
        blend_rgba_item(src + 32 * i, dst + 32 * i, out + 32 * i);
}
