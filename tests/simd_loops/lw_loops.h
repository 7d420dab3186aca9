/* Shared harness of the omp simd loop tests (crates/lanewise/tests/simd_loops.rs).
 * Each test file defines kernels (noinline, with `#pragma omp simd` loops that
 * LLVM's vectorizer leaves scalar) and `lw_test`, which runs them for the trip
 * counts below and prints every result: `E name value` lines must match
 * bit-exactly between the plain clang build and the lanewise build, `F name
 * value` lines (float reductions, reassociated) within a relative tolerance. */
#include <stdio.h>
#include <string.h>
#define NOINLINE __attribute__((noinline))
static const int lw_trip_counts[] = {0, 1, 7, 8, 9, 1000};
#define LW_FOR_TRIP_COUNTS(n) for (int lw_t = 0; lw_t < 6 && ((n) = lw_trip_counts[lw_t], 1); lw_t++)
#define LW_MAX 1024
static void lw_exact_int(const char *what, int n, long long value) { printf("E %s n=%d %lld\n", what, n, value); }
static void lw_exact_float(const char *what, int n, double value) { printf("E %s n=%d %a\n", what, n, value); }
static void lw_approx(const char *what, int n, double value) { printf("F %s n=%d %.17g\n", what, n, value); }
static void lw_exact_array(const char *what, int n, const float *a, int count) {
  unsigned long long hash = 1469598103934665603ull;
  for (int i = 0; i < count; i++) { unsigned bits; memcpy(&bits, &a[i], 4); hash = (hash ^ bits) * 1099511628211ull; }
  printf("E %s n=%d %llx\n", what, n, hash);
}
static void lw_exact_iarray(const char *what, int n, const int *a, int count) {
  unsigned long long hash = 1469598103934665603ull;
  for (int i = 0; i < count; i++) hash = (hash ^ (unsigned)a[i]) * 1099511628211ull;
  printf("E %s n=%d %llx\n", what, n, hash);
}
static float lw_input(int i) { return (float)((i * 37 + 11) % 101) / 7.0f - 5.0f; }
static int lw_iinput(int i) { return (i * 7919 + 13) % 1009 - 500; }
void lw_test(void);
int main(void) { lw_test(); return 0; }
