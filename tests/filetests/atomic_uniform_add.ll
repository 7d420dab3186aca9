; ARGS: -o {out} --function f --width 4 --shapes uv --isa avx2
; EMIT: _ZGVdN4uv_f
; `atomicrmw add` of a uniform address runs once with the sum of the lanes'
; operands; lane i gets old + (x_0 + .. + x_{i-1}) from an exclusive prefix
; scan. The `or` whose result is unused is one atomic of the lanes' or.
define i32 @f(ptr %p, i32 %x) {
entry:
  %old = atomicrmw add ptr %p, i32 %x seq_cst, align 4
  %q = getelementptr i32, ptr %p, i64 1
  %unused = atomicrmw or ptr %q, i32 %x monotonic, align 4
  ret i32 %old
}
