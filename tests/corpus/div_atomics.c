// Covers: atomics (clang's __atomic builtins: atomicrmw and cmpxchg) in
// declare simd functions. Varying addresses with colliding lanes (add,
// xchg, nand, cmpxchg and its failure path, which writes `expected` back:
// a divergent branch), uniform addresses (add with the old values used, a
// counter, sub, or/and/xor, min/max/umin/umax with and without the result
// used, xchg), a float fadd, atomics under a divergent branch (masked) and in a
// divergent loop (results unused: only memory is comparable there). Two
// lanes that update the same address do so in lane order, as the scalar
// calls do, so the old values and the memory are bit-exact.
#include <stdint.h>

#include "lw_test.h"

#ifdef __clang__
#define FETCH_MAX(p, v) __atomic_fetch_max((p), (v), __ATOMIC_RELAXED)
#define FETCH_MIN(p, v) __atomic_fetch_min((p), (v), __ATOMIC_RELAXED)
#define FETCH_FADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#else
/* GCC (the harness self-check) has neither; its clones run lane by lane. */
#define FETCH_MAX(p, v) ({ __typeof__(*(p)) o_ = *(p); if ((v) > o_) *(p) = (v); o_; })
#define FETCH_MIN(p, v) ({ __typeof__(*(p)) o_ = *(p); if ((v) < o_) *(p) = (v); o_; })
#define FETCH_FADD(p, v) ({ float o_ = *(p); *(p) = o_ + (v); o_; })
#endif

#pragma omp declare simd uniform(p) notinbranch
int atomic_varying(int *p, int x) {
    int *slot = &p[x & 63];
    int old = __atomic_fetch_add(slot, x | 1, __ATOMIC_SEQ_CST);
    int swapped = __atomic_exchange_n(&p[64 + (x & 15)], old, __ATOMIC_ACQ_REL);
    int nand = __atomic_fetch_nand(&p[80 + (x & 3)], x, __ATOMIC_RELAXED);
    int expected = x & 3;
    int ok = __atomic_compare_exchange_n(&p[90 + (x & 1)], &expected, old, 0,
                                         __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE);
    return old + swapped + nand + expected + ok;
}

#pragma omp declare simd uniform(p) notinbranch
unsigned atomic_uniform(unsigned *p, unsigned x) {
    unsigned ticket = __atomic_fetch_add(&p[0], x, __ATOMIC_SEQ_CST);
    unsigned count = __atomic_fetch_add(&p[1], 1u, __ATOMIC_RELAXED);
    unsigned down = __atomic_fetch_sub(&p[2], x >> 3, __ATOMIC_RELAXED);
    __atomic_fetch_or(&p[3], 1u << (x & 31), __ATOMIC_RELAXED);
    __atomic_fetch_and(&p[4], ~(1u << (x & 31)), __ATOMIC_RELAXED);
    unsigned flips = __atomic_fetch_xor(&p[5], x, __ATOMIC_RELAXED);
    unsigned previous = __atomic_exchange_n(&p[10], x, __ATOMIC_SEQ_CST);
    unsigned high = FETCH_MAX(&p[6], x);
    FETCH_MIN(&p[7], x);
    int *signed_cells = (int *)&p[8];
    int low = FETCH_MIN(&signed_cells[0], (int)x);
    FETCH_MAX(&signed_cells[1], (int)x);
    return ticket ^ count ^ down ^ flips ^ high ^ (unsigned)low ^ previous;
}

#pragma omp declare simd uniform(p, f)
float atomic_float(float *f, int *p, float x, int k) {
    float sum = FETCH_FADD(&f[k & 7], x);
    if (k > 20) {
        /* Masked: only the lanes with k > 20. */
        int old = __atomic_fetch_add(&p[0], k, __ATOMIC_SEQ_CST);
        int mine = __atomic_fetch_add(&p[1 + (k & 15)], 1, __ATOMIC_SEQ_CST);
        int before = __atomic_exchange_n(&p[20], k, __ATOMIC_ACQ_REL);
        sum += (float)(old + mine + before);
    }
    return sum;
}

/* Atomics in a divergent loop: lanes run their iterations interleaved, so
 * only the memory they leave is compared (the old values are not used). */
#pragma omp declare simd uniform(p) notinbranch
int atomic_loop(int *p, int x) {
    int n = x & 7;
    for (int k = 0; k < n; k++) {
        __atomic_fetch_add(&p[0], k + 1, __ATOMIC_RELAXED);
        __atomic_fetch_or(&p[1], 1 << ((x + k) & 31), __ATOMIC_RELAXED);
        __atomic_fetch_add(&p[2 + ((x + k) & 15)], x, __ATOMIC_SEQ_CST);
    }
    return n;
}
