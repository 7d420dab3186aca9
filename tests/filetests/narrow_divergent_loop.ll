; ARGS: -o {out} --function collatz_steps --width 32 --shapes v --isa avx512 --stats --safety-net off
; EMIT: _ZGVeN32v_collatz_steps
; A divergent loop at 32 lanes of 32 bits (two zmm registers per value) on a
; target with avx512f and avx512vl: once at most 16 lanes are live and the
; loop has run 16 iterations, the live lanes are compressed into a copy of
; the loop at 16 lanes (vpcompressd), and into one at 8 lanes (one ymm
; register) when at most 8 are; the step counts are expanded back
; (vpexpandd) after each copy (lanewise_transform::narrow_loops).
define i32 @collatz_steps(i32 %start) #0 {
entry:
  %enter = icmp ugt i32 %start, 1
  br i1 %enter, label %loop, label %exit
loop:
  %value = phi i32 [ %start, %entry ], [ %next, %loop ]
  %steps = phi i32 [ 0, %entry ], [ %steps.next, %loop ]
  %odd = and i32 %value, 1
  %is.even = icmp eq i32 %odd, 0
  %half = lshr i32 %value, 1
  %triple = mul i32 %value, 3
  %triple.plus = add i32 %triple, 1
  %next = select i1 %is.even, i32 %half, i32 %triple.plus
  %steps.next = add nuw nsw i32 %steps, 1
  %more = icmp ugt i32 %next, 1
  br i1 %more, label %loop, label %exit
exit:
  %result = phi i32 [ 0, %entry ], [ %steps.next, %loop ]
  ret i32 %result
}
attributes #0 = { "target-features"="+avx2,+avx512f,+avx512vl" }
