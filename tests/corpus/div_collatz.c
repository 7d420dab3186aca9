// Covers (divergent): Collatz steps: a loop with a data-dependent trip count
// (bounded) and a varying if/else in the body (two arms with different
// arithmetic, blended after linearization), in 32- and 64-bit arithmetic.
#pragma omp declare simd
int collatz_steps(int start) {
    unsigned n = ((unsigned)start & 0xffffu) + 1u;
    int steps = 0;
    while (n != 1u && steps < 300) {
        if (n & 1u)
            n = 3u * n + 1u;
        else
            n >>= 1;
        steps++;
    }
    return steps;
}

#pragma omp declare simd
unsigned long long collatz_peak(unsigned long long start) {
    unsigned long long n = (start & 0xfffffull) + 1ull;
    unsigned long long peak = n;
    for (int k = 0; k < 200 && n != 1ull; k++) {
        n = (n & 1ull) ? 3ull * n + 1ull : n / 2ull;
        if (n > peak)
            peak = n;
    }
    return peak;
}
