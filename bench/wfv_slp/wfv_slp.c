// Does the WFV thesis's WFV-SLP dynamic variant (section 7.4) pay on this
// machine? A measurement, in AVX-512 intrinsics, of the thesis's own example
// (Listing 7.4) at W = 16: three independent isomorphic computations per
// lane, r = m ? f(x, a) + f(y, b) + f(z, c) : r, with k of the 16 lanes
// active. Two forms of the masked body, each run on the same data:
//
//   wfv   the vector code WFV makes: f on all 16 lanes of x, y and z (three
//         vector operations each), then a blend under the mask;
//   slp   WFV-SLP, valid when 3k <= 16: the active lanes of x, y and z
//         compressed into one vector [x_act | y_act | z_act] (and a, b, c
//         likewise), f once, the three k-lane slices summed, the sum
//         expanded into r at the active lanes.
//
// for two f: a cheap one, (x - a) * (x + a) (the thesis's example: three
// vector instructions), and an expensive one, expf(x - a) through glibc's
// libmvec (_ZGVeN16v_expf), where packing saves two of three calls. The
// program checks that both forms compute the same r bit for bit (the same
// operations on the same values, in the same order per lane), then prints
// cycles per masked body (median of 9 timings of 100,000 bodies each) for
// k = 1..5. Build and run: bash bench/wfv_slp/run.sh (needs AVX-512F).
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

enum { W = 16, BODIES = 100000, TIMINGS = 9, SETS = 64 };

__m512 _ZGVeN16v_expf(__m512 x);

typedef __m512 (*body_fn)(__m512 r, __mmask16 m, const float *in, int k);

static __m512 f_cheap(__m512 v, __m512 w) {
    return _mm512_mul_ps(_mm512_sub_ps(v, w), _mm512_add_ps(v, w));
}

static __m512 f_exp(__m512 v, __m512 w) { return _ZGVeN16v_expf(_mm512_sub_ps(v, w)); }

// in: x, y, z, a, b, c, 16 floats each.
#define LOAD(i) _mm512_loadu_ps(in + (i) * W)

static __m512 wfv_cheap(__m512 r, __mmask16 m, const float *in, int k) {
    (void)k;
    __m512 s = _mm512_add_ps(_mm512_add_ps(f_cheap(LOAD(0), LOAD(3)), f_cheap(LOAD(1), LOAD(4))),
                             f_cheap(LOAD(2), LOAD(5)));
    return _mm512_mask_blend_ps(m, r, s);
}

static __m512 wfv_exp(__m512 r, __mmask16 m, const float *in, int k) {
    (void)k;
    __m512 s = _mm512_add_ps(_mm512_add_ps(f_exp(LOAD(0), LOAD(3)), f_exp(LOAD(1), LOAD(4))),
                             f_exp(LOAD(2), LOAD(5)));
    return _mm512_mask_blend_ps(m, r, s);
}

// Index vectors per k: join[k] puts lanes 0..k-1 of the first operand and
// lanes 0..15-k of the second after them (_mm512_permutex2var_ps);
// shift[k] moves lane j + k to lane j.
static __m512i join[W + 1], shift[W + 1];

static void make_tables(void) {
    for (int k = 0; k <= W; k++) {
        int32_t j1[W], s1[W];
        for (int j = 0; j < W; j++) {
            j1[j] = j < k ? j : W + (j - k);
            s1[j] = (j + k) % W;
        }
        join[k] = _mm512_loadu_si512(j1);
        shift[k] = _mm512_loadu_si512(s1);
    }
}

// [v0_act | v1_act | v2_act | ...]: the active lanes of three vectors, packed.
static __m512 pack3(__mmask16 m, int k, __m512 v0, __m512 v1, __m512 v2) {
    __m512 c0 = _mm512_maskz_compress_ps(m, v0);
    __m512 c1 = _mm512_maskz_compress_ps(m, v1);
    __m512 c2 = _mm512_maskz_compress_ps(m, v2);
    __m512 c01 = _mm512_permutex2var_ps(c0, join[k], c1);
    return _mm512_permutex2var_ps(c01, join[2 * k], c2);
}

