// Covers: global constant tables indexed by a masked varying index (gathers
// from constant memory), a table indexed by a uniform value (scalar load),
// and a mutable global table read at a varying index.
static const float sine_table[64] = {
    0.0f, 0.0980f, 0.1951f, 0.2903f, 0.3827f, 0.4714f, 0.5556f, 0.6344f, 0.7071f, 0.7730f, 0.8315f, 0.8819f,
    0.9239f, 0.9569f, 0.9808f, 0.9952f, 1.0f, 0.9952f, 0.9808f, 0.9569f, 0.9239f, 0.8819f, 0.8315f, 0.7730f,
    0.7071f, 0.6344f, 0.5556f, 0.4714f, 0.3827f, 0.2903f, 0.1951f, 0.0980f, 0.0f, -0.0980f, -0.1951f, -0.2903f,
    -0.3827f, -0.4714f, -0.5556f, -0.6344f, -0.7071f, -0.7730f, -0.8315f, -0.8819f, -0.9239f, -0.9569f, -0.9808f,
    -0.9952f, -1.0f, -0.9952f, -0.9808f, -0.9569f, -0.9239f, -0.8819f, -0.8315f, -0.7730f, -0.7071f, -0.6344f,
    -0.5556f, -0.4714f, -0.3827f, -0.2903f, -0.1951f, -0.0980f};

static const short primes[16] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};

int mutable_table[32] = {5, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5};

#pragma omp declare simd notinbranch
float table_lookup(int index, float scale) { return sine_table[index & 63] * scale; }

#pragma omp declare simd uniform(u) notinbranch
int table_uniform_and_varying(int x, int u) { return primes[u & 15] * x + primes[x & 15] + mutable_table[(x >> 4) & 31]; }
