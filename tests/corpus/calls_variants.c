// Covers: declare-simd functions calling declare-simd functions of the same
// file, in uniform control flow: the caller's variant calls the callee's
// variant of its ISA and width (one call, not one per lane), with varying,
// uniform and linear arguments (the callee takes linear(p:1) uniform(n)),
// narrower variants called in parts (a simdlen(16) caller at SSE/AVX calls
// the 4-/8-lane variants several times), and a callee with side effects
// (lw_record) whose variant must record in lane order. The callees are
// noinline so that clang keeps the calls at every optimization level.
// crates/lanewise/tests/variant_calls.rs checks in the report that every
// call uses a variant.
#include "lw_test.h"

#pragma omp declare simd notinbranch
__attribute__((noinline)) float calls_square_plus(float x, float y) { return x * x + y; }

#pragma omp declare simd notinbranch
float calls_varying(float x, float y) { return calls_square_plus(x, y) * 0.5f - calls_square_plus(y, 1.0f); }

#pragma omp declare simd linear(p:1) uniform(n) notinbranch
__attribute__((noinline)) float calls_load_scaled(const float *p, int n, float x) { return p[0] * x + p[n & 7]; }

#pragma omp declare simd linear(p:1) uniform(n) notinbranch
float calls_linear_uniform(const float *p, int n, float x) { return calls_load_scaled(p, n, x + 1.0f) + x; }

#pragma omp declare simd simdlen(16) notinbranch
float calls_in_parts(float x) { return calls_square_plus(x, 2.0f) + 1.0f; }

#pragma omp declare simd notinbranch
__attribute__((noinline)) int calls_record(int x) { lw_record(1, x); return x + 1; }

#pragma omp declare simd notinbranch
int calls_side_effects(int x) { return calls_record(x ^ 5) * 3; }
