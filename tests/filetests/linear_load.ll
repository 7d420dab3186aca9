; ARGS: -o {out} --function ld --width 8 --shapes ul --isa avx2
; EMIT: _ZGVdN8ul_ld
; A contiguous load through a uniform pointer and a linear index: one vector load.
define float @ld(ptr %p, i32 %i) {
  %idx = sext i32 %i to i64
  %addr = getelementptr inbounds float, ptr %p, i64 %idx
  %v = load float, ptr %addr, align 4
  %r = fmul float %v, 2.000000e+00
  ret float %r
}
