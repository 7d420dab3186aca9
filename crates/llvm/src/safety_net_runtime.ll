; The runtime of the run-time safety net
; (lanewise_transform::dynamic_variants::safety_net), linked into a module
; once, when one of its variants has a net. The definitions are weak_odr
; here so that the linker copies them before anything calls them; the
; bridge makes them internal right after.
;
; Each such variant keeps a thread-local [8 x i64] record %s:
;   s[0]        calls left in the current phase
;   s[1]        the phase: 0 fresh, 1 measuring, 2 running the winner
;   s[2]        the form that runs (0 the vector body, 1 per-lane calls)
;   s[3], s[4]  cycles and active lanes of the measured vector calls
;   s[5], s[6]  cycles and active lanes of the measured per-lane calls
;   s[7]        length of the last run: 64 calls, doubling up to 8192 while
;               the same form keeps winning, and at least what keeps the
;               next measurement's cost below 1/128 of the run (below)
; A phase of measurement alternates the two forms every two calls over 32
; calls, timing the second of each two with the cycle counter; the vector body then runs for
; s[7] calls unless per-lane calls took less than 0.95 of its cycles per
; active lane, and measurement starts again.
;
; Measuring costs: its 16 calls of the losing form take q - 1 times a
; winning call longer each, q the ratio of their cycles per active lane.
; A run is therefore at least 16 * (q - 1) * 128 = 2048 * (q - 1) calls
; (up to 8192): a form 4.5x slower (per-lane tree walks, whose vector body
; keeps few lanes busy) is measured again after 7168 calls, not after 64,
; 128, ... calls, each measurement 56 calls' worth of time lost; forms
; within a few percent of each other cost the same whichever runs, and
; are measured again soon.
;
; A ticket (what begin returns, end reads) is the form, 0 or 1, for a call
; that is not measured, and (start << 2) | 2 | form for one that is.
;
; %name is the variant's name (a C string next to its record): with
; LANEWISE_NET_TRACE set (and not "0") in the environment, every decision
; prints a line on stderr, `lanewise safety net NAME: vector V, per-lane P
; cycles per active lane -> FORM for N calls`.

@__lanewise_net_trace_state = weak_odr hidden global i32 0
@__lanewise_net_trace_variable = private unnamed_addr constant [19 x i8] c"LANEWISE_NET_TRACE\00"
@__lanewise_net_trace_format = private unnamed_addr constant [96 x i8] c"lanewise safety net %s: vector %.1f, per-lane %.1f cycles per active lane -> %s for %lld calls\0A\00"
@__lanewise_net_vector_name = private unnamed_addr constant [7 x i8] c"vector\00"
@__lanewise_net_per_lane_name = private unnamed_addr constant [9 x i8] c"per-lane\00"
@stderr = external global ptr

