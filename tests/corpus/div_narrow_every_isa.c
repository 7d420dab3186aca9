// Covers (divergent): divergent loops whose values span 1024 bits in the
// variants of every ISA (simdlen(32) of `int`, simdlen(16) of `double`),
// the loops narrowing (crates/transform/src/narrow_loops.rs) compacts on
// AVX-512. Built for x86-64-v4 or an AVX-512 CPU (corpus.rs compiles every
// kernel at every -march with llc-22), a `b` variant has AVX-512
// instructions but 128-bit registers and must not get 512-bit compresses;
// the `e` variants of `byte_steps` (a 256-bit signature) compress zmm
// registers and need a 512-bit `min-legal-vector-width`.
#include <stdint.h>

#pragma omp declare simd simdlen(32)
int collatz_count32(int seed) {
    uint32_t x = (uint32_t)seed & 0xffffu;
    int n = 0;
    while (x > 1u && n < 300) {
        x = (x & 1u) ? 3u * x + 1u : x >> 1;
        n++;
    }
    return n;
}

#pragma omp declare simd simdlen(16)
double halvings16(double v) {
    double x = v < 0.0 ? -v : v;
    if (!(x < 1e6))
        x = 1e6;
    int n = 0;
    while (x > 1.0 && n < 40) {
        x *= 0.5;
        n++;
    }
    return x + (double)n;
}

#pragma omp declare simd simdlen(32)
uint8_t byte_steps(uint8_t seed) {
    uint32_t x = (uint32_t)seed + 2u;
    int n = 0;
    while (x != 1u && n < 100) {
        x = (x & 1u) ? 3u * x + 1u : x >> 1;
        n++;
    }
    return (uint8_t)n;
}
