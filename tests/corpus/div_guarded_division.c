// Covers (divergent): integer division and remainder under a varying guard:
// the divisor is zero (or the quotient overflows, INT_MIN / -1) exactly in
// the lanes that do not take the guarded path, so the widened code must not
// divide in inactive lanes (it has to make the divisor safe or scalarize).
#pragma omp declare simd
int guarded_divide(int a, int b) {
    if (b != 0 && !(a == -2147483647 - 1 && b == -1))
        return a / b + a % b;
    return a;
}

#pragma omp declare simd
unsigned guarded_unsigned_mod(unsigned a, unsigned b) {
    unsigned result = a;
    if (b > 3u)
        result = a % b;
    else if (b == 1u)
        result = a / b + 1u;
    return result;
}

#pragma omp declare simd
long long guarded_divide_loop(long long a, int n) {
    long long value = a;
    for (int divisor = n & 15; divisor > 0; divisor -= 2) {
        if (value == 0)
            break;
        value = value / divisor;
    }
    return value;
}
