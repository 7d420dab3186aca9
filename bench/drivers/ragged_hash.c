// Driver: ragged hashing of 256K items over a 1M-entry table of counts:
// "random" (segment and element counts uniform in 0..15) and "short"
// (counts in 0..3, one item in 32 with 15: most lanes wait for a few).
#include "../harness/harness.h"

enum { ITEMS = 1 << 18, TABLE = 1 << 20 };
BENCH_GLOBAL int counts[TABLE];
BENCH_GLOBAL int items[ITEMS];
#define SCALAR_CALL(F, i) F(counts, items[i])
#define VECTOR_CALL(F, i, W) F(counts, ld##W##i(&items[i]))

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(counts) notinbranch
int ragged_hash(const int *counts, int item);
#endif
BENCH_OMP_LOOP(int, ragged_hash)
#else
#include "inputs.h"
int ragged_hash_scalar(const int *, int);
BENCH_WEAK v8i _ZGVdN8uv_ragged_hash_lw(const int *, v8i);
BENCH_WEAK_AVX512 v16i _ZGVeN16uv_ragged_hash_lw(const int *, v16i);
BENCH_WEAK v8i _ZGVdN8uv_ragged_hash_lwfull(const int *, v8i);
BENCH_STANDARD_RUNNERS(int, i, ragged_hash_scalar, _ZGVdN8uv_ragged_hash_lw,
                       _ZGVeN16uv_ragged_hash_lw, _ZGVdN8uv_ragged_hash_lwfull)
static void setup(const char *input) {
    int short_counts = !strcmp(input, "short");
    for (int i = 0; i < TABLE; i++) {
        int segments = (int)(next_u32() % 16), elements = (int)(next_u32() % 16);
        if (short_counts && next_u32() % 32 != 0) {
            segments &= 3;
            elements &= 3;
        }
        counts[i] = segments | elements << 4;
    }
    for (int i = 0; i < ITEMS; i++) items[i] = i * 4;
}
static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8uv_ragged_hash_lw, _ZGVeN16uv_ragged_hash_lw, _ZGVdN8uv_ragged_hash_lwfull, 0)};
static const char *const inputs[] = {"random", "short", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"ragged_hash", "irregular", inputs, setup, ITEMS, BENCH_I32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
