// Covers (divergent): the dynamic consecutive tests of gathers and
// scatters whose addresses come from a varying integer parameter (callers
// pass a loop's `i` without a `linear` clause; the driver passes
// consecutive integers in one trial of four): `rising_length` follows a run
// `values[i + 1] > values[i]` from `start`, its lanes leaving at different
// times while the others still read consecutive elements (the test starts
// from the first active lane, and the recurrence `i++` keeps the lanes'
// distances); `ring_read` reads a ring at `(position + k + t) & 255`
// (consecutive until it wraps); `mark_positive` stores at `index & 127`
// under a varying condition.

#pragma omp declare simd uniform(values)
int rising_length(const int *values, int start) {
    int i = start & 255, length = 0;
    unsigned sum = 0;
    while (i < 255 && values[i + 1] > values[i]) {
        sum += (unsigned)values[i + 1];
        length++;
        i++;
    }
    return length * 1000 + (int)(sum & 511);
}

#pragma omp declare simd uniform(data, k)
float ring_read(const float *data, int k, int position) {
    float sum = 0.0f;
    for (int t = 0; t < 3; t++) sum += data[(position + (k & 15) + t) & 255];
    return sum;
}

#pragma omp declare simd uniform(out)
void mark_positive(float *out, int index, float v) {
    if (v > 0.0f) out[index & 127] = v;
}
