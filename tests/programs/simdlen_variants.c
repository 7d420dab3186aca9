/* `simdlen` on declare simd functions (4, 8 and 16 lanes) and on an omp simd
 * loop. */
#include "programs.h"

#define N 2049

#pragma omp declare simd notinbranch simdlen(4)
#pragma omp declare simd notinbranch simdlen(16)
int bit_length(unsigned x) {
    int length = 0;
    while (x != 0) {
        x >>= 1;
        length++;
    }
    return length;
}

#pragma omp declare simd notinbranch simdlen(8)
float smoothstep_steps(float x) {
    int steps = 0;
    while (x > 0.01f && steps < 100) {
        x = x * x * (3.0f - 2.0f * x);
        x *= 0.9f;
        steps++;
    }
    return x + (float)steps;
}

static unsigned words[N];
static int lengths[N];
static float xs[N], ys[N];

static void kernel(int n) {
#pragma omp simd simdlen(4)
    for (int i = 0; i < n; i++) lengths[i] = bit_length(words[i]);
#pragma omp simd simdlen(8)
    for (int i = 0; i < n; i++) ys[i] = smoothstep_steps(xs[i]);
}

int main(void) {
    for (int i = 0; i < N; i++) {
        words[i] = lw_next() >> (lw_next() % 32);
        xs[i] = lw_float(0.0f, 1.0f);
    }
    LW_TIMED(kernel(N));
    lw_print_ints("bit_length", lengths, N);
    lw_print_floats("smoothstep", ys, N);
    return 0;
}
