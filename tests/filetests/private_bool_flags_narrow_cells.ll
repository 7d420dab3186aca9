; ARGS: -o {out} --function flags --width 8 --shapes v --isa avx512 --stats --wide-cells off
; EMIT: _ZGVeN8v_flags
; private_bool_flags.ll with `--wide-cells off` (the ablation): the
; interleaved `bool` array keeps 1-byte cells, so its accesses at varying
; indices are `i8` gathers and scatters (which x86 has no instruction for)
; and no `wide cells` line is printed.

define dso_local i32 @flags(i32 noundef %n) local_unnamed_addr {
entry:
  %seen = alloca [32 x i8], align 16
  call void @llvm.lifetime.start.p0(ptr nonnull %seen)
  %0 = and i32 %n, 31
  %.not = icmp eq i32 %0, 0
  br i1 %.not, label %vector.body, label %for.body

vector.body:                                      ; preds = %entry, %vector.body
  %index = phi i32 [ %index.next, %vector.body ], [ 0, %entry ]
  %1 = and i32 %index, 16
  %2 = zext nneg i32 %1 to i64
  %3 = getelementptr inbounds nuw i8, ptr %seen, i64 %2
  store <16 x i8> zeroinitializer, ptr %3, align 16
  %index.next = add nuw i32 %index, 16
  %4 = icmp eq i32 %index.next, 32
  br i1 %4, label %for.body5.preheader, label %vector.body

for.body5.preheader:                              ; preds = %for.body, %vector.body
  br label %for.body5

for.body:                                         ; preds = %entry, %for.body
  %i.023 = phi i32 [ %inc, %for.body ], [ 0, %entry ]
  %add = add nsw i32 %i.023, %n
  %and = and i32 %add, 31
  %idxprom = zext nneg i32 %and to i64
  %arrayidx = getelementptr inbounds nuw i8, ptr %seen, i64 %idxprom
  store i8 0, ptr %arrayidx, align 1
  %inc = add nuw nsw i32 %i.023, 1
  %exitcond.not = icmp eq i32 %inc, 32
  br i1 %exitcond.not, label %for.body5.preheader, label %for.body

for.cond.cleanup4:                                ; preds = %for.body5
  call void @llvm.lifetime.end.p0(ptr nonnull %seen)
  ret i32 %spec.select

for.body5:                                        ; preds = %for.body5.preheader, %for.body5
  %i1.025 = phi i32 [ %add6, %for.body5 ], [ 0, %for.body5.preheader ]
  %count.024 = phi i32 [ %spec.select, %for.body5 ], [ 0, %for.body5.preheader ]
  %add6 = add nuw nsw i32 %i1.025, 1
  %mul = mul nsw i32 %add6, %n
  %and7 = and i32 %mul, 31
  %idxprom8 = zext nneg i32 %and7 to i64
  %arrayidx9 = getelementptr inbounds nuw i8, ptr %seen, i64 %idxprom8
  %5 = load i8, ptr %arrayidx9, align 1
  %6 = xor i8 %5, 1
  %7 = zext nneg i8 %6 to i32
  %spec.select = add nuw nsw i32 %count.024, %7
  store i8 1, ptr %arrayidx9, align 1
  %exitcond26.not = icmp eq i32 %add6, 8
  br i1 %exitcond26.not, label %for.cond.cleanup4, label %for.body5
}

declare void @llvm.lifetime.start.p0(ptr captures(none))

declare void @llvm.lifetime.end.p0(ptr captures(none))



