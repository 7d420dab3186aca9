// Covers (divergent): Euclid's and the binary GCD: loops whose trip counts
// depend on the data, a remainder whose divisor is the loop-carried value
// (never zero while the loop runs), and a shift loop nested in the main loop.
#pragma omp declare simd
unsigned euclid_gcd(unsigned a, unsigned b) {
    while (b != 0u) {
        unsigned remainder = a % b;
        a = b;
        b = remainder;
    }
    return a;
}

#pragma omp declare simd
unsigned binary_gcd(unsigned a, unsigned b) {
    if (a == 0u)
        return b;
    if (b == 0u)
        return a;
    int shift = 0;
    while (((a | b) & 1u) == 0u) {
        a >>= 1;
        b >>= 1;
        shift++;
    }
    while ((a & 1u) == 0u)
        a >>= 1;
    do {
        while ((b & 1u) == 0u)
            b >>= 1;
        if (a > b) {
            unsigned t = a;
            a = b;
            b = t;
        }
        b -= a;
    } while (b != 0u);
    return a << shift;
}
