; ARGS: -o {out} --function f --width 8 --shapes vls2v
define float @f(float %x, ptr %p, i64 %n) #0 {
entry:
  %y = fmul float %x, 2.0
  ret float %y
}

