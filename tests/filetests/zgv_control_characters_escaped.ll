; ARGS: -o {out} --keep-going
define float @f(float %x, ptr %p, i64 %n) #0 {
entry:
  %y = fmul float %x, 2.0
  ret float %y
}
attributes #0 = { "_ZGVdN8vuu_f" "_ZGVd\0D8vuu_f" "_ZGVdN8vuu_f\0Ag" }
