// Driver: rising runs from each of 1M positions of a 1M-value sequence:
// "random" (independent values in [0, 65536): runs of about two) and
// "trending" (a rising ramp with one drop in 16 on average: runs of 1 to 60).
#include "../harness/harness.h"

enum { ITEMS = 1 << 20 };
BENCH_GLOBAL int values[ITEMS];
BENCH_GLOBAL int starts[ITEMS];
#define SCALAR_CALL(F, i) F(values, ITEMS, starts[i])
#define VECTOR_CALL(F, i, W) F(values, ITEMS, ld##W##i(&starts[i]))

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(values, n) notinbranch
int rising_run(const int *values, int n, int start);
#endif
BENCH_OMP_LOOP(int, rising_run)
#else
#include "inputs.h"
int rising_run_scalar(const int *, int, int);
BENCH_WEAK v8i _ZGVdN8uuv_rising_run_lw(const int *, int, v8i);
BENCH_WEAK_AVX512 v16i _ZGVeN16uuv_rising_run_lw(const int *, int, v16i);
BENCH_WEAK v8i _ZGVdN8uuv_rising_run_lwfull(const int *, int, v8i);
BENCH_STANDARD_RUNNERS(int, i, rising_run_scalar, _ZGVdN8uuv_rising_run_lw,
                       _ZGVeN16uuv_rising_run_lw, _ZGVdN8uuv_rising_run_lwfull)
static void setup(const char *input) {
    int trending = !strcmp(input, "trending");
    int level = 0;
    for (int i = 0; i < ITEMS; i++) {
        if (trending) {
            level = next_u32() % 16 == 0 ? (int)(next_u32() % 1024) : level + 1 + (int)(next_u32() % 8);
            values[i] = level;
        } else {
            values[i] = (int)(next_u32() & 0xffff);
        }
        starts[i] = i;
    }
}
static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8uuv_rising_run_lw, _ZGVeN16uuv_rising_run_lw, _ZGVdN8uuv_rising_run_lwfull, 0)};
static const char *const inputs[] = {"random", "trending", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"rising_run", "irregular", inputs, setup, ITEMS, BENCH_I32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
