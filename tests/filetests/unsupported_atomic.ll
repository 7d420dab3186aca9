; ARGS: -o {out} --function f --width 4 --shapes u
; atomicrmw operations beyond LLVM 14's set (uinc_wrap, usub_sat, ...) are refused.
define i32 @f(ptr %p) {
entry:
  %old = atomicrmw uinc_wrap ptr %p, i32 1 seq_cst
  ret i32 %old
}
