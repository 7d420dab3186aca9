// The ChaCha block function with 4 double rounds (ChaCha8 has 4, ChaCha20
// 10) and the final addition of the input, on a 16-word state per item.
// The column round runs 4 quarter rounds on the columns of the 4x4 state:
// rows as 4-lane vectors, adds, xors, rotates by 16, 12, 8, 7 (vprold on
// AVX-512, shifts and ors before). The diagonal round needs the rows
// rotated by 1, 2, 3 lanes (shuffles), or a vectorizer that finds it.
#include "../kernels.h"

static inline uint32_t rotl32(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

#define QR(a, b, c, d)                 \
    do {                               \
        x[a] += x[b];                  \
        x[d] = rotl32(x[d] ^ x[a], 16); \
        x[c] += x[d];                  \
        x[b] = rotl32(x[b] ^ x[c], 12); \
        x[a] += x[b];                  \
        x[d] = rotl32(x[d] ^ x[a], 8);  \
        x[c] += x[d];                  \
        x[b] = rotl32(x[b] ^ x[c], 7);  \
    } while (0)

static inline void chacha_item(const uint32_t *restrict in, uint32_t *restrict out) {
    uint32_t x[16];
    for (int k = 0; k < 16; k++)
        x[k] = in[k];
    for (int round = 0; round < 4; round++) {
        QR(0, 4, 8, 12);
        QR(1, 5, 9, 13);
        QR(2, 6, 10, 14);
        QR(3, 7, 11, 15);
        QR(0, 5, 10, 15);
        QR(1, 6, 11, 12);
        QR(2, 7, 8, 13);
        QR(3, 4, 9, 14);
    }
    for (int k = 0; k < 16; k++)
        out[k] = x[k] + in[k];
}

void KERNEL(chacha)(long n, const uint32_t *restrict in, uint32_t *restrict out) {
    for (long i = 0; i < n; i++)
        chacha_item(in + 16 * i, out + 16 * i);
}
