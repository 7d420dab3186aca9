// Covers: the aligned clause: aligned(p:32) / aligned(p:64) on uniform
// pointers indexed by a linear index (aligned contiguous loads and stores),
// and an aligned linear pointer; the driver passes pointers with that alignment.
#pragma omp declare simd uniform(p) aligned(p:32) linear(i:1) notinbranch
float aligned_uniform_load(const float *p, int i, float x) { return p[i] * x; }

#pragma omp declare simd uniform(out, in) aligned(out, in:64) linear(i:1) notinbranch
void aligned_store(double *out, const double *in, int i) { out[i] = in[i] + 1.0; }

#pragma omp declare simd linear(p:1) aligned(p:16) notinbranch
int aligned_linear_pointer(const int *p) { return *p ^ 0x5a5a; }
