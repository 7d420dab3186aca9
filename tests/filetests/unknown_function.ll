; ARGS: -o {out} --function nope --width 4 --shapes v
define float @f(float %x) {
  ret float %x
}
