; ARGS: -o {out}
; EMIT: _ZGVdN8vuu_f
define float @f(float %x, ptr %p, i64 %n) #0 {
entry:
  %y = fmul float %x, 2.0
  ret float %y
}
attributes #0 = { "_ZGVdN8vuu_f" "target-cpu"="knl" "target-features"="+avx2,+avx512er,+avx512f,+avx512pf,+prefetchwt1,+3dnow" "tune-cpu"="knights-landing" }
