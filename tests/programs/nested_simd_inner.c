/* Nested loops with the simd loop inside: a scalar outer loop over rows, an
 * omp simd inner loop over columns calling a declare simd function. */
#include "programs.h"

#define ROWS 61
#define COLS 203

static float grid[ROWS][COLS], out[ROWS][COLS];

#pragma omp declare simd notinbranch uniform(threshold)
float relax(float x, float threshold) {
    int rounds = 0;
    while (x > threshold && rounds < 30) {
        x = x * 0.5f + threshold * 0.25f;
        rounds++;
    }
    return x - 0.001f * (float)rounds;
}

static void kernel(void) {
    for (int r = 0; r < ROWS; r++) {
        float threshold = 1.0f + 0.05f * (float)r;
#pragma omp simd
        for (int c = 0; c < COLS; c++) out[r][c] = relax(grid[r][c], threshold);
    }
}

int main(void) {
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) grid[r][c] = lw_float(0.0f, 50.0f);
    LW_TIMED(kernel());
    lw_print_floats("out", &out[0][0], ROWS * COLS);
    for (int r = 0; r < ROWS; r += 20) lw_print_floats("row", out[r], COLS);
    return 0;
}
