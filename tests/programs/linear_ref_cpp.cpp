/* `linear(ref(x))` on C++ reference parameters (issue 14, class 7): the
 * variants take lane 0's reference, lane i's is `&x + i` (`R4` in the
 * variant name for an int, `R8` for a double), as GCC's and libgomp's simd
 * tests write them. Called from omp simd loops over consecutive elements,
 * with a divergent branch and a write through the reference. */
#include "programs.h"

#define N 1500

static int counts[N];
static double weights[N];
static int results[N];
static double scaled[N];

#pragma omp declare simd linear(ref(count)) notinbranch
__attribute__((noinline)) int bump(int &count) {
    int before = count;
    if (before % 3 == 0) count = before / 3;
    else count = before * 2 + 1;
    return before + count;
}

#pragma omp declare simd linear(ref(weight)) uniform(factor) notinbranch
__attribute__((noinline)) double scale(double &weight, double factor) {
    double w = weight;
    return w > 0.5 ? w * factor : w - factor;
}

static void kernel(int n) {
    #pragma omp simd
    for (int i = 0; i < n; i++) results[i] = bump(counts[i]);
    #pragma omp simd
    for (int i = 0; i < n; i++) scaled[i] = scale(weights[i], 3.25);
}

int main(void) {
    for (int i = 0; i < N; i++) {
        counts[i] = lw_int(0, 1000);
        weights[i] = lw_double(0.0, 1.0);
    }
    LW_TIMED(kernel(N));
    lw_print_ints("results", results, N);
    lw_print_ints("counts", counts, N);
    lw_print_doubles("scaled", scaled, N);
    return 0;
}
