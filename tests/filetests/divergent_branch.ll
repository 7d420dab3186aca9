; ARGS: -o {out} --function f --width 8 --shapes vu --isa avx2
; EMIT: _ZGVdN8vu_f
; A store under a branch on a varying value cannot be speculated into a select:
; it becomes a masked store.
define void @f(float %x, ptr %p) {
entry:
  %neg = fcmp olt float %x, 0.000000e+00
  br i1 %neg, label %flip, label %done
flip:
  store float %x, ptr %p, align 4
  br label %done
done:
  ret void
}
