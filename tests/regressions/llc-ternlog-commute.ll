; LLVM 22.1.8 (Debian 1:22.1.8-1~deb12u1) miscompiles this at -O1 and above on AVX-512
; (x86-64-v4, skylake-avx512, znver4, the 16-lane `e` variants): instruction selection
; merges the select into a masked `vpternlogd $184, .LCPI(%rip){1to16}, %zmm1, %zmm0 {%k1}`
; whose immediate is for another operand order (zmm0 = zmm1 ? M : zmm0 instead of
; M ? zmm1 : zmm0). The swapped VPTERNLOG231/312 immediate transforms of
; llvm/llvm-project#157929, fixed upstream by llvm/llvm-project#209782 (2026-07-15), not
; in this package. Found by a hand-written probe of a bit-field update under a condition
; (2026-12-07; `p->b += v; if (v & 1) p->d = v;`): clang's scalar IR, widened
; instruction by instruction, is right (llc-22 -O0 runs it right). Not a Lanewise bug and
; not worked around: clang's own vectorizers meet the same code. README "Limits".
;   llc-22 -O2 tests/regressions/llc-ternlog-commute.ll -o - | grep ternlog
target triple = "x86_64-pc-linux-gnu"

define <16 x i32> @insert_field_if_odd(<16 x i32> %word, <16 x i32> %v) #0 {
  %odd = and <16 x i32> %v, splat (i32 1)
  %even = icmp eq <16 x i32> %odd, zeroinitializer
  %shifted = shl <16 x i32> %v, splat (i32 19)
  %field = and <16 x i32> %shifted, splat (i32 66584576)
  %kept = and <16 x i32> %word, splat (i32 -66584577)
  %inserted = or disjoint <16 x i32> %kept, %field
  %result = select <16 x i1> %even, <16 x i32> %word, <16 x i32> %inserted
  ret <16 x i32> %result
}

attributes #0 = { "target-cpu"="x86-64-v4" }
