// Whether one gather of 64-bit elements beats two gathers of neighbouring
// 32-bit elements (transform::widen::gather_pairs): `perm[x]` and
// `perm[x + 1]` for 8 random `x` per step, as Perlin noise reads them.
//   two dd:    two vpgatherdd of 8 lanes (what widening alone makes)
//   one dq512: one vpgatherdq of 8 lanes into a zmm, split by vpmovqd (AVX-512)
//   two dq256: two vpgatherdq of 4 lanes, split by shuffles (AVX2)
// Each form's result is checked against the first; the best of 50 rounds
// is printed in ns per 8 lanes.
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { STEPS = 1 << 16, TABLE = 512 };
static int perm[TABLE + 16];
static int index_of[STEPS];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static __m256i combine(__m256i acc, __m256i low, __m256i high) {
    return _mm256_add_epi32(acc, _mm256_xor_si256(low, _mm256_slli_epi32(high, 1)));
}

__attribute__((noinline)) static __m256i two_dd(void) {
    __m256i acc = _mm256_setzero_si256();
    for (int i = 0; i < STEPS; i += 8) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(index_of + i));
        __m256i low = _mm256_i32gather_epi32(perm, x, 4);
        __m256i high = _mm256_i32gather_epi32(perm + 1, x, 4);
        acc = combine(acc, low, high);
    }
    return acc;
}

__attribute__((noinline, target("avx512f"))) static __m256i one_dq512(void) {
    __m256i acc = _mm256_setzero_si256();
    for (int i = 0; i < STEPS; i += 8) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(index_of + i));
        __m512i both = _mm512_i32gather_epi64(x, (const long long *)perm, 4);
        __m256i low = _mm512_cvtepi64_epi32(both);
        __m256i high = _mm512_cvtepi64_epi32(_mm512_srli_epi64(both, 32));
        acc = combine(acc, low, high);
    }
    return acc;
}

__attribute__((noinline)) static __m256i two_dq256(void) {
    __m256i acc = _mm256_setzero_si256();
    for (int i = 0; i < STEPS; i += 8) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(index_of + i));
        __m256i first = _mm256_i32gather_epi64((const long long *)perm, _mm256_castsi256_si128(x), 4);
        __m256i second =
            _mm256_i32gather_epi64((const long long *)perm, _mm256_extracti128_si256(x, 1), 4);
        __m256 a = _mm256_castsi256_ps(first), b = _mm256_castsi256_ps(second);
        __m256i even = _mm256_castps_si256(_mm256_shuffle_ps(a, b, 0x88));
        __m256i odd = _mm256_castps_si256(_mm256_shuffle_ps(a, b, 0xdd));
        __m256i low = _mm256_permute4x64_epi64(even, 0xd8);
        __m256i high = _mm256_permute4x64_epi64(odd, 0xd8);
        acc = combine(acc, low, high);
    }
    return acc;
}

int main(void) {
    srand(1);
    for (int i = 0; i < TABLE + 16; i++) perm[i] = rand() & 255;
    for (int i = 0; i < STEPS; i++) index_of[i] = rand() % TABLE;
    struct {
        const char *name;
        __m256i (*run)(void);
        int needs_avx512;
    } forms[] = {{"two dd", two_dd, 0}, {"one dq512", one_dq512, 1}, {"two dq256", two_dq256, 0}};
    __builtin_cpu_init();
    int reference[8];
    _mm256_storeu_si256((__m256i *)reference, two_dd());
    for (int k = 0; k < 3; k++) {
        if (forms[k].needs_avx512 && !__builtin_cpu_supports("avx512f")) {
            printf("%-10s not run (no AVX-512F)\n", forms[k].name);
            continue;
        }
        double best = 1e9;
        __m256i sum = _mm256_setzero_si256();
        for (int round = 0; round < 50; round++) {
            double start = now();
            sum = forms[k].run();
            double took = now() - start;
            if (took < best) best = took;
        }
        int got[8];
        _mm256_storeu_si256((__m256i *)got, sum);
        for (int lane = 0; lane < 8; lane++) {
            if (got[lane] != reference[lane]) {
                printf("%s: wrong result in lane %d\n", forms[k].name, lane);
                return 1;
            }
        }
        printf("%-10s %.2f ns per 8 lanes\n", forms[k].name, best / (STEPS / 8) * 1e9);
    }
    return 0;
}
