; ARGS: -o {out} --function figure3 --width 8 --shapes uvl32 --isa avx2 --report {out}.json --stats
; PLDI'18 Figure 3a (the CFG of Karrenberg's thesis), as reconstructed in
; crates/transform/src/linearize/tests.rs: a -> b | c; b -> d | e;
; d -> e | h; c -> f | g; f -> g | h; e -> h; g -> h. The branches of a, d
; and f test bits of the uniform %u; those of b and c (marked `!` in the
; figure) test bits of the varying %v. Every block stores its number into
; its own slot of the lane's 32 bytes at %out, so that no block is empty
; and no two blocks can be merged; h returns which way it was reached.
; The paper's walkthrough (Figure 3b-f) keeps a's uniform branch, folds
; the divergent b and c, and folds d and f as well (each of their targets
; is deferred), so --stats reports 2 divergent, 1 uniform kept, 2 uniform
; folded, 0 against Theorem 4.5.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @figure3(i32 %u, i32 %v, ptr %out) {
a:
  store i32 1, ptr %out, align 4
  %u.bit0 = and i32 %u, 1
  %a.uniform = icmp ne i32 %u.bit0, 0
  br i1 %a.uniform, label %b, label %c

b:
  %b.slot = getelementptr inbounds i32, ptr %out, i64 1
  store i32 2, ptr %b.slot, align 4
  %v.bit0 = and i32 %v, 1
  %b.varying = icmp ne i32 %v.bit0, 0
  br i1 %b.varying, label %d, label %e

c:
  %c.slot = getelementptr inbounds i32, ptr %out, i64 2
  store i32 3, ptr %c.slot, align 4
  %v.bit1 = and i32 %v, 2
  %c.varying = icmp ne i32 %v.bit1, 0
  br i1 %c.varying, label %f, label %g

d:
  %d.slot = getelementptr inbounds i32, ptr %out, i64 3
  store i32 4, ptr %d.slot, align 4
  %u.bit1 = and i32 %u, 2
  %d.uniform = icmp ne i32 %u.bit1, 0
  br i1 %d.uniform, label %e, label %h

e:
  %e.slot = getelementptr inbounds i32, ptr %out, i64 4
  store i32 5, ptr %e.slot, align 4
  br label %h

f:
  %f.slot = getelementptr inbounds i32, ptr %out, i64 5
  store i32 6, ptr %f.slot, align 4
  %u.bit2 = and i32 %u, 4
  %f.uniform = icmp ne i32 %u.bit2, 0
  br i1 %f.uniform, label %g, label %h

g:
  %g.slot = getelementptr inbounds i32, ptr %out, i64 6
  store i32 7, ptr %g.slot, align 4
  br label %h

h:
  %path = phi i32 [ 40, %d ], [ 50, %e ], [ 60, %f ], [ 70, %g ]
  %h.slot = getelementptr inbounds i32, ptr %out, i64 7
  store i32 %path, ptr %h.slot, align 4
  ret i32 %path
}
