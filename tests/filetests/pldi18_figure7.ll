; ARGS: -o {out} --function figure7 --width 8 --shapes uvl32 --isa avx2 --report {out}.json --stats --no-boscc
; PLDI'18 Figure 7 (left), as reconstructed in
; crates/transform/src/linearize/tests.rs: a -> b | e; b -> c | d; c -> d;
; d -> e. a's branch (marked `!`) tests the varying %v; b's tests the
; uniform %u. b's predicate is varying (b is control dependent on the
; varying edge a -> b), but b dominates c and d, so its uniform branch is
; uniform relative to b and partial linearization keeps it (Section 4.2,
; Theorem 4.5): --stats reports 1 divergent, 1 uniform kept, 0 folded
; (--no-boscc: BOSCC would add guards around the strided stores).
; Every block stores its number into its own slot of the lane's 32 bytes
; at %out, so that no block is empty.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @figure7(i32 %u, i32 %v, ptr %out) {
a:
  store i32 1, ptr %out, align 4
  %v.bit0 = and i32 %v, 1
  %a.varying = icmp ne i32 %v.bit0, 0
  br i1 %a.varying, label %b, label %e

b:
  %b.slot = getelementptr inbounds i32, ptr %out, i64 1
  store i32 2, ptr %b.slot, align 4
  %u.bit0 = and i32 %u, 1
  %b.uniform = icmp ne i32 %u.bit0, 0
  br i1 %b.uniform, label %c, label %d

c:
  %c.slot = getelementptr inbounds i32, ptr %out, i64 2
  store i32 3, ptr %c.slot, align 4
  br label %d

d:
  %via = phi i32 [ 20, %b ], [ 30, %c ]
  %d.slot = getelementptr inbounds i32, ptr %out, i64 3
  store i32 %via, ptr %d.slot, align 4
  br label %e

e:
  %path = phi i32 [ 10, %a ], [ %via, %d ]
  %e.slot = getelementptr inbounds i32, ptr %out, i64 4
  store i32 %path, ptr %e.slot, align 4
  ret i32 %path
}
