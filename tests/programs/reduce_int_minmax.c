/* Integer min and max reductions (signed and unsigned). */
#include "programs.h"

#define N 3000

static int samples[N];
static unsigned keys[N];

#pragma omp declare simd notinbranch
int iterations_to_one(int x) {
    int count = 0;
    while (x > 1) {
        x = (x & 1) ? x - 1 : x / 2;
        count++;
    }
    return count;
}

static int low, high, longest;
static unsigned umin;

static void kernel(int n) {
    int l = 2147483647, h = -2147483647 - 1, g = 0;
    unsigned u = ~0u;
#pragma omp simd reduction(min : l, u) reduction(max : h, g)
    for (int i = 0; i < n; i++) {
        l = samples[i] < l ? samples[i] : l;
        h = samples[i] > h ? samples[i] : h;
        u = keys[i] < u ? keys[i] : u;
        int steps = iterations_to_one(samples[i] < 0 ? -samples[i] : samples[i]);
        g = steps > g ? steps : g;
    }
    low = l, high = h, longest = g, umin = u;
}

int main(void) {
    for (int i = 0; i < N; i++) {
        samples[i] = lw_int(-1000000, 1000000);
        keys[i] = lw_next();
    }
    int sizes[] = {1, 2, 7, 8, 9, 31, 999, N};
    for (int k = 0; k < 8; k++) {
        int n = sizes[k];
        LW_TIMED(kernel(n));
        printf("n=%d min=%d max=%d umin=%u longest=%d\n", n, low, high, umin, longest);
    }
    return 0;
}
