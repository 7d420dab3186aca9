// Seed of the malformed-input campaign (crates/lanewise/tests/malformed_inputs.rs):
// clang-22 -O2 -fopenmp-simd -S -emit-llvm kernel.c -o kernel.ll
#pragma omp declare simd notinbranch linear(p) uniform(n)
#pragma omp declare simd inbranch simdlen(8)
int steps(int x, const float *p, int n) {
  int count = 0;
  while (x != 1 && count < n) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    count++;
  }
  return count + (int)p[0];
}
