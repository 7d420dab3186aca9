; ARGS: -o {out}
; EMIT: _ZGVdN8v_f
; Declare-simd mode. `float f(double)` at 8 lanes on AVX2: the <8 x double>
; argument travels as two <4 x double> registers, as GCC's clones expect.
define float @f(double %x) #0 {
  %t = fptrunc double %x to float
  %r = fmul float %t, 2.000000e+00
  ret float %r
}
attributes #0 = { "_ZGVdN8v_f" }
