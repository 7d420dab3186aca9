; A function returning a struct over 16 bytes takes clang's `sret` pointer
; first, so its `declare simd` attribute names one parameter fewer: the
; warning says why, and the other function still gets its variant.
; ARGS: -o {out} --keep-going
; EMIT: _ZGVdN8v_g
%struct.big = type { double, double, double, i32 }

define void @f(ptr noalias writable sret(%struct.big) align 8 %result, i32 %x) #0 {
entry:
  %d = sitofp i32 %x to double
  store double %d, ptr %result, align 8
  %b = getelementptr inbounds i8, ptr %result, i64 8
  store double %d, ptr %b, align 8
  %c = getelementptr inbounds i8, ptr %result, i64 16
  store double %d, ptr %c, align 8
  %k = getelementptr inbounds i8, ptr %result, i64 24
  store i32 %x, ptr %k, align 8
  ret void
}

define i32 @g(i32 %x) #1 {
entry:
  %y = mul i32 %x, 3
  ret i32 %y
}
attributes #0 = { "_ZGVdN8v_f" }
attributes #1 = { "_ZGVdN8v_g" }
