//! Safe wrappers over the LLVM-C calls that the lifter and the lowerer use.
//!
//! inkwell wraps most of LLVM-C, but with a typed value hierarchy
//! (`IntValue`, `VectorValue`, ...) that makes generic code about "any
//! operand" clumsy, and it leaves out what a lifter needs most: value kinds,
//! constant-expression opcodes, shuffle masks, the no-wrap flags of `trunc`,
//! attributes of call sites. This module is therefore the one place where the
//! bridge calls LLVM-C directly. Everything else in the crate is safe code.
//!
//! # The safety argument
//!
//! [`RawValue`], [`RawType`] and [`RawBlock`] hold non-null pointers to LLVM
//! objects owned by an LLVM context that is borrowed for `'ctx` (the
//! `PhantomData` ties them to it). They are only made from inkwell objects of
//! that context or from LLVM-C calls on such objects, which return objects of
//! the same context. Values and blocks of a module stay alive while the
//! module does; the bridge only holds these handles during one lift or one
//! lowering, during which no pass runs and nothing is deleted (the one
//! deletion, [`RawValue::delete_function`], consumes the handle after the last
//! use). LLVM-C functions that `cast<>` their argument to a subclass (and are
//! undefined behaviour on anything else in LLVM builds without assertions) are
//! only called after checking the opcode or value kind, inside the wrapper.

use std::ffi::{c_char, c_uint, CStr, CString};
use std::marker::PhantomData;

use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{
    LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMAttributeFunctionIndex, LLVMIntPredicate,
    LLVMLinkage, LLVMOpcode, LLVMRealPredicate, LLVMTailCallKind, LLVMTypeKind, LLVMValueKind,
};
use inkwell::module::Module;
use inkwell::values::AsValueRef;

/// The attribute index of a parameter (`0` is the first parameter).
pub(crate) fn param_attribute_index(param: u32) -> c_uint {
    param + 1
}

/// The attribute index of the return value.
pub(crate) const RETURN_ATTRIBUTE_INDEX: c_uint = 0;

/// The attribute index of the function itself.
pub(crate) const FUNCTION_ATTRIBUTE_INDEX: c_uint = LLVMAttributeFunctionIndex;

/// Copies a C string that LLVM owns (and keeps owning).
fn borrowed_string(pointer: *const c_char, length: usize) -> String {
    if pointer.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returned a pointer to `length` readable bytes.
    let bytes = unsafe { std::slice::from_raw_parts(pointer.cast::<u8>(), length) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// The operands of a metadata node (wrapped as a value), as values.
///
/// # Safety
/// `node` must be a metadata-as-value wrapping an `MDNode`.
unsafe fn md_node_operands(node: LLVMValueRef) -> Vec<LLVMValueRef> {
    let count = LLVMGetMDNodeNumOperands(node) as usize;
    let mut operands: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); count];
    LLVMGetMDNodeOperands(node, operands.as_mut_ptr());
    operands
}

/// The key (first operand, a string) of an entry of a loop ID.
///
/// # Safety
/// `entry` is null or a metadata-as-value of a live context.
unsafe fn loop_entry_key(entry: LLVMValueRef) -> Option<String> {
    if entry.is_null() || LLVMIsAMDNode(entry).is_null() {
        return None;
    }
    let fields = md_node_operands(entry);
    let &key = fields.first()?;
    if key.is_null() || LLVMIsAMDString(key).is_null() {
        return None;
    }
    let mut length = 0;
    Some(borrowed_string(LLVMGetMDString(key, &mut length), length as usize))
}

/// Copies and frees a C string that LLVM allocated for us (`LLVMPrint*`).
fn owned_message(pointer: *mut c_char) -> String {
    if pointer.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returned a NUL-terminated string that we own; it is freed
    // exactly once, right after the copy.
    unsafe {
        let text = CStr::from_ptr(pointer).to_string_lossy().into_owned();
        LLVMDisposeMessage(pointer);
        text
    }
}

/// A C string for LLVM; names never contain NUL in practice, and one that
/// does is cut at the NUL rather than panicking.
fn c_string(text: &str) -> CString {
    let cut = text.split('\0').next().unwrap_or_default();
    CString::new(cut).unwrap_or_default()
}

