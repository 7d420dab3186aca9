; ARGS: -o {out} --function count_steps --width 8 --shapes v
; A loop whose trip count differs between lanes.
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
