; ARGS: -o {out} --function lower_bound --width 8 --shapes uuv --isa avx2 --safety-net off
; EMIT: _ZGVdN8uuv_lower_bound
; A binary search over a uniform table (thesis 7.1, dynamic variants): the
; bounds start uniform, so the gather of table[middle] gets a run-time test
; whether every active lane probes the same element (then one scalar load).
; The test compares the i32 indices (`%middle`), not the addresses, so the
; gather keeps its scalar base and non-negative 32-bit indices
; (`getelementptr i32, ptr %table, <8 x i64> (zext nneg <8 x i32>)`, which
; x86 turns into vpgatherdd) instead of sharing a vector of 64-bit pointers
; with the test (vpgatherqd, twice the gathers).
define i32 @lower_bound(ptr %table, i32 %size, i32 %key) {
entry:
  %nonempty = icmp sgt i32 %size, 0
  br i1 %nonempty, label %loop, label %done

loop:
  %low = phi i32 [ 0, %entry ], [ %low.next, %loop ]
  %high = phi i32 [ %size, %entry ], [ %high.next, %loop ]
  %sum = add nuw nsw i32 %low, %high
  %middle = lshr i32 %sum, 1
  %index = zext nneg i32 %middle to i64
  %addr = getelementptr inbounds i32, ptr %table, i64 %index
  %probe = load i32, ptr %addr, align 4
  %less = icmp slt i32 %probe, %key
  %above = add nuw nsw i32 %middle, 1
  %high.next = select i1 %less, i32 %high, i32 %middle
  %low.next = select i1 %less, i32 %above, i32 %low
  %more = icmp slt i32 %low.next, %high.next
  br i1 %more, label %loop, label %done

done:
  %result = phi i32 [ 0, %entry ], [ %low.next, %loop ]
  ret i32 %result
}
