; ARGS: -o {out} --function mandelbrot --width 8 --shapes vvuu --isa avx2 --report {out}.json --stats --safety-net off
; PLDI'18 Figures 9 and 10 (left): the inner Mandelbrot loop
;   for (i = 0; i < limit; ++i) { z = z * z + c; if (|z| >= escape) break; }
; on one float coordinate. z and c are varying, limit and escape uniform.
; header tests the uniform trip count (the kill exit to at_limit), body the
; varying escape (marked `!`: the divergent exit to escaped); i is used
; after the loop. The divergent loop transform (Section 5) makes the loop
; uniform with a pure latch branching on any(live mask); partial
; linearization keeps the uniform trip-count test (Figure 10, right: "the
; uniform edge from a to d will be retained") and folds the escape test:
; --stats reports 1 divergent, 1 uniform kept, 0 folded, 1 divergent loop.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @mandelbrot(float %z0, float %c, i32 %limit, float %escape) {
entry:
  br label %header

header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %z = phi float [ %z0, %entry ], [ %z.next, %latch ]
  %in.range = icmp slt i32 %i, %limit
  br i1 %in.range, label %body, label %at_limit

body:
  %square = fmul float %z, %z
  %z.next = fadd float %square, %c
  %magnitude = call float @llvm.fabs.f32(float %z.next)
  %escapes = fcmp oge float %magnitude, %escape
  br i1 %escapes, label %escaped, label %latch

latch:
  %i.next = add nsw i32 %i, 1
  br label %header

at_limit:
  br label %end

escaped:
  %marked = add i32 %i, 1000
  br label %end

end:
  %result = phi i32 [ %i, %at_limit ], [ %marked, %escaped ]
  ret i32 %result
}

declare float @llvm.fabs.f32(float)
