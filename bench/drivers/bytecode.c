// Driver: 256K interpreter runs over one 256-byte program: "random" (every
// operation equally likely, as are the jumps) and "skewed" (nine bytes in
// ten are operation 0 with a jump of one, so lanes mostly agree).
#include "../harness/harness.h"

enum { ITEMS = 1 << 18 };
BENCH_GLOBAL unsigned char code[256];
BENCH_GLOBAL int starts[ITEMS];
#define SCALAR_CALL(F, i) F(code, starts[i])
#define VECTOR_CALL(F, i, W) F(code, ld##W##i(&starts[i]))

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(code) notinbranch
int bytecode(const unsigned char *code, int start);
#endif
BENCH_OMP_LOOP(int, bytecode)
#else
#include "inputs.h"
int bytecode_scalar(const unsigned char *, int);
BENCH_WEAK v8i _ZGVdN8uv_bytecode_lw(const unsigned char *, v8i);
BENCH_WEAK_AVX512 v16i _ZGVeN16uv_bytecode_lw(const unsigned char *, v16i);
BENCH_WEAK v8i _ZGVdN8uv_bytecode_lwfull(const unsigned char *, v8i);
BENCH_STANDARD_RUNNERS(int, i, bytecode_scalar, _ZGVdN8uv_bytecode_lw, _ZGVeN16uv_bytecode_lw,
                       _ZGVdN8uv_bytecode_lwfull)
static void setup(const char *input) {
    int skewed = !strcmp(input, "skewed");
    for (int i = 0; i < 256; i++)
        code[i] = skewed && next_u32() % 10 != 0 ? 0 : (unsigned char)next_u32();
    for (int i = 0; i < ITEMS; i++) starts[i] = (int)(next_u32() & 0xffff);
}
static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8uv_bytecode_lw, _ZGVeN16uv_bytecode_lw, _ZGVdN8uv_bytecode_lwfull, 0)};
static const char *const inputs[] = {"random", "skewed", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"bytecode", "irregular", inputs, setup, ITEMS, BENCH_I32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
