/* Integer reductions + and * (wrapping unsigned product), exact in any order. */
#include "programs.h"

#define N 1237

static int values[N];
static unsigned factors[N];

#pragma omp declare simd notinbranch
int digit_sum(int x) {
    int sum = 0;
    while (x > 0) {
        sum += x % 10;
        x /= 10;
    }
    return sum;
}

static int sum_digits(int n) {
    int total = 0;
#pragma omp simd reduction(+ : total)
    for (int i = 0; i < n; i++) total += digit_sum(values[i]);
    return total;
}

static unsigned product(int n) {
    unsigned result = 1u;
#pragma omp simd reduction(* : result)
    for (int i = 0; i < n; i++) result *= factors[i] | 1u;
    return result;
}

int main(void) {
    for (int i = 0; i < N; i++) {
        values[i] = lw_int(0, 1 << 30);
        factors[i] = lw_next();
    }
    int sizes[] = {0, 1, 7, 8, 9, 100, N};
    for (int k = 0; k < 7; k++) {
        int total = 0;
        unsigned prod = 0;
        LW_TIMED(total = sum_digits(sizes[k]); prod = product(sizes[k]));
        printf("n=%d sum=%d product=%u\n", sizes[k], total, prod);
    }
    return 0;
}
