// Covers (divergent): loops whose trip count is varying (for, while and
// do-while), with loop-carried values of several types live after the loop,
// a loop that may run zero times, and one bounded by a pointer walk.
#pragma omp declare simd
float sum_series(float x, int n) {
    float sum = 0.0f;
    float term = 1.0f;
    for (int k = 0; k < (n & 31); k++) {
        sum += term;
        term *= x * 0.125f;
    }
    return sum;
}

#pragma omp declare simd
long long triangular_do_while(int n) {
    long long total = 0;
    int k = n & 63;
    do {
        total += (long long)k * k;
        k -= 3;
    } while (k > 0);
    return total;
}

#pragma omp declare simd
int count_leading_steps(const unsigned char *bytes, int limit) {
    int bound = limit & 255;
    int k = 0;
    while (k < bound && bytes[k] != 0)
        k++;
    return k;
}

#pragma omp declare simd uniform(stride)
double power_by_squaring(double base, int exponent, int stride) {
    unsigned e = (unsigned)exponent & 63u;
    double result = 1.0;
    double factor = base;
    while (e != 0u) {
        if (e & 1u)
            result *= factor;
        factor *= factor;
        e >>= 1;
    }
    return result + (double)(stride & 3);
}
