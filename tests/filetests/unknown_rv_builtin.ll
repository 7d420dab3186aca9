; ARGS: -o {out} --function f --width 4 --shapes v
; An rv_* function Lanewise does not implement is an error naming it, not
; per-lane calls of an undefined symbol.
declare float @rv_reduce(float)

define float @f(float %x) {
entry:
  %r = call float @rv_reduce(float %x)
  ret float %r
}
