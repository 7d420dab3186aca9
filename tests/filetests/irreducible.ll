; ARGS: -o {out} --function f --width 4 --shapes vu --isa sse --stats --safety-net off
; EMIT: _ZGVbN4vu_f
; Two blocks enter the cycle a <-> b from the entry, on a varying condition:
; an irreducible CFG. The cycle gets one header, `a.irreducible.dispatch`,
; whose phi says which entry each lane took; the dispatch is a divergent
; branch inside a divergent loop.
define i32 @f(i32 %c, i32 %n) {
entry:
  %enter_a = icmp sgt i32 %c, 0
  br i1 %enter_a, label %a, label %b
a:
  %x = phi i32 [ %c, %entry ], [ %y, %b ]
  %x1 = add i32 %x, 3
  %ca = icmp slt i32 %x1, %n
  br i1 %ca, label %b, label %exit
b:
  %y = phi i32 [ 0, %entry ], [ %x1, %a ]
  %y1 = mul i32 %y, 2
  %cb = icmp slt i32 %y1, %n
  br i1 %cb, label %a, label %exit
exit:
  %r = phi i32 [ %x1, %a ], [ %y1, %b ]
  ret i32 %r
}
