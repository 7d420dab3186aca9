/* `lastprivate`: the value of the last iteration survives the loop, for
 * several trip counts (0 keeps the initial value). */
#include "programs.h"

#define N 777

static float xs[N], out[N];

#pragma omp declare simd notinbranch
float cube_root_iterations(float x) {
    float guess = x > 1.0f ? x / 3.0f : 1.0f;
    for (int k = 0; k < 40; k++) {
        float next = (2.0f * guess + x / (guess * guess)) / 3.0f;
        if (next == guess) break;
        guess = next;
    }
    return guess;
}

static float last;
static int last_index;

static void kernel(int n) {
    last = -1.0f;
    last_index = -1;
    float last_value = last;
    int index = last_index;
#pragma omp simd lastprivate(last_value, index)
    for (int i = 0; i < n; i++) {
        last_value = cube_root_iterations(xs[i]);
        index = i * 3;
        out[i] = last_value;
    }
    if (n > 0) {
        last = last_value;
        last_index = index;
    }
}

int main(void) {
    for (int i = 0; i < N; i++) xs[i] = lw_float(0.01f, 1000.0f);
    int sizes[] = {0, 1, 2, 8, 9, 100, N};
    for (int k = 0; k < 7; k++) {
        int n = sizes[k];
        LW_TIMED(kernel(n));
        printf("n=%d last=%a last_index=%d\n", n, last, last_index);
    }
    lw_print_floats("out", out, N);
    return 0;
}
