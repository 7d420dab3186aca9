/* A declare-simd function that calls setjmp (a `returns_twice` call): a
 * longjmp from a helper returns through it again. A vector variant would
 * resume there for one lane while the others went on (the program hung),
 * so Lanewise refuses the function with a warning naming the call; the
 * loop still vectorizes and calls the scalar function once per lane. */
#include "programs.h"
#include <setjmp.h>

#define N 2000

static jmp_buf recovery;

__attribute__((noinline)) static void check(int x) {
    if (x % 17 == 0) longjmp(recovery, x);
}

#pragma omp declare simd notinbranch
int guarded(int x) {
    int failed = setjmp(recovery);
    if (failed != 0) return -failed;
    check(x);
    return x * 2 + 1;
}

static int xs[N], out[N];

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) out[i] = guarded(xs[i]);
}

int main(void) {
    for (int i = 0; i < N; i++) xs[i] = lw_int(1, 100000);
    LW_TIMED(kernel(N));
    lw_print_ints("guarded", out, N);
    return 0;
}