/// An LLVM type of a context borrowed for `'ctx`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct RawType<'ctx> {
    raw: LLVMTypeRef,
    context: PhantomData<&'ctx Context>,
}

impl<'ctx> RawType<'ctx> {
    fn wrap(raw: LLVMTypeRef) -> Self {
        debug_assert!(!raw.is_null());
        RawType { raw, context: PhantomData }
    }

    pub(crate) fn kind(self) -> LLVMTypeKind {
        // SAFETY: see the module docs; any type has a kind.
        unsafe { LLVMGetTypeKind(self.raw) }
    }

    pub(crate) fn to_text(self) -> String {
        // SAFETY: see the module docs.
        owned_message(unsafe { LLVMPrintTypeToString(self.raw) })
    }

    /// The width of an integer type.
    pub(crate) fn int_width(self) -> Option<u32> {
        (self.kind() == LLVMTypeKind::LLVMIntegerTypeKind)
            // SAFETY: checked to be an integer type.
            .then(|| unsafe { LLVMGetIntTypeWidth(self.raw) })
    }

    pub(crate) fn pointer_address_space(self) -> Option<u32> {
        (self.kind() == LLVMTypeKind::LLVMPointerTypeKind)
            // SAFETY: checked to be a pointer type.
            .then(|| unsafe { LLVMGetPointerAddressSpace(self.raw) })
    }

    /// Lane count of a fixed vector type.
    pub(crate) fn vector_lanes(self) -> Option<u32> {
        (self.kind() == LLVMTypeKind::LLVMVectorTypeKind)
            // SAFETY: checked to be a (fixed) vector type.
            .then(|| unsafe { LLVMGetVectorSize(self.raw) })
    }

    pub(crate) fn array_length(self) -> Option<u64> {
        (self.kind() == LLVMTypeKind::LLVMArrayTypeKind)
            // SAFETY: checked to be an array type.
            .then(|| unsafe { LLVMGetArrayLength2(self.raw) })
    }

    /// The element type of a vector or array type.
    pub(crate) fn element_type(self) -> Option<RawType<'ctx>> {
        matches!(
            self.kind(),
            LLVMTypeKind::LLVMVectorTypeKind
                | LLVMTypeKind::LLVMArrayTypeKind
                | LLVMTypeKind::LLVMScalableVectorTypeKind
        )
        // SAFETY: checked to be a sequential type.
        .then(|| RawType::wrap(unsafe { LLVMGetElementType(self.raw) }))
    }

    /// Field types and packedness of a struct type; `None` for other types
    /// and for opaque structs.
    pub(crate) fn struct_fields(self) -> Option<(Vec<RawType<'ctx>>, bool)> {
        if self.kind() != LLVMTypeKind::LLVMStructTypeKind {
            return None;
        }
        // SAFETY: checked to be a struct type.
        unsafe {
            if LLVMIsOpaqueStruct(self.raw) != 0 {
                return None;
            }
            let count = LLVMCountStructElementTypes(self.raw);
            let fields = (0..count)
                .map(|index| RawType::wrap(LLVMStructGetTypeAtIndex(self.raw, index)))
                .collect();
            Some((fields, LLVMIsPackedStruct(self.raw) != 0))
        }
    }

    /// Return type and parameter types of a function type.
    pub(crate) fn function_signature(self) -> Option<(RawType<'ctx>, Vec<RawType<'ctx>>, bool)> {
        if self.kind() != LLVMTypeKind::LLVMFunctionTypeKind {
            return None;
        }
        // SAFETY: checked to be a function type; the buffer has room for
        // exactly `count` parameter types.
        unsafe {
            let count = LLVMCountParamTypes(self.raw) as usize;
            let mut params: Vec<LLVMTypeRef> = vec![std::ptr::null_mut(); count];
            LLVMGetParamTypes(self.raw, params.as_mut_ptr());
            let ret = RawType::wrap(LLVMGetReturnType(self.raw));
            let vararg = LLVMIsFunctionVarArg(self.raw) != 0;
            Some((ret, params.into_iter().map(RawType::wrap).collect(), vararg))
        }
    }
}