define weak_odr hidden i64 @__lanewise_net_begin(ptr %s, ptr %name) alwaysinline nounwind {
entry:
  %left = load i64, ptr %s, align 8
  %phase.over = icmp eq i64 %left, 0
  br i1 %phase.over, label %next, label %go

next:
  call void @__lanewise_net_next_phase(ptr %s, ptr %name)
  br label %go

go:
  %left.now = load i64, ptr %s, align 8
  %left.after = sub i64 %left.now, 1
  store i64 %left.after, ptr %s, align 8
  %phase.p = getelementptr inbounds i64, ptr %s, i64 1
  %phase = load i64, ptr %phase.p, align 8
  %running = icmp eq i64 %phase, 2
  br i1 %running, label %run, label %measure

run:
  %form.p = getelementptr inbounds i64, ptr %s, i64 2
  %form = load i64, ptr %form.p, align 8
  ret i64 %form

measure:
  ; The forms alternate every two calls (neighbouring calls of a loop cost
  ; about the same: mandelbrot's rows run from cheap pixels into the set);
  ; the first call of each two warms the form up (branch predictors, caches)
  ; and is not timed.
  %pair = lshr i64 %left.after, 1
  %measured.form = and i64 %pair, 1
  %second.bit = and i64 %left.after, 1
  %warm.up = icmp ne i64 %second.bit, 0
  br i1 %warm.up, label %untimed, label %timed

untimed:
  ret i64 %measured.form

timed:
  %start = call i64 @llvm.readcyclecounter()
  %start.shifted = shl i64 %start, 2
  %flags = or i64 %measured.form, 2
  %ticket = or i64 %start.shifted, %flags
  ret i64 %ticket
}

define weak_odr hidden void @__lanewise_net_end(ptr %s, i64 %ticket, i64 %lanes) alwaysinline nounwind {
entry:
  %measured.bit = and i64 %ticket, 2
  %measured = icmp ne i64 %measured.bit, 0
  br i1 %measured, label %record, label %done

record:
  %now = call i64 @llvm.readcyclecounter()
  %start = lshr i64 %ticket, 2
  %elapsed.wide = sub i64 %now, %start
  %elapsed = and i64 %elapsed.wide, 4611686018427387903
  %form = and i64 %ticket, 1
  %form.twice = shl i64 %form, 1
  %cycles.index = add i64 %form.twice, 3
  %lanes.index = add i64 %form.twice, 4
  %cycles.p = getelementptr inbounds i64, ptr %s, i64 %cycles.index
  %lanes.p = getelementptr inbounds i64, ptr %s, i64 %lanes.index
  %cycles = load i64, ptr %cycles.p, align 8
  %cycles.new = add i64 %cycles, %elapsed
  store i64 %cycles.new, ptr %cycles.p, align 8
  %lanes.old = load i64, ptr %lanes.p, align 8
  %lanes.new = add i64 %lanes.old, %lanes
  store i64 %lanes.new, ptr %lanes.p, align 8
  br label %done

done:
  ret void
}

define weak_odr hidden void @__lanewise_net_next_phase(ptr %s, ptr %name) noinline nounwind {
entry:
  %phase.p = getelementptr inbounds i64, ptr %s, i64 1
  %phase = load i64, ptr %phase.p, align 8
  %was.measuring = icmp eq i64 %phase, 1
  br i1 %was.measuring, label %decide, label %measure

measure:
  store i64 32, ptr %s, align 8
  store i64 1, ptr %phase.p, align 8
  %measured.p = getelementptr inbounds i64, ptr %s, i64 3
  call void @llvm.memset.p0.i64(ptr %measured.p, i8 0, i64 32, i1 false)
  ret void

decide:
  ; Per-lane calls win when their cycles per lane are below 0.95 of the
  ; vector body's (the benefit of the doubt stays with the vector body; a
  ; NaN from a form that saw no active lane compares false).
  %vector.cycles.p = getelementptr inbounds i64, ptr %s, i64 3
  %vector.lanes.p = getelementptr inbounds i64, ptr %s, i64 4
  %per.lane.cycles.p = getelementptr inbounds i64, ptr %s, i64 5
  %per.lane.lanes.p = getelementptr inbounds i64, ptr %s, i64 6
  %vector.cycles = load i64, ptr %vector.cycles.p, align 8
  %vector.lanes = load i64, ptr %vector.lanes.p, align 8
  %per.lane.cycles = load i64, ptr %per.lane.cycles.p, align 8
  %per.lane.lanes = load i64, ptr %per.lane.lanes.p, align 8
  %vc = uitofp i64 %vector.cycles to double
  %vl = uitofp i64 %vector.lanes to double
  %pc = uitofp i64 %per.lane.cycles to double
  %pl = uitofp i64 %per.lane.lanes to double
  %vector.cost = fdiv double %vc, %vl
  %per.lane.cost = fdiv double %pc, %pl
  %per.lane.handicapped = fmul double %per.lane.cost, 1.05
  %per.lane.wins = fcmp olt double %per.lane.handicapped, %vector.cost
  %winner = zext i1 %per.lane.wins to i64
  %form.p = getelementptr inbounds i64, ptr %s, i64 2
  %last.winner = load i64, ptr %form.p, align 8
  %run.p = getelementptr inbounds i64, ptr %s, i64 7
  %last.run = load i64, ptr %run.p, align 8
  %same.winner = icmp eq i64 %last.winner, %winner
  %had.run = icmp ne i64 %last.run, 0
  %grows = and i1 %same.winner, %had.run
  %doubled = shl i64 %last.run, 1
  %capped = call i64 @llvm.umin.i64(i64 %doubled, i64 8192)
  %run.by.streak = select i1 %grows, i64 %capped, i64 64
  ; 2048 * (q - 1) calls: maxnum/minnum pass over a NaN cost (a form that
  ; saw no active lane: q = 1), a NaN q (both) fails the `ogt` below.
  %loser.cost = call double @llvm.maxnum.f64(double %vector.cost, double %per.lane.cost)
  %winner.cost = call double @llvm.minnum.f64(double %vector.cost, double %per.lane.cost)
  %q = fdiv double %loser.cost, %winner.cost
  %q.excess = fsub double %q, 1.0
  %budget = fmul double %q.excess, 2048.0
  %budget.positive = fcmp ogt double %budget, 0.0
  %budget.known = select i1 %budget.positive, double %budget, double 0.0
  %budget.capped = call double @llvm.minnum.f64(double %budget.known, double 8192.0)
  %run.by.cost = fptoui double %budget.capped to i64
  %run = call i64 @llvm.umax.i64(i64 %run.by.streak, i64 %run.by.cost)
  store i64 %winner, ptr %form.p, align 8
  store i64 %run, ptr %run.p, align 8
  store i64 %run, ptr %s, align 8
  store i64 2, ptr %phase.p, align 8
  call void @__lanewise_net_trace(ptr %name, double %vector.cost, double %per.lane.cost, i64 %winner, i64 %run)
  ret void
}

