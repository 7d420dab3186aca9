// Covers (divergent): nests of two divergent loops whose inner body is
// costly enough to be flattened into one loop (`--flatten-nests`,
// transform::divergent_loops::flatten_nests): a ragged sum with six
// xorshift rounds and a float update per inner step, the same with a store
// after each inner loop through a linear pointer (each lane its own
// element) and a float carried through both loops, and a search that
// leaves both loops at once from the inner one.

#pragma omp declare simd uniform(counts) notinbranch
int ragged_heavy(const int *counts, int item) {
    int segments = counts[item & 63] & 15;
    unsigned sum = 0;
    for (int j = 0; j < segments; j++) {
        unsigned h = (unsigned)(item + j) * 2654435761u;
        int elements = (int)(h >> 28);
        unsigned x = h | 1u;
        float f = 0.5f;
        for (int k = 0; k < elements; k++) {
            for (int r = 0; r < 6; r++) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                f = f * 0.75f + (float)(x & 255u);
            }
            sum += x * (unsigned)k + (unsigned)f;
        }
    }
    return (int)sum;
}

#pragma omp declare simd uniform(counts) linear(out:1) notinbranch
float segment_store(const int *counts, float *out, int item) {
    int segments = (counts[item & 63] >> 4) & 7;
    float carried = 1.0f;
    for (int j = 0; j < segments; j++) {
        int elements = (counts[(item + 3 * j) & 63] >> 8) & 15;
        unsigned x = (unsigned)(item * 31 + j) | 1u;
        for (int k = 0; k < elements; k++) {
            for (int r = 0; r < 6; r++) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                carried = carried * 0.5f + (float)(x & 63u) * 0.125f;
            }
        }
        *out = carried + (float)j;
    }
    return carried;
}

#pragma omp declare simd uniform(limit) notinbranch
int search_both_loops(int seed, int limit) {
    unsigned x = (unsigned)seed | 1u;
    int steps = 0;
    for (int j = 0; j < (seed & 15); j++) {
        int elements = (int)((x >> 7) & 15u);
        for (int k = 0; k < elements; k++) {
            for (int r = 0; r < 6; r++) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                steps += (int)(x & 3u);
            }
            if ((x & 1023u) == (unsigned)(limit & 1023))
                return -steps;
        }
        steps += j;
    }
    return steps;
}
