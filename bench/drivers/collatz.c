// Driver: Collatz steps of 1M start values: "consecutive" (1, 2, 3, ...) and
// "random" (uniform in [1, 2^24)).
#include "../harness/harness.h"

enum { ITEMS = 1 << 20 };
BENCH_GLOBAL int starts[ITEMS];
#define SCALAR_CALL(F, i) F(starts[i])
#define VECTOR_CALL(F, i, W) F(ld##W##i(&starts[i]))

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd notinbranch
int collatz(int start);
#endif
BENCH_OMP_LOOP(int, collatz)
#else
#include "inputs.h"
int collatz_scalar(int);
BENCH_WEAK v8i _ZGVdN8v_collatz_lw(v8i);
BENCH_WEAK_AVX512 v16i _ZGVeN16v_collatz_lw(v16i);
BENCH_WEAK v8i _ZGVdN8v_collatz_lwfull(v8i);
BENCH_STANDARD_RUNNERS(int, i, collatz_scalar, _ZGVdN8v_collatz_lw, _ZGVeN16v_collatz_lw,
                       _ZGVdN8v_collatz_lwfull)
static void setup(const char *input) {
    for (int i = 0; i < ITEMS; i++)
        starts[i] = !strcmp(input, "random") ? 1 + (int)(next_u32() % ((1u << 24) - 1)) : i + 1;
}
static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8v_collatz_lw, _ZGVeN16v_collatz_lw, _ZGVdN8v_collatz_lwfull, 0)};
static const char *const inputs[] = {"consecutive", "random", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"collatz", "irregular", inputs, setup, ITEMS, BENCH_I32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
