// Driver: nab-style energies of 32K atoms uniform in the unit cube (density
// chosen so about 12% of pairs fall inside the cutoff and well under 1% in
// the close-contact branches), 128 partners each (atoms j = i + k*37), 10 sweeps per run.
#define SWEEPS 10
#include "../harness/harness.h"

enum { ITEMS = 1 << 15, NEIGHBOURS = 128, STRIDE = 37 };
BENCH_GLOBAL float ax[ITEMS], ay[ITEMS], az[ITEMS], charge[ITEMS];
#define SCALAR_CALL(F, i) F(ax, ay, az, charge, ITEMS, NEIGHBOURS, STRIDE, i)
#define VECTOR_CALL(F, i, W) F(ax, ay, az, charge, ITEMS, NEIGHBOURS, STRIDE, i)

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(x, y, z, charge, count, neighbours, stride) linear(i) notinbranch
float nab(const float *x, const float *y, const float *z, const float *charge, int count,
          int neighbours, int stride, int i);
#endif
BENCH_OMP_LOOP(float, nab)
#else
#include "inputs.h"
#define NAB_ARGS const float *, const float *, const float *, const float *, int, int, int, int
float nab_scalar(NAB_ARGS);
BENCH_WEAK v8f _ZGVdN8uuuuuuul_nab_lw(NAB_ARGS);
BENCH_WEAK_AVX512 v16f _ZGVeN16uuuuuuul_nab_lw(NAB_ARGS);
BENCH_WEAK v8f _ZGVdN8uuuuuuul_nab_lwfull(NAB_ARGS);
BENCH_STANDARD_RUNNERS(float, f, nab_scalar, _ZGVdN8uuuuuuul_nab_lw, _ZGVeN16uuuuuuul_nab_lw,
                       _ZGVdN8uuuuuuul_nab_lwfull)
static void setup(const char *input) {
    (void)input;
    // Partners j = i + 37k are near atom i when atoms lie along a noisy curve.
    for (int i = 0; i < ITEMS; i++) {
        float t = (float)i / ITEMS;
        ax[i] = t * 8.0f + 0.04f * normalish();
        ay[i] = 0.04f * normalish();
        az[i] = 0.04f * normalish();
        charge[i] = uniform01() - 0.5f;
    }
}
static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8uuuuuuul_nab_lw, _ZGVeN16uuuuuuul_nab_lw, _ZGVdN8uuuuuuul_nab_lwfull, 0)};
static const char *const inputs[] = {"default", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"nab", "irregular", inputs, setup, ITEMS, BENCH_F32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
