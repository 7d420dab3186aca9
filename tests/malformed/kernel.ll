; ModuleID = 'kernel.c'
source_filename = "kernel.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: read) uwtable
define dso_local i32 @steps(i32 noundef %0, ptr noundef readonly captures(none) %1, i32 noundef %2) local_unnamed_addr #0 {
  %4 = icmp ne i32 %0, 1
  %5 = icmp sgt i32 %2, 0
  %6 = and i1 %4, %5
  br i1 %6, label %7, label %20

7:                                                ; preds = %3, %7
  %8 = phi i32 [ %16, %7 ], [ 0, %3 ]
  %9 = phi i32 [ %15, %7 ], [ %0, %3 ]
  %10 = and i32 %9, 1
  %11 = icmp eq i32 %10, 0
  %12 = mul nsw i32 %9, 3
  %13 = add nsw i32 %12, 1
  %14 = ashr exact i32 %9, 1
  %15 = select i1 %11, i32 %14, i32 %13
  %16 = add nuw nsw i32 %8, 1
  %17 = icmp ne i32 %15, 1
  %18 = icmp slt i32 %16, %2
  %19 = select i1 %17, i1 %18, i1 false
  br i1 %19, label %7, label %20, !llvm.loop !9

20:                                               ; preds = %7, %3
  %21 = phi i32 [ 0, %3 ], [ %16, %7 ]
  %22 = load float, ptr %1, align 4, !tbaa !11
  %23 = fptosi float %22 to i32
  %24 = add nsw i32 %21, %23
  ret i32 %24
}

attributes #0 = { nofree norecurse nosync nounwind memory(argmem: read) uwtable "_ZGVbM8vvv_steps" "_ZGVbN4vl4u_steps" "_ZGVcM8vvv_steps" "_ZGVcN8vl4u_steps" "_ZGVdM8vvv_steps" "_ZGVdN8vl4u_steps" "_ZGVeM8vvv_steps" "_ZGVeN16vl4u_steps" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}
!llvm.errno.tbaa = !{!5}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = distinct !{!9, !10}
!10 = !{!"llvm.loop.mustprogress"}
!11 = !{!12, !12, i64 0}
!12 = !{!"float", !7, i64 0}
