// Driver: the 7-point stencil over the 128 x 128 x 32 interior planes of a
// grid padded by one plane on each side, 64 sweeps per run (the grid, 2.6 MB,
// stays in the caches: this measures compute and load throughput).
#define SWEEPS 64
#include "../harness/harness.h"

enum { NX = 128, NY = 128, NZ = 32, PLANE = NX * NY, ITEMS = NX * NY * NZ };
BENCH_GLOBAL float grid[ITEMS + 2 * PLANE];
#define SCALAR_CALL(F, i) F(grid, NX, PLANE, PLANE + (i))
#define VECTOR_CALL(F, i, W) F(grid, NX, PLANE, PLANE + (i))

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(grid, nx, plane) linear(index) notinbranch
float stencil(const float *grid, int nx, int plane, int index);
#endif
BENCH_OMP_LOOP(float, stencil)
#else
#include "inputs.h"
float stencil_scalar(const float *, int, int, int);
BENCH_WEAK v8f _ZGVdN8uuul_stencil_lw(const float *, int, int, int);
BENCH_WEAK_AVX512 v16f _ZGVeN16uuul_stencil_lw(const float *, int, int, int);
BENCH_WEAK v8f _ZGVdN8uuul_stencil_lwfull(const float *, int, int, int);
BENCH_STANDARD_RUNNERS(float, f, stencil_scalar, _ZGVdN8uuul_stencil_lw, _ZGVeN16uuul_stencil_lw,
                       _ZGVdN8uuul_stencil_lwfull)
static void setup(const char *input) {
    (void)input;
    for (int i = 0; i < ITEMS + 2 * PLANE; i++) grid[i] = uniform01();
}
static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8uuul_stencil_lw, _ZGVeN16uuul_stencil_lw, _ZGVdN8uuul_stencil_lwfull, 0)};
static const char *const inputs[] = {"default", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"stencil", "coherent", inputs, setup, ITEMS, BENCH_F32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
