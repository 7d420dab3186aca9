// Loops that GCC's vectorizer turns into calls of the `_ZGV` variants of
// kernels.c (declared here, defined by lanewise). Exit status 0 iff every
// result equals the scalar reference computed here.
#include <stdint.h>
#include <stdio.h>

#pragma omp declare simd notinbranch
float halve_to_float(double x);
#pragma omp declare simd notinbranch
int triple(int x);
#pragma omp declare simd simdlen(8) notinbranch
int triple8(int x);
#pragma omp declare simd notinbranch
int16_t mix16(int16_t a, uint16_t b);
#pragma omp declare simd uniform(table) linear(i) notinbranch
double scaled(const double *table, int i, double x);

enum { N = 1024 };
static double xd[N], table[N], outd[N];
static float outf[N];
static int xi[N], outi[N], outi8[N];
static int16_t a16[N], out16[N];
static uint16_t b16[N];

int main(void) {
    for (int i = 0; i < N; i++) {
        xd[i] = i * 0.37 - 100.0;
        table[i] = 1.0 / (i + 1);
        xi[i] = i * 7919 - 3000000;
        a16[i] = (int16_t)(i * 131 - 20000);
        b16[i] = (uint16_t)(i * 977);
    }
#pragma omp simd
    for (int i = 0; i < N; i++) outf[i] = halve_to_float(xd[i]);
#pragma omp simd
    for (int i = 0; i < N; i++) outi[i] = triple(xi[i]);
#pragma omp simd simdlen(8)
    for (int i = 0; i < N; i++) outi8[i] = triple8(xi[i]);
#pragma omp simd
    for (int i = 0; i < N; i++) out16[i] = mix16(a16[i], b16[i]);
#pragma omp simd
    for (int i = 0; i < N; i++) outd[i] = scaled(table, i, xd[i]);

    int mismatches = 0;
    for (int i = 0; i < N; i++) {
        mismatches += outf[i] != (float)xd[i] * 0.5f;
        mismatches += outi[i] != xi[i] * 3;
        mismatches += outi8[i] != xi[i] * 3 + 1;
        mismatches += out16[i] != (int16_t)(a16[i] * 5 - (b16[i] >> 3));
        mismatches += outd[i] != table[i] * xd[i] + 1.0;
    }
    printf("%d mismatches\n", mismatches);
    return mismatches != 0;
}
