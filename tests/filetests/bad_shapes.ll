; ARGS: -o {out} --function f --width 4 --shapes vq
define float @f(float %x) {
  ret float %x
}
