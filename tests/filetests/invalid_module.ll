; ARGS: -o {out}
define float @f(float %x) #0 {
entry:
  %y = fmul float %z, 2.0
  %z = fadd float %x, 1.0
  ret float %y
}
attributes #0 = { "_ZGVdN8v_f" }
