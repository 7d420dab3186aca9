// Covers (divergent): linear search of a uniform array for a varying key
// with a varying break (first match), a search with a sentinel and a bound,
// and a count of matches up to the first sentinel value.
#pragma omp declare simd uniform(data, n)
int first_index_of(const int *data, int n, int key) {
    int wanted = key & 15;
    for (int k = 0; k < (n & 511); k++) {
        if ((data[k] & 15) == wanted)
            return k;
    }
    return -1;
}

#pragma omp declare simd uniform(data)
int count_before_sentinel(const short *data, short sentinel) {
    int count = 0;
    int k = 0;
    while (k < 1000) {
        short value = data[k];
        if (value == sentinel || (value & 0xff) == (sentinel & 0xff))
            break;
        if (value > 0)
            count++;
        k++;
    }
    return count + k * 10000;
}
