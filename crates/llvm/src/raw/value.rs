//! The operations on [`RawValue`]: value kinds, operands, constants,
//! instructions' flags and metadata, attributes (see the safety argument in
//! the parent module).

use super::*;

impl<'ctx> RawValue<'ctx> {
    pub(super) fn wrap(raw: LLVMValueRef) -> Self {
        debug_assert!(!raw.is_null());
        RawValue { raw, context: PhantomData }
    }

    pub(super) fn wrap_nullable(raw: LLVMValueRef) -> Option<Self> {
        (!raw.is_null()).then(|| RawValue::wrap(raw))
    }

    /// The handle of an inkwell value of the same context.
    pub(crate) fn from_inkwell(value: &impl AsValueRef) -> Self {
        RawValue::wrap(value.as_value_ref())
    }

    pub(crate) fn kind(self) -> LLVMValueKind {
        // SAFETY: see the module docs; every value has a kind.
        unsafe { LLVMGetValueKind(self.raw) }
    }

    pub(crate) fn ty(self) -> RawType<'ctx> {
        // SAFETY: see the module docs.
        RawType::wrap(unsafe { LLVMTypeOf(self.raw) })
    }

    /// The parts of an inline assembly value (`kind()` is
    /// `LLVMInlineAsmValueKind`).
    pub(crate) fn inline_asm_parts(self) -> lanewise_ir::InlineAsm {
        let (mut asm_length, mut constraints_length) = (0usize, 0usize);
        // SAFETY: `self` is an inline asm value (the caller checked its
        // kind); LLVM writes the lengths of the strings it returns, which
        // live as long as the value.
        unsafe {
            let asm = LLVMGetInlineAsmAsmString(self.raw, &mut asm_length);
            let constraints = LLVMGetInlineAsmConstraintString(self.raw, &mut constraints_length);
            lanewise_ir::InlineAsm {
                asm: borrowed_string(asm, asm_length),
                constraints: borrowed_string(constraints, constraints_length),
                side_effects: LLVMGetInlineAsmHasSideEffects(self.raw) != 0,
                align_stack: LLVMGetInlineAsmNeedsAlignedStack(self.raw) != 0,
                intel_dialect: LLVMGetInlineAsmDialect(self.raw)
                    == inkwell::llvm_sys::LLVMInlineAsmDialect::LLVMInlineAsmDialectIntel,
                can_unwind: LLVMGetInlineAsmCanUnwind(self.raw) != 0,
                element_types: Vec::new(),
            }
        }
    }

    /// The value's name, `None` if it has none.
    pub(crate) fn name(self) -> Option<String> {
        let mut length = 0usize;
        // SAFETY: see the module docs; LLVM writes the name's length.
        let pointer = unsafe { LLVMGetValueName2(self.raw, &mut length) };
        let name = borrowed_string(pointer, length);
        (!name.is_empty()).then_some(name)
    }

    pub(crate) fn set_name(self, name: &str) {
        // SAFETY: pointer and length of a live Rust string.
        unsafe { LLVMSetValueName2(self.raw, name.as_ptr().cast(), name.len()) }
    }

    /// The value as LLVM prints it (an instruction prints as its line).
    pub(crate) fn to_text(self) -> String {
        // SAFETY: see the module docs.
        owned_message(unsafe { LLVMPrintValueToString(self.raw) }).trim().to_owned()
    }

    pub(crate) fn is_instruction(self) -> bool {
        self.kind() == LLVMValueKind::LLVMInstructionValueKind
    }

    /// The opcode of an instruction or of a constant expression.
    pub(crate) fn opcode(self) -> Option<LLVMOpcode> {
        // SAFETY: each call is made on the kind of value it expects.
        match self.kind() {
            LLVMValueKind::LLVMInstructionValueKind => {
                Some(unsafe { LLVMGetInstructionOpcode(self.raw) })
            }
            LLVMValueKind::LLVMConstantExprValueKind => {
                Some(unsafe { LLVMGetConstOpcode(self.raw) })
            }
            _ => None,
        }
    }

    pub(super) fn has_opcode(self, opcodes: &[LLVMOpcode]) -> bool {
        self.is_instruction() && self.opcode().is_some_and(|opcode| opcodes.contains(&opcode))
    }

    pub(crate) fn num_operands(self) -> u32 {
        // SAFETY: users (instructions, constants) have operands; other
        // values report 0 (LLVMGetNumOperands returns -1 for metadata, which
        // we map to 0).
        match self.kind() {
            LLVMValueKind::LLVMMetadataAsValueValueKind => 0,
            _ => unsafe { LLVMGetNumOperands(self.raw) }.max(0) as u32,
        }
    }

    pub(crate) fn operand(self, index: u32) -> Option<RawValue<'ctx>> {
        if index >= self.num_operands() {
            return None;
        }
        // SAFETY: the index is in range.
        RawValue::wrap_nullable(unsafe { LLVMGetOperand(self.raw, index) })
    }

    // Flags.
    pub(crate) fn no_unsigned_wrap(self) -> bool {
        use LLVMOpcode::*;
        // SAFETY: only on opcodes that carry the flag.
        self.has_opcode(&[LLVMAdd, LLVMSub, LLVMMul, LLVMShl, LLVMTrunc])
            && unsafe { LLVMGetNUW(self.raw) } != 0
    }
    pub(crate) fn no_signed_wrap(self) -> bool {
        use LLVMOpcode::*;
        // SAFETY: only on opcodes that carry the flag.
        self.has_opcode(&[LLVMAdd, LLVMSub, LLVMMul, LLVMShl, LLVMTrunc])
            && unsafe { LLVMGetNSW(self.raw) } != 0
    }
    pub(crate) fn exact(self) -> bool {
        use LLVMOpcode::*;
        // SAFETY: only on possibly-exact operators.
        self.has_opcode(&[LLVMUDiv, LLVMSDiv, LLVMLShr, LLVMAShr])
            && unsafe { LLVMGetExact(self.raw) } != 0
    }
    pub(crate) fn disjoint(self) -> bool {
        // SAFETY: only on `or`.
        self.has_opcode(&[LLVMOpcode::LLVMOr]) && unsafe { LLVMGetIsDisjoint(self.raw) } != 0
    }
    pub(crate) fn non_negative(self) -> bool {
        // SAFETY: only on the possibly-non-negative casts.
        self.has_opcode(&[LLVMOpcode::LLVMZExt, LLVMOpcode::LLVMUIToFP])
            && unsafe { LLVMGetNNeg(self.raw) } != 0
    }
    /// Fast-math flags as LLVM-C's bit set (`LLVMFastMath*`), 0 if the
    /// instruction cannot carry them.
    pub(crate) fn fast_math_bits(self) -> u32 {
        // SAFETY: LLVMGetFastMathFlags is only called where LLVM says the
        // value can carry the flags.
        unsafe {
            if self.is_instruction() && LLVMCanValueUseFastMathFlags(self.raw) != 0 {
                LLVMGetFastMathFlags(self.raw)
            } else {
                0
            }
        }
    }
    pub(crate) fn set_flags(self, nuw: bool, nsw: bool, exact: bool, disjoint: bool, nneg: bool) {
        use LLVMOpcode::*;
        // SAFETY: each setter only on the opcodes that carry its flag; the
        // builder may have folded the instruction to a constant, which is
        // not an instruction and is skipped.
        unsafe {
            if (nuw || nsw) && self.has_opcode(&[LLVMAdd, LLVMSub, LLVMMul, LLVMShl, LLVMTrunc]) {
                LLVMSetNUW(self.raw, nuw as LLVMBool);
                LLVMSetNSW(self.raw, nsw as LLVMBool);
            }
            if exact && self.has_opcode(&[LLVMUDiv, LLVMSDiv, LLVMLShr, LLVMAShr]) {
                LLVMSetExact(self.raw, 1);
            }
            if disjoint && self.has_opcode(&[LLVMOr]) {
                LLVMSetIsDisjoint(self.raw, 1);
            }
            if nneg && self.has_opcode(&[LLVMZExt, LLVMUIToFP]) {
                LLVMSetNNeg(self.raw, 1);
            }
        }
    }
    pub(crate) fn set_fast_math_bits(self, bits: u32) {
        // SAFETY: only where LLVM says the value can carry the flags.
        unsafe {
            if bits != 0 && self.is_instruction() && LLVMCanValueUseFastMathFlags(self.raw) != 0 {
                LLVMSetFastMathFlags(self.raw, bits);
            }
        }
    }

    pub(crate) fn icmp_predicate(self) -> Option<LLVMIntPredicate> {
        // SAFETY: only on icmp.
        self.has_opcode(&[LLVMOpcode::LLVMICmp]).then(|| unsafe { LLVMGetICmpPredicate(self.raw) })
    }
    pub(crate) fn fcmp_predicate(self) -> Option<LLVMRealPredicate> {
        // SAFETY: only on fcmp.
        self.has_opcode(&[LLVMOpcode::LLVMFCmp]).then(|| unsafe { LLVMGetFCmpPredicate(self.raw) })
    }

    // Memory instructions.
    pub(crate) fn alignment(self) -> u32 {
        // SAFETY: only on the instructions LLVMGetAlignment accepts.
        if self.has_opcode(MEMORY_OPCODES) {
            unsafe { LLVMGetAlignment(self.raw) }
        } else {
            0
        }
    }
    pub(crate) fn set_alignment(self, align: u32) {
        // SAFETY: only on the instructions LLVMSetAlignment accepts.
        if align != 0 && self.has_opcode(MEMORY_OPCODES) {
            unsafe { LLVMSetAlignment(self.raw, align) }
        }
    }
    pub(crate) fn is_volatile(self) -> bool {
        // SAFETY: only on the instructions LLVMGetVolatile accepts.
        self.has_opcode(VOLATILE_OPCODES) && unsafe { LLVMGetVolatile(self.raw) } != 0
    }
    pub(crate) fn set_volatile(self) {
        // SAFETY: only on the instructions LLVMSetVolatile accepts.
        if self.has_opcode(VOLATILE_OPCODES) {
            unsafe { LLVMSetVolatile(self.raw, 1) }
        }
    }
    /// The operation and ordering of an `atomicrmw`.
    pub(crate) fn atomic_rmw_op(self) -> Option<(LLVMAtomicRMWBinOp, LLVMAtomicOrdering)> {
        // SAFETY: only on atomicrmw.
        self.has_opcode(&[LLVMOpcode::LLVMAtomicRMW])
            .then(|| unsafe { (LLVMGetAtomicRMWBinOp(self.raw), LLVMGetOrdering(self.raw)) })
    }
    /// The success and failure orderings and the `weak` flag of a `cmpxchg`.
    pub(crate) fn cmpxchg_orderings(
        self,
    ) -> Option<(LLVMAtomicOrdering, LLVMAtomicOrdering, bool)> {
        // SAFETY: only on cmpxchg.
        self.has_opcode(&[LLVMOpcode::LLVMAtomicCmpXchg]).then(|| unsafe {
            (
                LLVMGetCmpXchgSuccessOrdering(self.raw),
                LLVMGetCmpXchgFailureOrdering(self.raw),
                LLVMGetWeak(self.raw) != 0,
            )
        })
    }
    /// The synchronization scope id of an `atomicrmw` or `cmpxchg` (LLVM's
    /// fixed ids: 0 `singlethread`, 1 the system; others are named scopes).
    pub(crate) fn atomic_sync_scope_id(self) -> Option<u32> {
        // SAFETY: only on atomic read-modify-write instructions.
        self.has_opcode(&[LLVMOpcode::LLVMAtomicRMW, LLVMOpcode::LLVMAtomicCmpXchg])
            .then(|| unsafe { LLVMGetAtomicSyncScopeID(self.raw) })
    }
    /// Whether a load or store is atomic.
    pub(crate) fn is_atomic_access(self) -> bool {
        // SAFETY: only on loads and stores.
        self.has_opcode(&[LLVMOpcode::LLVMLoad, LLVMOpcode::LLVMStore])
            && unsafe { LLVMGetOrdering(self.raw) }
                != inkwell::llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
    }
    pub(crate) fn allocated_type(self) -> Option<RawType<'ctx>> {
        // SAFETY: only on alloca.
        self.has_opcode(&[LLVMOpcode::LLVMAlloca])
            .then(|| RawType::wrap(unsafe { LLVMGetAllocatedType(self.raw) }))
    }
    /// Source element type and `inbounds` of a GEP instruction or constant expression.
    pub(crate) fn gep_source_type_and_inbounds(self) -> Option<(RawType<'ctx>, bool)> {
        if self.opcode() != Some(LLVMOpcode::LLVMGetElementPtr) {
            return None;
        }
        // SAFETY: checked to be a GEP (instruction or constant expression),
        // both of which are GEPOperators.
        unsafe {
            Some((
                RawType::wrap(LLVMGetGEPSourceElementType(self.raw)),
                LLVMIsInBounds(self.raw) != 0,
            ))
        }
    }
    /// The constant indices of extractvalue/insertvalue.
    pub(crate) fn aggregate_indices(self) -> Vec<u32> {
        use LLVMOpcode::*;
        if !self.has_opcode(&[LLVMExtractValue, LLVMInsertValue]) {
            return Vec::new();
        }
        // SAFETY: checked opcode; LLVM returns `count` indices it owns.
        unsafe {
            let count = LLVMGetNumIndices(self.raw) as usize;
            let pointer = LLVMGetIndices(self.raw);
            if pointer.is_null() {
                return Vec::new();
            }
            std::slice::from_raw_parts(pointer, count).to_vec()
        }
    }
    /// The mask of a shufflevector; `-1` for a poison element.
    pub(crate) fn shuffle_mask(self) -> Vec<i32> {
        if !self.has_opcode(&[LLVMOpcode::LLVMShuffleVector]) {
            return Vec::new();
        }
        // SAFETY: checked opcode; indices are below the element count.
        unsafe {
            let undef = LLVMGetUndefMaskElem();
            (0..LLVMGetNumMaskElements(self.raw))
                .map(|index| {
                    let element = LLVMGetMaskValue(self.raw, index);
                    if element == undef {
                        -1
                    } else {
                        element
                    }
                })
                .collect()
        }
    }

    // Control flow.
    pub(crate) fn phi_incoming(self) -> Vec<(RawValue<'ctx>, RawBlock<'ctx>)> {
        if !self.has_opcode(&[LLVMOpcode::LLVMPHI]) {
            return Vec::new();
        }
        // SAFETY: checked opcode; indices are below the incoming count.
        unsafe {
            (0..LLVMCountIncoming(self.raw))
                .map(|index| {
                    (
                        RawValue::wrap(LLVMGetIncomingValue(self.raw, index)),
                        RawBlock::wrap(LLVMGetIncomingBlock(self.raw, index)),
                    )
                })
                .collect()
        }
    }
    fn is_terminator(self) -> bool {
        // SAFETY: on an instruction.
        self.is_instruction() && !unsafe { LLVMIsATerminatorInst(self.raw) }.is_null()
    }
    pub(crate) fn successors(self) -> Vec<RawBlock<'ctx>> {
        if !self.is_terminator() {
            return Vec::new();
        }
        // SAFETY: checked to be a terminator; indices in range.
        unsafe {
            (0..LLVMGetNumSuccessors(self.raw))
                .map(|index| RawBlock::wrap(LLVMGetSuccessor(self.raw, index)))
                .collect()
        }
    }
    /// The condition of a conditional `br`.
    pub(crate) fn branch_condition(self) -> Option<RawValue<'ctx>> {
        // SAFETY: checked opcode; LLVMIsConditional/LLVMGetCondition take a branch.
        if self.has_opcode(&[LLVMOpcode::LLVMBr]) && unsafe { LLVMIsConditional(self.raw) } != 0 {
            Some(RawValue::wrap(unsafe { LLVMGetCondition(self.raw) }))
        } else {
            None
        }
    }

    /// The case value leading to successor `successor` (1-based: successor
    /// 0 is the default) of a `switch`.
    pub(crate) fn switch_case_value(self, successor: u32) -> Option<RawValue<'ctx>> {
        if !self.has_opcode(&[LLVMOpcode::LLVMSwitch]) || successor == 0 {
            return None;
        }
        // SAFETY: checked to be a switch; `successor` is a case's successor
        // index as long as it is below the successor count.
        (successor < unsafe { LLVMGetNumSuccessors(self.raw) })
            .then(|| RawValue::wrap(unsafe { LLVMGetSwitchCaseValue(self.raw, successor) }))
    }

    // Calls and invokes (LLVM's `CallBase`).
    pub(crate) fn is_call(self) -> bool {
        self.has_opcode(&[LLVMOpcode::LLVMCall])
    }
    pub(crate) fn is_invoke(self) -> bool {
        self.has_opcode(&[LLVMOpcode::LLVMInvoke])
    }
    /// A `call` or an `invoke`: what the `CallBase` getters accept.
    fn is_call_site(self) -> bool {
        self.has_opcode(&[LLVMOpcode::LLVMCall, LLVMOpcode::LLVMInvoke])
    }
    pub(crate) fn called_value(self) -> Option<RawValue<'ctx>> {
        // SAFETY: only on calls and invokes.
        self.is_call_site().then(|| RawValue::wrap(unsafe { LLVMGetCalledValue(self.raw) }))
    }
    pub(crate) fn call_argument_count(self) -> u32 {
        // SAFETY: only on calls and invokes.
        if self.is_call_site() {
            unsafe { LLVMGetNumArgOperands(self.raw) }
        } else {
            0
        }
    }
    pub(crate) fn called_function_type(self) -> Option<RawType<'ctx>> {
        // SAFETY: only on calls and invokes.
        self.is_call_site().then(|| RawType::wrap(unsafe { LLVMGetCalledFunctionType(self.raw) }))
    }
    pub(crate) fn operand_bundle_count(self) -> u32 {
        // SAFETY: only on calls and invokes.
        if self.is_call_site() {
            unsafe { LLVMGetNumOperandBundles(self.raw) }
        } else {
            0
        }
    }
    /// The normal and unwind destinations of an `invoke`.
    pub(crate) fn invoke_destinations(self) -> Option<(RawBlock<'ctx>, RawBlock<'ctx>)> {
        // SAFETY: only on invokes, which always have both destinations.
        self.is_invoke().then(|| unsafe {
            (
                RawBlock::wrap(LLVMGetNormalDest(self.raw)),
                RawBlock::wrap(LLVMGetUnwindDest(self.raw)),
            )
        })
    }

    // Landing pads.
    /// Whether a `landingpad` has the `cleanup` flag (false for anything else).
    pub(crate) fn is_cleanup(self) -> bool {
        // SAFETY: LLVMIsCleanup casts to LandingPadInst: only on landing pads.
        self.has_opcode(&[LLVMOpcode::LLVMLandingPad]) && unsafe { LLVMIsCleanup(self.raw) } != 0
    }
    /// The clauses of a `landingpad` (empty for anything else), each with
    /// whether it is a `filter` (LLVM tells them apart by type: a filter
    /// holds an array of type infos, a catch a pointer).
    pub(crate) fn landing_pad_clauses(self) -> Vec<(RawValue<'ctx>, bool)> {
        if !self.has_opcode(&[LLVMOpcode::LLVMLandingPad]) {
            return Vec::new();
        }
        // SAFETY: checked to be a landing pad; indices below the clause count.
        unsafe {
            (0..LLVMGetNumClauses(self.raw))
                .map(|index| {
                    let clause = RawValue::wrap(LLVMGetClause(self.raw, index));
                    let is_filter = clause.ty().kind() == LLVMTypeKind::LLVMArrayTypeKind;
                    (clause, is_filter)
                })
                .collect()
        }
    }
    pub(crate) fn is_musttail(self) -> bool {
        // SAFETY: only on calls.
        self.is_call()
            && unsafe { LLVMGetTailCallKind(self.raw) }
                == LLVMTailCallKind::LLVMTailCallKindMustTail
    }
    pub(crate) fn call_convention(self) -> u32 {
        // SAFETY: each getter on the kind it expects.
        if self.is_call_site() {
            unsafe { LLVMGetInstructionCallConv(self.raw) }
        } else if self.kind() == LLVMValueKind::LLVMFunctionValueKind {
            unsafe { LLVMGetFunctionCallConv(self.raw) }
        } else {
            0
        }
    }
    pub(crate) fn set_call_convention(self, convention: u32) {
        // SAFETY: only on calls and invokes.
        if convention != 0 && self.is_call_site() {
            unsafe { LLVMSetInstructionCallConv(self.raw, convention) }
        }
    }
    /// The value of enum attribute `kind` at `index` of a function or of a call site.
    pub(crate) fn enum_attribute_value(self, index: c_uint, kind: c_uint) -> Option<u64> {
        if kind == 0 {
            return None;
        }
        // SAFETY: LLVMGetEnumAttributeAtIndex takes a function,
        // LLVMGetCallSiteEnumAttribute a call; each only on its kind.
        let attribute = unsafe {
            if self.kind() == LLVMValueKind::LLVMFunctionValueKind {
                LLVMGetEnumAttributeAtIndex(self.raw, index, kind)
            } else if self.is_call_site() {
                LLVMGetCallSiteEnumAttribute(self.raw, index, kind)
            } else {
                return None;
            }
        };
        // SAFETY: a non-null attribute LLVM returned.
        (!attribute.is_null()).then(|| unsafe { LLVMGetEnumAttributeValue(attribute) })
    }
    /// The type of the type attribute `kind` (such as `byval`) at `index`
    /// of a function, if it has one.
    pub(crate) fn function_type_attribute(
        self,
        index: c_uint,
        kind: c_uint,
    ) -> Option<RawType<'ctx>> {
        if kind == 0 || self.kind() != LLVMValueKind::LLVMFunctionValueKind {
            return None;
        }
        // SAFETY: `self` is a function; the attribute, when LLVM returns
        // one, is a type attribute because `kind` is a type kind.
        unsafe {
            let attribute = LLVMGetEnumAttributeAtIndex(self.raw, index, kind);
            (!attribute.is_null()).then(|| RawType::wrap(LLVMGetTypeAttributeValue(attribute)))
        }
    }
    /// The type of the type attribute `kind` (such as `elementtype`) at
    /// `index` of a call site, if it has one.
    pub(crate) fn call_site_type_attribute(
        self,
        index: c_uint,
        kind: c_uint,
    ) -> Option<RawType<'ctx>> {
        if kind == 0 || !self.is_call_site() {
            return None;
        }
        // SAFETY: `self` is a call or invoke; the attribute, when LLVM
        // returns one, is a type attribute because `kind` is a type kind.
        unsafe {
            let attribute = LLVMGetCallSiteEnumAttribute(self.raw, index, kind);
            (!attribute.is_null()).then(|| RawType::wrap(LLVMGetTypeAttributeValue(attribute)))
        }
    }
    /// Removes the string attribute `key` at `index` of a call or invoke.
    pub(crate) fn remove_call_site_string_attribute(self, index: c_uint, key: &str) {
        // SAFETY: only on calls and invokes; the key is passed with its length.
        if self.is_call_site() {
            unsafe {
                LLVMRemoveCallSiteStringAttribute(
                    self.raw,
                    index,
                    key.as_ptr().cast(),
                    key.len() as c_uint,
                )
            }
        }
    }
    pub(crate) fn add_call_site_attribute(self, index: c_uint, attribute: LLVMAttributeRef) {
        // SAFETY: only on calls and invokes; the attribute is of the same context.
        if self.is_call_site() {
            unsafe { LLVMAddCallSiteAttribute(self.raw, index, attribute) }
        }
    }

    // Constants.
    /// The zero-extended value of an integer constant of at most 64 bits.
    pub(crate) fn const_int_low_bits(self) -> Option<u64> {
        (self.kind() == LLVMValueKind::LLVMConstantIntValueKind
            && self.ty().int_width().is_some_and(|width| width <= 64))
        // SAFETY: checked to be a ConstantInt that fits in 64 bits.
        .then(|| unsafe { LLVMConstIntGetZExtValue(self.raw) })
    }
    /// The bit pattern of a half/float/double constant (bit-exact: the
    /// constant is folded through a bitcast to an integer of its width).
    pub(crate) fn const_float_bits(self) -> Option<u64> {
        if self.kind() != LLVMValueKind::LLVMConstantFPValueKind {
            return None;
        }
        let width = match self.ty().kind() {
            LLVMTypeKind::LLVMHalfTypeKind => 16,
            LLVMTypeKind::LLVMFloatTypeKind => 32,
            LLVMTypeKind::LLVMDoubleTypeKind => 64,
            _ => return None,
        };
        // SAFETY: a same-width bitcast of a ConstantFP folds to a ConstantInt
        // (ConstantFoldCastInstruction), of the value's context.
        let folded = unsafe {
            let context = LLVMGetTypeContext(LLVMTypeOf(self.raw));
            RawValue::wrap(LLVMConstBitCast(self.raw, LLVMIntTypeInContext(context, width)))
        };
        folded.const_int_low_bits()
    }
    /// Element `index` of a constant vector, array or struct (also of the
    /// ConstantData* and zero/undef/poison aggregates).
    pub(crate) fn aggregate_element(self, index: u32) -> Option<RawValue<'ctx>> {
        use LLVMValueKind::*;
        if !matches!(
            self.kind(),
            LLVMConstantArrayValueKind
                | LLVMConstantStructValueKind
                | LLVMConstantVectorValueKind
                | LLVMConstantDataArrayValueKind
                | LLVMConstantDataVectorValueKind
                | LLVMConstantAggregateZeroValueKind
                | LLVMUndefValueValueKind
                | LLVMPoisonValueKind
        ) {
            return None;
        }
        // SAFETY: checked to be a constant; returns null when out of range.
        RawValue::wrap_nullable(unsafe { LLVMGetAggregateElement(self.raw, index) })
    }

    // Functions.
    pub(crate) fn is_function(self) -> bool {
        self.kind() == LLVMValueKind::LLVMFunctionValueKind
    }
    /// The function type of a function (its "value type").
    pub(crate) fn function_type(self) -> Option<RawType<'ctx>> {
        // SAFETY: only on functions (global values).
        self.is_function().then(|| RawType::wrap(unsafe { LLVMGlobalGetValueType(self.raw) }))
    }
    pub(crate) fn params(self) -> Vec<RawValue<'ctx>> {
        if !self.is_function() {
            return Vec::new();
        }
        // SAFETY: checked to be a function; indices in range.
        unsafe {
            (0..LLVMCountParams(self.raw))
                .map(|index| RawValue::wrap(LLVMGetParam(self.raw, index)))
                .collect()
        }
    }
    pub(crate) fn blocks(self) -> Vec<RawBlock<'ctx>> {
        let mut blocks = Vec::new();
        if !self.is_function() {
            return blocks;
        }
        // SAFETY: checked to be a function; iteration ends at null.
        unsafe {
            let mut current = LLVMGetFirstBasicBlock(self.raw);
            while !current.is_null() {
                blocks.push(RawBlock::wrap(current));
                current = LLVMGetNextBasicBlock(current);
            }
        }
        blocks
    }
    pub(crate) fn add_function_attribute(self, index: c_uint, attribute: LLVMAttributeRef) {
        // SAFETY: only on functions; the attribute is of the same context.
        if self.is_function() {
            unsafe { LLVMAddAttributeAtIndex(self.raw, index, attribute) }
        }
    }
    /// All attributes at `index` of a function: `(Some(kind), None, value)`
    /// for enum attributes is not needed here, so this returns the raw handles.
    pub(crate) fn function_attributes(self, index: c_uint) -> Vec<LLVMAttributeRef> {
        if !self.is_function() {
            return Vec::new();
        }
        // SAFETY: checked to be a function; the buffer has room for `count`.
        unsafe {
            let count = LLVMGetAttributeCountAtIndex(self.raw, index) as usize;
            let mut attributes: Vec<LLVMAttributeRef> = vec![std::ptr::null_mut(); count];
            LLVMGetAttributesAtIndex(self.raw, index, attributes.as_mut_ptr());
            attributes
        }
    }
    /// The personality function of a function, if it has one.
    pub(crate) fn personality(self) -> Option<RawValue<'ctx>> {
        // SAFETY: only on functions; LLVMGetPersonalityFn is only called when
        // LLVMHasPersonalityFn says there is one.
        (self.is_function() && unsafe { LLVMHasPersonalityFn(self.raw) } != 0)
            .then(|| RawValue::wrap(unsafe { LLVMGetPersonalityFn(self.raw) }))
    }
    /// Sets the personality function of a function to `personality` (a
    /// function or global of the same module).
    pub(crate) fn set_personality(self, personality: RawValue<'ctx>) {
        // SAFETY: only on functions; the personality is a constant of the
        // function's module.
        if self.is_function() {
            unsafe { LLVMSetPersonalityFn(self.raw, personality.raw) }
        }
    }
    pub(crate) fn set_linkage_internal(self) {
        // SAFETY: only on functions.
        if self.is_function() {
            unsafe { LLVMSetLinkage(self.raw, LLVMLinkage::LLVMInternalLinkage) }
        }
    }
    /// Whether a function has local linkage (`internal` or `private`: C's
    /// `static`), so no other object can name it.
    pub(crate) fn has_local_linkage(self) -> bool {
        // SAFETY: only on functions.
        self.is_function()
            && matches!(
                unsafe { LLVMGetLinkage(self.raw) },
                LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage
            )
    }
    /// Gives a new function the linkage that suits a vector variant of
    /// `scalar`: other objects see the variant exactly when they see the
    /// scalar function. Local stays local (two files' `static f` have
    /// variants of their own), a C++ inline function's (`linkonce_odr`)
    /// variants merge like it, a weak function's are weak, an
    /// `available_externally` one's are defined elsewhere too; all others
    /// are external.
    pub(crate) fn set_linkage_of_variant_of(self, scalar: RawValue<'ctx>) {
        if !self.is_function() || !scalar.is_function() {
            return;
        }
        // SAFETY: both are functions.
        let linkage = match unsafe { LLVMGetLinkage(scalar.raw) } {
            LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage => {
                LLVMLinkage::LLVMInternalLinkage
            }
            linkage @ (LLVMLinkage::LLVMLinkOnceAnyLinkage
            | LLVMLinkage::LLVMLinkOnceODRLinkage
            | LLVMLinkage::LLVMWeakAnyLinkage
            | LLVMLinkage::LLVMWeakODRLinkage
            | LLVMLinkage::LLVMAvailableExternallyLinkage) => linkage,
            _ => LLVMLinkage::LLVMExternalLinkage,
        };
        // SAFETY: a function of this module.
        unsafe { LLVMSetLinkage(self.raw, linkage) }
    }

    /// The hints of the `!llvm.loop` metadata of an instruction (a loop-latch
    /// branch), without a location, or `None` without such metadata.
    pub(crate) fn loop_metadata_hints(self, loop_kind: c_uint) -> Option<lanewise_ir::LoopHints> {
        if !self.is_instruction() {
            return None;
        }
        // SAFETY: checked to be an instruction; metadata nodes are read
        // through LLVM-C's metadata-as-value wrappers, each operand buffer has
        // room for the node's operand count, and `cast<>`-ing calls
        // (`LLVMGetMDString`, `LLVMGetMDNode*`) are only made on values that
        // `LLVMIsAMDNode`/`LLVMIsAMDString` accepted.
        unsafe {
            let loop_id = LLVMGetMetadata(self.raw, loop_kind);
            if loop_id.is_null() || LLVMIsAMDNode(loop_id).is_null() {
                return None;
            }
            let mut enable = None;
            let mut width = None;
            let mut is_vectorized = false;
            let mut parallel_accesses = false;
            let mut scalable_hint = false;
            for entry in md_node_operands(loop_id) {
                if entry.is_null() || LLVMIsAMDNode(entry).is_null() {
                    continue;
                }
                let fields = md_node_operands(entry);
                let Some(&key) = fields.first() else { continue };
                if key.is_null() || LLVMIsAMDString(key).is_null() {
                    continue;
                }
                let mut length = 0;
                let key = borrowed_string(LLVMGetMDString(key, &mut length), length as usize);
                let value = fields.get(1).and_then(|value| {
                    (!value.is_null() && !LLVMIsAConstantInt(*value).is_null())
                        .then(|| LLVMConstIntGetZExtValue(*value))
                });
                match key.as_str() {
                    "llvm.loop.vectorize.enable" => enable = value.map(|value| value != 0),
                    "llvm.loop.vectorize.width" => width = value.map(|value| value as u32),
                    "llvm.loop.isvectorized" => is_vectorized = value.unwrap_or(1) != 0,
                    "llvm.loop.parallel_accesses" => parallel_accesses = true,
                    "llvm.loop.vectorize.scalable.enable" => scalable_hint = true,
                    _ => {}
                }
            }
            let independence = if parallel_accesses {
                lanewise_ir::Independence::Promised
            } else if width.is_some() && !scalable_hint {
                lanewise_ir::Independence::WithinWidth
            } else {
                lanewise_ir::Independence::NotPromised
            };
            Some(lanewise_ir::LoopHints {
                vectorize_enable: enable,
                width,
                is_vectorized,
                independence,
                location: None,
            })
        }
    }

    /// The keys of the entries of an instruction's `!llvm.loop` metadata
    /// (`llvm.loop.vectorize.enable`, ...), or `None` without it.
    pub(crate) fn loop_metadata_keys(self, loop_kind: c_uint) -> Option<Vec<String>> {
        if !self.is_instruction() {
            return None;
        }
        // SAFETY: as in `loop_metadata_hints`.
        unsafe {
            let loop_id = LLVMGetMetadata(self.raw, loop_kind);
            if loop_id.is_null() || LLVMIsAMDNode(loop_id).is_null() {
                return None;
            }
            let keys = md_node_operands(loop_id)
                .into_iter()
                .skip(1)
                .filter_map(|entry| loop_entry_key(entry))
                .collect();
            Some(keys)
        }
    }

    /// Gives an instruction a new `!llvm.loop` ID: its old entries without
    /// those whose key is in `remove`, then one `!{!"key"}` entry per key of
    /// `add`. Instructions that shared an old ID share the new one
    /// (`rebuilt`, by old ID), as a loop's latches must.
    /// An instruction without a loop ID gets a new one with the `add`
    /// entries; those sharing `fresh_key` (a loop's header) share it.
    pub(crate) fn edit_loop_metadata(
        self,
        context: RawContext<'ctx>,
        loop_kind: c_uint,
        remove: &[&str],
        add: &[&str],
        fresh_key: usize,
        rebuilt: &mut std::collections::HashMap<usize, usize>,
    ) {
        if !self.is_instruction() {
            return;
        }
        // SAFETY: the instruction and context are alive; metadata operands
        // are read as in `loop_metadata_hints`; the new node's operand array
        // lives across the call that copies it; the temporary node stands for
        // the node's reference to itself and is replaced (and freed) by
        // `LLVMMetadataReplaceAllUsesWith` once the node exists.
        unsafe {
            let old = LLVMGetMetadata(self.raw, loop_kind);
            let has_old = !old.is_null() && !LLVMIsAMDNode(old).is_null();
            let key = if has_old { old as usize } else { fresh_key };
            if let Some(&new) = rebuilt.get(&key) {
                LLVMSetMetadata(self.raw, loop_kind, new as LLVMValueRef);
                return;
            }
            let placeholder = inkwell::llvm_sys::debuginfo::LLVMTemporaryMDNode(
                context.raw,
                std::ptr::null_mut(),
                0,
            );
            let mut operands = vec![placeholder];
            let old_entries = if has_old { md_node_operands(old) } else { Vec::new() };
            for entry in old_entries.into_iter().skip(1) {
                let keep = loop_entry_key(entry).is_none_or(|key| !remove.contains(&key.as_str()));
                if keep && !entry.is_null() {
                    operands.push(LLVMValueAsMetadata(entry));
                }
            }
            for key in add {
                let name = LLVMMDStringInContext2(context.raw, key.as_ptr().cast(), key.len());
                let mut fields = [name];
                operands.push(LLVMMDNodeInContext2(context.raw, fields.as_mut_ptr(), 1));
            }
            let node = LLVMMDNodeInContext2(context.raw, operands.as_mut_ptr(), operands.len());
            inkwell::llvm_sys::debuginfo::LLVMMetadataReplaceAllUsesWith(placeholder, node);
            let new = LLVMMetadataAsValue(context.raw, node);
            rebuilt.insert(key, new as usize);
            LLVMSetMetadata(self.raw, loop_kind, new);
        }
    }

    /// The debug location of an instruction as `file:line:col`, if it has one.
    pub(crate) fn debug_location(self) -> Option<String> {
        if !self.is_instruction() {
            return None;
        }
        // SAFETY: checked to be an instruction; LLVM returns a borrowed
        // file name of `length` bytes (or null) and plain integers.
        unsafe {
            let line = LLVMGetDebugLocLine(self.raw);
            if line == 0 {
                return None;
            }
            let mut length = 0;
            let file =
                borrowed_string(LLVMGetDebugLocFilename(self.raw, &mut length), length as usize);
            let column = LLVMGetDebugLocColumn(self.raw);
            Some(format!("{file}:{line}:{column}"))
        }
    }

    /// Whether any instruction of a function produces or takes a vector value.
    pub(crate) fn has_vector_instructions(self) -> bool {
        self.blocks().into_iter().flat_map(RawBlock::instructions).any(|inst| {
            inst.ty().vector_lanes().is_some()
                || (0..inst.num_operands()).any(|index| {
                    inst.operand(index).is_some_and(|operand| operand.ty().vector_lanes().is_some())
                })
        })
    }

    /// Replaces the body of the function `self` by the body of `donor` (a
    /// function of the same type in the same module), which is deleted.
    /// Linkage, attributes and debug subprogram of `self` stay; so does its
    /// personality, unless the donor has one (the personality its landing
    /// pads were built for), which then replaces it.
    /// If `self` has a debug subprogram, every call and invoke of the new
    /// body gets a line-0 location in it (the LLVM verifier wants one on
    /// inlinable calls).
    pub(crate) fn replace_body_with(self, donor: RawValue<'ctx>, context: RawContext<'ctx>) {
        if !self.is_function() || !donor.is_function() {
            return;
        }
        // SAFETY: both are functions of one module of `context`. The bodies
        // are swapped block by block (a block keeps its instructions, and
        // their debug records, when it moves), the donor's parameters' uses
        // are redirected to ours, and the donor, now holding the old body,
        // is deleted as a whole: LLVM drops all references inside a function
        // before it frees its blocks, and a freed block frees the debug
        // records of its instructions. Erasing the old instructions one by
        // one instead would move their debug records to the end of their
        // block as "trailing" records, which deleting the block leaves
        // behind in the context, keyed by the freed block's address: a new
        // block allocated there later adopts them (an LLVM verifier error,
        // "PHI Node must not have any attached DbgRecords", depending on
        // the allocation order). No handle into the donor is used afterwards.
        unsafe {
            // The old blocks leave first, so that the new ones keep their
            // names (a name still taken in the function gets a suffix).
            let new_blocks = donor.blocks();
            for block in self.blocks() {
                LLVMRemoveBasicBlockFromParent(block.raw);
                LLVMAppendExistingBasicBlock(donor.raw, block.raw);
            }
            for block in new_blocks {
                LLVMRemoveBasicBlockFromParent(block.raw);
                LLVMAppendExistingBasicBlock(self.raw, block.raw);
            }
            for (ours, theirs) in self.params().into_iter().zip(donor.params()) {
                LLVMReplaceAllUsesWith(theirs.raw, ours.raw);
            }
            if let Some(personality) = donor.personality() {
                self.set_personality(personality);
            }
            LLVMDeleteFunction(donor.raw);
            let subprogram = inkwell::llvm_sys::debuginfo::LLVMGetSubprogram(self.raw);
            if !subprogram.is_null() {
                let location = inkwell::llvm_sys::debuginfo::LLVMDIBuilderCreateDebugLocation(
                    context.raw,
                    0,
                    0,
                    subprogram,
                    std::ptr::null_mut(),
                );
                for block in self.blocks() {
                    for inst in block.instructions() {
                        if inst.is_call_site() {
                            inkwell::llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(
                                inst.raw, location,
                            );
                        }
                    }
                }
            }
        }
    }

    /// Replaces every use of this value by `replacement` (of the same type).
    pub(crate) fn replace_all_uses_with(self, replacement: RawValue<'ctx>) {
        // SAFETY: both values are alive and of one context; LLVM checks
        // nothing, so the caller passes values of the same type.
        if self.ty() == replacement.ty() {
            unsafe { LLVMReplaceAllUsesWith(self.raw, replacement.raw) }
        }
    }
    /// Deletes a function from its module. The handle must not be used afterwards.
    pub(crate) fn delete_function(self) {
        // SAFETY: only on functions; the caller drops every handle into the
        // function right after (see the module docs).
        if self.is_function() {
            unsafe { LLVMDeleteFunction(self.raw) }
        }
    }
}
