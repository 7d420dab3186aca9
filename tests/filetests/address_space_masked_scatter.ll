; ARGS: -o {out} --safety-net off
; EMIT: _ZGVbM4vv_scale
; Issue 14, class 4: a masked SSE variant whose loop loads and stores through
; a varying `ptr addrspace(5)` parameter. The masked scatter of the store
; must stay in address space 5 (it used to select between the addresses and a
; stack slot of address space 0: output the LLVM verifier rejects).
define void @scale(ptr addrspace(5) %p, i32 %n) #0 {
entry:
  %pos = icmp sgt i32 %n, 0
  br i1 %pos, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %idx = sext i32 %i to i64
  %q = getelementptr inbounds float, ptr addrspace(5) %p, i64 %idx
  %v = load float, ptr addrspace(5) %q, align 4
  %w = fadd float %v, 1.0
  store float %w, ptr addrspace(5) %q, align 4
  %i.next = add nsw i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
attributes #0 = { "_ZGVbM4vv_scale" }
