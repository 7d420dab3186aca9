; ARGS: -o {out} --function count_steps --width 8 --shapes v --isa avx2 --safety-net off
; EMIT: _ZGVdN8v_count_steps
; A loop whose trip count differs between lanes: a live mask, a tracker for the
; result, and a latch on any(live) (PLDI18 section 5).
define i32 @count_steps(i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %next = add nsw i32 %i, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret i32 %next
}
