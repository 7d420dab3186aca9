/* A declare simd function with early returns and a switch, called in a simd
 * loop with a conditional store. */
#include "programs.h"

#define N 2222

#pragma omp declare simd notinbranch
int classify(float x, int mode) {
    if (x != x) return -1;
    if (x < 0.0f) x = -x;
    switch (mode & 3) {
    case 0:
        return x < 1.0f ? 0 : 1;
    case 1:
        if (x > 100.0f) return 7;
        return (int)(x * 0.1f);
    case 2: {
        int bucket = 0;
        while (x >= 1.0f) {
            x *= 0.25f;
            bucket++;
        }
        return 10 + bucket;
    }
    default:
        return 20;
    }
}

static float xs[N];
static int modes[N], classes[N], marked[N];

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) {
        int c = classify(xs[i], modes[i]);
        classes[i] = c;
        if (c > 5) marked[i] = i;
    }
}

int main(void) {
    for (int i = 0; i < N; i++) {
        xs[i] = lw_float(-500.0f, 500.0f);
        modes[i] = lw_int(0, 1000);
        marked[i] = -1;
    }
    LW_TIMED(kernel(N));
    lw_print_ints("classes", classes, N);
    lw_print_ints("marked", marked, N);
    return 0;
}
