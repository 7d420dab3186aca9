// Covers: loads that are uniform across lanes: through a uniform pointer at a
// constant offset, at a uniform index, and a uniform pointer read twice;
// they should become scalar loads and broadcasts.
#pragma omp declare simd uniform(coefficients, n) notinbranch
float uniform_coefficients(const float *coefficients, int n, float x) {
    float scale = coefficients[0];
    float offset = coefficients[n & 63];
    return x * scale + offset + coefficients[1];
}

#pragma omp declare simd uniform(base) notinbranch
long uniform_long_load(const long *base, long x) { return x + base[0] * base[2]; }
