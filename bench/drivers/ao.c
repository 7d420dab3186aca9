// Driver: ambient occlusion of AO bench's scene (three spheres of radius 0.5
// on the plane y = -0.5, seen from the origin), a 384 x 384 image with 32
// occlusion rays per pixel; items in row order, so the 8 lanes of a vector
// call are neighbouring pixels of one row.
#include "../harness/harness.h"

enum { WIDTH = 384, HEIGHT = 384, ITEMS = WIDTH * HEIGHT, SAMPLES = 32 };
BENCH_GLOBAL float scene[18];
BENCH_GLOBAL int pixel_x[ITEMS], pixel_y[ITEMS];
#define SCALAR_CALL(F, i) F(scene, WIDTH, HEIGHT, SAMPLES, pixel_x[i], pixel_y[i])
#define VECTOR_CALL(F, i, W) \
    F(scene, WIDTH, HEIGHT, SAMPLES, ld##W##i(&pixel_x[i]), ld##W##i(&pixel_y[i]))

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(scene, width, height, samples) notinbranch
float ao(const float *scene, int width, int height, int samples, int px, int py);
#endif
BENCH_OMP_LOOP(float, ao)
#else
float ao_scalar(const float *, int, int, int, int, int);
BENCH_WEAK v8f _ZGVdN8uuuuvv_ao_lw(const float *, int, int, int, v8i, v8i);
BENCH_WEAK_AVX512 v16f _ZGVeN16uuuuvv_ao_lw(const float *, int, int, int, v16i, v16i);
BENCH_WEAK v8f _ZGVdN8uuuuvv_ao_lwfull(const float *, int, int, int, v8i, v8i);
BENCH_STANDARD_RUNNERS(float, f, ao_scalar, _ZGVdN8uuuuvv_ao_lw, _ZGVeN16uuuuvv_ao_lw,
                       _ZGVdN8uuuuvv_ao_lwfull)

static void setup(const char *input) {
    (void)input;
    static const float ao_bench_scene[18] = {
        -2.0f, 0.0f,  -3.5f, 0.5f,  // sphere 0
        -0.5f, 0.0f,  -3.0f, 0.5f,  // sphere 1
        1.0f,  0.0f,  -2.2f, 0.5f,  // sphere 2
        0.0f,  -0.5f, 0.0f,         // a point of the plane
        0.0f,  1.0f,  0.0f,         // its normal
    };
    memcpy(scene, ao_bench_scene, sizeof scene);
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            pixel_x[y * WIDTH + x] = x;
            pixel_y[y * WIDTH + x] = y;
        }
}

static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8uuuuvv_ao_lw, _ZGVeN16uuuuvv_ao_lw, _ZGVdN8uuuuvv_ao_lwfull, 0)};
static const char *const inputs[] = {"default", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"ao", "coherent", inputs, setup, ITEMS, BENCH_F32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
