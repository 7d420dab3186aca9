// Covers (divergent): divergent returns: several return statements under
// varying conditions, from straight-line code and from inside a loop, with
// different return values per exit (the return value becomes a blend of the
// exits' values, each lane keeps the value of the first return it reached).
#pragma omp declare simd
int early_returns(int x, int y) {
    if (x == y)
        return 0;
    if (x < 0)
        return -1;
    if ((unsigned)y > 1000u)
        return 1;
    int sum = (int)((unsigned)x + (unsigned)(y & 255));
    if (sum & 1)
        return sum;
    return sum / 2 + 3;
}

#pragma omp declare simd
double return_from_loop(double x, int n) {
    double value = x;
    for (int k = 0; k < (n & 31); k++) {
        if (value > 100.0)
            return value - (double)k;
        if (value < -100.0)
            return -(double)k;
        value = value * 1.25 + 3.0;
    }
    if (value != value)
        return 0.5;
    return value;
}

#pragma omp declare simd
void return_before_store(float *out, float x) {
    if (x != x)
        return;
    if (x < 0.0f) {
        out[0] = -x;
        return;
    }
    out[1] = x;
    if (x > 50.0f)
        return;
    out[2] = x * 2.0f;
}
