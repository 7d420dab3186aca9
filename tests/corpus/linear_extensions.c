// Covers: extensions of linear int values whose lanes cross zero (a = -2,
// 1, 4, 7 with linear(a:3)): `(unsigned)a` zero-extended is not linear
// there (2^32 - 2, 1, 4, 7), `(long long)a` is; an index that clang proves
// non-negative under a condition (`zext nneg`) in a masked variant whose
// lane 0 is negative (fuzz_regressions/016).
#include <stdint.h>

static unsigned small_table[64] = {
    3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5,
    0, 2, 8, 8, 4, 1, 9, 7, 1, 6, 9, 3, 9, 9, 3, 7, 5, 1, 0, 5, 8, 2, 0, 9, 7, 4, 9, 4, 4, 5, 9, 2,
};

#pragma omp declare simd linear(a:3) notinbranch
long long unsigned_extension(int a) { return (long long)(unsigned)a * 2 + (long long)a; }

#pragma omp declare simd linear(a:3) inbranch
unsigned index_known_small(int a) {
    unsigned r = 7;
    if (a == 0 || a == 1) r += small_table[(unsigned)a & 63u];
    return r;
}
