; ARGS: -o {out} --function saxpy --width 8 --shapes uvv --name saxpy_x8
; EMIT: saxpy_x8
define float @saxpy(float %a, float %x, float %y) {
  %m = fmul float %a, %x
  %r = fadd float %m, %y
  ret float %r
}
