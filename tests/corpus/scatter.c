// Covers: scatters: a store through a masked varying index (lanes may hit the
// same element: the last lane in lane order must win, as in the scalar run),
// a store through a varying pointer (`v` pointer parameter), and a
// read-modify-write of elements at a non-affine function of a linear index
// (distinct per lane, so no two lanes update the same element).
// scatter_by_index has no notinbranch: masked variants are named too.
#pragma omp declare simd uniform(out)
void scatter_by_index(float *out, int k, float value) { out[k & 255] = value; }

#pragma omp declare simd notinbranch
void store_through_varying_pointer(int *p, int value) { p[1] = value * 3; }

#pragma omp declare simd uniform(histogram) linear(i:1) notinbranch
int scatter_increment(int *histogram, int i) {
    int slot = (i * 7) & 1023;
    histogram[slot] = histogram[slot] + 1;
    return slot;
}
