/* A divergent inner while loop directly in the omp simd body: Newton's
 * iteration for the square root runs until each lane converges. */
#include "programs.h"

#define N 2053

static float input[N], root[N];
static int iterations[N];

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) {
        float x = input[i];
        float guess = x > 1.0f ? x * 0.5f : 1.0f;
        int count = 0;
        while (count < 60) {
            float next = 0.5f * (guess + x / guess);
            float delta = next - guess;
            guess = next;
            count++;
            if (delta < 1e-6f * guess && delta > -1e-6f * guess) count += 1000;
        }
        root[i] = guess;
        iterations[i] = count - 1000;
    }
}

int main(void) {
    for (int i = 0; i < N; i++) input[i] = lw_float(0.001f, 1.0e6f);
    LW_TIMED(kernel(N));
    lw_print_floats("root", root, N);
    lw_print_ints("iterations", iterations, N);
    return 0;
}
