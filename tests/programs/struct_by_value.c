/* Structs passed by value (`byval` in LLVM IR) to declare-simd functions
 * that write to their copy: a uniform one (all lanes start from the
 * caller's constant struct, each changes its own copy in a divergent loop)
 * and a varying one. A vector variant receives a pointer to the caller's
 * memory, so it must copy first; without the copy the lanes wrote into the
 * caller's struct (here a constant in read-only memory: a crash). The
 * functions are not inlined, as if they came from another file. */
#include "programs.h"

#define N 1000

typedef struct {
    int a;
    float b;
    char c;
    double d;
    short e[3];
} params;

#pragma omp declare simd uniform(p) notinbranch
__attribute__((noinline)) int mix_uniform(params p, int x) {
    for (int k = 0; k < (x & 3); k++) {
        p.e[k] += (short)x;
        p.a ^= p.e[k];
    }
    return p.a + (int)p.d + p.e[2];
}

#pragma omp declare simd notinbranch
__attribute__((noinline)) int mix_varying(params p, int x) {
    p.e[x & 1] = (short)x;
    for (int k = 0; k < 12; k++) p.d = p.d * 1.5 + (double)(x % (k + 2));
    return p.e[0] + p.e[1] + (int)p.d + p.a;
}

static int xs[N], uniform_out[N], varying_out[N];
static params per_lane[N];

static const params shared = {5, 1.5f, 3, 2.25, {1, 2, 3}};

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) {
        /* Enough other work for the cost model to vectorize the loop. */
        float t = (float)xs[i];
        for (int k = 0; k < 16; k++) t = t * 0.75f + (float)k;
        uniform_out[i] = mix_uniform(shared, xs[i]) + (int)t;
    }
#pragma omp simd
    for (int i = 0; i < n; i++) varying_out[i] = mix_varying(per_lane[i], xs[i]);
}

int main(void) {
    for (int i = 0; i < N; i++) {
        xs[i] = lw_int(-5000, 5000);
        per_lane[i] = (params){lw_int(-100, 100), 0.5f, 1, lw_int(0, 50) * 0.25, {1, -2, 3}};
    }
    LW_TIMED(kernel(N));
    lw_print_ints("uniform", uniform_out, N);
    lw_print_ints("varying", varying_out, N);
    int untouched = 0;
    for (int i = 0; i < N; i++) untouched += per_lane[i].e[0] == 1 && per_lane[i].e[1] == -2;
    printf("callers' structs unchanged: %d of %d\n", untouched, N);
    return 0;
}
