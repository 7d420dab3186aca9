// Covers: int declare-simd functions calling each other, whose AVX (`c`)
// variants pass <8 x i32> arguments, results and masks in 128-bit halves
// (the result, two registers, through memory), masked and unmasked, next to
// the SSE, AVX2 and AVX-512 variants. simdlen(4) int8_t functions pass
// their 32-bit vectors (4 lanes of int8_t) in general-purpose registers.
// crates/lanewise/tests/variant_calls.rs checks in the report that every
// call uses a variant.
#include <stdint.h>

#pragma omp declare simd
__attribute__((noinline)) int avx_mix(int x, int y) { return (x ^ (y << 3)) + (int)((unsigned)y >> 2); }

#pragma omp declare simd
int avx_caller(int x, int y) {
    int r = avx_mix(x, y);
    if (x & 1)
        r += avx_mix(y, x);
    return r;
}

#pragma omp declare simd simdlen(4) notinbranch
__attribute__((noinline)) int8_t avx_byte_mix(int8_t a, int8_t b) { return (int8_t)(a * 3 + b); }

#pragma omp declare simd simdlen(4) notinbranch
int8_t avx_byte_caller(int8_t a, int8_t b) { return (int8_t)(avx_byte_mix(a, b) ^ avx_byte_mix(b, 1)); }
