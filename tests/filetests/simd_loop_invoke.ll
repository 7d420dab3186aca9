; ARGS: -o {out} --simd-loops --stats
; EMIT: scale_owned
; EMIT: throw_in_body
; C++ exception handling around a `#pragma omp simd` loop passes through.
; `scale_owned` allocates with an `invoke` of operator new, runs the loop
; over the buffer, then makes calls that may throw: an indirect one, a
; `fastcc` one, and one whose `signext` result the normal path uses. The
; landing pads (cleanup, catch and filter clauses) meet in a `{ ptr, i32 }`
; phi that is resumed. The loop is vectorized; the exception handling lowers
; back with its personality, calling conventions and clauses (the LLVM
; verifier checks the module). In `throw_in_body` the loop body itself
; invokes a function that may throw, and its landing pad lies outside the
; loop: an exception may not leave a SIMD region (OpenMP), so the invoke is
; a call to the vectorized body and the loop is vectorized
; (loop_vectorize/exceptions.rs).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@_ZTIi = external constant ptr

declare noalias ptr @_Znwm(i64)
declare void @_ZdlPvm(ptr, i64) nounwind
declare i32 @__gxx_personality_v0(...)
declare fastcc void @fast_may_throw(ptr)
declare signext i16 @status(ptr)
declare float @may_throw_float(float)
declare void @release(ptr) nounwind
declare ptr @__cxa_begin_catch(ptr)
declare void @__cxa_end_catch()
declare void @__cxa_call_unexpected(ptr) noreturn
declare i32 @llvm.eh.typeid.for.p0(ptr)

define float @scale_owned(ptr %in, i32 %n, ptr %callback) #0 personality ptr @__gxx_personality_v0 {
entry:
  %buffer = invoke noalias ptr @_Znwm(i64 4096)
          to label %allocated unwind label %lpad.alloc

allocated:
  %positive = icmp sgt i32 %n, 0
  br i1 %positive, label %preheader, label %after

preheader:
  %count = zext i32 %n to i64
  br label %loop

loop:
  %i = phi i64 [ 0, %preheader ], [ %i.next, %loop ]
  %src = getelementptr inbounds float, ptr %in, i64 %i
  %x = load float, ptr %src, align 4
  %y = fmul float %x, 2.000000e+00
  %dst = getelementptr inbounds float, ptr %buffer, i64 %i
  store float %y, ptr %dst, align 4
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %count
  br i1 %done, label %after, label %loop, !llvm.loop !0

after:
  invoke void %callback(ptr %buffer)
          to label %after.callback unwind label %lpad.use

after.callback:
  invoke fastcc void @fast_may_throw(ptr %buffer)
          to label %after.fast unwind label %lpad.use

after.fast:
  %status = invoke signext i16 @status(ptr %buffer)
          to label %ok unwind label %lpad.use

ok:
  %first = load float, ptr %buffer, align 4
  %status.float = sitofp i16 %status to float
  %result = fadd float %first, %status.float
  call void @_ZdlPvm(ptr %buffer, i64 4096)
  ret float %result

lpad.use:
  %exception = landingpad { ptr, i32 }
          cleanup
          catch ptr @_ZTIi
  call void @_ZdlPvm(ptr %buffer, i64 4096)
  %selector = extractvalue { ptr, i32 } %exception, 1
  %int.id = call i32 @llvm.eh.typeid.for.p0(ptr @_ZTIi)
  %is.int = icmp eq i32 %selector, %int.id
  br i1 %is.int, label %catch, label %unwind

catch:
  %object = extractvalue { ptr, i32 } %exception, 0
  %caught = call ptr @__cxa_begin_catch(ptr %object)
  call void @__cxa_end_catch()
  ret float -1.000000e+00

lpad.alloc:
  %alloc.exception = landingpad { ptr, i32 }
          cleanup
          filter [1 x ptr] [ptr @_ZTIi]
  %alloc.selector = extractvalue { ptr, i32 } %alloc.exception, 1
  %unexpected = icmp slt i32 %alloc.selector, 0
  br i1 %unexpected, label %call.unexpected, label %unwind

call.unexpected:
  %alloc.object = extractvalue { ptr, i32 } %alloc.exception, 0
  call void @__cxa_call_unexpected(ptr %alloc.object)
  unreachable

unwind:
  %in.flight = phi { ptr, i32 } [ %exception, %lpad.use ], [ %alloc.exception, %lpad.alloc ]
  resume { ptr, i32 } %in.flight
}

define void @throw_in_body(ptr %data, i64 %n) #0 personality ptr @__gxx_personality_v0 {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %continue ]
  %address = getelementptr inbounds float, ptr %data, i64 %i
  %x = load float, ptr %address, align 4
  %y = invoke float @may_throw_float(float %x)
          to label %continue unwind label %lpad

continue:
  store float %y, ptr %address, align 4
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop, !llvm.loop !2

exit:
  ret void

lpad:
  %exception = landingpad { ptr, i32 }
          cleanup
  call void @release(ptr %data)
  resume { ptr, i32 } %exception
}

attributes #0 = { "target-features"="+avx2,+fma" }

!0 = distinct !{!0, !1, !9}
!1 = !{!"llvm.loop.vectorize.enable", i1 true}
!2 = distinct !{!2, !1, !9}
!8 = distinct !{}
!9 = !{!"llvm.loop.parallel_accesses", !8}
