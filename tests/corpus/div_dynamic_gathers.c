// Covers (divergent): gathers with dynamic variants (Karrenberg 2014,
// 7.1/7.2): `ring_window` reads data[j] with j = i + k wrapped around a ring
// (consecutive in most trials, not where the window wraps: the consecutive
// fast path and the gather); `sorted_rank` runs a binary search whose
// bounds start uniform and whose probe often agrees between lanes (the
// query takes one of two values per lane, sometimes the same in all lanes:
// the uniform fast path), also in the masked variants where lane 0 may be
// inactive; `tree_depth` walks a tree stored in arrays from a uniform root.

#define RING 100

/* The sum of data[(i + k + t) mod RING] for t = 0..3. */
#pragma omp declare simd uniform(data, k) linear(i)
float ring_window(const float *data, int k, int i) {
    float sum = 0.0f;
    for (int t = 0; t < 4; t++) {
        int j = i + (k & 63) + t;
        if (j >= RING) j -= RING;
        if (j >= RING) j -= RING;
        sum += data[j];
    }
    return sum;
}

static const int sorted_keys[32] = {2,   5,   9,   14,  20,  27,  35,  44,  54,  65,  77,
                                    90,  104, 119, 135, 152, 170, 189, 209, 230, 252, 275,
                                    299, 324, 350, 377, 405, 434, 464, 495, 527, 560};

/* The number of keys below a query that is `base` or `base + 7`. */
#pragma omp declare simd uniform(base)
int sorted_rank(int base, int flip) {
    int query = (base & 511) + (((flip >> 3) & (flip >> 4) & 1) ? 7 : 0);
    int lower = 0, upper = 32;
    while (lower < upper) {
        int middle = (lower + upper) / 2;
        if (sorted_keys[middle] < query) lower = middle + 1;
        else upper = middle;
    }
    return lower;
}

static const int left_child[15] = {1, 3, 5, 7, 9, 11, 13, -1, -1, -1, -1, -1, -1, -1, -1};
static const int right_child[15] = {2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1};
static const int node_key[15] = {64, 32, 96, 16, 48, 80, 112, 8, 24, 40, 56, 72, 88, 104, 120};

/* The depth at which a search for `key` ends. */
#pragma omp declare simd
int tree_depth(int key) {
    int node = 0, depth = 0;
    int probe = key & 127;
    while (node >= 0) {
        if (node_key[node] == probe) break;
        node = probe < node_key[node] ? left_child[node] : right_child[node];
        depth++;
    }
    return depth;
}
