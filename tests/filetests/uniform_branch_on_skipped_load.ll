; ARGS: -o {out} --function f --width 8 --shapes uuv --isa avx2
; EMIT: _ZGVdN8uuv_f
; Issue 14, class 1 (branch on poison). The uniform load `tab[n]` sits in
; a region entered over a divergent branch, so widening puts it behind an
; any-lane guard; the uniform branch on its value is kept. When no lane is
; active the load is skipped: the value merged at the guard's join must be
; defined (zero, not poison), and the branch condition in a block that may
; run with no active lane is frozen, because branching on poison is
; undefined behaviour that LLVM's optimizations exploit.
define i32 @f(ptr %tab, i32 %n, i32 %x) {
entry:
  %big = icmp sgt i32 %x, 5
  br i1 %big, label %then, label %done

then:
  %idx = sext i32 %n to i64
  %addr = getelementptr inbounds i32, ptr %tab, i64 %idx
  %t = load i32, ptr %addr, align 4
  %positive = icmp sgt i32 %t, 3
  br i1 %positive, label %double, label %increment

double:
  %twice = shl nsw i32 %x, 1
  br label %done

increment:
  %next = add nsw i32 %x, 1
  br label %done

done:
  %r = phi i32 [ 0, %entry ], [ %twice, %double ], [ %next, %increment ]
  ret i32 %r
}
