/* Two kernels clang leaves scalar: a declare-simd function with a
 * data-dependent loop, and an omp simd loop calling it. */
#include "kernels.h"

#pragma omp declare simd notinbranch
int steps(int x) {
  int n = 0;
  while (x > 1 && n < 200) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    n++;
  }
  return n;
}

void count_steps(const int *in, int *out, int count) {
#pragma omp simd
  for (int i = 0; i < count; i++)
    out[i] = steps(in[i]) + (in[i] & 3);
}
