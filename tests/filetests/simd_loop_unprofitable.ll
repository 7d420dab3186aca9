; ARGS: -o {out} --simd-loops --stats
; EMIT: column_sums
; The cost model of `#pragma omp simd` loops (loop_vectorize/profit.rs), on
; AVX2 (W=16). In `row_sums` each lane sums its own row of 64 floats: the
; inner loop's load `rows[i][k]` is 256 bytes apart from lane to lane, a
; 16-element gather per iteration of a divergent loop, estimated costlier
; than the scalar loop's contiguous loads (the corpus's nested_simd_outer
; ran at 0.64x of clang's speed vectorized): the loop stays scalar with a
; `not profitable` remark. In `column_sums` the lanes read adjacent floats of
; one row per iteration (`rows[k][i]`): a vector load, vectorized.
; simd_loop_unprofitable_forced.ll: the same loops with --simd-loops-cost=off.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define dso_local void @row_sums(ptr noundef readonly captures(none) %0, ptr noundef readonly captures(none) %1, ptr noundef writeonly captures(none) %2, i32 noundef %3) local_unnamed_addr #0 {
  %5 = icmp sgt i32 %3, 0
  br i1 %5, label %6, label %29

6:                                                ; preds = %4
  %7 = zext nneg i32 %3 to i64
  br label %8

8:                                                ; preds = %6, %16
  %9 = phi i64 [ 0, %6 ], [ %19, %16 ]
  %10 = getelementptr inbounds nuw i32, ptr %1, i64 %9
  %11 = load i32, ptr %10, align 4, !llvm.access.group !9
  %12 = icmp sgt i32 %11, 0
  br i1 %12, label %13, label %16

13:                                               ; preds = %8
  %14 = getelementptr inbounds nuw [64 x float], ptr %0, i64 %9
  %15 = zext nneg i32 %11 to i64
  br label %21

16:                                               ; preds = %21, %8
  %17 = phi float [ 0.000000e+00, %8 ], [ %26, %21 ]
  %18 = getelementptr inbounds nuw float, ptr %2, i64 %9
  store float %17, ptr %18, align 4, !llvm.access.group !9
  %19 = add nuw nsw i64 %9, 1
  %20 = icmp eq i64 %19, %7
  br i1 %20, label %29, label %8, !llvm.loop !12

21:                                               ; preds = %13, %21
  %22 = phi i64 [ 0, %13 ], [ %27, %21 ]
  %23 = phi float [ 0.000000e+00, %13 ], [ %26, %21 ]
  %24 = getelementptr inbounds nuw float, ptr %14, i64 %22
  %25 = load float, ptr %24, align 4, !llvm.access.group !9
  %26 = fadd float %23, %25
  %27 = add nuw nsw i64 %22, 1
  %28 = icmp eq i64 %27, %15
  br i1 %28, label %16, label %21, !llvm.loop !15

29:                                               ; preds = %16, %4
  ret void
}

define dso_local void @column_sums(ptr noundef readonly captures(none) %0, ptr noundef readonly captures(none) %1, ptr noundef writeonly captures(none) %2, i32 noundef %3) local_unnamed_addr #0 {
  %5 = icmp sgt i32 %3, 0
  br i1 %5, label %6, label %29

6:                                                ; preds = %4
  %7 = zext nneg i32 %3 to i64
  br label %8

8:                                                ; preds = %6, %16
  %9 = phi i64 [ 0, %6 ], [ %19, %16 ]
  %10 = getelementptr inbounds nuw i32, ptr %1, i64 %9
  %11 = load i32, ptr %10, align 4, !llvm.access.group !18
  %12 = getelementptr inbounds nuw float, ptr %0, i64 %9
  %13 = icmp sgt i32 %11, 0
  br i1 %13, label %14, label %16

14:                                               ; preds = %8
  %15 = zext nneg i32 %11 to i64
  br label %21

16:                                               ; preds = %21, %8
  %17 = phi float [ 0.000000e+00, %8 ], [ %26, %21 ]
  %18 = getelementptr inbounds nuw float, ptr %2, i64 %9
  store float %17, ptr %18, align 4, !llvm.access.group !18
  %19 = add nuw nsw i64 %9, 1
  %20 = icmp eq i64 %19, %7
  br i1 %20, label %29, label %8, !llvm.loop !19

21:                                               ; preds = %14, %21
  %22 = phi i64 [ 0, %14 ], [ %27, %21 ]
  %23 = phi float [ 0.000000e+00, %14 ], [ %26, %21 ]
  %24 = getelementptr inbounds nuw [1024 x float], ptr %12, i64 %22
  %25 = load float, ptr %24, align 4, !llvm.access.group !18
  %26 = fadd float %23, %25
  %27 = add nuw nsw i64 %22, 1
  %28 = icmp eq i64 %27, %15
  br i1 %28, label %16, label %21, !llvm.loop !21

29:                                               ; preds = %16, %4
  ret void
}

attributes #0 = { nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+avx,+avx2,+bmi,+bmi2,+cmov,+crc32,+cx16,+cx8,+f16c,+fma,+fxsr,+lzcnt,+mmx,+movbe,+popcnt,+sahf,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+x87,+xsave" }

!9 = distinct !{}
!12 = distinct !{!12, !13, !14}
!13 = !{!"llvm.loop.parallel_accesses", !9}
!14 = !{!"llvm.loop.vectorize.enable", i1 true}
!15 = distinct !{!15, !16, !17}
!16 = !{!"llvm.loop.mustprogress"}
!17 = !{!"llvm.loop.unroll.disable"}
!18 = distinct !{}
!19 = distinct !{!19, !20, !14}
!20 = !{!"llvm.loop.parallel_accesses", !18}
!21 = distinct !{!21, !16, !17}