; Prints a decision when LANEWISE_NET_TRACE asks for it (asked once; the
; answer is kept in @__lanewise_net_trace_state: 0 not asked, 1 off, 2 on).
define weak_odr hidden void @__lanewise_net_trace(ptr %name, double %vector.cost, double %per.lane.cost, i64 %winner, i64 %run) noinline nounwind {
entry:
  %state = load atomic i32, ptr @__lanewise_net_trace_state monotonic, align 4
  %unknown = icmp eq i32 %state, 0
  br i1 %unknown, label %ask, label %known

ask:
  %value = call ptr @getenv(ptr @__lanewise_net_trace_variable)
  %set = icmp ne ptr %value, null
  br i1 %set, label %read, label %decided

read:
  %first = load i8, ptr %value, align 1
  %empty = icmp eq i8 %first, 0
  %zero = icmp eq i8 %first, 48
  %off = or i1 %empty, %zero
  br label %decided

decided:
  %is.off = phi i1 [ true, %ask ], [ %off, %read ]
  %asked = select i1 %is.off, i32 1, i32 2
  store atomic i32 %asked, ptr @__lanewise_net_trace_state monotonic, align 4
  br label %known

known:
  %now = phi i32 [ %state, %entry ], [ %asked, %decided ]
  %on = icmp eq i32 %now, 2
  br i1 %on, label %print, label %done

print:
  %stream = load ptr, ptr @stderr, align 8
  %per.lane.won = icmp ne i64 %winner, 0
  %form = select i1 %per.lane.won, ptr @__lanewise_net_per_lane_name, ptr @__lanewise_net_vector_name
  %printed = call i32 (ptr, ptr, ...) @fprintf(ptr %stream, ptr @__lanewise_net_trace_format, ptr %name, double %vector.cost, double %per.lane.cost, ptr %form, i64 %run)
  br label %done

done:
  ret void
}

declare ptr @getenv(ptr)
declare i32 @fprintf(ptr, ptr, ...)

declare i64 @llvm.readcyclecounter()
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1 immarg)
declare i64 @llvm.umin.i64(i64, i64)
declare i64 @llvm.umax.i64(i64, i64)
declare double @llvm.maxnum.f64(double, double)
declare double @llvm.minnum.f64(double, double)
