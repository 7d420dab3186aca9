// The kernels of the SLP benchmark (bench/slp/README.md) and their argument
// layouts, in one table: SLP_KERNELS(K) calls K once per kernel with
//
//   K(NAME, PATTERN, PARAMS, NARGS, ARG...)
//
//   NAME     the kernel (bench/slp/kernels/NAME.c defines KERNEL(NAME))
//   PATTERN  what an SLP vectorizer has to find in one item (report text)
//   PARAMS   the parameter list, parenthesized: (long n, pointers...)
//   NARGS    the number of pointer parameters (1 to 4)
//   ARG...   one SLP_ARG(TYPE, DIR, PER_ITEM, FILL) per pointer parameter:
//            element type, in/out, elements per item, how the driver fills
//            it (SLP_FILL_* below; outputs SLP_FILL_NONE)
//
// Every kernel is `void KERNEL(NAME) PARAMS`: n independent items, item i
// at element PER_ITEM * i of every array. A kernel source includes this
// header with KERNEL defined (`-D'KERNEL(n)=n##_scalar'`), which declares
// every kernel under that name, so a definition that disagrees with its row
// here does not compile. The driver (driver.c) uses the rows to allocate,
// fill, call and compare.
#ifndef SLP_KERNELS_H
#define SLP_KERNELS_H
#include <stdint.h>

