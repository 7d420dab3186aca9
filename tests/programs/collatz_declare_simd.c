/* An omp simd loop calling a declare simd function whose loop diverges:
 * the Collatz step count differs per lane. */
#include "programs.h"

#define N 4099

#pragma omp declare simd notinbranch
int collatz_steps(int start) {
    unsigned value = (unsigned)start;
    int steps = 0;
    while (value > 1u) {
        value = (value & 1u) ? 3u * value + 1u : value / 2u;
        steps++;
    }
    return steps;
}

static int starts[N], steps[N];

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) steps[i] = collatz_steps(starts[i]);
}

int main(void) {
    for (int i = 0; i < N; i++) starts[i] = lw_int(1, 100000);
    LW_TIMED(kernel(N));
    lw_print_ints("steps", steps, N);
    int longest = 0;
    for (int i = 0; i < N; i++) longest = steps[i] > longest ? steps[i] : longest;
    printf("longest %d\n", longest);
    return 0;
}
