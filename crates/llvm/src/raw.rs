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

mod builder;
mod value;

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

    /// A type attribute such as `elementtype(<4 x i32>)`.
    pub(crate) fn type_attribute(self, kind: c_uint, ty: RawType<'ctx>) -> LLVMAttributeRef {
        // SAFETY: the context and the type (of this context) are alive.
        unsafe { LLVMCreateTypeAttribute(self.raw, kind, ty.raw) }
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
