// Covers: gathers through an index array: a contiguous load of indices
// (uniform pointer + linear index), masked to stay in bounds, then a load
// through them (float and double), and a gather with a varying index value.
// lanewise-test: gcc-caller
#pragma omp declare simd uniform(table, indices) linear(i:1) notinbranch
float gather_through_indices(const float *table, const int *indices, int i) {
    return table[indices[i] & 1023] * 2.0f;
}

#pragma omp declare simd uniform(table) notinbranch
double gather_varying_index(const double *table, int k) { return table[k & 511] + table[(k >> 9) & 511]; }
