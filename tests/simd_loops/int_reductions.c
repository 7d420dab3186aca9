// expect-vectorized: 2
#include "lw_loops.h"
NOINLINE int opaque_i(int x) { return x * 3 - 1; }
NOINLINE long long int_reductions(const int *a, int n, int *out) {
  int sum = 5, prod = 1, land = -1, lor = 0, lxor = 0, mn = 1000000, mx = -1000000;
  unsigned umn = 0xffffffffu, umx = 0;
  #pragma omp simd reduction(+:sum) reduction(*:prod) reduction(&:land) reduction(|:lor) \
      reduction(^:lxor) reduction(min:mn) reduction(max:mx) reduction(min:umn) reduction(max:umx)
  for (int i = 0; i < n; i++) {
    int v = opaque_i(a[i]);
    sum += v;
    prod *= (v & 3) + 1;
    land &= v | 0x10;
    lor |= v & 0x70;
    lxor ^= v;
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
    umn = (unsigned)v < umn ? (unsigned)v : umn;
    umx = (unsigned)v > umx ? (unsigned)v : umx;
  }
  out[0] = sum; out[1] = prod; out[2] = land; out[3] = lor; out[4] = lxor;
  out[5] = mn; out[6] = mx; out[7] = (int)umn; out[8] = (int)umx;
  return sum;
}
/* A conditional update and subtraction. */
NOINLINE int conditional_sum(const int *a, int n) {
  int s = 100;
  #pragma omp simd reduction(+:s)
  for (int i = 0; i < n; i++) {
    int v = opaque_i(a[i]);
    if (v > 0) s += v; else s -= 2;
  }
  return s;
}
void lw_test(void) {
  static int a[LW_MAX]; int out[9]; int n;
  for (int i = 0; i < LW_MAX; i++) a[i] = lw_iinput(i);
  LW_FOR_TRIP_COUNTS(n) {
    int_reductions(a, n, out);
    for (int k = 0; k < 9; k++) { char name[32]; snprintf(name, sizeof name, "int_reduction%d", k); lw_exact_int(name, n, out[k]); }
    lw_exact_int("conditional_sum", n, conditional_sum(a, n));
  }
}
