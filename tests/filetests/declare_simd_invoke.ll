; ARGS: -o {out} --function checked_sqrt --width 8 --shapes v
; A function that calls something that may throw (a C++ `invoke`) lifts,
; but cannot be vectorized: W lanes cannot unwind one by one. Widening
; refuses it with an error naming the instruction.
declare float @checked(float)
declare void @release()
declare i32 @__gxx_personality_v0(...)

define float @checked_sqrt(float %x) personality ptr @__gxx_personality_v0 {
entry:
  %root = invoke float @checked(float %x)
          to label %done unwind label %lpad

done:
  ret float %root

lpad:
  %exception = landingpad { ptr, i32 }
          cleanup
  call void @release()
  resume { ptr, i32 } %exception
}
