; ARGS: -o {out} --function f --width 4 --shapes uv
; Two blocks enter the cycle a <-> b from the entry: an irreducible CFG.
define i32 @f(i1 %c, i32 %n) {
entry:
  br i1 %c, label %a, label %b
a:
  %x = phi i32 [ 0, %entry ], [ %y, %b ]
  %x1 = add i32 %x, 1
  %ca = icmp slt i32 %x1, 100
  br i1 %ca, label %b, label %exit
b:
  %y = phi i32 [ 0, %entry ], [ %x1, %a ]
  %cb = icmp slt i32 %y, 50
  br i1 %cb, label %a, label %exit
exit:
  %r = phi i32 [ %x1, %a ], [ %y, %b ]
  ret i32 %r
}
