; ARGS: -o {out} --function f --width 8 --shapes v --isa avx2 --stats
; EMIT: _ZGVdN8v_f
; `expf` and `logf` as clang emits them without -ffast-math (they may set
; errno), in a function compiled for a CPU with FMA: each becomes one call
; of its exact vector form (`--exact-vector-math`, on by default), which
; repeats glibc's FMA build operation by operation and calls the scalar
; function for the active lanes outside its vector path (here every lane is
; active: the mask is all true). The module gains the two definitions.
define float @f(float %x) #1 {
entry:
  %e = call float @expf(float %x) #0
  %l = call float @logf(float %x) #0
  %r = fadd float %e, %l
  ret float %r
}

declare float @expf(float)
declare float @logf(float)

attributes #0 = { nounwind memory(errnomem: write) }
attributes #1 = { "target-features"="+avx2,+fma" }
