// Covers (divergent): a divergent loop inside a uniform loop (the outer loop
// keeps a uniform trip count and stays a plain loop), a uniform loop inside a
// divergent loop, and two nested divergent loops whose inner trip count
// depends on the outer induction variable and the lane's input.
#pragma omp declare simd uniform(rows)
int divergent_in_uniform(int x, int rows) {
    int total = 0;
    for (int r = 0; r < (rows & 7); r++) {
        int value = (x >> r) & 63;
        while (value > 1) {
            value = (value & 1) ? value - 1 : value >> 1;
            total++;
        }
    }
    return total;
}

#pragma omp declare simd uniform(coefficients, degree)
float uniform_in_divergent(const float *coefficients, int degree, float x) {
    float value = x;
    int rounds = 0;
    while (value > 1.0f && rounds < 8) {
        float polynomial = 0.0f;
        for (int k = 0; k < (degree & 7); k++)
            polynomial = polynomial * 0.5f + coefficients[k];
        value = value * 0.5f - (polynomial > 0.0f ? 0.0f : 1.0f);
        rounds++;
    }
    return value + (float)rounds;
}

#pragma omp declare simd
int nested_divergent(int x) {
    int outer = x & 15;
    unsigned product = 1u;
    for (int i = 0; i < outer; i++) {
        int inner = (x >> (i & 7)) & 7;
        for (int j = 0; j < inner; j++) {
            product = product * 3u + (unsigned)j;
            if ((product & 0xffu) == 0x7fu)
                break;
        }
    }
    return (int)product;
}
