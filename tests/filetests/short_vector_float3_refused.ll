; ARGS: -o {out}
; A `float3` (<3 x float>) parameter passed as a vector has no packed form
; (3 elements per lane split unevenly into registers; clang pads float3 to
; 4 elements in memory): an error naming the variant, function and parameter.
define float @len3(<3 x float> %a) #0 {
  %x = extractelement <3 x float> %a, i64 0
  %y = extractelement <3 x float> %a, i64 1
  %z = extractelement <3 x float> %a, i64 2
  %xx = fmul float %x, %x
  %yy = fmul float %y, %y
  %zz = fmul float %z, %z
  %s = fadd float %xx, %yy
  %r = fadd float %s, %zz
  ret float %r
}
attributes #0 = { "_ZGVbN4v_len3" }
