// Covers (divergent): loads under a varying guard that would fault if run in
// inactive lanes: the index is only valid on the guarded path (full-range
// random integers point gigabytes away from the buffer in other lanes), so
// the widened loads must be masked (masked gathers / per-lane guards), for a
// uniform pointer, a static table, and a varying pointer guarded by its own
// first byte.
static const short guarded_table[64] = {
    3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2,
    6, 4, 3, 3, 8, 3, 2, 7, 9, 5, 0, 2, 8, 8, 4, 1, 9, 7, 1, 6, 9, 3,
    9, 9, 3, 7, 5, 1, 0, 5, 8, 2, 0, 9, 7, 4, 9, 4, 4, 5};

#pragma omp declare simd uniform(data, n)
float load_if_in_bounds(const float *data, int n, int i) {
    float x = -1.0f;
    if (i >= 0 && i < (n & 2047))
        x = data[i];
    return x;
}

#pragma omp declare simd
int table_if_in_bounds(int i) {
    if ((unsigned)i < 64u)
        return guarded_table[i] * 10;
    if (i < 0 && i > -64)
        return guarded_table[-i];
    return 0;
}

#pragma omp declare simd uniform(data)
double load_far_if_small(const double *data, long long offset) {
    double sum = 0.0;
    if (offset < 1000 && offset > -1000) {
        sum = data[offset];
        if (offset & 1)
            sum += data[offset + 1];
    }
    return sum;
}

#pragma omp declare simd uniform(base)
int load_in_divergent_loop(const int *base, int start) {
    int i = start;
    int total = 0;
    while (i >= 0 && i < 2000) {
        total += base[i] & 0xff;
        i += (base[i] & 0x1f) + 1;
    }
    return total;
}
