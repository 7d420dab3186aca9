/* Mandelbrot escape times: the classic divergent loop, in the simd body. */
#include "programs.h"

#define W 160
#define H 64
#define LIMIT 256

static int image[H][W];

static void kernel(void) {
    for (int y = 0; y < H; y++) {
        float ci = -1.25f + 2.5f * (float)y / (float)H;
#pragma omp simd
        for (int x = 0; x < W; x++) {
            float cr = -2.2f + 3.0f * (float)x / (float)W;
            float zr = 0.0f, zi = 0.0f;
            int k = 0;
            while (k < LIMIT && zr * zr + zi * zi <= 4.0f) {
                float t = zr * zr - zi * zi + cr;
                zi = 2.0f * zr * zi + ci;
                zr = t;
                k++;
            }
            image[y][x] = k;
        }
    }
}

int main(void) {
    LW_TIMED(kernel());
    lw_print_ints("image", &image[0][0], W * H);
    for (int y = 0; y < H; y += 4) {
        for (int x = 0; x < W; x += 2) putchar(image[y][x] == LIMIT ? '#' : image[y][x] > 10 ? '+' : ' ');
        putchar('\n');
    }
    return 0;
}
