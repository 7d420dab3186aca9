; ARGS: -o {out} --function f --width 4 --shapes u --isa sse
; EMIT: _ZGVbN4u_f
; A switch with two cases to the same block gives that block's phi one
; (identical) entry per edge. Lanewise IR keeps one entry per predecessor
; block; the uniform switch survives and its lowering repeats the entry per
; edge again, as LLVM requires (found by tests/random_cfg.rs; before the fix
; the lifted phi failed the Lanewise IR verifier).
define i32 @f(i32 %x) {
entry:
  %s = and i32 %x, 3
  switch i32 %s, label %other [ i32 0, label %join
                                i32 2, label %join ]
other:
  br label %join
join:
  %r = phi i32 [ 7, %entry ], [ 7, %entry ], [ %x, %other ]
  ret i32 %r
}
