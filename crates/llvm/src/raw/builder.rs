//! The instruction builder's operations (see the safety argument in the
//! parent module).

use super::*;

// SAFETY (all build methods): the builder is positioned in a block of a
// function of this context, and every operand is a value of that function or
// a constant/global of its module, of the types the instruction requires
// (the lowerer checks types against the Lanewise IR, which the verifier has
// checked; LLVM's verifier runs on the result).
impl<'ctx> RawBuilder<'ctx> {
    pub(crate) fn new(context: RawContext<'ctx>) -> Self {
        RawBuilder { raw: unsafe { LLVMCreateBuilderInContext(context.raw) }, context: PhantomData }
    }

    pub(crate) fn position_at_end(&self, block: RawBlock<'ctx>) {
        unsafe { LLVMPositionBuilderAtEnd(self.raw, block.raw) }
    }

    pub(crate) fn binary(
        &self,
        opcode: LLVMOpcode,
        lhs: RawValue<'ctx>,
        rhs: RawValue<'ctx>,
    ) -> RawValue<'ctx> {
        RawValue::wrap(unsafe {
            LLVMBuildBinOp(self.raw, opcode, lhs.raw, rhs.raw, NO_NAME.as_ptr())
        })
    }
    pub(crate) fn fneg(&self, arg: RawValue<'ctx>) -> RawValue<'ctx> {
        RawValue::wrap(unsafe { LLVMBuildFNeg(self.raw, arg.raw, NO_NAME.as_ptr()) })
    }
    pub(crate) fn icmp(
        &self,
        pred: LLVMIntPredicate,
        lhs: RawValue<'ctx>,
        rhs: RawValue<'ctx>,
    ) -> RawValue<'ctx> {
        RawValue::wrap(unsafe { LLVMBuildICmp(self.raw, pred, lhs.raw, rhs.raw, NO_NAME.as_ptr()) })
    }
    pub(crate) fn fcmp(
        &self,
        pred: LLVMRealPredicate,
        lhs: RawValue<'ctx>,
        rhs: RawValue<'ctx>,
    ) -> RawValue<'ctx> {
        RawValue::wrap(unsafe { LLVMBuildFCmp(self.raw, pred, lhs.raw, rhs.raw, NO_NAME.as_ptr()) })
    }
    pub(crate) fn select(
        &self,
        cond: RawValue<'ctx>,
        then_value: RawValue<'ctx>,
        else_value: RawValue<'ctx>,
    ) -> RawValue<'ctx> {
        RawValue::wrap(unsafe {
            LLVMBuildSelect(self.raw, cond.raw, then_value.raw, else_value.raw, NO_NAME.as_ptr())
        })
    }
    pub(crate) fn cast(
        &self,
        opcode: LLVMOpcode,
        arg: RawValue<'ctx>,
        to: RawType<'ctx>,
    ) -> RawValue<'ctx> {
        RawValue::wrap(unsafe {
            LLVMBuildCast(self.raw, opcode, arg.raw, to.raw, NO_NAME.as_ptr())
        })
    }
    pub(crate) fn phi(&self, ty: RawType<'ctx>) -> RawValue<'ctx> {
        RawValue::wrap(unsafe { LLVMBuildPhi(self.raw, ty.raw, NO_NAME.as_ptr()) })
    }
    /// Adds incoming values to a phi built by [`RawBuilder::phi`].
    pub(crate) fn add_incoming(
        &self,
        phi: RawValue<'ctx>,
        incoming: &[(RawValue<'ctx>, RawBlock<'ctx>)],
    ) {
        if !phi.has_opcode(&[LLVMOpcode::LLVMPHI]) {
            return;
        }
        let mut values: Vec<LLVMValueRef> = incoming.iter().map(|(value, _)| value.raw).collect();
        let mut blocks: Vec<LLVMBasicBlockRef> =
            incoming.iter().map(|(_, block)| block.raw).collect();
        unsafe {
            LLVMAddIncoming(
                phi.raw,
                values.as_mut_ptr(),
                blocks.as_mut_ptr(),
                values.len() as c_uint,
            )
        }
    }
    pub(crate) fn load(&self, ty: RawType<'ctx>, addr: RawValue<'ctx>) -> RawValue<'ctx> {
        RawValue::wrap(unsafe { LLVMBuildLoad2(self.raw, ty.raw, addr.raw, NO_NAME.as_ptr()) })
    }
    pub(crate) fn store(&self, value: RawValue<'ctx>, addr: RawValue<'ctx>) -> RawValue<'ctx> {
        RawValue::wrap(unsafe { LLVMBuildStore(self.raw, value.raw, addr.raw) })
    }
    /// `atomicrmw op ptr addr, value ordering` in sync scope `scope` (0
    /// `singlethread`, 1 the system).
    pub(crate) fn atomic_rmw(
        &self,
        op: LLVMAtomicRMWBinOp,
        addr: RawValue<'ctx>,
        value: RawValue<'ctx>,
        ordering: LLVMAtomicOrdering,
        scope: u32,
    ) -> RawValue<'ctx> {
        RawValue::wrap(unsafe {
            LLVMBuildAtomicRMWSyncScope(self.raw, op, addr.raw, value.raw, ordering, scope)
        })
    }
    /// `cmpxchg [weak] ptr addr, expected, new success failure` in sync
    /// scope `scope`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn cmpxchg(
        &self,
        addr: RawValue<'ctx>,
        expected: RawValue<'ctx>,
        new: RawValue<'ctx>,
        success: LLVMAtomicOrdering,
        failure: LLVMAtomicOrdering,
        scope: u32,
        weak: bool,
    ) -> RawValue<'ctx> {
        unsafe {
            let built = LLVMBuildAtomicCmpXchgSyncScope(
                self.raw,
                addr.raw,
                expected.raw,
                new.raw,
                success,
                failure,
                scope,
            );
            LLVMSetWeak(built, LLVMBool::from(weak));
            RawValue::wrap(built)
        }
    }
    pub(crate) fn gep(
        &self,
        source: RawType<'ctx>,
        base: RawValue<'ctx>,
        indices: &[RawValue<'ctx>],
        inbounds: bool,
    ) -> RawValue<'ctx> {
        let mut raw_indices: Vec<LLVMValueRef> = indices.iter().map(|index| index.raw).collect();
        RawValue::wrap(unsafe {
            if inbounds {
                LLVMBuildInBoundsGEP2(
                    self.raw,
                    source.raw,
                    base.raw,
                    raw_indices.as_mut_ptr(),
                    raw_indices.len() as c_uint,
                    NO_NAME.as_ptr(),
                )
            } else {
                LLVMBuildGEP2(
                    self.raw,
                    source.raw,
                    base.raw,
                    raw_indices.as_mut_ptr(),
                    raw_indices.len() as c_uint,
                    NO_NAME.as_ptr(),
                )
            }
        })
    }
    pub(crate) fn alloca(&self, ty: RawType<'ctx>, count: RawValue<'ctx>) -> RawValue<'ctx> {
        RawValue::wrap(unsafe {
            LLVMBuildArrayAlloca(self.raw, ty.raw, count.raw, NO_NAME.as_ptr())
        })
    }
    pub(crate) fn extract_value(&self, aggregate: RawValue<'ctx>, index: u32) -> RawValue<'ctx> {
        RawValue::wrap(unsafe {
            LLVMBuildExtractValue(self.raw, aggregate.raw, index, NO_NAME.as_ptr())
        })
    }
    pub(crate) fn insert_value(
        &self,
        aggregate: RawValue<'ctx>,
        value: RawValue<'ctx>,
        index: u32,
    ) -> RawValue<'ctx> {
        RawValue::wrap(unsafe {
            LLVMBuildInsertValue(self.raw, aggregate.raw, value.raw, index, NO_NAME.as_ptr())
        })
    }
    pub(crate) fn extract_element(
        &self,
        vector: RawValue<'ctx>,
        index: RawValue<'ctx>,
    ) -> RawValue<'ctx> {
        RawValue::wrap(unsafe {
            LLVMBuildExtractElement(self.raw, vector.raw, index.raw, NO_NAME.as_ptr())
        })
    }
    pub(crate) fn insert_element(
        &self,
        vector: RawValue<'ctx>,
        value: RawValue<'ctx>,
        index: RawValue<'ctx>,
    ) -> RawValue<'ctx> {
        RawValue::wrap(unsafe {
            LLVMBuildInsertElement(self.raw, vector.raw, value.raw, index.raw, NO_NAME.as_ptr())
        })
    }
    pub(crate) fn shuffle(
        &self,
        lhs: RawValue<'ctx>,
        rhs: RawValue<'ctx>,
        mask: RawValue<'ctx>,
    ) -> RawValue<'ctx> {
        RawValue::wrap(unsafe {
            LLVMBuildShuffleVector(self.raw, lhs.raw, rhs.raw, mask.raw, NO_NAME.as_ptr())
        })
    }
    pub(crate) fn freeze(&self, arg: RawValue<'ctx>) -> RawValue<'ctx> {
        RawValue::wrap(unsafe { LLVMBuildFreeze(self.raw, arg.raw, NO_NAME.as_ptr()) })
    }
    pub(crate) fn call(
        &self,
        function_type: RawType<'ctx>,
        callee: RawValue<'ctx>,
        args: &[RawValue<'ctx>],
    ) -> RawValue<'ctx> {
        let mut raw_args: Vec<LLVMValueRef> = args.iter().map(|arg| arg.raw).collect();
        RawValue::wrap(unsafe {
            LLVMBuildCall2(
                self.raw,
                function_type.raw,
                callee.raw,
                raw_args.as_mut_ptr(),
                raw_args.len() as c_uint,
                NO_NAME.as_ptr(),
            )
        })
    }
    pub(crate) fn invoke(
        &self,
        function_type: RawType<'ctx>,
        callee: RawValue<'ctx>,
        args: &[RawValue<'ctx>],
        normal_dest: RawBlock<'ctx>,
        unwind_dest: RawBlock<'ctx>,
    ) -> RawValue<'ctx> {
        let mut raw_args: Vec<LLVMValueRef> = args.iter().map(|arg| arg.raw).collect();
        RawValue::wrap(unsafe {
            LLVMBuildInvoke2(
                self.raw,
                function_type.raw,
                callee.raw,
                raw_args.as_mut_ptr(),
                raw_args.len() as c_uint,
                normal_dest.raw,
                unwind_dest.raw,
                NO_NAME.as_ptr(),
            )
        })
    }
    /// A `landingpad` of type `ty` with these clauses (constants: pointers
    /// for `catch`, arrays for `filter`). No personality is passed here: it
    /// lives on the function ([`RawValue::set_personality`]).
    pub(crate) fn landing_pad(
        &self,
        ty: RawType<'ctx>,
        cleanup: bool,
        clauses: &[RawValue<'ctx>],
    ) -> RawValue<'ctx> {
        unsafe {
            let pad = LLVMBuildLandingPad(
                self.raw,
                ty.raw,
                std::ptr::null_mut(),
                clauses.len() as c_uint,
                NO_NAME.as_ptr(),
            );
            for clause in clauses {
                LLVMAddClause(pad, clause.raw);
            }
            LLVMSetCleanup(pad, cleanup as LLVMBool);
            RawValue::wrap(pad)
        }
    }
    pub(crate) fn resume(&self, value: RawValue<'ctx>) {
        unsafe { LLVMBuildResume(self.raw, value.raw) };
    }
    pub(crate) fn jump(&self, dest: RawBlock<'ctx>) {
        unsafe { LLVMBuildBr(self.raw, dest.raw) };
    }
    pub(crate) fn branch(
        &self,
        cond: RawValue<'ctx>,
        then_dest: RawBlock<'ctx>,
        else_dest: RawBlock<'ctx>,
    ) {
        unsafe { LLVMBuildCondBr(self.raw, cond.raw, then_dest.raw, else_dest.raw) };
    }
    pub(crate) fn switch(
        &self,
        value: RawValue<'ctx>,
        default: RawBlock<'ctx>,
        cases: &[(RawValue<'ctx>, RawBlock<'ctx>)],
    ) {
        unsafe {
            let switch = LLVMBuildSwitch(self.raw, value.raw, default.raw, cases.len() as c_uint);
            for (case_value, dest) in cases {
                LLVMAddCase(switch, case_value.raw, dest.raw);
            }
        }
    }
    pub(crate) fn ret(&self, value: Option<RawValue<'ctx>>) {
        unsafe {
            match value {
                Some(value) => LLVMBuildRet(self.raw, value.raw),
                None => LLVMBuildRetVoid(self.raw),
            }
        };
    }
    pub(crate) fn unreachable(&self) {
        unsafe { LLVMBuildUnreachable(self.raw) };
    }
}
