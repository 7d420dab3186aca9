; ARGS: -o {out} --function nope --width 8 --shapes v
define float @f(float %x, ptr %p, i64 %n) #0 {
entry:
  %y = fmul float %x, 2.0
  ret float %y
}
attributes #0 = { "target-features"="+avx2,+avx512er,+avx512pf,+prefetchwt1" }
