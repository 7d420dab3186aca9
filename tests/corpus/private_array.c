// Covers: a small private (stack) array per lane, written in a uniform loop
// and read at uniform indices; and a private array of structs.
#pragma omp declare simd uniform(u) notinbranch
float private_array_uniform_index(float x, int u) {
    float scratch[8];
    for (int k = 0; k < 8; k++)
        scratch[k] = x * (float)k + 1.0f;
    return scratch[u & 7] - scratch[(u + 3) & 7];
}

struct pair { int first, second; };

#pragma omp declare simd uniform(u) notinbranch
int private_struct_array(int x, int y, int u) {
    struct pair pairs[4];
    for (int k = 0; k < 4; k++) {
        pairs[k].first = x + k;
        pairs[k].second = y * k;
    }
    return pairs[u & 3].first ^ pairs[(u >> 2) & 3].second;
}
