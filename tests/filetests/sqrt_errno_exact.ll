; ARGS: -o {out} --function f --width 8 --shapes v --isa avx2
; EMIT: _ZGVdN8v_f
; `sqrtf` as clang emits it without -ffast-math: it may set errno (EDOM for
; a negative input), so `--vector-math auto` keeps it exact. Lanewise runs
; LLVM's partially-inline-libcalls on its copy before lifting: a vector
; `llvm.sqrt` for every lane, and the errno-setting `sqrtf` only for the
; lanes whose input is negative or NaN, in lane order, behind one test of
; "any such lane" (BOSCC: per-lane calls are costly regions).
define float @f(float %x) {
entry:
  %r = call float @sqrtf(float %x) #0
  ret float %r
}

declare float @sqrtf(float)

attributes #0 = { nounwind memory(errnomem: write) }
