// One radix-4 decimation-in-time FFT butterfly on 4 complex floats
// (interleaved re, im) with twiddles w1, w2, w3 (unit complex numbers):
//   a0 = x0, ak = xk wk;  t0 = a0 + a2, t1 = a0 - a2, t2 = a1 + a3, t3 = a1 - a3
//   y0 = t0 + t2, y1 = t1 - j t3, y2 = t0 - t2, y3 = t1 + j t3
// Complex products (re/im swaps, add-sub), paired add/sub of complex
// values, and the multiplication by -j and +j: swap re and im, negate one.
#include "../kernels.h"

static inline void fft4_item(const float *restrict x, const float *restrict w,
                             float *restrict y) {
    float ar[4], ai[4];
    ar[0] = x[0];
    ai[0] = x[1];
    for (int k = 1; k < 4; k++) {
        float xr = x[2 * k], xi = x[2 * k + 1];
        float wr = w[2 * k - 2], wi = w[2 * k - 1];
        ar[k] = xr * wr - xi * wi;
        ai[k] = xr * wi + xi * wr;
    }
    float t0r = ar[0] + ar[2], t0i = ai[0] + ai[2];
    float t1r = ar[0] - ar[2], t1i = ai[0] - ai[2];
    float t2r = ar[1] + ar[3], t2i = ai[1] + ai[3];
    float t3r = ar[1] - ar[3], t3i = ai[1] - ai[3];
    y[0] = t0r + t2r;
    y[1] = t0i + t2i;
    y[2] = t1r + t3i; // t1 - j t3
    y[3] = t1i - t3r;
    y[4] = t0r - t2r;
    y[5] = t0i - t2i;
    y[6] = t1r - t3i; // t1 + j t3
    y[7] = t1i + t3r;
}

void KERNEL(fft4)(long n, const float *restrict x, const float *restrict w,
                  float *restrict y) {
    for (long i = 0; i < n; i++)
        fft4_item(x + 8 * i, w + 6 * i, y + 8 * i);
}
