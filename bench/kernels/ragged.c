// Ragged sums (irregular: nested loops whose trip counts both depend on the
// data): item `item` has up to 15 segments, and each segment up to 15
// elements; the counts come from a table, so neighbouring lanes run
// different numbers of outer and inner iterations.
enum { RAGGED_MASK = (1 << 20) - 1 };

#pragma omp declare simd uniform(counts, data) notinbranch
int ragged(const int *counts, const int *data, int item) {
    int segments = counts[item & RAGGED_MASK] & 15;
    unsigned sum = 0;
    for (int j = 0; j < segments; j++) {
        int elements = (counts[(item + j) & RAGGED_MASK] >> 4) & 15;
        for (int k = 0; k < elements; k++)
            sum += (unsigned)data[(item * 7 + j * 5 + k) & RAGGED_MASK] ^ (unsigned)k;
    }
    return (int)sum;
}
