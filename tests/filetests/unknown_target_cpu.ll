; ARGS: -o {out}
define float @f(float %x, ptr %p, i64 %n) #0 {
entry:
  %y = fmul float %x, 2.0
  ret float %y
}
attributes #0 = { "_ZGVdN8vuu_f" "target-cpu"="pentium-iv" }
