// Driver: binomial options, 128-step lattices for 64K random options (spot and
// strike in [50, 150], one year, shared rate and volatility).
#include "../harness/harness.h"

enum { ITEMS = 1 << 16, STEPS = 128 };
#define YEARS 1.0f
#define RATE 0.02f
#define VOLATILITY 0.3f
BENCH_GLOBAL float spot[ITEMS], strike[ITEMS];
#define SCALAR_CALL(F, i) F(spot[i], strike[i], YEARS, RATE, VOLATILITY, STEPS)
#define VECTOR_CALL(F, i, W) F(ld##W##f(&spot[i]), ld##W##f(&strike[i]), YEARS, RATE, VOLATILITY, STEPS)

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(years, rate, volatility, steps) notinbranch
float binomial(float spot, float strike, float years, float rate, float volatility, int steps);
#endif
BENCH_OMP_LOOP(float, binomial)
#else
#include "inputs.h"
float binomial_scalar(float, float, float, float, float, int);
BENCH_WEAK v8f _ZGVdN8vvuuuu_binomial_lw(v8f, v8f, float, float, float, int);
BENCH_WEAK_AVX512 v16f _ZGVeN16vvuuuu_binomial_lw(v16f, v16f, float, float, float, int);
BENCH_WEAK v8f _ZGVdN8vvuuuu_binomial_lwfull(v8f, v8f, float, float, float, int);
BENCH_STANDARD_RUNNERS(float, f, binomial_scalar, _ZGVdN8vvuuuu_binomial_lw,
                       _ZGVeN16vvuuuu_binomial_lw, _ZGVdN8vvuuuu_binomial_lwfull)
static void setup(const char *input) {
    (void)input;
    for (int i = 0; i < ITEMS; i++) {
        spot[i] = 50.0f + 100.0f * uniform01();
        strike[i] = 50.0f + 100.0f * uniform01();
    }
}
static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8vvuuuu_binomial_lw, _ZGVeN16vvuuuu_binomial_lw, _ZGVdN8vvuuuu_binomial_lwfull, 1)};
static const char *const inputs[] = {"default", NULL};
int main(int argc, char **argv) {
    // expf only on uniform values (scalar calls), but allow libmvec anyway.
    bench_kernel kernel = {"binomial", "coherent", inputs, setup, ITEMS, BENCH_F32, 1e-5,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
