; ARGS: -o {out} --slp lanewise
; EMIT: cmul2
; Basic-block vectorization (--slp lanewise) of two complex products
; out[k] = a[k] * b[k] on AVX2: the fsub/fadd pair becomes both vector
; operations and a blend; one factor is a vector load and its lane-swapped
; shuffle, the other's (re, re, re', re') and (im, im, im', im') are
; shuffles of one load of it (the block reads all of it); four stores, one.
define void @cmul2(ptr noalias %a, ptr noalias %b, ptr noalias %out) #0 {
  %ai0p = getelementptr inbounds float, ptr %a, i64 1
  %ar1p = getelementptr inbounds float, ptr %a, i64 2
  %ai1p = getelementptr inbounds float, ptr %a, i64 3
  %bi0p = getelementptr inbounds float, ptr %b, i64 1
  %br1p = getelementptr inbounds float, ptr %b, i64 2
  %bi1p = getelementptr inbounds float, ptr %b, i64 3
  %ar0 = load float, ptr %a, align 4
  %ai0 = load float, ptr %ai0p, align 4
  %br0 = load float, ptr %b, align 4
  %bi0 = load float, ptr %bi0p, align 4
  %ar1 = load float, ptr %ar1p, align 4
  %ai1 = load float, ptr %ai1p, align 4
  %br1 = load float, ptr %br1p, align 4
  %bi1 = load float, ptr %bi1p, align 4
  %rr0 = fmul float %ar0, %br0
  %ii0 = fmul float %ai0, %bi0
  %re0 = fsub float %rr0, %ii0
  %ri0 = fmul float %ar0, %bi0
  %ir0 = fmul float %ai0, %br0
  %im0 = fadd float %ir0, %ri0
  %rr1 = fmul float %ar1, %br1
  %ii1 = fmul float %ai1, %bi1
  %re1 = fsub float %rr1, %ii1
  %ri1 = fmul float %ar1, %bi1
  %ir1 = fmul float %ai1, %br1
  %im1 = fadd float %ir1, %ri1
  %im0p = getelementptr inbounds float, ptr %out, i64 1
  %re1p = getelementptr inbounds float, ptr %out, i64 2
  %im1p = getelementptr inbounds float, ptr %out, i64 3
  store float %re0, ptr %out, align 4
  store float %im0, ptr %im0p, align 4
  store float %re1, ptr %re1p, align 4
  store float %im1, ptr %im1p, align 4
  ret void
}
attributes #0 = { "target-cpu"="x86-64-v3" "target-features"="+avx,+avx2,+fma,+sse4.2" }
