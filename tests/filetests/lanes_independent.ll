; ARGS: -o {out} --function walk --width 8 --shapes uv --isa avx2 --stats
; EMIT: _ZGVdN8uv_walk
; EMIT: _ZGVdM8uv_walk.one_lane
; A lock-step walk (every lane steps while any lane has a node left) marked
; lanes-independent (RV_LANES_INDEPENDENT: clang's annotation): the variant
; gets a safety net whose other form is one call of `_ZGVdM8uv_walk.one_lane`,
; the walk with `rv_any(b) = b` vectorized as a masked variant of its own
; (each lane leaves its loop when its own chain ends), whose net in turn
; calls the scalar `walk` per lane.
@.str = private unnamed_addr constant [27 x i8] c"lanewise.lanes-independent\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [7 x i8] c"walk.c\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @walk, ptr @.str, ptr @.str.1, i32 2, ptr null }], section "llvm.metadata"

define dso_local i32 @walk(ptr noundef readonly captures(none) %next, i32 noundef %start) {
entry:
  %cmp5 = icmp sgt i32 %start, -1
  %call6 = tail call zeroext i1 @rv_any(i1 noundef zeroext %cmp5)
  br i1 %call6, label %while.body, label %while.end

while.body:                                       ; preds = %entry, %if.end
  %cmp9 = phi i1 [ %cmp, %if.end ], [ %cmp5, %entry ]
  %steps.08 = phi i32 [ %steps.1, %if.end ], [ 0, %entry ]
  %node.07 = phi i32 [ %node.1, %if.end ], [ %start, %entry ]
  br i1 %cmp9, label %if.then, label %if.end

if.then:                                          ; preds = %while.body
  %idxprom = zext nneg i32 %node.07 to i64
  %arrayidx = getelementptr inbounds nuw i32, ptr %next, i64 %idxprom
  %0 = load i32, ptr %arrayidx, align 4
  %inc = add nsw i32 %steps.08, 1
  br label %if.end

if.end:                                           ; preds = %if.then, %while.body
  %node.1 = phi i32 [ %0, %if.then ], [ %node.07, %while.body ]
  %steps.1 = phi i32 [ %inc, %if.then ], [ %steps.08, %while.body ]
  %cmp = icmp sgt i32 %node.1, -1
  %call = tail call zeroext i1 @rv_any(i1 noundef zeroext %cmp)
  br i1 %call, label %while.body, label %while.end

while.end:                                        ; preds = %if.end, %entry
  %steps.0.lcssa = phi i32 [ 0, %entry ], [ %steps.1, %if.end ]
  ret i32 %steps.0.lcssa
}

declare zeroext i1 @rv_any(i1 noundef zeroext)
