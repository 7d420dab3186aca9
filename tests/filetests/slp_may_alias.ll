; ARGS: -o {out} --slp lanewise
; EMIT: copy_add
; Basic-block vectorization: without `noalias`, the store to out[0] may
; change a[1], which is loaded after it, so the two lanes stay apart (the
; function is left as it was).
define void @copy_add(ptr %a, ptr %out) #0 {
  %a1p = getelementptr inbounds i32, ptr %a, i64 1
  %o1p = getelementptr inbounds i32, ptr %out, i64 1
  %x = load i32, ptr %a, align 4
  %x1 = add i32 %x, 1
  store i32 %x1, ptr %out, align 4
  %y = load i32, ptr %a1p, align 4
  %y1 = add i32 %y, 1
  store i32 %y1, ptr %o1p, align 4
  ret void
}
attributes #0 = { "target-cpu"="x86-64-v3" "target-features"="+avx,+avx2,+fma,+sse4.2" }