// The three k-lane slices of o summed in lanes 0..k-1, expanded into r.
static __m512 unpack_sum3(__m512 r, __mmask16 m, int k, __m512 o) {
    __m512 s = _mm512_add_ps(o, _mm512_permutexvar_ps(shift[k], o));
    s = _mm512_add_ps(s, _mm512_permutexvar_ps(shift[2 * k], o));
    return _mm512_mask_expand_ps(r, m, s);
}

static __m512 slp_cheap(__m512 r, __mmask16 m, const float *in, int k) {
    __m512 p = pack3(m, k, LOAD(0), LOAD(1), LOAD(2));
    __m512 n = pack3(m, k, LOAD(3), LOAD(4), LOAD(5));
    return unpack_sum3(r, m, k, f_cheap(p, n));
}

static __m512 slp_exp(__m512 r, __mmask16 m, const float *in, int k) {
    __m512 p = pack3(m, k, LOAD(0), LOAD(1), LOAD(2));
    __m512 n = pack3(m, k, LOAD(3), LOAD(4), LOAD(5));
    return unpack_sum3(r, m, k, f_exp(p, n));
}

static float inputs[SETS][6 * W];
static __mmask16 masks[W + 1][SETS];

// Runs `body` BODIES times over the input sets; returns the last r (so the
// work is not optimized away) and the cycles taken through *cycles.
static __m512 run(body_fn body, int k, uint64_t *cycles) {
    __m512 r = _mm512_setzero_ps();
    uint64_t start = __rdtsc();
    for (int i = 0; i < BODIES; i++) {
        int set = i % SETS;
        r = body(r, masks[k][set], inputs[set], k);
    }
    *cycles = __rdtsc() - start;
    return r;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double median_cycles(body_fn body, int k) {
    uint64_t samples[TIMINGS];
    volatile float sink = 0;
    for (int t = 0; t < TIMINGS; t++) {
        __m512 r = run(body, k, &samples[t]);
        sink += _mm512_reduce_add_ps(r);
    }
    (void)sink;
    qsort(samples, TIMINGS, sizeof samples[0], compare_u64);
    return (double)samples[TIMINGS / 2] / BODIES;
}

int main(void) {
    if (!__builtin_cpu_supports("avx512f")) {
        printf("wfv_slp: this machine has no AVX-512F; nothing measured\n");
        return 0;
    }
    make_tables();
    srand(7);
    for (int set = 0; set < SETS; set++)
        for (int i = 0; i < 6 * W; i++) inputs[set][i] = (float)(rand() % 1000000) / 250000.0f - 2.0f;
    // k active lanes at random positions per set.
    for (int k = 1; k <= W; k++)
        for (int set = 0; set < SETS; set++) {
            __mmask16 m = 0;
            while (__builtin_popcount(m) < k) m |= (__mmask16)(1u << (rand() % W));
            masks[k][set] = m;
        }
    struct {
        const char *name;
        body_fn wfv, slp;
    } kinds[] = {{"cheap (x-a)*(x+a)", wfv_cheap, slp_cheap}, {"libmvec expf(x-a)", wfv_exp, slp_exp}};
    int failures = 0;
    for (size_t kind = 0; kind < sizeof kinds / sizeof kinds[0]; kind++)
        for (int k = 1; 3 * k <= W; k++)
            for (int set = 0; set < SETS; set++) {
                __m512 r0 = _mm512_set1_ps(-1.0f);
                __m512 a = kinds[kind].wfv(r0, masks[k][set], inputs[set], k);
                __m512 b = kinds[kind].slp(r0, masks[k][set], inputs[set], k);
                if (memcmp(&a, &b, sizeof a) != 0) {
                    if (failures++ < 5) printf("MISMATCH %s k=%d set %d\n", kinds[kind].name, k, set);
                }
            }
    if (failures) {
        printf("wfv_slp: %d mismatches between the two forms\n", failures);
        return 1;
    }
    printf("| f | k active of 16 | wfv cycles | wfv-slp cycles | wfv-slp speedup |\n");
    printf("| --- | ---: | ---: | ---: | ---: |\n");
    for (size_t kind = 0; kind < sizeof kinds / sizeof kinds[0]; kind++)
        for (int k = 1; 3 * k <= W; k++) {
            double wfv = median_cycles(kinds[kind].wfv, k);
            double slp = median_cycles(kinds[kind].slp, k);
            printf("| %s | %d | %.1f | %.1f | %.2fx |\n", kinds[kind].name, k, wfv, slp, wfv / slp);
        }
    return 0;
}
