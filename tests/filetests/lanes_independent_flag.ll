; ARGS: -o {out} --function walk --width 8 --shapes uv --isa avx2 --stats --lanes-independent walk
; EMIT: _ZGVdN8uv_walk
; lanes_independent.ll without clang's annotation: `--lanes-independent walk`
; declares the function lanes-independent instead (for IR from other
; front ends), and the variant gets the same net towards its one-lane form.
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
