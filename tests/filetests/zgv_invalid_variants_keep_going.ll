; ARGS: -o {out} --keep-going
; EMIT: _ZGVdN8vuu_f
define float @f(float %x, ptr %p, i64 %n) #0 {
entry:
  %y = fmul float %x, 2.0
  ret float %y
}
attributes #0 = { "_ZGVdN3vuu_f" "_ZGVdN8vuu_f" "_ZGVdN65536vuu_f" "_ZGVdN0vuu_f" "_ZGVdN8vuu_g" "_ZGVdN8vl99999999999999999999u_f" "_ZGVdN8vuls2_f" "_ZGVdN8vls2v_f" "_ZGVdN8vuls7_f" "_ZGVdN8vu_f" }
