; ARGS: -o {out} --function f --width 4 --shapes u
define i32 @f(ptr %p) {
entry:
  %old = atomicrmw add ptr %p, i32 1 seq_cst
  ret i32 %old
}
