; ARGS: -o {out} --function f --width 4 --shapes vu --isa avx2
; EMIT: _ZGVdN4vu_f
; RV's rv_load(p, k): one load through lane k's pointer, broadcast;
; rv_store(p, k, v): one store of the uniform v through lane k's pointer;
; rv_compact keeps lanes k..W-1 as they were; rv_align is its pointer.
declare float @rv_load(ptr, i32)
declare void @rv_store(ptr, i32, float)
declare float @rv_compact(float, i1)
declare ptr @rv_align(ptr, i32)

define float @f(i32 %i, ptr %p) {
entry:
  %q = getelementptr float, ptr %p, i32 %i
  %a = call ptr @rv_align(ptr %q, i32 4)
  %v = call float @rv_load(ptr %a, i32 2)
  call void @rv_store(ptr %q, i32 1, float %v)
  %x = load float, ptr %q, align 4
  %c = fcmp ogt float %x, 0.0
  %r = call float @rv_compact(float %x, i1 %c)
  ret float %r
}
