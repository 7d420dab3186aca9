; ARGS: -o {out} --function f --width 8 --shapes vu
define i32 @f(i96 %x, i96 %n) {
entry:
  %s = add i96 %x, %n
  %t = trunc i96 %s to i32
  ret i32 %t
}
