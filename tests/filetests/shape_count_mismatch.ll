; ARGS: -o {out} --function f --width 4 --shapes vv
define float @f(float %x) {
  ret float %x
}
