; Reduced by llvm-reduce from the _ZGVeN8vl4vv_f1 variant of fuzz seed 20333 (lanewise cc
; -march=x86-64-v2): llc-22 -mcpu=x86-64-v2 looped forever in instruction selection when the
; target features were +avx,+avx2,+avx512f. crates/lanewise/tests/avx512_variants.rs substitutes
; FEATURES with the features an e variant gets now and compiles it.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define <8 x i1> @_ZGVeN8vl4vv_f1(ptr %0, i1 %.not4) #0 {
block0:
  %1 = load <8 x i32>, ptr %0, align 4
  %2 = trunc <8 x i32> %1 to <8 x i8>
  %3 = and <8 x i8> %2, splat (i8 1)
  %4 = uitofp <8 x i8> splat (i8 1) to <8 x double>
  %5 = fmul <8 x double> zeroinitializer, %4
  %6 = fptoui <8 x double> zeroinitializer to <8 x i8>
  %7 = add <8 x i8> %2, splat (i8 1)
  %8 = zext <8 x i8> %7 to <8 x i32>
  %9 = shl <8 x i32> splat (i32 1), %1
  call void @llvm.masked.scatter.v8i32.v8p0(<8 x i32> zeroinitializer, <8 x ptr> zeroinitializer, <8 x i1> zeroinitializer)
  %.not41 = icmp eq i8 0, 0
  br i1 %.not4, label %block24, label %block13

block13:                                          ; preds = %block0
  %10 = icmp uge <8 x i32> zeroinitializer, %8
  ret <8 x i1> %10

block24:                                          ; preds = %block0
  ret <8 x i1> zeroinitializer
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(write)
declare void @llvm.masked.scatter.v8i32.v8p0(<8 x i32>, <8 x ptr>, <8 x i1>) #1

attributes #0 = { "target-features"="FEATURES" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(write) }
