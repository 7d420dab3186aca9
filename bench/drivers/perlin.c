// Driver: 6 octaves of Perlin noise on a 1024 x 512 image plane (z fixed);
// the permutation table is a seeded shuffle of 0..255, repeated twice.
#include "../harness/harness.h"

enum { WIDTH = 1024, HEIGHT = 512, ITEMS = WIDTH * HEIGHT, OCTAVES = 6 };
#define PLANE_Z 0.37f
BENCH_GLOBAL float xs[ITEMS], ys[ITEMS];
BENCH_GLOBAL int perm[512];
#define SCALAR_CALL(F, i) F(perm, xs[i], ys[i], PLANE_Z, OCTAVES)
#define VECTOR_CALL(F, i, W) F(perm, ld##W##f(&xs[i]), ld##W##f(&ys[i]), PLANE_Z, OCTAVES)

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(perm, z, octaves) notinbranch
float perlin(const int *perm, float x, float y, float z, int octaves);
#endif
BENCH_OMP_LOOP(float, perlin)
#else
#include "inputs.h"
float perlin_scalar(const int *, float, float, float, int);
BENCH_WEAK v8f _ZGVdN8uvvuu_perlin_lw(const int *, v8f, v8f, float, int);
BENCH_WEAK_AVX512 v16f _ZGVeN16uvvuu_perlin_lw(const int *, v16f, v16f, float, int);
BENCH_WEAK v8f _ZGVdN8uvvuu_perlin_lwfull(const int *, v8f, v8f, float, int);
BENCH_STANDARD_RUNNERS(float, f, perlin_scalar, _ZGVdN8uvvuu_perlin_lw, _ZGVeN16uvvuu_perlin_lw,
                       _ZGVdN8uvvuu_perlin_lwfull)
static void setup(const char *input) {
    (void)input;
    for (int i = 0; i < 256; i++) perm[i] = i;
    for (int i = 255; i > 0; i--) {
        int j = next_u32() % (i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < 256; i++) perm[256 + i] = perm[i];
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            xs[y * WIDTH + x] = x * (1.0f / 64.0f);
            ys[y * WIDTH + x] = y * (1.0f / 64.0f);
        }
}
static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8uvvuu_perlin_lw, _ZGVeN16uvvuu_perlin_lw, _ZGVdN8uvvuu_perlin_lwfull, 0)};
static const char *const inputs[] = {"default", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"perlin", "coherent", inputs, setup, ITEMS, BENCH_F32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
