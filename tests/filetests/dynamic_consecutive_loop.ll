; ARGS: -o {out} --function rising --width 8 --shapes uuv --isa avx2 --safety-net off
; EMIT: _ZGVdN8uuv_rising
; A rising run from `start` (bench/kernels/rising_run.c, cut down): lanes
; leave the loop at different times, and the loads `v[i + 1]` and `v[i]`
; of the ones that stay are consecutive when the starts were (`i` steps
; alike in every lane: thesis 7.2, dynamic variants). The consecutive test
; compares the active lanes' indices with lane 0's run, lane 0 active or
; not, and the masked vector load reads at lane 0's index: no lane is
; extracted by a mask-dependent position (`cttz` of the mask), which put
; a stack round trip on the loop's critical path (the mask of one
; iteration depends on the values the previous one loaded).
define i32 @rising(ptr %v, i32 %n, i32 %start) {
entry:
  br label %loop

loop:
  %i = phi i32 [ %start, %entry ], [ %next, %body ]
  %length = phi i32 [ 0, %entry ], [ %length.next, %body ]
  %next = add nsw i32 %i, 1
  %in = icmp slt i32 %next, %n
  br i1 %in, label %compare, label %done

compare:
  %next.wide = sext i32 %next to i64
  %next.addr = getelementptr inbounds i32, ptr %v, i64 %next.wide
  %after = load i32, ptr %next.addr, align 4
  %i.wide = sext i32 %i to i64
  %i.addr = getelementptr inbounds i32, ptr %v, i64 %i.wide
  %here = load i32, ptr %i.addr, align 4
  %rises = icmp sgt i32 %after, %here
  br i1 %rises, label %body, label %done

body:
  %length.next = add nuw nsw i32 %length, 1
  br label %loop

done:
  %result = phi i32 [ %length, %loop ], [ %length, %compare ]
  ret i32 %result
}
