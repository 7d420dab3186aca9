// Covers (divergent): stores under varying conditions: contiguous masked
// stores through a linear pointer, masked scatters through a uniform pointer
// with a varying index (two lanes may hit the same address: the last active
// lane in lane order wins), a uniform store (same address in every lane)
// under a varying predicate, and stores through varying pointers.
#pragma omp declare simd linear(out) uniform(threshold)
void store_if_above(float *out, float x, float threshold) {
    if (x > threshold)
        *out = x - threshold;
    else if (x < -threshold)
        *out = -1.0f;
}

#pragma omp declare simd uniform(table)
void scatter_if_odd(int *table, int index, int value) {
    if (value & 1)
        table[index & 63] = value;
    if (value < 0)
        table[64 + ((index >> 8) & 31)] = index;
}

#pragma omp declare simd uniform(flag_cell)
int uniform_store_under_mask(int *flag_cell, int x) {
    int doubled = x & 0x3fffffff;
    if (doubled > 1000) {
        flag_cell[0] = 1;
        flag_cell[1] = x;
    }
    return doubled;
}

#pragma omp declare simd linear(out:2)
double store_pair_conditionally(double *out, double x) {
    if (x > 0.0) {
        out[0] = x;
        if (x > 50.0)
            out[1] = x * x;
    } else {
        out[1] = -x;
    }
    return x;
}

#pragma omp declare simd
void store_through_varying(short *slot, int x) {
    for (int k = 0; k < (x & 15); k++) {
        if ((x >> k) & 1)
            slot[k] = (short)(k * 3 + 1);
    }
}
