// Deterministic inputs for the drivers: a xorshift64 generator with a fixed
// seed (reset by each driver's setup through rng_reset), so every run of the
// suite sees the same data.
#ifndef BENCH_INPUTS_H
#define BENCH_INPUTS_H
#include <stdint.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static void rng_reset(uint64_t seed) { rng_state = seed ? seed : 0x9e3779b97f4a7c15ull; }
static uint32_t next_u32(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}
// Uniform in [0, 1) with 24 random bits.
static float uniform01(void) { return (next_u32() >> 8) * (1.0f / 16777216.0f); }
// Approximately normal (sum of four uniforms, centred, unit variance).
static float normalish(void) {
    return (uniform01() + uniform01() + uniform01() + uniform01() - 2.0f) * 1.7320508f;
}
static int compare_floats(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}
static int compare_ints(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}
#endif
