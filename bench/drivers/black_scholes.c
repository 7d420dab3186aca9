// Driver: Black-Scholes over 2M random options (priced twice per run) (spot and strike in [50, 150],
// 0.1 to 2.1 years). Configurations using libmvec (lanewise, hand) are
// compared with a relative tolerance of 5e-5 (glibc's vector expf/logf are
// within 4 ulp of libm; the price combines several of them).
#define SWEEPS 2
#include "../harness/harness.h"

enum { ITEMS = 1 << 21 };
#define RATE 0.02f
#define VOLATILITY 0.3f
BENCH_GLOBAL float spot[ITEMS], strike[ITEMS], years[ITEMS];
#define SCALAR_CALL(F, i) F(spot[i], strike[i], years[i], RATE, VOLATILITY)
#define VECTOR_CALL(F, i, W) \
    F(ld##W##f(&spot[i]), ld##W##f(&strike[i]), ld##W##f(&years[i]), RATE, VOLATILITY)

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(rate, volatility) notinbranch
float black_scholes(float spot, float strike, float years, float rate, float volatility);
#endif
BENCH_OMP_LOOP(float, black_scholes)
#else
#include "inputs.h"

float black_scholes_scalar(float, float, float, float, float);
BENCH_WEAK v8f _ZGVdN8vvvuu_black_scholes_lw(v8f, v8f, v8f, float, float);
BENCH_WEAK_AVX512 v16f _ZGVeN16vvvuu_black_scholes_lw(v16f, v16f, v16f, float, float);
BENCH_WEAK v8f _ZGVdN8vvvuu_black_scholes_lwfull(v8f, v8f, v8f, float, float);
v8f black_scholes_hand(v8f, v8f, v8f, float, float);
BENCH_STANDARD_RUNNERS(float, f, black_scholes_scalar, _ZGVdN8vvvuu_black_scholes_lw,
                       _ZGVeN16vvvuu_black_scholes_lw, _ZGVdN8vvvuu_black_scholes_lwfull)
static float out_hand[ITEMS];
// SWEEPS sweeps, like the other configurations (until 2026-11-30 it ran
// one, which put hand-written code at twice its real speed).
static void run_hand(void) {
    for (int sweep = 0; sweep < SWEEPS; sweep++)
        for (int i = 0; i < ITEMS; i += 8)
            st8f(&out_hand[i], VECTOR_CALL(black_scholes_hand, i, 8));
}

static void setup(const char *input) {
    (void)input;
    for (int i = 0; i < ITEMS; i++) {
        spot[i] = 50.0f + 100.0f * uniform01();
        strike[i] = 50.0f + 100.0f * uniform01();
        years[i] = 0.1f + 2.0f * uniform01();
    }
}

static bench_config configs[] = {
    BENCH_STANDARD_CONFIGS(_ZGVdN8vvvuu_black_scholes_lw, _ZGVeN16vvvuu_black_scholes_lw,
                           _ZGVdN8vvvuu_black_scholes_lwfull, 1),
    {CONFIG_HAND, run_hand, out_hand, NULL, 1, 0, 0, NULL, NULL},
};
static const char *const inputs[] = {"default", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"black_scholes", "coherent", inputs, setup, ITEMS, BENCH_F32, 5e-5,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
