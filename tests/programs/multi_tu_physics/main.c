/* Translation unit 2: the simd loop calling potential() of forces.c. */
#include "../programs.h"
#include "physics.h"

#define N 801
#define CENTERS 37

static double positions[N], energy[N], centers[CENTERS];

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) energy[i] = potential(&positions[i], centers, CENTERS);
}

int main(void) {
    for (int c = 0; c < CENTERS; c++) centers[c] = lw_double(-10.0, 10.0);
    for (int i = 0; i < N; i++) positions[i] = i % 50 == 0 ? centers[i % CENTERS] : lw_double(-12.0, 12.0);
    LW_TIMED(kernel(N));
    lw_print_doubles("energy", energy, N);
    return 0;
}
