; ARGS: -o {out} --function rising_run --width 8 --shapes uuv --isa avx2 --safety-net off
; EMIT: _ZGVdN8uuv_rising_run
; bench/kernels/rising_run.c as clang-22 -O3 leaves it: the rotated loop
; `while (i + 1 < n && values[i + 1] > values[i])` leaves from two blocks,
; the trip-count exit through a dedicated block (%39) and the compare exit
; straight to %40, where both meet the code before the loop. Lanewise
; merges the two exits into one before the divergent-loop transform: the
; loop below has one exit (`.loopexit`), no exit masks and no dispatch
; after it, and one tracker per live-out value (four selects on the live
; mask per iteration), not one per value and exit (seven before).
define i32 @rising_run(ptr noundef readonly captures(none) %0, i32 noundef %1, i32 noundef %2) {
  %4 = sext i32 %2 to i64
  %5 = getelementptr inbounds i32, ptr %0, i64 %4
  %6 = load i32, ptr %5, align 4
  %7 = add nsw i32 %2, 1
  %8 = icmp slt i32 %7, %1
  br i1 %8, label %9, label %49

9:
  %10 = xor i32 %2, -1
  %11 = add i32 %1, %10
  %12 = add nsw i64 %4, 1
  %13 = getelementptr inbounds i32, ptr %0, i64 %12
  %14 = load i32, ptr %13, align 4
  %15 = getelementptr inbounds i32, ptr %0, i64 %4
  %16 = load i32, ptr %15, align 4
  %17 = icmp sgt i32 %14, %16
  br i1 %17, label %26, label %40

18:
  %19 = add nsw i64 %33, 1
  %20 = add nsw i64 %29, 1
  %21 = getelementptr inbounds i32, ptr %0, i64 %20
  %22 = load i32, ptr %21, align 4
  %23 = getelementptr inbounds i32, ptr %0, i64 %19
  %24 = load i32, ptr %23, align 4
  %25 = icmp sgt i32 %22, %24
  br i1 %25, label %26, label %40

26:
  %27 = phi i32 [ %24, %18 ], [ %16, %9 ]
  %28 = phi i32 [ %22, %18 ], [ %14, %9 ]
  %29 = phi i64 [ %20, %18 ], [ %12, %9 ]
  %30 = phi i32 [ %37, %18 ], [ 0, %9 ]
  %31 = phi i32 [ %35, %18 ], [ 0, %9 ]
  %32 = phi i32 [ %36, %18 ], [ 0, %9 ]
  %33 = phi i64 [ %19, %18 ], [ %4, %9 ]
  %34 = sub nsw i32 %28, %27
  %35 = tail call i32 @llvm.smax.i32(i32 %34, i32 %31)
  %36 = add i32 %28, %32
  %37 = add nuw i32 %30, 1
  %38 = icmp eq i32 %37, %11
  br i1 %38, label %39, label %18

39:
  br label %40

40:
  %41 = phi i32 [ 0, %9 ], [ %11, %39 ], [ %37, %18 ]
  %42 = phi i32 [ 0, %9 ], [ %35, %39 ], [ %35, %18 ]
  %43 = phi i32 [ %6, %9 ], [ %28, %39 ], [ %28, %18 ]
  %44 = phi i32 [ 0, %9 ], [ %36, %39 ], [ %36, %18 ]
  %45 = mul nuw nsw i32 %41, 7
  %46 = and i32 %44, 1023
  %47 = mul nuw nsw i32 %46, 3
  %48 = add nuw i32 %42, %45
  br label %49

49:
  %50 = phi i32 [ %6, %3 ], [ %43, %40 ]
  %51 = phi i32 [ 0, %3 ], [ %47, %40 ]
  %52 = phi i32 [ 0, %3 ], [ %48, %40 ]
  %53 = add i32 %52, %50
  %54 = add i32 %53, %51
  ret i32 %54
}

declare i32 @llvm.smax.i32(i32, i32)