/// Type constructors of a context.
#[derive(Copy, Clone)]
pub(crate) struct RawContext<'ctx> {
    raw: LLVMContextRef,
    context: PhantomData<&'ctx Context>,
}

impl<'ctx> RawContext<'ctx> {
    pub(crate) fn new(context: &'ctx Context) -> Self {
        RawContext { raw: context.raw(), context: PhantomData }
    }

    /// Whether the context drops the names of local values (clang's does,
    /// for a pass plugin, unless `-fno-discard-value-names`), and setting it:
    /// textual IR with named values parses only while names are kept.
    pub(crate) fn discards_value_names(self) -> bool {
        // SAFETY: the context is alive for `'ctx`.
        unsafe { LLVMContextShouldDiscardValueNames(self.raw) != 0 }
    }
    pub(crate) fn set_discard_value_names(self, discard: bool) {
        // SAFETY: the context is alive for `'ctx`; the setting only affects
        // values named from now on.
        unsafe { LLVMContextSetDiscardValueNames(self.raw, LLVMBool::from(discard)) }
    }

    // SAFETY (all constructors below): the context is alive for `'ctx`;
    // element types come from the same context.
    pub(crate) fn void_type(self) -> RawType<'ctx> {
        RawType::wrap(unsafe { LLVMVoidTypeInContext(self.raw) })
    }
    pub(crate) fn int_type(self, bits: u32) -> RawType<'ctx> {
        RawType::wrap(unsafe { LLVMIntTypeInContext(self.raw, bits) })
    }
    pub(crate) fn half_type(self) -> RawType<'ctx> {
        RawType::wrap(unsafe { LLVMHalfTypeInContext(self.raw) })
    }
    pub(crate) fn float_type(self) -> RawType<'ctx> {
        RawType::wrap(unsafe { LLVMFloatTypeInContext(self.raw) })
    }
    pub(crate) fn double_type(self) -> RawType<'ctx> {
        RawType::wrap(unsafe { LLVMDoubleTypeInContext(self.raw) })
    }
    pub(crate) fn pointer_type(self, address_space: u32) -> RawType<'ctx> {
        RawType::wrap(unsafe { LLVMPointerTypeInContext(self.raw, address_space) })
    }
    pub(crate) fn vector_type(self, elem: RawType<'ctx>, lanes: u32) -> RawType<'ctx> {
        RawType::wrap(unsafe { LLVMVectorType(elem.raw, lanes) })
    }
    pub(crate) fn array_type(self, elem: RawType<'ctx>, len: u64) -> RawType<'ctx> {
        RawType::wrap(unsafe { LLVMArrayType2(elem.raw, len) })
    }
    pub(crate) fn struct_type(self, fields: &[RawType<'ctx>], packed: bool) -> RawType<'ctx> {
        let mut raw_fields: Vec<LLVMTypeRef> = fields.iter().map(|field| field.raw).collect();
        RawType::wrap(unsafe {
            LLVMStructTypeInContext(
                self.raw,
                raw_fields.as_mut_ptr(),
                raw_fields.len() as c_uint,
                packed as LLVMBool,
            )
        })
    }
    /// The inline assembly value `asm` of type `function_type`.
    pub(crate) fn inline_asm(
        self,
        function_type: RawType<'ctx>,
        asm: &lanewise_ir::InlineAsm,
    ) -> RawValue<'ctx> {
        let dialect = if asm.intel_dialect {
            inkwell::llvm_sys::LLVMInlineAsmDialect::LLVMInlineAsmDialectIntel
        } else {
            inkwell::llvm_sys::LLVMInlineAsmDialect::LLVMInlineAsmDialectATT
        };
        // SAFETY: pointers and lengths of live Rust strings; the type is a
        // function type of this context.
        RawValue::wrap(unsafe {
            LLVMGetInlineAsm(
                function_type.raw,
                asm.asm.as_ptr().cast(),
                asm.asm.len(),
                asm.constraints.as_ptr().cast(),
                asm.constraints.len(),
                asm.side_effects as LLVMBool,
                asm.align_stack as LLVMBool,
                dialect,
                asm.can_unwind as LLVMBool,
            )
        })
    }

    pub(crate) fn function_type(
        self,
        ret: RawType<'ctx>,
        params: &[RawType<'ctx>],
    ) -> RawType<'ctx> {
        let mut raw_params: Vec<LLVMTypeRef> = params.iter().map(|param| param.raw).collect();
        RawType::wrap(unsafe {
            LLVMFunctionType(ret.raw, raw_params.as_mut_ptr(), raw_params.len() as c_uint, 0)
        })
    }

    /// The metadata kind id of `name` (e.g. `llvm.loop`).
    pub(crate) fn metadata_kind(self, name: &str) -> c_uint {
        // SAFETY: a pointer and length of a live Rust string.
        unsafe { LLVMGetMDKindIDInContext(self.raw, name.as_ptr().cast(), name.len() as c_uint) }
    }

    /// The id of the enum attribute `name` (0 if LLVM knows no such attribute).
    pub(crate) fn enum_attribute_kind(self, name: &str) -> c_uint {
        // SAFETY: a pointer and length of a live Rust string.
        unsafe { LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len()) }
    }

    pub(crate) fn enum_attribute(self, kind: c_uint, value: u64) -> LLVMAttributeRef {
        // SAFETY: the context is alive.
        unsafe { LLVMCreateEnumAttribute(self.raw, kind, value) }
    }

    pub(crate) fn string_attribute(self, key: &str, value: &str) -> LLVMAttributeRef {
        // SAFETY: pointers and lengths of live Rust strings.
        unsafe {
            LLVMCreateStringAttribute(
                self.raw,
                key.as_ptr().cast(),
                key.len() as c_uint,
                value.as_ptr().cast(),
                value.len() as c_uint,
            )
        }
    }

    // Constants.
    pub(crate) fn const_int(self, ty: RawType<'ctx>, value: u128) -> RawValue<'ctx> {
        let words = [value as u64, (value >> 64) as u64];
        // SAFETY: `ty` is an integer type of this context; two words are read.
        RawValue::wrap(unsafe { LLVMConstIntOfArbitraryPrecision(ty.raw, 2, words.as_ptr()) })
    }
    pub(crate) fn const_null(self, ty: RawType<'ctx>) -> RawValue<'ctx> {
        RawValue::wrap(unsafe { LLVMConstNull(ty.raw) })
    }
    pub(crate) fn undef(self, ty: RawType<'ctx>) -> RawValue<'ctx> {
        RawValue::wrap(unsafe { LLVMGetUndef(ty.raw) })
    }
    pub(crate) fn poison(self, ty: RawType<'ctx>) -> RawValue<'ctx> {
        RawValue::wrap(unsafe { LLVMGetPoison(ty.raw) })
    }
    /// A float constant of type `ty` with the given bit pattern (bit-exact,
    /// NaN payloads included): the integer constant folded through a bitcast.
    pub(crate) fn const_float_bits(self, ty: RawType<'ctx>, bits: u64) -> Option<RawValue<'ctx>> {
        let width = match ty.kind() {
            LLVMTypeKind::LLVMHalfTypeKind => 16,
            LLVMTypeKind::LLVMFloatTypeKind => 32,
            LLVMTypeKind::LLVMDoubleTypeKind => 64,
            _ => return None,
        };
        let int = self.const_int(self.int_type(width), u128::from(bits));
        // SAFETY: a same-width bitcast of a constant, which LLVM folds.
        Some(RawValue::wrap(unsafe { LLVMConstBitCast(int.raw, ty.raw) }))
    }
    pub(crate) fn const_vector(self, elements: &[RawValue<'ctx>]) -> RawValue<'ctx> {
        let mut raw: Vec<LLVMValueRef> = elements.iter().map(|element| element.raw).collect();
        RawValue::wrap(unsafe { LLVMConstVector(raw.as_mut_ptr(), raw.len() as c_uint) })
    }
    pub(crate) fn const_array(
        self,
        elem: RawType<'ctx>,
        elements: &[RawValue<'ctx>],
    ) -> RawValue<'ctx> {
        let mut raw: Vec<LLVMValueRef> = elements.iter().map(|element| element.raw).collect();
        RawValue::wrap(unsafe { LLVMConstArray2(elem.raw, raw.as_mut_ptr(), raw.len() as u64) })
    }
    pub(crate) fn const_struct(self, fields: &[RawValue<'ctx>], packed: bool) -> RawValue<'ctx> {
        let mut raw: Vec<LLVMValueRef> = fields.iter().map(|field| field.raw).collect();
        RawValue::wrap(unsafe {
            LLVMConstStructInContext(
                self.raw,
                raw.as_mut_ptr(),
                raw.len() as c_uint,
                packed as LLVMBool,
            )
        })
    }

    pub(crate) fn append_block(self, function: RawValue<'ctx>, name: &str) -> RawBlock<'ctx> {
        let name = c_string(name);
        // SAFETY: `function` is a function of a module of this context.
        RawBlock::wrap(unsafe {
            LLVMAppendBasicBlockInContext(self.raw, function.raw, name.as_ptr())
        })
    }
}

/// A basic block.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct RawBlock<'ctx> {
    raw: LLVMBasicBlockRef,
    context: PhantomData<&'ctx Context>,
}

impl<'ctx> RawBlock<'ctx> {
    fn wrap(raw: LLVMBasicBlockRef) -> Self {
        debug_assert!(!raw.is_null());
        RawBlock { raw, context: PhantomData }
    }

    /// The block's address, as an identity.
    pub(crate) fn id(self) -> usize {
        self.raw as usize
    }

    pub(crate) fn name(self) -> Option<String> {
        // SAFETY: see the module docs; LLVM returns a NUL-terminated name.
        let name = unsafe { CStr::from_ptr(LLVMGetBasicBlockName(self.raw)) };
        let name = name.to_string_lossy();
        (!name.is_empty()).then(|| name.into_owned())
    }

    pub(crate) fn instructions(self) -> Vec<RawValue<'ctx>> {
        let mut instructions = Vec::new();
        // SAFETY: see the module docs; iteration ends at a null pointer.
        unsafe {
            let mut current = LLVMGetFirstInstruction(self.raw);
            while !current.is_null() {
                instructions.push(RawValue::wrap(current));
                current = LLVMGetNextInstruction(current);
            }
        }
        instructions
    }
}

/// Any LLVM value: instruction, argument, constant, global, ...
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct RawValue<'ctx> {
    raw: LLVMValueRef,
    context: PhantomData<&'ctx Context>,
}

impl<'ctx> RawValue<'ctx> {
    fn wrap(raw: LLVMValueRef) -> Self {
        debug_assert!(!raw.is_null());
        RawValue { raw, context: PhantomData }
    }

    fn wrap_nullable(raw: LLVMValueRef) -> Option<Self> {
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

    fn has_opcode(self, opcodes: &[LLVMOpcode]) -> bool {
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
    /// branch): `(vectorize.enable, vectorize.width, isvectorized)`, or `None`
    /// without such metadata.
    pub(crate) fn loop_metadata_hints(
        self,
        loop_kind: c_uint,
    ) -> Option<(Option<bool>, Option<u32>, bool)> {
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
                    _ => {}
                }
            }
            Some((enable, width, is_vectorized))
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

/// Kind and contents of an attribute.
pub(crate) enum AttributeContents {
    /// An enum or type attribute: its kind id.
    Enum { kind: c_uint },
    /// A string attribute: key and value.
    String { key: String, value: String },
}

pub(crate) fn attribute_contents(attribute: LLVMAttributeRef) -> AttributeContents {
    // SAFETY: `attribute` is a live attribute returned by LLVM; each getter
    // is called on the attribute kind it expects.
    unsafe {
        if LLVMIsStringAttribute(attribute) != 0 {
            let mut key_length = 0;
            let key = LLVMGetStringAttributeKind(attribute, &mut key_length);
            let mut value_length = 0;
            let value = LLVMGetStringAttributeValue(attribute, &mut value_length);
            AttributeContents::String {
                key: borrowed_string(key, key_length as usize),
                value: borrowed_string(value, value_length as usize),
            }
        } else {
            // Enum and type attributes (byval(T), ...) both have a kind.
            AttributeContents::Enum { kind: LLVMGetEnumAttributeKind(attribute) }
        }
    }
}

/// Module-level operations.
#[derive(Copy, Clone)]
pub(crate) struct RawModule<'ctx> {
    raw: LLVMModuleRef,
    context: PhantomData<&'ctx Context>,
}

impl<'ctx> RawModule<'ctx> {
    pub(crate) fn new(module: &Module<'ctx>) -> Self {
        RawModule { raw: module.as_mut_ptr(), context: PhantomData }
    }

    pub(crate) fn named_function(self, name: &str) -> Option<RawValue<'ctx>> {
        let name = c_string(name);
        // SAFETY: the module is alive; returns null if absent.
        RawValue::wrap_nullable(unsafe { LLVMGetNamedFunction(self.raw, name.as_ptr()) })
    }

    /// A global variable, function or alias by name.
    pub(crate) fn named_symbol(self, name: &str) -> Option<RawValue<'ctx>> {
        if let Some(function) = self.named_function(name) {
            return Some(function);
        }
        let c_name = c_string(name);
        // SAFETY: the module is alive; each lookup returns null if absent.
        unsafe {
            RawValue::wrap_nullable(LLVMGetNamedGlobal(self.raw, c_name.as_ptr())).or_else(|| {
                RawValue::wrap_nullable(LLVMGetNamedGlobalAlias(
                    self.raw,
                    name.as_ptr().cast(),
                    name.len(),
                ))
            })
        }
    }

    pub(crate) fn add_function(self, name: &str, ty: RawType<'ctx>) -> RawValue<'ctx> {
        let name = c_string(name);
        // SAFETY: the module is alive and `ty` is a function type of its context.
        RawValue::wrap(unsafe { LLVMAddFunction(self.raw, name.as_ptr(), ty.raw) })
    }

    /// The intrinsic id of `name` (a full mangled name or a base name such
    /// as `llvm.masked.load`); `None` if it names no intrinsic.
    pub(crate) fn intrinsic_id(self, name: &str) -> Option<c_uint> {
        // SAFETY: pointer/length of a live Rust string.
        let id = unsafe { LLVMLookupIntrinsicID(name.as_ptr().cast(), name.len()) };
        (id != 0).then_some(id)
    }

    /// Whether intrinsic `id` is overloaded (its name carries type suffixes).
    pub(crate) fn intrinsic_is_overloaded(self, id: c_uint) -> bool {
        // SAFETY: `id` came from `intrinsic_id`.
        unsafe { LLVMIntrinsicIsOverloaded(id) != 0 }
    }

    /// The mangled name of overloaded intrinsic `id` for `overloads`.
    pub(crate) fn intrinsic_overloaded_name(
        self,
        id: c_uint,
        overloads: &[RawType<'ctx>],
    ) -> String {
        let mut raw_overloads: Vec<LLVMTypeRef> = overloads.iter().map(|ty| ty.raw).collect();
        let mut length = 0usize;
        // SAFETY: `id` is an overloaded intrinsic (checked by the caller
        // through `intrinsic_is_overloaded`); LLVM returns a malloc'ed string
        // that we copy and free once.
        unsafe {
            let mangled = LLVMIntrinsicCopyOverloadedName2(
                self.raw,
                id,
                raw_overloads.as_mut_ptr(),
                raw_overloads.len(),
                &mut length,
            );
            let name = borrowed_string(mangled, length);
            if !mangled.is_null() {
                LLVMDisposeMessage(mangled);
            }
            name
        }
    }

    /// Adds `functions` to `@llvm.compiler.used` (creating it, or replacing
    /// it by a longer array), so that no pass deletes them while nothing
    /// but a string attribute refers to them.
    pub(crate) fn append_to_compiler_used(
        self,
        context: RawContext<'ctx>,
        functions: &[RawValue<'ctx>],
    ) {
        const NAME: &str = "llvm.compiler.used";
        let pointer = context.pointer_type(0);
        let name = c_string(NAME);
        let mut elements: Vec<RawValue<'ctx>> = Vec::new();
        // SAFETY: the module is alive; returns null if absent.
        let old = RawValue::wrap_nullable(unsafe { LLVMGetNamedGlobal(self.raw, name.as_ptr()) });
        if let Some(old) = old {
            // SAFETY: `old` is a global variable; its initializer may be null.
            let initializer = RawValue::wrap_nullable(unsafe { LLVMGetInitializer(old.raw) });
            if let Some(initializer) = initializer {
                let mut index = 0;
                while let Some(element) = initializer.aggregate_element(index) {
                    elements.push(element);
                    index += 1;
                }
            }
        }
        for function in functions {
            if !elements.contains(function) {
                elements.push(*function);
            }
        }
        let initializer = context.const_array(pointer, &elements);
        let array_type = context.array_type(pointer, elements.len() as u64);
        // SAFETY: the old global is only referred to by its name (an
        // `llvm.*` global has no uses) and no handle to it survives; the new
        // one gets the array type of its initializer, of this context.
        unsafe {
            if let Some(old) = old {
                LLVMDeleteGlobal(old.raw);
            }
            let global = LLVMAddGlobal(self.raw, array_type.raw, name.as_ptr());
            LLVMSetLinkage(global, LLVMLinkage::LLVMAppendingLinkage);
            let section = c_string("llvm.metadata");
            LLVMSetSection(global, section.as_ptr());
            LLVMSetInitializer(global, initializer.raw);
        }
    }

    /// Declares intrinsic `id` with overloaded types `overloads` (empty for
    /// a non-overloaded intrinsic), with LLVM's attributes for it.
    pub(crate) fn intrinsic_declaration(
        self,
        id: c_uint,
        overloads: &[RawType<'ctx>],
    ) -> Option<RawValue<'ctx>> {
        if self.intrinsic_is_overloaded(id) == overloads.is_empty() {
            return None;
        }
        let mut raw_overloads: Vec<LLVMTypeRef> = overloads.iter().map(|ty| ty.raw).collect();
        // SAFETY: `id` is valid and the number of overload types matches
        // whether it is overloaded (LLVM checks the count of an overloaded one).
        RawValue::wrap_nullable(unsafe {
            LLVMGetIntrinsicDeclaration(
                self.raw,
                id,
                raw_overloads.as_mut_ptr(),
                raw_overloads.len(),
            )
        })
    }
}

/// An instruction builder. Created per lowering and disposed on drop.
pub(crate) struct RawBuilder<'ctx> {
    raw: LLVMBuilderRef,
    context: PhantomData<&'ctx Context>,
}

impl Drop for RawBuilder<'_> {
    fn drop(&mut self) {
        // SAFETY: created by LLVMCreateBuilderInContext, disposed once.
        unsafe { LLVMDisposeBuilder(self.raw) }
    }
}

/// The instructions with an alignment (LLVMGetAlignment/LLVMSetAlignment).
const MEMORY_OPCODES: &[LLVMOpcode] = &[
    LLVMOpcode::LLVMLoad,
    LLVMOpcode::LLVMStore,
    LLVMOpcode::LLVMAlloca,
    LLVMOpcode::LLVMAtomicRMW,
    LLVMOpcode::LLVMAtomicCmpXchg,
];

/// The instructions with a `volatile` flag (LLVMGetVolatile/LLVMSetVolatile).
const VOLATILE_OPCODES: &[LLVMOpcode] = &[
    LLVMOpcode::LLVMLoad,
    LLVMOpcode::LLVMStore,
    LLVMOpcode::LLVMAtomicRMW,
    LLVMOpcode::LLVMAtomicCmpXchg,
];

/// An empty name: the lowerer names results after the fact.
const NO_NAME: &CStr = c"";

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

/// Runs the LLVM verifier on a module; `Err` carries LLVM's message.
pub(crate) fn verify_module(module: RawModule<'_>) -> Result<(), String> {
    let mut message: *mut c_char = std::ptr::null_mut();
    // SAFETY: the module is alive; the message is ours to free.
    let failed = unsafe {
        inkwell::llvm_sys::analysis::LLVMVerifyModule(
            module.raw,
            inkwell::llvm_sys::analysis::LLVMVerifierFailureAction::LLVMReturnStatusAction,
            &mut message,
        )
    };
    let text = owned_message(message);
    if failed != 0 {
        Err(text.trim().to_owned())
    } else {
        Ok(())
    }
}

/// LLVM's verifier on one function of `module`; on failure, the message of
/// the module's verifier (LLVM's function verifier gives none).
pub(crate) fn verify_function(module: RawModule<'_>, function: RawValue<'_>) -> Result<(), String> {
    // SAFETY: the function is alive; nothing is printed.
    let failed = unsafe {
        inkwell::llvm_sys::analysis::LLVMVerifyFunction(
            function.raw,
            inkwell::llvm_sys::analysis::LLVMVerifierFailureAction::LLVMReturnStatusAction,
        )
    };
    if failed == 0 {
        return Ok(());
    }
    verify_module(module).and(Err("LLVM's verifier rejects the function".to_owned()))
}

/// The prefix [`install_fatal_error_handler`] prints LLVM's fatal errors with.
static FATAL_ERROR_PREFIX: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// LLVM's fatal error handler: one line on stderr (LLVM exits with status 1
/// when it returns). It must not unwind into LLVM: write errors are ignored.
extern "C" fn print_fatal_error(reason: *const c_char) {
    use std::io::Write;
    let reason = if reason.is_null() {
        String::new()
    } else {
        // SAFETY: LLVM passes a NUL-terminated string that lives during the call.
        unsafe { std::ffi::CStr::from_ptr(reason) }.to_string_lossy().into_owned()
    };
    let first_line = reason.lines().next().unwrap_or_default();
    let prefix = FATAL_ERROR_PREFIX.get().map(String::as_str).unwrap_or_default();
    let _ = writeln!(std::io::stderr(), "{prefix}{first_line}");
}

/// Installs [`print_fatal_error`] as LLVM's fatal error handler, with
/// `prefix` before the reason (the first prefix installed wins).
pub(crate) fn install_fatal_error_handler(prefix: &str) {
    let _ = FATAL_ERROR_PREFIX.set(prefix.to_owned());
    // SAFETY: the handler is a plain function that lives for the whole
    // program and does not unwind.
    unsafe {
        inkwell::llvm_sys::error_handling::LLVMInstallFatalErrorHandler(Some(print_fatal_error))
    };
}

/// Runs `body` on a module that a pass manager owns (the clang pass plugin,
/// crates/plugin): `module` is the `LLVMModuleRef` the plugin's C++ shim
/// passes for the duration of one pass, with its context. Neither is
/// disposed here: both belong to the compiler that loaded the plugin.
///
/// # Safety argument
///
/// The shim passes `llvm::wrap(&M)` of the `Module &M` its pass runs on, so
/// the pointer is a live module for this call, and no other code touches it
/// while the pass runs. The wrappers made from it are forgotten, not
/// dropped, so inkwell disposes nothing.
pub(crate) fn with_borrowed_module<R>(
    module: *mut std::ffi::c_void,
    body: impl FnOnce(&mut crate::LlvmModule<'_>) -> R,
) -> Option<R> {
    if module.is_null() {
        return None;
    }
    let module = module.cast::<inkwell::llvm_sys::LLVMModule>();
    // SAFETY: see the function's documentation.
    let context = std::mem::ManuallyDrop::new(unsafe {
        Context::new(inkwell::llvm_sys::core::LLVMGetModuleContext(module))
    });
    // SAFETY: as above; the module is forgotten after `body`.
    let module = unsafe { inkwell::module::Module::new(module) };
    let mut borrowed = crate::LlvmModule { context: &context, module };
    let result = body(&mut borrowed);
    std::mem::forget(borrowed.module);
    Some(result)
}
