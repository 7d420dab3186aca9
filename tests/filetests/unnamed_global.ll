; A function that reads an unnamed global (clang's `-fopenmp` outlined
; regions pass unnamed `ident_t` records, `@0`, to the runtime): the global
; gets a name and the function its variant.
; ARGS: -o {out}
; EMIT: _ZGVdN8v_f
@0 = private unnamed_addr constant [4 x i32] [i32 3, i32 1, i32 4, i32 1]

define i32 @f(i32 %x) #0 {
entry:
  %index = and i32 %x, 3
  %wide = zext i32 %index to i64
  %slot = getelementptr inbounds [4 x i32], ptr @0, i64 0, i64 %wide
  %t = load i32, ptr %slot, align 4
  %y = add i32 %t, %x
  ret i32 %y
}
attributes #0 = { "_ZGVdN8v_f" }
