// Covers (divergent): private arrays (allocas) written and read at varying
// indices inside divergent loops: digits of a number stored into a local
// array by a loop with a varying trip count, then read back in reverse, and a
// small local histogram updated at varying positions.
#pragma omp declare simd
long long reverse_digits(unsigned value) {
    int digits[12];
    int count = 0;
    unsigned n = value;
    do {
        digits[count++] = (int)(n % 10u);
        n /= 10u;
    } while (n != 0u);
    long long result = 0;
    for (int k = 0; k < count; k++)
        result = result * 10 + digits[k];
    return result;
}

#pragma omp declare simd
int local_histogram_mode(unsigned seed) {
    int counts[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    unsigned state = seed;
    int rounds = (int)(seed & 15u) + 4;
    for (int k = 0; k < rounds; k++) {
        state = state * 1664525u + 1013904223u;
        counts[state >> 29]++;
    }
    int best = 0;
    for (int k = 1; k < 8; k++)
        if (counts[k] > counts[best])
            best = k;
    return best * 100 + counts[best];
}
