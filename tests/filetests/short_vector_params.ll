; ARGS: -o {out}
; EMIT: _ZGVdN8vv_dot
; EMIT: _ZGVdN2vu_scale
; EMIT: _ZGVdM2vv_scale
; Declare-simd mode with short vector types (`float4`, `double2`): a varying
; <N x T> of a W-lane variant is one <W*N x T> vector, lane l's element e at
; l*N + e (lane-major, an array of W float4s), split into registers by the
; usual ABI rules; a uniform one stays <N x T>. `dot`'s 8 lanes of float4 on
; AVX2 are four ymm registers per argument (two lanes each); the element
; vectors are strided shuffles. `scale`'s result is packed the same way, and
; the mask of its masked variant, whose characteristic type is a vector, is
; <2 x i32>.
define float @dot(<4 x float> %a, <4 x float> %b) #0 {
  %m = fmul <4 x float> %a, %b
  %r = call float @llvm.vector.reduce.fadd.v4f32(float -0.0, <4 x float> %m)
  ret float %r
}
define <2 x double> @scale(<2 x double> %a, double %s) #1 {
  %i = insertelement <2 x double> poison, double %s, i64 0
  %sp = shufflevector <2 x double> %i, <2 x double> poison, <2 x i32> zeroinitializer
  %r = fmul <2 x double> %a, %sp
  ret <2 x double> %r
}
declare float @llvm.vector.reduce.fadd.v4f32(float, <4 x float>)
attributes #0 = { "_ZGVdN8vv_dot" }
attributes #1 = { "_ZGVdN2vu_scale" "_ZGVdM2vv_scale" }
