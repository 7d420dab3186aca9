/* Trip counts 0, 1 and every remainder modulo 8 and 16, with a start offset
 * (the loop's first iteration is not aligned). */
#include "programs.h"

#define N 300

static int data[N + 40], result[N + 40];

#pragma omp declare simd notinbranch
int triangular_root(int x) {
    int k = 0;
    while ((k + 1) * (k + 2) / 2 <= x) k++;
    return k;
}

static void kernel(int start, int n) {
#pragma omp simd
    for (int i = start; i < start + n; i++) result[i] = triangular_root(data[i]) - data[i] % 3;
}

int main(void) {
    for (int i = 0; i < N + 40; i++) data[i] = lw_int(0, 5000);
    for (int n = 0; n <= 35; n++) {
        for (int start = 0; start < 3; start++) {
            for (int i = 0; i < N + 40; i++) result[i] = -7;
            LW_TIMED(kernel(start, n));
            printf("start=%d n=%d hash=%08x\n", start, n, lw_hash_words(result, N + 40));
        }
    }
    for (int i = 0; i < N + 40; i++) result[i] = -7;
    kernel(5, N);
    lw_print_ints("full", result, N + 40);
    return 0;
}
