; ARGS: -o {out} --function walk --width 8 --shapes uv --isa avx2 --stats
; EMIT: _ZGVdN8uv_walk
; A per-lane walk (each lane follows its own chain through `next`, a loop
; whose lanes leave at different times): the variant gets the run-time
; safety net. Its entry asks `__lanewise_net_begin` for the form of this
; call, `net.per_lane` calls the scalar `walk` once per lane (noinline),
; and every return goes through `net.exit`, which records a measured call.
define i32 @walk(ptr %next, i32 %start) {
entry:
  br label %loop

loop:
  %node = phi i32 [ %start, %entry ], [ %succ, %body ]
  %steps = phi i32 [ 0, %entry ], [ %steps.next, %body ]
  %done = icmp slt i32 %node, 0
  br i1 %done, label %exit, label %body

body:
  %slot = getelementptr inbounds i32, ptr %next, i32 %node
  %succ = load i32, ptr %slot, align 4
  %steps.next = add i32 %steps, 1
  br label %loop

exit:
  ret i32 %steps
}
