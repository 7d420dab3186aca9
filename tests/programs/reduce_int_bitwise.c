/* Integer reductions &, | and ^ over values computed by a divergent loop. */
#include "programs.h"

#define N 2111

static unsigned words[N];

#pragma omp declare simd notinbranch
unsigned spread_bits(unsigned x) {
    unsigned result = 0;
    while (x != 0) {
        unsigned low = x & (0u - x);
        result |= low * 0x9e3779b9u;
        x ^= low;
    }
    return result;
}

static unsigned all, any, parity;

static void kernel(int n) {
    unsigned a = ~0u, o = 0u, x = 0u;
#pragma omp simd reduction(& : a) reduction(| : o) reduction(^ : x)
    for (int i = 0; i < n; i++) {
        unsigned spread = spread_bits(words[i]);
        a &= spread | words[i];
        o |= spread & 0xff00ff00u;
        x ^= spread;
    }
    all = a, any = o, parity = x;
}

int main(void) {
    for (int i = 0; i < N; i++) words[i] = lw_next() & lw_next();
    int sizes[] = {0, 1, 5, 8, 13, 64, 1000, N};
    for (int k = 0; k < 8; k++) {
        int n = sizes[k];
        LW_TIMED(kernel(n));
        printf("n=%d and=%08x or=%08x xor=%08x\n", n, all, any, parity);
    }
    return 0;
}
