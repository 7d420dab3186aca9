// Covers: a uniform pointer to a struct of coefficients (loads of fields at
// constant offsets, all uniform), a struct of mixed field types, and a store
// into a varying element of an array inside a uniform struct.
#include <stdint.h>

struct coefficients {
    float a, b, c;
    int shift;
    double bias;
    int16_t table[8];
};

#pragma omp declare simd uniform(k) notinbranch
float struct_quadratic(const struct coefficients *k, float x) { return (k->a * x + k->b) * x + k->c; }

#pragma omp declare simd uniform(k) notinbranch
double struct_mixed_fields(const struct coefficients *k, int x) {
    return (double)(x >> (k->shift & 7)) + k->bias + k->table[x & 7];
}

#pragma omp declare simd uniform(k) linear(i:1) notinbranch
void struct_array_store(struct coefficients *k, int i, int16_t value) { k->table[i & 7] = value; }
