// expect-vectorized: 4
// User-defined reductions (`#pragma omp declare reduction`, issue 14,
// class 13). clang-22 -fopenmp-simd gives the loop one private copy,
// initialized by the initializer, and inlines the combiner after the loop;
// a scalar copy (an int, a struct of scalars split by SROA) is then an
// ordinary recurrence and vectorizes as a reduction. A copy in memory (a
// struct holding an array) would be shared by the lanes: refused, as is a
// min-with-index whose index update reads the minimum.
#include "lw_loops.h"

NOINLINE int opaque_i(int x) { return x * 3 - 1; }
NOINLINE float opaque_f(float x) { return x * 0.5f - 1.0f; }

#pragma omp declare reduction(myadd : int : omp_out += omp_in) initializer(omp_priv = 0)
NOINLINE int udr_int_sum(const int *a, int n) {
  int s = 3;
  #pragma omp simd reduction(myadd : s)
  for (int i = 0; i < n; i++) s += opaque_i(a[i]);
  return s;
}

struct total { int s; };
#pragma omp declare reduction(plus : struct total : omp_out.s += omp_in.s)
NOINLINE int udr_struct_sum(const int *a, int n) {
  struct total t = {5};
  #pragma omp simd reduction(plus : t)
  for (int i = 0; i < n; i++) t.s += opaque_i(a[i]) & 0x3ff;
  return t.s;
}

typedef struct { double re, im; } complex_sum;
#pragma omp declare reduction(csum : complex_sum : omp_out.re += omp_in.re, omp_out.im += omp_in.im) \
    initializer(omp_priv = (complex_sum){0, 0})
NOINLINE complex_sum udr_complex_sum(const float *x, int n) {
  complex_sum c = {1, 2};
  #pragma omp simd reduction(csum : c)
  for (int i = 0; i < n; i++) {
    float v = opaque_f(x[i]);
    c.re += v;
    c.im -= v * 2;
  }
  return c;
}

#pragma omp declare reduction(imax : int : omp_out = omp_in > omp_out ? omp_in : omp_out) \
    initializer(omp_priv = -2147483647 - 1)
NOINLINE int udr_max(const int *a, int n) {
  int m = 0;
  #pragma omp simd reduction(imax : m)
  for (int i = 0; i < n; i++) {
    int v = opaque_i(a[i]);
    m = v > m ? v : m;
  }
  return m;
}

/* The private copy is an array in memory, updated at `i & 3`: refused. */
typedef struct { int a[4]; } quad;
#pragma omp declare reduction(qsum : quad : omp_out.a[0] += omp_in.a[0], omp_out.a[1] += omp_in.a[1], \
    omp_out.a[2] += omp_in.a[2], omp_out.a[3] += omp_in.a[3]) initializer(omp_priv = (quad){{0, 0, 0, 0}})
NOINLINE quad udr_quad_sum(const int *a, int n) {
  quad q = {{1, 2, 3, 4}};
  #pragma omp simd reduction(qsum : q)
  for (int i = 0; i < n; i++) q.a[i & 3] += opaque_i(a[i]);
  return q;
}

/* Minimum with its index: the index update reads the minimum. Refused. */
typedef struct { float v; int i; } minloc;
#pragma omp declare reduction(mloc : minloc : omp_out = (omp_in.v < omp_out.v || \
    (omp_in.v == omp_out.v && omp_in.i < omp_out.i)) ? omp_in : omp_out) \
    initializer(omp_priv = (minloc){1e30f, -1})
NOINLINE minloc udr_minloc(const float *x, int n) {
  minloc m = {1e30f, -1};
  #pragma omp simd reduction(mloc : m)
  for (int i = 0; i < n; i++) {
    float v = opaque_f(x[i]);
    if (v < m.v) {
      m.v = v;
      m.i = i;
    }
  }
  return m;
}

void lw_test(void) {
  static int a[LW_MAX];
  static float x[LW_MAX];
  int n;
  for (int i = 0; i < LW_MAX; i++) {
    a[i] = lw_iinput(i);
    x[i] = lw_input(i);
  }
  LW_FOR_TRIP_COUNTS(n) {
    lw_exact_int("udr_int_sum", n, udr_int_sum(a, n));
    lw_exact_int("udr_struct_sum", n, udr_struct_sum(a, n));
    complex_sum c = udr_complex_sum(x, n);
    lw_approx("udr_complex_sum.re", n, c.re);
    lw_approx("udr_complex_sum.im", n, c.im);
    lw_exact_int("udr_max", n, udr_max(a, n));
    quad q = udr_quad_sum(a, n);
    lw_exact_iarray("udr_quad_sum", n, q.a, 4);
    minloc m = udr_minloc(x, n);
    lw_exact_float("udr_minloc.v", n, m.v);
    lw_exact_int("udr_minloc.i", n, m.i);
  }
}