enum slp_type { SLP_F32, SLP_F64, SLP_U8, SLP_U32 };
enum slp_dir { SLP_IN, SLP_OUT, SLP_INOUT };
enum slp_fill {
    SLP_FILL_NONE,     // an output: the driver poisons it (0xA5 bytes) before every run
    SLP_FILL_SIGNED,   // floats uniform in [-1, 1)
    SLP_FILL_POSITIVE, // floats uniform in [0.5, 2)
    SLP_FILL_FRACTION, // floats uniform in [0, 1)
    SLP_FILL_UNIT_QUAT,// groups of 4 floats: a unit quaternion (x, y, z, w)
    SLP_FILL_TWIDDLE,  // pairs of floats: (cos t, sin t), t uniform in [0, 2 pi)
    SLP_FILL_PARTICLE, // groups of 8 doubles: position in [-1, 1)^3, inverse mass
                       // in [0.5, 2), velocity in [-1, 1)^3, drag in [0, 1)
    SLP_FILL_BITS,     // integers: every bit random
};
struct slp_arg {
    enum slp_type type;
    enum slp_dir dir;
    int per_item;
    enum slp_fill fill;
};
#define SLP_ARG(TYPE, DIR, PER_ITEM, FILL) \
    { SLP_##TYPE, SLP_##DIR, PER_ITEM, SLP_FILL_##FILL }
#define SLP_MAX_ARGS 4

#define SLP_KERNELS(K)                                                                            \
    K(cmul_acc, "4 complex float multiply-adds: re/im add-sub, even/odd shuffles",                \
      (long n, const float *restrict a, const float *restrict b, float *restrict acc), 3,         \
      SLP_ARG(F32, IN, 8, SIGNED), SLP_ARG(F32, IN, 8, SIGNED),                                   \
      SLP_ARG(F32, INOUT, 8, SIGNED))                                                             \
    K(vec3_geom, "float3 cross and dot: 3-wide groups, yzx/zxy shuffles, reduction",              \
      (long n, const float *restrict a, const float *restrict b, float *restrict out), 3,         \
      SLP_ARG(F32, IN, 3, SIGNED), SLP_ARG(F32, IN, 3, SIGNED), SLP_ARG(F32, OUT, 4, NONE))       \
    K(vec4_ops, "float4 lerp, min/max, scale: 4-wide loads/stores, broadcast",                    \
      (long n, const float *restrict a, const float *restrict b, const float *restrict t,         \
       float *restrict out),                                                                      \
      4, SLP_ARG(F32, IN, 4, SIGNED), SLP_ARG(F32, IN, 4, SIGNED),                                \
      SLP_ARG(F32, IN, 1, FRACTION), SLP_ARG(F32, OUT, 8, NONE))                                  \
    K(mat4_vec, "4x4 column-major float matrix times vector: columns times broadcasts",           \
      (long n, const float *restrict m, const float *restrict v, float *restrict out), 3,         \
      SLP_ARG(F32, IN, 16, SIGNED), SLP_ARG(F32, IN, 4, SIGNED), SLP_ARG(F32, OUT, 4, NONE))      \
    K(mat4_mul, "4x4 row-major float matrix product: rows of B times broadcasts of A",            \
      (long n, const float *restrict a, const float *restrict b, float *restrict c), 3,           \
      SLP_ARG(F32, IN, 16, SIGNED), SLP_ARG(F32, IN, 16, SIGNED),                                 \
      SLP_ARG(F32, OUT, 16, NONE))                                                                \
    K(quat_rotate, "unit quaternion rotates a float3: two cross products, 3-wide",                \
      (long n, const float *restrict q, const float *restrict v, float *restrict out), 3,         \
      SLP_ARG(F32, IN, 4, UNIT_QUAT), SLP_ARG(F32, IN, 3, SIGNED),                                \
      SLP_ARG(F32, OUT, 3, NONE))                                                                 \
    K(rgb2yuv, "4 RGB float pixels to YUV: stride-3 interleaved loads and stores",                \
      (long n, const float *restrict rgb, float *restrict yuv), 2,                                \
      SLP_ARG(F32, IN, 12, FRACTION), SLP_ARG(F32, OUT, 12, NONE))                                \
    K(yuv2rgb, "8 YUV444 byte pixels to RGB, fixed point: widen, clamp, narrow",                  \
      (long n, const uint8_t *restrict yuv, uint8_t *restrict rgb), 2,                            \
      SLP_ARG(U8, IN, 24, BITS), SLP_ARG(U8, OUT, 24, NONE))                                      \
    K(fft4, "radix-4 complex float butterfly: twiddle products, +-j swaps",                       \
      (long n, const float *restrict x, const float *restrict w, float *restrict y), 3,           \
      SLP_ARG(F32, IN, 8, SIGNED), SLP_ARG(F32, IN, 6, TWIDDLE), SLP_ARG(F32, OUT, 8, NONE))      \
    K(dot8, "8-term double dot product: products in a vector, in-order sum",                      \
      (long n, const double *restrict a, const double *restrict b, double *restrict out),         \
      3, SLP_ARG(F64, IN, 8, SIGNED), SLP_ARG(F64, IN, 8, SIGNED),                                \
      SLP_ARG(F64, OUT, 1, NONE))                                                                 \
    K(stencil8, "3-point float stencil, 8 outputs of 10 inputs: overlapping loads",               \
      (long n, const float *restrict x, float *restrict y), 2, SLP_ARG(F32, IN, 10, SIGNED),      \
      SLP_ARG(F32, OUT, 8, NONE))                                                                 \
    K(chacha, "ChaCha 4 double rounds on 16 u32: rotates, diagonal lane rotations",               \
      (long n, const uint32_t *restrict in, uint32_t *restrict out), 2,                           \
      SLP_ARG(U32, IN, 16, BITS), SLP_ARG(U32, OUT, 16, NONE))                                    \
    K(zmat2_vec, "2x2 complex double matrix times vector: 2-wide double complex",                 \
      (long n, const double *restrict m, const double *restrict v, double *restrict out),         \
      3, SLP_ARG(F64, IN, 8, SIGNED), SLP_ARG(F64, IN, 4, SIGNED),                                \
      SLP_ARG(F64, OUT, 4, NONE))                                                                 \
    K(blend_rgba, "8 RGBA byte pixels alpha-blended in 16 bits: alpha broadcast, /255",           \
      (long n, const uint8_t *restrict src, const uint8_t *restrict dst,                          \
       uint8_t *restrict out),                                                                    \
      3, SLP_ARG(U8, IN, 32, BITS), SLP_ARG(U8, IN, 32, BITS), SLP_ARG(U8, OUT, 32, NONE))        \
    K(particle, "AoS double particle step: 4-double groups, drag and force",                      \
      (long n, double *restrict p, const double *restrict f), 2,                                  \
      SLP_ARG(F64, INOUT, 8, PARTICLE), SLP_ARG(F64, IN, 4, SIGNED))

// Calls the kernel F (a function pointer of type FN_TYPE, the kernel's own
// type) with the pointer arguments P[0..NARGS-1].
#define SLP_CALL_1(FN_TYPE, F, N, P) ((FN_TYPE *)(F))(N, P[0])
#define SLP_CALL_2(FN_TYPE, F, N, P) ((FN_TYPE *)(F))(N, P[0], P[1])
#define SLP_CALL_3(FN_TYPE, F, N, P) ((FN_TYPE *)(F))(N, P[0], P[1], P[2])
#define SLP_CALL_4(FN_TYPE, F, N, P) ((FN_TYPE *)(F))(N, P[0], P[1], P[2], P[3])

#ifdef KERNEL
#define SLP_DECLARE_KERNEL(NAME, PATTERN, PARAMS, NARGS, ...) void KERNEL(NAME) PARAMS;
SLP_KERNELS(SLP_DECLARE_KERNEL)
#undef SLP_DECLARE_KERNEL
#endif
#endif
