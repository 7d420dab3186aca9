// expect-vectorized: 43
/* Short vector types (clang's `ext_vector_type`, issue 14, class 12):
 * `declare simd` functions with `float4`, `int4` and `double2` parameters
 * and results, called from `omp simd` loops over arrays of such vectors.
 * A varying `<N x T>` of a W-lane variant travels as `<W*N x T>`, lane l's
 * element e at l*N + e (README, "Short vector types"). Every result is
 * compared bit for bit with clang's scalar build. The functions are
 * noinline, so the loops call their variants (the `calls` counts of the
 * report, checked by the test). 43 passed remarks: each of the nine
 * functions gets four variants (b, c, d, e; unmasked, masked for the
 * inbranch `blend4`), plus the seven loops. */
#include <math.h>
#include "lw_loops.h"
typedef float float4 __attribute__((ext_vector_type(4)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef double double2 __attribute__((ext_vector_type(2)));

#pragma omp declare simd notinbranch
NOINLINE float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

#pragma omp declare simd notinbranch
NOINLINE float4 cross4(float4 a, float4 b) { return a.yzxw * b.zxyw - a.zxyw * b.yzxw; }

#pragma omp declare simd notinbranch
NOINLINE float4 normalize4(float4 a) {
  float len = sqrtf(a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w);
  if (len > 0.0f) return a / len;
  return (float4){0.0f, 0.0f, 0.0f, 1.0f};
}

#pragma omp declare simd notinbranch uniform(t)
NOINLINE float4 lerp_select(float4 a, float4 b, float t) {
  float4 mixed = a + (b - a) * t;
  return a.x > b.x ? mixed : (float4){mixed.w, mixed.z, b.y, a.x};
}

#pragma omp declare simd inbranch
NOINLINE float4 blend4(float4 a, float4 b, float s) {
  float4 r = a;
  for (int k = 0; k < 4; k++)
    if (r[k] < s) r[k] = b[k] * s;
  return r;
}

#pragma omp declare simd notinbranch
NOINLINE int4 max4i(int4 a, int4 b) {
  int4 m = a > b ? a : b;
  return (m ^ (b << 1)) + (int4){a.w, a.z, a.y, a.x};
}

#pragma omp declare simd notinbranch
NOINLINE double2 cmul2(double2 a, double2 b) {
  return (double2){a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}

/* A divergent loop carrying a float4 (trip count per lane). */
#pragma omp declare simd notinbranch
NOINLINE float4 iterate4(float4 a, int n) {
  float4 acc = 0;
  for (int k = 0; k < n; k++) {
    if (acc.x > 3.0f) acc += a;
    else acc = acc * 0.5f + a.wzyx;
  }
  return acc;
}

/* An element at a varying index (per lane). */
#pragma omp declare simd notinbranch
NOINLINE float pick4(float4 a, int k) { return a[k & 3] + a[(k + 1) & 3]; }

#define N4 (LW_MAX / 4)
NOINLINE void run_float4(float *dots, float4 *crosses, float4 *normals, float4 *lerps,
                         float4 *blends, const float4 *a, const float4 *b, int n) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    dots[i] = dot4(a[i], b[i]);
    crosses[i] = cross4(a[i], b[i]);
  }
#pragma omp simd
  for (int i = 0; i < n; i++) normals[i] = normalize4(a[i] - b[i]);
#pragma omp simd
  for (int i = 0; i < n; i++) lerps[i] = lerp_select(a[i], b[i], 0.375f);
#pragma omp simd
  for (int i = 0; i < n; i++)
    blends[i] = dots[i] > 0.0f ? blend4(a[i], b[i], dots[i] * 0.125f) : a[i];
#pragma omp simd
  for (int i = 0; i < n; i++) {
    crosses[i] += iterate4(b[i], i % 11);
    dots[i] += pick4(a[i], i * 7);
  }
}
NOINLINE void run_int4(int4 *out, const int4 *a, const int4 *b, int n) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = max4i(a[i], b[i]);
}
NOINLINE void run_double2(double2 *out, const double2 *a, const double2 *b, int n) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = cmul2(a[i], b[i]);
}

void lw_test(void) {
  static float4 a[N4], b[N4], crosses[N4], normals[N4], lerps[N4], blends[N4];
  static float dots[N4];
  static int4 ia[N4], ib[N4], iout[N4];
  static double2 da[N4], db[N4], dout[N4];
  for (int i = 0; i < N4; i++) {
    for (int e = 0; e < 4; e++) {
      a[i][e] = lw_input(4 * i + e);
      b[i][e] = lw_input(4 * i + e + 517) * 0.5f;
      ia[i][e] = lw_iinput(4 * i + e);
      ib[i][e] = lw_iinput(4 * i + e + 3);
    }
    /* Some zero vectors for normalize4's other branch. */
    if (i % 5 == 3) b[i] = a[i];
    for (int e = 0; e < 2; e++) {
      da[i][e] = lw_input(2 * i + e) * 1.25;
      db[i][e] = lw_input(2 * i + e + 99) / 3.0;
    }
  }
  int trips[] = {0, 1, 7, 8, 9, N4};
  for (int t = 0; t < 6; t++) {
    int n = trips[t];
    memset(dots, 0, sizeof dots);
    memset(crosses, 0, sizeof crosses);
    memset(normals, 0, sizeof normals);
    memset(lerps, 0, sizeof lerps);
    memset(blends, 0, sizeof blends);
    memset(iout, 0, sizeof iout);
    memset(dout, 0, sizeof dout);
    run_float4(dots, crosses, normals, lerps, blends, a, b, n);
    run_int4(iout, ia, ib, n);
    run_double2(dout, da, db, n);
    lw_exact_array("dot4", n, dots, N4);
    lw_exact_array("cross4", n, (const float *)crosses, LW_MAX);
    lw_exact_array("normalize4", n, (const float *)normals, LW_MAX);
    lw_exact_array("lerp_select", n, (const float *)lerps, LW_MAX);
    lw_exact_array("blend4", n, (const float *)blends, LW_MAX);
    lw_exact_iarray("max4i", n, (const int *)iout, LW_MAX);
    lw_exact_array("cmul2", n, (const float *)dout, LW_MAX);
  }
}
