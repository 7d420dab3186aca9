// Driver: 32K XSBench-style lookups in 68 nuclides x 2048-point grids (random
// sorted grids in [0, 1), random channel data). Inputs: "random" energies and
// "sorted" energies (neighbouring lanes search nearly the same path).
#include "../harness/harness.h"

enum { NUCLIDES = 68, POINTS = 2048, ITEMS = 1 << 15 };
BENCH_GLOBAL float grids[NUCLIDES * POINTS], data[NUCLIDES * POINTS * 5], concentration[NUCLIDES],
    energy[ITEMS];
#define SCALAR_CALL(F, i) F(grids, data, concentration, NUCLIDES, POINTS, energy[i])
#define VECTOR_CALL(F, i, W) F(grids, data, concentration, NUCLIDES, POINTS, ld##W##f(&energy[i]))

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(grids, data, concentration, nuclides, points) notinbranch
float xs(const float *grids, const float *data, const float *concentration, int nuclides,
         int points, float energy);
#endif
BENCH_OMP_LOOP(float, xs)
#else
#include "inputs.h"
float xs_scalar(const float *, const float *, const float *, int, int, float);
BENCH_WEAK v8f _ZGVdN8uuuuuv_xs_lw(const float *, const float *, const float *, int, int, v8f);
BENCH_WEAK_AVX512 v16f _ZGVeN16uuuuuv_xs_lw(const float *, const float *, const float *, int, int,
                                            v16f);
BENCH_WEAK v8f _ZGVdN8uuuuuv_xs_lwfull(const float *, const float *, const float *, int, int, v8f);
BENCH_STANDARD_RUNNERS(float, f, xs_scalar, _ZGVdN8uuuuuv_xs_lw, _ZGVeN16uuuuuv_xs_lw,
                       _ZGVdN8uuuuuv_xs_lwfull)
static void setup(const char *input) {
    for (int n = 0; n < NUCLIDES; n++) {
        for (int p = 0; p < POINTS; p++) grids[n * POINTS + p] = uniform01();
        qsort(grids + n * POINTS, POINTS, sizeof(float), compare_floats);
        grids[n * POINTS] = 0.0f;
        grids[n * POINTS + POINTS - 1] = 1.0f;
        for (int p = 1; p < POINTS; p++)  // strictly increasing
            if (grids[n * POINTS + p] <= grids[n * POINTS + p - 1])
                grids[n * POINTS + p] = grids[n * POINTS + p - 1] + 1e-7f;
        concentration[n] = uniform01();
    }
    for (int i = 0; i < NUCLIDES * POINTS * 5; i++) data[i] = uniform01();
    for (int i = 0; i < ITEMS; i++) energy[i] = 0.999f * uniform01();
    if (!strcmp(input, "sorted")) qsort(energy, ITEMS, sizeof(float), compare_floats);
}
static bench_config configs[] = {
    BENCH_STANDARD_CONFIGS(_ZGVdN8uuuuuv_xs_lw, _ZGVeN16uuuuuv_xs_lw, _ZGVdN8uuuuuv_xs_lwfull, 0)};
static const char *const inputs[] = {"random", "sorted", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"xs", "irregular", inputs, setup, ITEMS, BENCH_F32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
