/* Euclid's algorithm per lane (two varying arguments, a divergent loop with
 * integer division) and a uniform modulus. */
#include "programs.h"

#define N 2900

#pragma omp declare simd notinbranch
int gcd(int a, int b) {
    while (b != 0) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

#pragma omp declare simd notinbranch uniform(modulus)
int power_mod(int base, int exponent, int modulus) {
    long long result = 1, b = base % modulus;
    while (exponent > 0) {
        if (exponent & 1) result = result * b % modulus;
        b = b * b % modulus;
        exponent >>= 1;
    }
    return (int)result;
}

static int as[N], bs[N], g[N], p[N];

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) {
        g[i] = gcd(as[i], bs[i]);
        p[i] = power_mod(as[i], bs[i], 1000003);
    }
}

int main(void) {
    for (int i = 0; i < N; i++) {
        as[i] = lw_int(1, 1 << 24);
        bs[i] = lw_int(0, 1 << 20);
    }
    LW_TIMED(kernel(N));
    lw_print_ints("gcd", g, N);
    lw_print_ints("power_mod", p, N);
    return 0;
}
