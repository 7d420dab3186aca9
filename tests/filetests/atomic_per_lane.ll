; ARGS: -o {out} --function f --width 4 --shapes uv --isa avx2
; EMIT: _ZGVdN4uv_f
; Atomics at varying addresses run once per lane, lanes 0..3 in order, with
; their ordering, sync scope, alignment, `volatile` and `weak` kept; under a
; varying branch each lane's atomic is guarded by its mask bit.
define i32 @f(ptr %p, i32 %x) {
entry:
  %i = and i32 %x, 15
  %q = getelementptr i32, ptr %p, i32 %i
  %old = atomicrmw volatile xchg ptr %q, i32 %x syncscope("singlethread") acquire, align 4
  %c = icmp sgt i32 %x, 3
  br i1 %c, label %then, label %join
then:
  %pair = cmpxchg weak ptr %q, i32 %x, i32 %old acq_rel monotonic, align 4
  %v = extractvalue { i32, i1 } %pair, 0
  br label %join
join:
  %r = phi i32 [ %old, %entry ], [ %v, %then ]
  ret i32 %r
}
