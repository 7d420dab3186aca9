// Driver: n-body accelerations of 8192 bodies uniform in the unit cube.
#include "../harness/harness.h"

enum { ITEMS = 8192 };
BENCH_GLOBAL float px[ITEMS], py[ITEMS], pz[ITEMS], mass[ITEMS];
#define SCALAR_CALL(F, i) F(px, py, pz, mass, ITEMS, i)
#define VECTOR_CALL(F, i, W) F(px, py, pz, mass, ITEMS, i)

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(px, py, pz, mass, count) linear(i) notinbranch
float nbody(const float *px, const float *py, const float *pz, const float *mass, int count, int i);
#endif
BENCH_OMP_LOOP(float, nbody)
#else
#include "inputs.h"
float nbody_scalar(const float *, const float *, const float *, const float *, int, int);
#define NBODY_ARGS const float *, const float *, const float *, const float *, int, int
BENCH_WEAK v8f _ZGVdN8uuuuul_nbody_lw(NBODY_ARGS);
BENCH_WEAK_AVX512 v16f _ZGVeN16uuuuul_nbody_lw(NBODY_ARGS);
BENCH_WEAK v8f _ZGVdN8uuuuul_nbody_lwfull(NBODY_ARGS);
BENCH_STANDARD_RUNNERS(float, f, nbody_scalar, _ZGVdN8uuuuul_nbody_lw, _ZGVeN16uuuuul_nbody_lw,
                       _ZGVdN8uuuuul_nbody_lwfull)
static void setup(const char *input) {
    (void)input;
    for (int j = 0; j < ITEMS; j++) {
        px[j] = uniform01();
        py[j] = uniform01();
        pz[j] = uniform01();
        mass[j] = 0.5f + uniform01();
    }
}
static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8uuuuul_nbody_lw, _ZGVeN16uuuuul_nbody_lw, _ZGVdN8uuuuul_nbody_lwfull, 0)};
static const char *const inputs[] = {"default", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"nbody", "coherent", inputs, setup, ITEMS, BENCH_F32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
