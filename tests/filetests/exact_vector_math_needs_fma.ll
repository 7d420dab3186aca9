; ARGS: -o {out} --function f --width 8 --shapes v --isa avx2 --stats
; EMIT: _ZGVdN8v_f
; The same `expf` in a function compiled without FMA: glibc may run its
; build without FMA there, whose bits the exact vector form does not
; repeat, so the calls stay one scalar call per lane.
define float @f(float %x) {
entry:
  %e = call float @expf(float %x) #0
  ret float %e
}

declare float @expf(float)

attributes #0 = { nounwind memory(errnomem: write) }
