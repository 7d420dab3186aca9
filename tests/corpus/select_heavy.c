// Covers: select-heavy code without branches: clamps, sign functions,
// absolute values, min/max chains and conditional swaps written with
// ternaries (selects after clang -O1 and up), for int, float and double.
#pragma omp declare simd notinbranch
int select_int_chain(int a, int b, int c) {
    int lo = a < b ? a : b;
    int hi = a < b ? b : a;
    int clamped = c < lo ? lo : c;
    clamped = clamped > hi ? hi : clamped;
    int sign = (c > 0) - (c < 0);
    return clamped * 2 + sign;
}

#pragma omp declare simd notinbranch
float select_float_clamp(float x, float lo, float hi) {
    float low = lo < hi ? lo : hi;
    float high = lo < hi ? hi : lo;
    float y = x < low ? low : x;
    y = y > high ? high : y;
    return y > 0.0f ? y : -y;
}

#pragma omp declare simd uniform(threshold) notinbranch
double select_threshold(double x, double y, double threshold) {
    double larger = x > y ? x : y;
    double smaller = x > y ? y : x;
    return larger - threshold > smaller ? larger * 2.0 : smaller + threshold;
}
