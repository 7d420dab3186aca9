/* An image processed through a flat pixel index: the omp simd loop runs
 * over i = 0 .. width * height - 1 and splits i into a row (i / width)
 * and a column (i % width) to read from rows padded to STRIDE pixels,
 * plus a table entry per 64 pixels (i >> 6). The widths are known only
 * at run time; most vectors of pixels fall within one row (consecutive
 * addresses), the last of each row crosses into the next. */
#include "programs.h"

#define STRIDE 1024
#define ROWS 300

static int image[ROWS * STRIDE], weights[ROWS * STRIDE / 64 + 1], out[ROWS * STRIDE];
static int width_of_run[3];

static void kernel(int width, int height) {
#pragma omp simd
    for (int i = 0; i < width * height; i++) {
        int v = image[(i / width) * STRIDE + i % width];
        out[i] = v * 3 + weights[i >> 6] + (v > 100 ? v >> 2 : -v);
    }
}

int main(void) {
    for (int i = 0; i < ROWS * STRIDE; i++) image[i] = lw_int(-50, 300);
    for (int i = 0; i < ROWS * STRIDE / 64 + 1; i++) weights[i] = lw_int(0, 1000);
    /* A wide image, a narrow one (rows shorter than a vector), and one
     * whose rows end mid-vector. */
    width_of_run[0] = 1000;
    width_of_run[1] = lw_int(3, 7);
    width_of_run[2] = 37;
    for (int run = 0; run < 3; run++) {
        int width = width_of_run[run];
        if (run == 0) {
            LW_TIMED(kernel(width, ROWS));
        } else {
            kernel(width, ROWS);
        }
        printf("width %d\n", width);
        lw_print_ints("pixels", out, width * ROWS);
    }
    return 0;
}
