/* Translation unit 2: omp simd loops calling the declare simd functions of
 * kernels.c (unmasked, and masked under a condition). */
#include "../programs.h"
#include "kernels.h"

#define W 97
#define H 41

static int counts[H][W];
static float xs[1001], shrunk[1001];

static void kernel(void) {
    for (int y = 0; y < H; y++) {
        float ci = -1.2f + 2.4f * (float)y / (float)H;
#pragma omp simd
        for (int x = 0; x < W; x++) counts[y][x] = escape_time(-2.0f + 2.6f * (float)x / (float)W, ci, 200);
    }
#pragma omp simd
    for (int i = 0; i < 1001; i++) {
        float v = xs[i];
        if (v > -2.0f) v = soft_threshold(v, 0.5f);
        shrunk[i] = v;
    }
}

int main(void) {
    for (int i = 0; i < 1001; i++) xs[i] = lw_float(-3.0f, 3.0f);
    LW_TIMED(kernel());
    lw_print_ints("counts", &counts[0][0], W * H);
    for (int y = 0; y < H; y += 8) {
        for (int x = 0; x < W; x += 4) putchar(counts[y][x] >= 200 ? '#' : counts[y][x] > 8 ? '+' : '.');
        putchar('\n');
    }
    lw_print_floats("shrunk", shrunk, 1001);
    return 0;
}
