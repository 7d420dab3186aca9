; ARGS: -o {out} --simd-loops --simd-tail scalar --stats
; EMIT: sum_last
; EMIT: sum_last.lanewise.loop0.scalar
; `--simd-tail scalar`: the last TC % W iterations of the omp simd loop run
; in a scalar loop (`simd.remainder`) that calls the outlined body once per
; iteration, with `rv_lane_id()` replaced by 0 and, as the slots of the
; reduction and of the lastprivate value, `&slot[j]` for remainder iteration
; j: the lanes the masked call would have used, so that the horizontal
; reduction and the last lane `(TC - 1) % W` are the same as with a masked
; tail. The masked variant is not produced (`--stats` lists the unmasked
; one only).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare float @opaque(float)

define float @sum_last(ptr %a, i32 %n, ptr %last) #0 {
entry:
  %positive = icmp sgt i32 %n, 0
  br i1 %positive, label %preheader, label %exit

preheader:
  %count = zext nneg i32 %n to i64
  br label %loop

loop:
  %i = phi i64 [ 0, %preheader ], [ %i.next, %loop ]
  %sum = phi float [ 0.0, %preheader ], [ %sum.next, %loop ]
  %address = getelementptr inbounds float, ptr %a, i64 %i
  %x = load float, ptr %address, align 4
  %t = call float @opaque(float %x)
  %sum.next = fadd reassoc float %sum, %t
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %count
  br i1 %done, label %loop.exit, label %loop, !llvm.loop !0

loop.exit:
  %t.last = phi float [ %t, %loop ]
  %sum.last = phi float [ %sum.next, %loop ]
  store float %t.last, ptr %last, align 4
  br label %exit

exit:
  %result = phi float [ %sum.last, %loop.exit ], [ 0.0, %entry ]
  ret float %result
}

attributes #0 = { nounwind "target-cpu"="x86-64-v3" "target-features"="+avx,+avx2,+bmi,+bmi2,+cmov,+cx16,+cx8,+f16c,+fma,+fxsr,+lzcnt,+mmx,+movbe,+popcnt,+sahf,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+x87,+xsave" }

!0 = distinct !{!0, !1, !9}
!1 = !{!"llvm.loop.vectorize.enable", i1 true}
!8 = distinct !{}
!9 = !{!"llvm.loop.parallel_accesses", !8}
