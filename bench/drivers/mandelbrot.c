// Driver: mandelbrot over a 768 x 384 view of [-2, 0.75] x [-1.25, 1.25]
// (items in row order, so the 8 lanes of a vector call are neighbours).
#include "../harness/harness.h"

enum { WIDTH = 768, HEIGHT = 384, ITEMS = WIDTH * HEIGHT, MAX_ITER = 1024 };
BENCH_GLOBAL float cx[ITEMS], cy[ITEMS];
#define SCALAR_CALL(F, i) F(cx[i], cy[i], MAX_ITER)
#define VECTOR_CALL(F, i, W) F(ld##W##f(&cx[i]), ld##W##f(&cy[i]), MAX_ITER)

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(max_iter) notinbranch
int mandelbrot(float cx, float cy, int max_iter);
#endif
BENCH_OMP_LOOP(int, mandelbrot)
#else

int mandelbrot_scalar(float, float, int);
BENCH_WEAK v8i _ZGVdN8vvu_mandelbrot_lw(v8f, v8f, int);
BENCH_WEAK_AVX512 v16i _ZGVeN16vvu_mandelbrot_lw(v16f, v16f, int);
BENCH_WEAK v8i _ZGVdN8vvu_mandelbrot_lwfull(v8f, v8f, int);
v8i mandelbrot_hand(v8f, v8f, int);
BENCH_STANDARD_RUNNERS(int, i, mandelbrot_scalar, _ZGVdN8vvu_mandelbrot_lw,
                       _ZGVeN16vvu_mandelbrot_lw, _ZGVdN8vvu_mandelbrot_lwfull)
static int out_hand[ITEMS];
static void run_hand(void) {
    for (int i = 0; i < ITEMS; i += 8) st8i(&out_hand[i], VECTOR_CALL(mandelbrot_hand, i, 8));
}

static void setup(const char *input) {
    (void)input;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            cx[y * WIDTH + x] = -2.0f + 2.75f * x / WIDTH;
            cy[y * WIDTH + x] = -1.25f + 2.5f * y / HEIGHT;
        }
}

static bench_config configs[] = {
    BENCH_STANDARD_CONFIGS(_ZGVdN8vvu_mandelbrot_lw, _ZGVeN16vvu_mandelbrot_lw,
                           _ZGVdN8vvu_mandelbrot_lwfull, 0),
    {CONFIG_HAND, run_hand, out_hand, NULL, 0, 0, 0, NULL, NULL},
};
static const char *const inputs[] = {"default", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"mandelbrot", "coherent", inputs, setup, ITEMS, BENCH_I32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
