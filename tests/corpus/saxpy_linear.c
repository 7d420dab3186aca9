// Covers: float multiply-add with a uniform scalar, a uniform pointer indexed by a
// linear index (contiguous load), a varying float; a second kernel storing
// through a linear pointer (contiguous store); the store kernel has no
// notinbranch, so masked (M) variants are named too.
// lanewise-test: gcc-caller
#pragma omp declare simd uniform(a, x) linear(i:1) notinbranch
float saxpy(float a, const float *x, int i, float y) { return a * x[i] + y; }

#pragma omp declare simd uniform(a) linear(out:1)
void scale_store(float a, float *out, float v) { *out = a * v; }
