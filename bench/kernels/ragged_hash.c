// Ragged hashing (irregular: nested loops whose trip counts both depend on
// the data, as in ragged.c, with a costly step per element): item `item`
// has up to 15 segments, each of up to 15 elements; each element runs six
// xorshift rounds and a float update. The inner body outweighs the outer
// loop's code, so lanewise flattens the nest into one loop
// (`--flatten-nests`): a lane waits only for the lane with the most steps.
enum { RAGGED_HASH_MASK = (1 << 20) - 1 };

#pragma omp declare simd uniform(counts) notinbranch
int ragged_hash(const int *counts, int item) {
    int segments = counts[item & RAGGED_HASH_MASK] & 15;
    unsigned sum = 0;
    for (int j = 0; j < segments; j++) {
        unsigned h = (unsigned)(item + j) * 2654435761u;
        int elements = (counts[(item + j) & RAGGED_HASH_MASK] >> 4) & 15;
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
