// Covers (divergent): calls of declare-simd functions under divergent
// branches: the caller's variant calls the callee's masked (`M`) variant
// with the branch's mask (never the unmasked one, which would run the
// callee in inactive lanes: here they would be recorded). The callees have both N and M variants; the callers' own masked
// variants pass their entry mask on. Also a callee under a loop whose trip
// count is varying (the mask shrinks per iteration).
// crates/lanewise/tests/variant_calls.rs checks in the report that every
// call uses a variant.
#include "lw_test.h"

#pragma omp declare simd
__attribute__((noinline)) int masked_divide_record(int x, int d) {
    lw_record(1, x);
    return x / ((d & 0xff) + 1);
}

#pragma omp declare simd
int masked_guarded_divide(int x, int d) {
    if (d > 3)
        return masked_divide_record(x, d);
    return -x;
}

#pragma omp declare simd
__attribute__((noinline)) float masked_halve(float x) { return x * 0.5f + 0.25f; }

#pragma omp declare simd
float masked_halve_until_small(float x) {
    int steps = 0;
    while (x > 1.0f && steps < 40) {
        x = masked_halve(x);
        steps++;
    }
    return x + (float)steps;
}
