// omp simd loops calling the declare-simd functions of kernels.h at 16 lanes
// (the 512-bit `e` variants on AVX-512) and at the loop's own width (in
// parts). Prints one line per loop; the test compares them with a scalar
// build.
#include <stdio.h>

#include "kernels.h"

void bytes_through_kg(unsigned char *restrict out, const unsigned char *restrict in, int n);

enum { N = 1003 };
static float xf[N], of[N], og[N], ow[N];
static int xi[N], oi[N], oj[N], on[N], ol[N];
static double xd[N], yd[N], od[N];
static signed char xc[N], oc[N];
static unsigned char xb[N], ob[N];

static unsigned hash_bytes(const void *data, unsigned size) {
    const unsigned char *bytes = data;
    unsigned hash = 2166136261u;
    for (unsigned i = 0; i < size; i++) hash = (hash ^ bytes[i]) * 16777619u;
    return hash;
}

int main(void) {
    for (int i = 0; i < N; i++) {
        xf[i] = (float)(i % 97) * 0.75f - 20.0f;
        xi[i] = i * 7919 - 3000000;
        xd[i] = i * 0.37 - 100.0;
        yd[i] = 1.0 / (i + 1);
        xc[i] = (signed char)(i * 37);
        xb[i] = (unsigned char)(i * 53);
    }
#pragma omp simd simdlen(16)
    for (int i = 0; i < N; i++) {
        of[i] = kf(xf[i], 3);
        oi[i] = ki(xi[i]);
    }
#pragma omp simd simdlen(16)
    for (int i = 0; i < N; i++)
        if (xi[i] & 1) of[i] += km(xf[i]);
#pragma omp simd
    for (int i = 0; i < N; i++) {
        og[i] = kf(xf[i], -5);
        oj[i] = ki(xi[i] ^ 0x55);
    }
#pragma omp simd
    for (int i = 0; i < N; i++)
        if (xi[i] & 2) og[i] -= km(xf[i]);
#pragma omp simd simdlen(8)
    for (int i = 0; i < N; i++) od[i] = kd(xd[i], yd[i]);
#pragma omp simd simdlen(16)
    for (int i = 0; i < N; i++) oc[i] = kc(xc[i]);
#pragma omp simd simdlen(16)
    for (int i = 0; i < N; i++) ow[i] = kw(xf[i]);
    bytes_through_kg(ob, xb, N);
#pragma omp simd simdlen(32)
    for (int i = 0; i < N; i++) on[i] = kn(xi[i] + i);
    // A divergent loop in the loop body, narrowed on AVX-512.
#pragma omp simd
    for (int i = 0; i < N; i++) {
        unsigned x = ((unsigned)xi[i] >> 7) & 0xffffu;
        int n = 0;
        while (x > 1u && n < 300) {
            x = (x & 1u) ? 3u * x + 1u : x >> 1;
            n++;
        }
        ol[i] = n;
    }

    printf("kf km ki at 16 lanes: %08x %08x\n", hash_bytes(of, sizeof of), hash_bytes(oi, sizeof oi));
    printf("kf km ki at the loop's width: %08x %08x\n", hash_bytes(og, sizeof og),
           hash_bytes(oj, sizeof oj));
    printf("kd at 8 lanes: %08x\n", hash_bytes(od, sizeof od));
    printf("kc calling kf: %08x\n", hash_bytes(oc, sizeof oc));
    printf("kw weak fallback: %08x\n", hash_bytes(ow, sizeof ow));
    printf("kg in a loop over bytes: %08x\n", hash_bytes(ob, sizeof ob));
    printf("kn and a divergent loop: %08x %08x\n", hash_bytes(on, sizeof on), hash_bytes(ol, sizeof ol));
    printf("samples: %a %d %a %d %a\n", of[5], oi[6], od[7], oc[8], ow[9]);
    return 0;
}
