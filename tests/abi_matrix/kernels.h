// The declare-simd functions of the ABI matrix (crates/lanewise/tests/abi_matrix.rs).
// kernels.c defines kf, ki, km, kd, kn and kg; chain.c defines kc, whose variants call
// kf's; fallback.c defines kw without the pragma.
#ifndef ABI_MATRIX_KERNELS_H
#define ABI_MATRIX_KERNELS_H

#pragma omp declare simd notinbranch simdlen(16) uniform(k)
float kf(float x, int k);

#pragma omp declare simd notinbranch simdlen(16)
int ki(int x);

#pragma omp declare simd inbranch simdlen(16)
float km(float x);

#pragma omp declare simd notinbranch simdlen(8)
double kd(double x, double y);

// A divergent loop over 32 lanes of `int` (1024-bit values): narrowed on
// AVX-512 (zmm compresses).
#pragma omp declare simd notinbranch simdlen(32)
int kn(int seed);

// Called in a loop without the pragma (plain_loop.c).
#pragma omp declare simd notinbranch
float kg(float x);

// Its 16-lane variants take 128-bit vectors and call kf's, which take 512-bit
// vectors on AVX-512.
#pragma omp declare simd notinbranch simdlen(16)
signed char kc(signed char c);

// Declared with the pragma only here (and only for clang: GCC callers call
// the scalar function): fallback.c defines it without, so every caller built
// by `lanewise cc` defines a weak fallback variant calling it per lane.
#ifdef __clang__
#pragma omp declare simd notinbranch simdlen(16)
#endif
float kw(float x);

#endif
