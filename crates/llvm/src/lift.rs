//! Lifting LLVM IR into the Lanewise IR.
//!
//! WFV (Karrenberg 2014, §3 and §5.1) works on a scalar SSA function in the
//! vectorizer's own representation; this module produces that representation
//! from one LLVM function. The mapping is one LLVM instruction to one Lanewise
//! instruction, with these exceptions:
//!
//! - **Constant expressions** (`getelementptr inbounds (...)`, `ptrtoint`,
//!   ... over globals) become ordinary instructions, materialized once each
//!   at the start of the entry block in the order they are first met. Their
//!   operands are constants and globals, so the entry block dominates every
//!   use. Constant aggregates with such an element are built there too, with
//!   `insertelement`/`insertvalue` chains.
//! - **Annotation intrinsics** whose removal does not change what the
//!   function computes are dropped: `llvm.dbg.*`, `llvm.lifetime.start/end`,
//!   `llvm.assume` and `llvm.experimental.noalias.scope.decl`.
//! - **Loop metadata** of latch branches becomes [`LoopHints`] in
//!   `Function::loop_hints` (vectorize.enable/width, isvectorized, and the
//!   branch's debug location); other metadata is dropped.
//! - Flags without a Lanewise counterpart are dropped, which only removes
//!   poison-generating facts: `icmp samesign`, the `nuw`/`nusw` flags of
//!   `getelementptr` (its `inbounds` is kept), instruction metadata.
//!
//! The lifter runs in two passes: the first creates every block and a
//! placeholder instruction (with the right result type) for every LLVM
//! instruction, so that the second can resolve operands that are defined
//! later in layout order (phis, and blocks laid out after their users).
//!
//! - **Exception handling** (Itanium: `invoke`, `landingpad`, `resume`)
//!   lifts one to one, so that a C++ function with a `std::vector` around a
//!   `#pragma omp simd` loop round-trips; the function's personality becomes
//!   `Function::personality` (by name). An `invoke` keeps what a `call`
//!   keeps (callee, arguments, memory effects; the lowering restores the
//!   callee's calling convention and ABI extension attributes). Landing-pad
//!   clauses must be plain constants (type-info globals, `null`, arrays of
//!   them).
//!
//! Everything outside the instruction set of `lanewise_ir` (Windows
//! funclets `catchswitch`/`catchpad`/`cleanuppad`, atomics, `va_arg`,
//! `callbr`, `indirectbr`, x86_fp80/fp128/bfloat, scalable vectors, musttail
//! calls, operand bundles, inline asm with indirect operands, metadata
//! operands, ...) is reported
//! as [`BridgeError::Unsupported`] naming the function, the block and the
//! LLVM text of the instruction.

use std::collections::HashMap;

use inkwell::llvm_sys::{
    self, LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate,
    LLVMTypeKind, LLVMValueKind,
};
use lanewise_ir::{
    ArithFlags, AtomicAttrs, AtomicOrdering, AtomicRmwOp, BinaryOp, Block, CallEffects, Callee,
    CastFlags, CastOp, Constant, DataLayout, FastMathFlags, FloatPredicate, Function, InstData,
    IntPredicate, LandingPadClause, LifetimeMarker, LoopHints, SyncScope, Type, UnaryOp, Value,
    ValueDef,
};

use crate::module::BridgeError;
use crate::raw::{
    param_attribute_index, RawBlock, RawContext, RawType, RawValue, FUNCTION_ATTRIBUTE_INDEX,
};

/// Intrinsics (by name prefix) that are dropped when lifting: they only
/// annotate the code for the optimizer or the debugger.
const DROPPED_INTRINSIC_PREFIXES: &[&str] = &[
    "llvm.dbg.",
    "llvm.lifetime.start",
    "llvm.lifetime.end",
    "llvm.assume",
    "llvm.experimental.noalias.scope.decl",
];

/// Converts an LLVM type; `Err` holds a message naming the unsupported type.
pub(crate) fn lift_type(ty: RawType<'_>) -> Result<Type, String> {
    match ty.kind() {
        LLVMTypeKind::LLVMVoidTypeKind => Ok(Type::Void),
        LLVMTypeKind::LLVMIntegerTypeKind => Ok(Type::Int(ty.int_width().unwrap_or_default())),
        LLVMTypeKind::LLVMHalfTypeKind => Ok(Type::F16),
        LLVMTypeKind::LLVMFloatTypeKind => Ok(Type::F32),
        LLVMTypeKind::LLVMDoubleTypeKind => Ok(Type::F64),
        LLVMTypeKind::LLVMPointerTypeKind => {
            Ok(Type::Ptr(ty.pointer_address_space().unwrap_or_default()))
        }
        LLVMTypeKind::LLVMVectorTypeKind => {
            let elem = lift_type(ty.element_type().ok_or("vector without element type")?)?;
            let lanes = ty.vector_lanes().unwrap_or_default();
            if !elem.is_scalar() {
                return Err(format!("vector type `{}` has non-scalar elements", ty.to_text()));
            }
            Ok(Type::Vector { elem: Box::new(elem), lanes })
        }
        LLVMTypeKind::LLVMArrayTypeKind => {
            let elem = lift_type(ty.element_type().ok_or("array without element type")?)?;
            Ok(Type::Array { elem: Box::new(elem), len: ty.array_length().unwrap_or_default() })
        }
        LLVMTypeKind::LLVMStructTypeKind => {
            let (fields, packed) = ty
                .struct_fields()
                .ok_or_else(|| format!("opaque struct type `{}` is not supported", ty.to_text()))?;
            let fields = fields.into_iter().map(lift_type).collect::<Result<Vec<_>, _>>()?;
            Ok(Type::Struct { fields, packed })
        }
        _ => Err(format!("type `{}` is not supported", ty.to_text())),
    }
}

/// What the optimizer may assume about calls with this `memory(...)`
/// attribute value (LLVM's `MemoryEffects` encoding: two bits per memory
/// location, `1` = may read, `2` = may write).
fn effects_of_memory_attribute(encoded: Option<u64>) -> CallEffects {
    const WRITE_BITS: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    match encoded {
        Some(0) => CallEffects::Pure,
        Some(bits) if bits & WRITE_BITS == 0 => CallEffects::ReadOnly,
        _ => CallEffects::SideEffects,
    }
}

fn effects_rank(effects: CallEffects) -> u8 {
    match effects {
        CallEffects::Pure => 0,
        CallEffects::ReadOnly => 1,
        CallEffects::SideEffects => 2,
    }
}

pub(crate) fn fast_math_from_bits(bits: u32) -> FastMathFlags {
    FastMathFlags {
        reassoc: bits & llvm_sys::LLVMFastMathAllowReassoc != 0,
        nnan: bits & llvm_sys::LLVMFastMathNoNaNs != 0,
        ninf: bits & llvm_sys::LLVMFastMathNoInfs != 0,
        nsz: bits & llvm_sys::LLVMFastMathNoSignedZeros != 0,
        arcp: bits & llvm_sys::LLVMFastMathAllowReciprocal != 0,
        contract: bits & llvm_sys::LLVMFastMathAllowContract != 0,
        afn: bits & llvm_sys::LLVMFastMathApproxFunc != 0,
    }
}

fn binary_op(opcode: LLVMOpcode) -> Option<BinaryOp> {
    use LLVMOpcode::*;
    Some(match opcode {
        LLVMAdd => BinaryOp::Add,
        LLVMSub => BinaryOp::Sub,
        LLVMMul => BinaryOp::Mul,
        LLVMUDiv => BinaryOp::UDiv,
        LLVMSDiv => BinaryOp::SDiv,
        LLVMURem => BinaryOp::URem,
        LLVMSRem => BinaryOp::SRem,
        LLVMShl => BinaryOp::Shl,
        LLVMLShr => BinaryOp::LShr,
        LLVMAShr => BinaryOp::AShr,
        LLVMAnd => BinaryOp::And,
        LLVMOr => BinaryOp::Or,
        LLVMXor => BinaryOp::Xor,
        LLVMFAdd => BinaryOp::FAdd,
        LLVMFSub => BinaryOp::FSub,
        LLVMFMul => BinaryOp::FMul,
        LLVMFDiv => BinaryOp::FDiv,
        LLVMFRem => BinaryOp::FRem,
        _ => return None,
    })
}

fn cast_op(opcode: LLVMOpcode) -> Option<CastOp> {
    use LLVMOpcode::*;
    Some(match opcode {
        LLVMTrunc => CastOp::Trunc,
        LLVMZExt => CastOp::ZExt,
        LLVMSExt => CastOp::SExt,
        LLVMFPTrunc => CastOp::FPTrunc,
        LLVMFPExt => CastOp::FPExt,
        LLVMFPToUI => CastOp::FPToUI,
        LLVMFPToSI => CastOp::FPToSI,
        LLVMUIToFP => CastOp::UIToFP,
        LLVMSIToFP => CastOp::SIToFP,
        LLVMPtrToInt => CastOp::PtrToInt,
        LLVMIntToPtr => CastOp::IntToPtr,
        LLVMBitCast => CastOp::Bitcast,
        LLVMAddrSpaceCast => CastOp::AddrSpaceCast,
        _ => return None,
    })
}

fn int_predicate(pred: LLVMIntPredicate) -> IntPredicate {
    use LLVMIntPredicate::*;
    match pred {
        LLVMIntEQ => IntPredicate::Eq,
        LLVMIntNE => IntPredicate::Ne,
        LLVMIntUGT => IntPredicate::Ugt,
        LLVMIntUGE => IntPredicate::Uge,
        LLVMIntULT => IntPredicate::Ult,
        LLVMIntULE => IntPredicate::Ule,
        LLVMIntSGT => IntPredicate::Sgt,
        LLVMIntSGE => IntPredicate::Sge,
        LLVMIntSLT => IntPredicate::Slt,
        LLVMIntSLE => IntPredicate::Sle,
    }
}

fn float_predicate(pred: LLVMRealPredicate) -> FloatPredicate {
    use LLVMRealPredicate::*;
    match pred {
        LLVMRealPredicateFalse => FloatPredicate::False,
        LLVMRealOEQ => FloatPredicate::Oeq,
        LLVMRealOGT => FloatPredicate::Ogt,
        LLVMRealOGE => FloatPredicate::Oge,
        LLVMRealOLT => FloatPredicate::Olt,
        LLVMRealOLE => FloatPredicate::Ole,
        LLVMRealONE => FloatPredicate::One,
        LLVMRealORD => FloatPredicate::Ord,
        LLVMRealUNO => FloatPredicate::Uno,
        LLVMRealUEQ => FloatPredicate::Ueq,
        LLVMRealUGT => FloatPredicate::Ugt,
        LLVMRealUGE => FloatPredicate::Uge,
        LLVMRealULT => FloatPredicate::Ult,
        LLVMRealULE => FloatPredicate::Ule,
        LLVMRealUNE => FloatPredicate::Une,
        LLVMRealPredicateTrue => FloatPredicate::True,
    }
}

/// The Lanewise form of an `atomicrmw` operation (`None`: not supported).
pub(crate) fn atomic_rmw_op(op: LLVMAtomicRMWBinOp) -> Option<AtomicRmwOp> {
    use LLVMAtomicRMWBinOp::*;
    Some(match op {
        LLVMAtomicRMWBinOpXchg => AtomicRmwOp::Xchg,
        LLVMAtomicRMWBinOpAdd => AtomicRmwOp::Add,
        LLVMAtomicRMWBinOpSub => AtomicRmwOp::Sub,
        LLVMAtomicRMWBinOpAnd => AtomicRmwOp::And,
        LLVMAtomicRMWBinOpNand => AtomicRmwOp::Nand,
        LLVMAtomicRMWBinOpOr => AtomicRmwOp::Or,
        LLVMAtomicRMWBinOpXor => AtomicRmwOp::Xor,
        LLVMAtomicRMWBinOpMax => AtomicRmwOp::Max,
        LLVMAtomicRMWBinOpMin => AtomicRmwOp::Min,
        LLVMAtomicRMWBinOpUMax => AtomicRmwOp::UMax,
        LLVMAtomicRMWBinOpUMin => AtomicRmwOp::UMin,
        LLVMAtomicRMWBinOpFAdd => AtomicRmwOp::FAdd,
        LLVMAtomicRMWBinOpFSub => AtomicRmwOp::FSub,
        LLVMAtomicRMWBinOpFMax => AtomicRmwOp::FMax,
        LLVMAtomicRMWBinOpFMin => AtomicRmwOp::FMin,
        _ => return None,
    })
}

/// The LLVM keyword of an `atomicrmw` operation Lanewise does not lift.
fn unsupported_atomic_rmw_name(op: LLVMAtomicRMWBinOp) -> &'static str {
    use LLVMAtomicRMWBinOp::*;
    match op {
        LLVMAtomicRMWBinOpUIncWrap => "uinc_wrap",
        LLVMAtomicRMWBinOpUDecWrap => "udec_wrap",
        LLVMAtomicRMWBinOpUSubCond => "usub_cond",
        LLVMAtomicRMWBinOpUSubSat => "usub_sat",
        LLVMAtomicRMWBinOpFMaximum => "fmaximum",
        LLVMAtomicRMWBinOpFMinimum => "fminimum",
        _ => "?",
    }
}

/// The Lanewise form of an atomic ordering (`None`: not atomic).
pub(crate) fn atomic_ordering(ordering: LLVMAtomicOrdering) -> Option<AtomicOrdering> {
    use LLVMAtomicOrdering::*;
    Some(match ordering {
        LLVMAtomicOrderingNotAtomic => return None,
        LLVMAtomicOrderingUnordered => AtomicOrdering::Unordered,
        LLVMAtomicOrderingMonotonic => AtomicOrdering::Monotonic,
        LLVMAtomicOrderingAcquire => AtomicOrdering::Acquire,
        LLVMAtomicOrderingRelease => AtomicOrdering::Release,
        LLVMAtomicOrderingAcquireRelease => AtomicOrdering::AcqRel,
        LLVMAtomicOrderingSequentiallyConsistent => AtomicOrdering::SeqCst,
    })
}

/// Whether `inst` is a call to an annotation intrinsic that lifting drops
/// (never an `invoke`: that is a terminator).
fn is_dropped_intrinsic_call(inst: RawValue<'_>) -> bool {
    if !inst.is_call() {
        return false;
    }
    let Some(callee) = inst.called_value() else { return false };
    callee.is_function()
        && callee.name().is_some_and(|name| {
            DROPPED_INTRINSIC_PREFIXES.iter().any(|prefix| name.starts_with(prefix))
        })
}

/// For a call of `llvm.lifetime.start`/`end`: whether it is a start.
fn lifetime_marker_kind(inst: RawValue<'_>) -> Option<bool> {
    let name = inst.called_value()?.name()?;
    if name.starts_with("llvm.lifetime.start") {
        Some(true)
    } else if name.starts_with("llvm.lifetime.end") {
        Some(false)
    } else {
        None
    }
}

/// An error location: the block and instruction being lifted. The
/// instruction's text is printed only for an error: LLVM numbers the whole
/// function to print one instruction, so printing each as it is lifted
/// made lifting quadratic in the function's size (scripts/scaling.sh).
struct Location<'ctx> {
    block: String,
    inst: Option<RawValue<'ctx>>,
}

struct Lifter<'ctx> {
    function_name: String,
    func: Function,
    values: HashMap<RawValue<'ctx>, Value>,
    blocks: HashMap<RawBlock<'ctx>, Block>,
    /// Where the next materialized constant expression goes in the entry block.
    entry_insert_position: usize,
    memory_attribute_kind: u32,
    returns_twice_attribute_kind: u32,
    element_type_attribute_kind: u32,
    location: Location<'ctx>,
    /// Every lifted LLVM instruction, its placeholder and its block's name.
    placeholder_list: Vec<(RawValue<'ctx>, lanewise_ir::Inst, String)>,
}

/// Lifts the defined LLVM function `function` into the Lanewise IR.
pub(crate) fn lift_function<'ctx>(
    context: RawContext<'ctx>,
    function: RawValue<'ctx>,
    data_layout: &DataLayout,
) -> Result<Function, BridgeError> {
    let function_name = function.name().unwrap_or_default();
    let signature_error = |message: String| BridgeError::Function {
        function: function_name.clone(),
        message: message.clone(),
    };
    let (ret, param_types, vararg) = function
        .function_type()
        .and_then(RawType::function_signature)
        .ok_or_else(|| signature_error("not a function".to_owned()))?;
    if vararg {
        return Err(signature_error("variadic functions are not supported".to_owned()));
    }
    let ret_ty =
        lift_type(ret).map_err(|message| signature_error(format!("return type: {message}")))?;
    let param_types = param_types
        .into_iter()
        .enumerate()
        .map(|(index, ty)| {
            lift_type(ty)
                .map_err(|message| signature_error(format!("parameter {index}: {message}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let llvm_blocks = function.blocks();
    if llvm_blocks.is_empty() {
        return Err(signature_error("the function has no body".to_owned()));
    }

    let mut lifter = Lifter {
        function_name: function_name.clone(),
        func: Function::new(function_name.clone(), param_types, ret_ty),
        values: HashMap::new(),
        blocks: HashMap::new(),
        entry_insert_position: 0,
        memory_attribute_kind: context.enum_attribute_kind("memory"),
        returns_twice_attribute_kind: context.enum_attribute_kind("returns_twice"),
        element_type_attribute_kind: context.enum_attribute_kind("elementtype"),
        location: Location { block: String::new(), inst: None },
        placeholder_list: Vec::new(),
    };
    if let Some(personality) = function.personality() {
        let named = matches!(
            personality.kind(),
            LLVMValueKind::LLVMFunctionValueKind | LLVMValueKind::LLVMGlobalAliasValueKind
        );
        match personality.name() {
            Some(name) if named => lifter.func.personality = Some(name),
            _ => {
                return Err(signature_error(format!(
                    "personality `{}` is not a named function",
                    personality.to_text()
                )))
            }
        }
    }
    let noalias_kind = context.enum_attribute_kind("noalias");
    for (index, param) in function.params().into_iter().enumerate() {
        let position = index as u32;
        if function.enum_attribute_value(param_attribute_index(position), noalias_kind).is_some() {
            lifter.func.noalias_params.insert(position);
        }
        let value = lifter.func.param_value(index);
        lifter.values.insert(param, value);
        lifter.func.dfg.value_names[value] = param.name();
    }

    // Pass 1: blocks and placeholder instructions with their result types.
    let mut lifetime_markers = Vec::new();
    for block in &llvm_blocks {
        let lanewise_block = lifter.func.dfg.make_block(block.name());
        lifter.func.layout.append_block(lanewise_block);
        lifter.blocks.insert(*block, lanewise_block);
    }
    for (block_index, block) in llvm_blocks.iter().enumerate() {
        let lanewise_block = lifter.blocks[block];
        lifter.location.block =
            block.name().unwrap_or_else(|| format!("<unnamed block #{block_index}>"));
        for inst in block.instructions() {
            if is_dropped_intrinsic_call(inst) {
                if let Some(start) = lifetime_marker_kind(inst) {
                    if let Some(slot) = inst.operand(0) {
                        lifetime_markers.push((slot, lanewise_block, start));
                    }
                }
                continue;
            }
            lifter.location.inst = Some(inst);
            let result_ty = lifter.lift_type_here(inst.ty())?;
            let placeholder = lifter.func.append(lanewise_block, InstData::Unreachable, result_ty);
            if let Some(result) = lifter.func.dfg.result(placeholder) {
                lifter.values.insert(inst, result);
                lifter.func.dfg.value_names[result] = inst.name();
            }
            // Remember the placeholder of void instructions too.
            lifter.placeholders_push(inst, placeholder);
        }
    }

    lifter.copy_byval_params(context, function, data_layout)?;

    // Pass 2: the instructions themselves, and the loop hints of latches.
    let loop_kind = context.metadata_kind("llvm.loop");
    let placeholders = std::mem::take(&mut lifter.placeholder_list);
    for (inst, placeholder, block_name) in placeholders {
        lifter.location.block = block_name;
        lifter.location.inst = Some(inst);
        let data = lifter.lift_instruction(inst)?;
        let is_terminator = data.is_terminator();
        *lifter.func.dfg.inst_mut(placeholder) = data;
        if let Some(hints) = is_terminator.then(|| inst.loop_metadata_hints(loop_kind)).flatten() {
            let hints = LoopHints { location: inst.debug_location(), ..hints };
            lifter.func.loop_hints.insert(placeholder, hints);
        }
    }
    // The lifetime markers whose slot is an instruction of the function.
    for (slot, block, start) in lifetime_markers {
        if let Some(&slot) = lifter.values.get(&slot) {
            lifter.func.lifetime_markers.push(LifetimeMarker { slot, block, start });
        }
    }
    Ok(lifter.func)
}

impl<'ctx> Lifter<'ctx> {
    /// A `byval` parameter points to the callee's own copy of the caller's
    /// argument, which the code generator makes at the call; the function
    /// may write to it. A vector variant's (or a rewritten loop's) pointer
    /// parameter is the caller's memory itself, so a `byval` parameter the
    /// function does not mark `readonly` is copied into a stack slot at the
    /// entry (an `alloca` and an `llvm.memcpy`), and its uses use the slot:
    /// the lanes' writes then go to their own copies, as in the scalar
    /// function, and never to the caller's (possibly constant) memory.
    fn copy_byval_params(
        &mut self,
        context: RawContext<'ctx>,
        function: RawValue<'ctx>,
        data_layout: &DataLayout,
    ) -> Result<(), BridgeError> {
        let byval_kind = context.enum_attribute_kind("byval");
        let readonly_kind = context.enum_attribute_kind("readonly");
        let align_kind = context.enum_attribute_kind("align");
        for (index, param) in function.params().into_iter().enumerate() {
            let attribute_index = param_attribute_index(index as u32);
            let Some(byval) = function.function_type_attribute(attribute_index, byval_kind) else {
                continue;
            };
            if function.enum_attribute_value(attribute_index, readonly_kind).is_some() {
                continue;
            }
            let ty = self.lift_type_here(byval)?;
            let align = function
                .enum_attribute_value(attribute_index, align_kind)
                .map_or(data_layout.abi_align(&ty), |align| align.max(1));
            let one = self.func.dfg.int_const(Type::I32, 1);
            let alloca = InstData::Alloca { ty: ty.clone(), count: one, align: align as u32 };
            let copy = self.insert_in_entry(alloca, Type::PTR);
            self.func.dfg.value_names[copy] = param.name().map(|name| format!("{name}.copy"));
            let size = self.func.dfg.int_const(Type::I64, u128::from(data_layout.alloc_size(&ty)));
            let not_volatile = self.func.dfg.int_const(Type::BOOL, 0);
            let memcpy = InstData::Call {
                callee: Callee::Direct("llvm.memcpy.p0.p0.i64".to_owned()),
                args: vec![copy, self.func.param_value(index), size, not_volatile],
                ret_ty: Type::Void,
                effects: CallEffects::SideEffects,
                flags: FastMathFlags::default(),
            };
            let entry = self.func.entry_block().expect("the lifter creates the entry block first");
            let inst = self.func.dfg.make_inst(memcpy, Type::Void);
            self.func.layout.insert_inst_at(inst, entry, self.entry_insert_position);
            self.entry_insert_position += 1;
            self.values.insert(param, copy);
        }
        Ok(())
    }

    fn unsupported(&self, message: impl Into<String>) -> BridgeError {
        BridgeError::Unsupported {
            function: self.function_name.clone(),
            block: self.location.block.clone(),
            inst: self.location.inst.map(|inst| inst.to_text()).unwrap_or_default(),
            message: message.into(),
        }
    }

    fn lift_type_here(&self, ty: RawType<'ctx>) -> Result<Type, BridgeError> {
        lift_type(ty).map_err(|message| self.unsupported(message))
    }

    fn block(&self, block: RawBlock<'ctx>) -> Result<Block, BridgeError> {
        self.blocks
            .get(&block)
            .copied()
            .ok_or_else(|| self.unsupported("branch to a block of another function"))
    }

    /// The Lanewise value of an LLVM operand, lifting constants on the way.
    fn operand(&mut self, value: RawValue<'ctx>) -> Result<Value, BridgeError> {
        if let Some(lifted) = self.values.get(&value) {
            return Ok(*lifted);
        }
        let lifted = self.lift_constant(value)?;
        self.values.insert(value, lifted);
        Ok(lifted)
    }

    fn nth_operand(&mut self, inst: RawValue<'ctx>, index: u32) -> Result<Value, BridgeError> {
        let operand = inst
            .operand(index)
            .ok_or_else(|| self.unsupported(format!("missing operand {index}")))?;
        self.operand(operand)
    }

    fn make_const(&mut self, ty: Type, constant: Constant) -> Value {
        self.func.dfg.make_const(ty, constant)
    }

    /// The value of an integer constant, zero-extended (wider than 64 bits
    /// read from LLVM's text; wider than 128 bits unsupported).
    fn int_constant_bits(&self, constant: RawValue<'ctx>) -> Result<u128, BridgeError> {
        if let Some(bits) = constant.const_int_low_bits() {
            return Ok(u128::from(bits));
        }
        let width = constant.ty().int_width().unwrap_or_default();
        if constant.kind() != LLVMValueKind::LLVMConstantIntValueKind || width > 128 {
            return Err(self.unsupported(format!(
                "integer constant `{}` is wider than 128 bits",
                constant.to_text()
            )));
        }
        // LLVM prints `i128 -5`: the type, then the signed decimal value.
        let text = constant.to_text();
        let digits = text.split_whitespace().last().unwrap_or_default();
        let signed: i128 = digits
            .parse()
            .or_else(|_| digits.parse::<u128>().map(|unsigned| unsigned as i128))
            .map_err(|_| self.unsupported(format!("cannot read integer constant `{text}`")))?;
        let mask = if width >= 128 { u128::MAX } else { (1u128 << width) - 1 };
        Ok((signed as u128) & mask)
    }

    fn lift_constant(&mut self, constant: RawValue<'ctx>) -> Result<Value, BridgeError> {
        use LLVMValueKind::*;
        let kind = constant.kind();
        let ty = self.lift_type_here(constant.ty())?;
        match kind {
            LLVMConstantIntValueKind => {
                let bits = self.int_constant_bits(constant)?;
                Ok(self.make_const(ty, Constant::Int(bits)))
            }
            LLVMConstantFPValueKind => {
                let bits = constant.const_float_bits().ok_or_else(|| {
                    self.unsupported(format!("float constant `{}`", constant.to_text()))
                })?;
                Ok(self.make_const(ty, Constant::Float(bits)))
            }
            LLVMConstantPointerNullValueKind => Ok(self.make_const(ty, Constant::Null)),
            LLVMUndefValueValueKind => Ok(self.make_const(ty, Constant::Undef)),
            LLVMPoisonValueKind => Ok(self.make_const(ty, Constant::Poison)),
            LLVMConstantAggregateZeroValueKind => Ok(self.make_const(ty, Constant::Zero)),
            LLVMConstantArrayValueKind
            | LLVMConstantStructValueKind
            | LLVMConstantVectorValueKind
            | LLVMConstantDataArrayValueKind
            | LLVMConstantDataVectorValueKind => self.lift_aggregate_constant(constant, ty),
            LLVMFunctionValueKind
            | LLVMGlobalVariableValueKind
            | LLVMGlobalAliasValueKind
            | LLVMGlobalIFuncValueKind => {
                let name = constant.name().ok_or_else(|| {
                    self.unsupported("reference to an unnamed global is not supported")
                })?;
                Ok(self.make_const(ty, Constant::Symbol(name)))
            }
            LLVMConstantExprValueKind => self.materialize_constant_expression(constant, ty),
            LLVMArgumentValueKind | LLVMInstructionValueKind => Err(self.unsupported(format!(
                "operand `{}` is not defined in this function",
                constant.to_text()
            ))),
            LLVMMetadataAsValueValueKind => {
                Err(self.unsupported("metadata operands are not supported"))
            }
            LLVMInlineAsmValueKind => Err(self.unsupported("inline assembly is not supported")),
            LLVMBlockAddressValueKind => Err(self.unsupported("block addresses are not supported")),
            _ => {
                Err(self.unsupported(format!("operand `{}` is not supported", constant.to_text())))
            }
        }
    }

    fn lift_aggregate_constant(
        &mut self,
        constant: RawValue<'ctx>,
        ty: Type,
    ) -> Result<Value, BridgeError> {
        let count = match &ty {
            Type::Vector { lanes, .. } => u64::from(*lanes),
            Type::Array { len, .. } => *len,
            Type::Struct { fields, .. } => fields.len() as u64,
            _ => {
                return Err(self.unsupported(format!(
                    "constant `{}` of a non-aggregate type",
                    constant.to_text()
                )))
            }
        };
        let mut elements = Vec::with_capacity(count as usize);
        for index in 0..count {
            let element = u32::try_from(index)
                .ok()
                .and_then(|index| constant.aggregate_element(index))
                .ok_or_else(|| {
                    self.unsupported(format!(
                        "cannot read element {index} of `{}`",
                        constant.to_text()
                    ))
                })?;
            elements.push(self.operand(element)?);
        }
        let all_constant = elements
            .iter()
            .all(|element| matches!(self.func.dfg.value_def(*element), ValueDef::Const(_)));
        if all_constant {
            return Ok(self.make_const(ty, Constant::Aggregate(elements)));
        }
        // An element is a materialized constant expression: build the
        // aggregate in the entry block, after that element.
        let mut aggregate = self.make_const(ty.clone(), Constant::Poison);
        for (index, element) in elements.into_iter().enumerate() {
            let data = if ty.is_vector() {
                let index = self.func.dfg.int_const(Type::I32, index as u128);
                InstData::InsertElement { vector: aggregate, value: element, index }
            } else {
                InstData::InsertValue { aggregate, value: element, indices: vec![index as u32] }
            };
            aggregate = self.insert_in_entry(data, ty.clone());
        }
        Ok(aggregate)
    }

    /// Appends `data` to the instructions materialized at the start of the
    /// entry block and returns its result.
    fn insert_in_entry(&mut self, data: InstData, ty: Type) -> Value {
        let entry = self.func.entry_block().expect("the lifter creates the entry block first");
        let inst = self.func.dfg.make_inst(data, ty);
        self.func.layout.insert_inst_at(inst, entry, self.entry_insert_position);
        self.entry_insert_position += 1;
        self.func.dfg.result(inst).expect("materialized constant expressions have a value")
    }

    fn materialize_constant_expression(
        &mut self,
        expression: RawValue<'ctx>,
        ty: Type,
    ) -> Result<Value, BridgeError> {
        let opcode = expression
            .opcode()
            .ok_or_else(|| self.unsupported("constant expression without opcode"))?;
        let data = self.lift_operation(expression, opcode)?;
        Ok(self.insert_in_entry(data, ty))
    }

    fn lift_instruction(&mut self, inst: RawValue<'ctx>) -> Result<InstData, BridgeError> {
        let opcode = inst.opcode().ok_or_else(|| self.unsupported("not an instruction"))?;
        self.lift_operation(inst, opcode)
    }

    /// Lifts an instruction or a constant expression (their operands are laid
    /// out alike).
    fn lift_operation(
        &mut self,
        inst: RawValue<'ctx>,
        opcode: LLVMOpcode,
    ) -> Result<InstData, BridgeError> {
        use LLVMOpcode::*;
        if let Some(op) = binary_op(opcode) {
            let lhs = self.nth_operand(inst, 0)?;
            let rhs = self.nth_operand(inst, 1)?;
            let flags = ArithFlags {
                nuw: inst.no_unsigned_wrap(),
                nsw: inst.no_signed_wrap(),
                exact: inst.exact(),
                disjoint: inst.disjoint(),
                fast_math: fast_math_from_bits(inst.fast_math_bits()),
            };
            return Ok(InstData::Binary { op, lhs, rhs, flags });
        }
        if let Some(op) = cast_op(opcode) {
            let arg = self.nth_operand(inst, 0)?;
            let to = self.lift_type_here(inst.ty())?;
            let flags = CastFlags {
                nuw: opcode == LLVMTrunc && inst.no_unsigned_wrap(),
                nsw: opcode == LLVMTrunc && inst.no_signed_wrap(),
                nneg: inst.non_negative(),
            };
            return Ok(InstData::Cast { op, arg, to, flags });
        }
        Ok(match opcode {
            LLVMFNeg => {
                let arg = self.nth_operand(inst, 0)?;
                let flags = ArithFlags {
                    fast_math: fast_math_from_bits(inst.fast_math_bits()),
                    ..ArithFlags::default()
                };
                InstData::Unary { op: UnaryOp::FNeg, arg, flags }
            }
            LLVMICmp => {
                let pred = inst.icmp_predicate().ok_or_else(|| {
                    self.unsupported("icmp constant expressions are not supported")
                })?;
                InstData::Icmp {
                    pred: int_predicate(pred),
                    lhs: self.nth_operand(inst, 0)?,
                    rhs: self.nth_operand(inst, 1)?,
                }
            }
            LLVMFCmp => {
                let pred = inst.fcmp_predicate().ok_or_else(|| {
                    self.unsupported("fcmp constant expressions are not supported")
                })?;
                InstData::Fcmp {
                    pred: float_predicate(pred),
                    lhs: self.nth_operand(inst, 0)?,
                    rhs: self.nth_operand(inst, 1)?,
                    flags: fast_math_from_bits(inst.fast_math_bits()),
                }
            }
            LLVMSelect => InstData::Select {
                cond: self.nth_operand(inst, 0)?,
                if_true: self.nth_operand(inst, 1)?,
                if_false: self.nth_operand(inst, 2)?,
                flags: fast_math_from_bits(inst.fast_math_bits()),
            },
            LLVMPHI => {
                let ty = self.lift_type_here(inst.ty())?;
                let mut incoming = Vec::new();
                for (value, block) in inst.phi_incoming() {
                    let block = self.block(block)?;
                    // A switch with several cases to this block gives the phi
                    // one (identical) entry per edge; Lanewise IR has one
                    // entry per predecessor block (the lowering repeats it).
                    if incoming.iter().any(|(seen, _)| *seen == block) {
                        continue;
                    }
                    incoming.push((block, self.operand(value)?));
                }
                InstData::Phi { ty, incoming }
            }
            LLVMLoad => {
                if inst.is_atomic_access() {
                    return Err(self.unsupported("atomic loads are not supported"));
                }
                InstData::Load {
                    ty: self.lift_type_here(inst.ty())?,
                    addr: self.nth_operand(inst, 0)?,
                    align: inst.alignment(),
                    volatile: inst.is_volatile(),
                }
            }
            LLVMStore => {
                if inst.is_atomic_access() {
                    return Err(self.unsupported("atomic stores are not supported"));
                }
                InstData::Store {
                    value: self.nth_operand(inst, 0)?,
                    addr: self.nth_operand(inst, 1)?,
                    align: inst.alignment(),
                    volatile: inst.is_volatile(),
                }
            }
            LLVMAtomicRMW => {
                let (op, ordering) = inst
                    .atomic_rmw_op()
                    .ok_or_else(|| self.unsupported("atomicrmw without operation"))?;
                let op = atomic_rmw_op(op).ok_or_else(|| {
                    self.unsupported(format!(
                        "the atomicrmw operation `{}` is not supported (supported: xchg, add, sub, and, nand, or, xor, max, min, umax, umin, fadd, fsub, fmax, fmin)",
                        unsupported_atomic_rmw_name(op)
                    ))
                })?;
                let attrs = self.atomic_attrs(inst, ordering)?;
                if !self.lift_type_here(inst.ty())?.is_scalar() {
                    return Err(self.unsupported("atomicrmw on a vector is not supported"));
                }
                InstData::AtomicRmw {
                    op,
                    addr: self.nth_operand(inst, 0)?,
                    value: self.nth_operand(inst, 1)?,
                    attrs,
                }
            }
            LLVMAtomicCmpXchg => {
                let (success, failure, weak) = inst
                    .cmpxchg_orderings()
                    .ok_or_else(|| self.unsupported("cmpxchg without orderings"))?;
                let attrs = self.atomic_attrs(inst, success)?;
                let failure_ordering = atomic_ordering(failure)
                    .ok_or_else(|| self.unsupported("cmpxchg without a failure ordering"))?;
                InstData::CmpXchg {
                    addr: self.nth_operand(inst, 0)?,
                    expected: self.nth_operand(inst, 1)?,
                    new: self.nth_operand(inst, 2)?,
                    attrs,
                    failure_ordering,
                    weak,
                }
            }
            LLVMGetElementPtr => {
                let (source, inbounds) = inst
                    .gep_source_type_and_inbounds()
                    .ok_or_else(|| self.unsupported("getelementptr without source element type"))?;
                let source_ty = self.lift_type_here(source)?;
                let base = self.nth_operand(inst, 0)?;
                let mut indices = Vec::new();
                for index in 1..inst.num_operands() {
                    indices.push(self.nth_operand(inst, index)?);
                }
                InstData::Gep { source_ty, base, indices, inbounds }
            }
            LLVMAlloca => {
                let allocated =
                    inst.allocated_type().ok_or_else(|| self.unsupported("alloca without type"))?;
                InstData::Alloca {
                    ty: self.lift_type_here(allocated)?,
                    count: self.nth_operand(inst, 0)?,
                    align: inst.alignment(),
                }
            }
            LLVMExtractValue => InstData::ExtractValue {
                aggregate: self.nth_operand(inst, 0)?,
                indices: inst.aggregate_indices(),
            },
            LLVMInsertValue => InstData::InsertValue {
                aggregate: self.nth_operand(inst, 0)?,
                value: self.nth_operand(inst, 1)?,
                indices: inst.aggregate_indices(),
            },
            LLVMExtractElement => InstData::ExtractElement {
                vector: self.nth_operand(inst, 0)?,
                index: self.nth_operand(inst, 1)?,
            },
            LLVMInsertElement => InstData::InsertElement {
                vector: self.nth_operand(inst, 0)?,
                value: self.nth_operand(inst, 1)?,
                index: self.nth_operand(inst, 2)?,
            },
            LLVMShuffleVector => {
                if !inst.is_instruction() {
                    return Err(
                        self.unsupported("shufflevector constant expressions are not supported")
                    );
                }
                InstData::Shuffle {
                    lhs: self.nth_operand(inst, 0)?,
                    rhs: self.nth_operand(inst, 1)?,
                    mask: inst.shuffle_mask(),
                }
            }
            LLVMFreeze => InstData::Freeze { arg: self.nth_operand(inst, 0)? },
            LLVMCall => {
                if inst.is_musttail() {
                    return Err(self.unsupported("musttail calls are not supported"));
                }
                // Lanewise's own speculative load, lowered as inline
                // assembly with an indirect memory operand.
                let speculative_load = inst.called_value().is_some_and(|called| {
                    called.kind() == LLVMValueKind::LLVMInlineAsmValueKind
                        && crate::lower::is_unaligned_load_asm(&called.inline_asm_parts())
                }) && inst.call_argument_count() == 1;
                if speculative_load {
                    let ty = self.lift_type_here(inst.ty())?;
                    if ty.is_vector() {
                        return Ok(InstData::SpeculativeLoad {
                            ty,
                            addr: self.nth_operand(inst, 0)?,
                        });
                    }
                }
                let (callee, args, ret_ty, effects) = self.lift_call_site(inst)?;
                let flags = fast_math_from_bits(inst.fast_math_bits());
                InstData::Call { callee, args, ret_ty, effects, flags }
            }
            LLVMInvoke => {
                let (normal, unwind) = inst
                    .invoke_destinations()
                    .ok_or_else(|| self.unsupported("invoke without destinations"))?;
                let (normal_dest, unwind_dest) = (self.block(normal)?, self.block(unwind)?);
                let (callee, args, ret_ty, effects) = self.lift_call_site(inst)?;
                InstData::Invoke { callee, args, ret_ty, effects, normal_dest, unwind_dest }
            }
            LLVMLandingPad => {
                let mut clauses = Vec::new();
                for (clause, is_filter) in inst.landing_pad_clauses() {
                    let value = self.operand(clause)?;
                    if !matches!(self.func.dfg.value_def(value), ValueDef::Const(_)) {
                        return Err(self.unsupported(format!(
                            "landingpad clause `{}` is not a plain constant",
                            clause.to_text()
                        )));
                    }
                    clauses.push(if is_filter {
                        LandingPadClause::Filter(value)
                    } else {
                        LandingPadClause::Catch(value)
                    });
                }
                InstData::LandingPad {
                    ty: self.lift_type_here(inst.ty())?,
                    cleanup: inst.is_cleanup(),
                    clauses,
                }
            }
            LLVMResume => InstData::Resume { value: self.nth_operand(inst, 0)? },
            LLVMBr => {
                let successors = inst.successors();
                match inst.branch_condition() {
                    Some(cond) => InstData::Branch {
                        cond: self.operand(cond)?,
                        then_dest: self.block(successors[0])?,
                        else_dest: self.block(successors[1])?,
                    },
                    None => InstData::Jump { dest: self.block(successors[0])? },
                }
            }
            LLVMSwitch => {
                let value = self.nth_operand(inst, 0)?;
                let successors = inst.successors();
                let default = self.block(successors[0])?;
                let mut cases = Vec::new();
                for (case_index, dest) in successors.iter().enumerate().skip(1) {
                    let case_value = inst
                        .switch_case_value(case_index as u32)
                        .ok_or_else(|| self.unsupported("switch case without value"))?;
                    cases.push((self.int_constant_bits(case_value)?, self.block(*dest)?));
                }
                InstData::Switch { value, default, cases }
            }
            LLVMRet => {
                let value = match inst.operand(0) {
                    Some(value) => Some(self.operand(value)?),
                    None => None,
                };
                InstData::Return { value }
            }
            LLVMUnreachable => InstData::Unreachable,
            other => {
                return Err(self.unsupported(format!(
                    "the `{}` operation is not supported",
                    opcode_name(other)
                )))
            }
        })
    }

    /// The ordering, sync scope, alignment and `volatile` flag of an
    /// `atomicrmw` or `cmpxchg` (`ordering`: the success ordering).
    fn atomic_attrs(
        &self,
        inst: RawValue<'ctx>,
        ordering: LLVMAtomicOrdering,
    ) -> Result<AtomicAttrs, BridgeError> {
        let ordering =
            atomic_ordering(ordering).ok_or_else(|| self.unsupported("atomic without ordering"))?;
        let scope = match inst.atomic_sync_scope_id() {
            Some(0) => SyncScope::SingleThread,
            Some(1) => SyncScope::System,
            _ => {
                return Err(self.unsupported(
                    "atomics in a target-specific synchronization scope are not supported",
                ))
            }
        };
        Ok(AtomicAttrs { ordering, scope, align: inst.alignment(), volatile: inst.is_volatile() })
    }

    /// The callee, arguments, result type and memory effects of a `call` or
    /// an `invoke`.
    fn lift_call_site(
        &mut self,
        inst: RawValue<'ctx>,
    ) -> Result<(Callee, Vec<Value>, Type, CallEffects), BridgeError> {
        if inst.operand_bundle_count() > 0 {
            return Err(self.unsupported("calls with operand bundles are not supported"));
        }
        let called = inst.called_value().ok_or_else(|| self.unsupported("call without callee"))?;
        // `setjmp` and its kind: a later `longjmp` returns through the call
        // again, to one lane of a vector variant or loop that went on.
        let returns_twice_kind = self.returns_twice_attribute_kind;
        let returns_twice =
            inst.enum_attribute_value(FUNCTION_ATTRIBUTE_INDEX, returns_twice_kind).is_some()
                || (called.is_function()
                    && called
                        .enum_attribute_value(FUNCTION_ATTRIBUTE_INDEX, returns_twice_kind)
                        .is_some());
        if returns_twice {
            return Err(self.unsupported(format!(
                "`{}` returns twice (as setjmp does): a longjmp would resume one lane of code \
                 that runs all of them",
                called.name().unwrap_or_else(|| "the callee".to_owned())
            )));
        }
        let function_type = inst.called_function_type().and_then(RawType::function_signature);
        let callee_is_symbol = matches!(
            called.kind(),
            LLVMValueKind::LLVMFunctionValueKind | LLVMValueKind::LLVMGlobalAliasValueKind
        );
        let inline_asm = if called.kind() == LLVMValueKind::LLVMInlineAsmValueKind {
            let mut asm = called.inline_asm_parts();
            // Indirect operands (`=*m`) carry their `elementtype` at the call.
            if asm.constraints.contains('*') {
                let kind = self.element_type_attribute_kind;
                asm.element_types = (0..inst.call_argument_count())
                    .map(|index| {
                        inst.call_site_type_attribute(param_attribute_index(index), kind)
                            .map(|ty| self.lift_type_here(ty))
                            .transpose()
                    })
                    .collect::<Result<_, _>>()?;
            }
            Some(asm)
        } else {
            None
        };
        if function_type.as_ref().is_some_and(|(_, _, vararg)| *vararg) && !callee_is_symbol {
            return Err(self.unsupported("indirect calls of variadic functions are not supported"));
        }
        let callee = match (called.name(), inline_asm) {
            (_, Some(asm)) => Callee::InlineAsm(Box::new(asm)),
            (Some(name), None) if callee_is_symbol => Callee::Direct(name),
            _ => Callee::Indirect(self.operand(called)?),
        };
        let mut args = Vec::new();
        for index in 0..inst.call_argument_count() {
            args.push(self.nth_operand(inst, index)?);
        }
        let ret_ty = self.lift_type_here(inst.ty())?;
        let call_site_effects = effects_of_memory_attribute(
            inst.enum_attribute_value(FUNCTION_ATTRIBUTE_INDEX, self.memory_attribute_kind),
        );
        let callee_effects = if called.is_function() {
            effects_of_memory_attribute(
                called.enum_attribute_value(FUNCTION_ATTRIBUTE_INDEX, self.memory_attribute_kind),
            )
        } else {
            CallEffects::SideEffects
        };
        let effects = if effects_rank(call_site_effects) < effects_rank(callee_effects) {
            call_site_effects
        } else {
            callee_effects
        };
        Ok((callee, args, ret_ty, effects))
    }

    fn placeholders_push(&mut self, inst: RawValue<'ctx>, placeholder: lanewise_ir::Inst) {
        self.placeholder_list.push((inst, placeholder, self.location.block.clone()));
    }
}

/// The LLVM mnemonic of an opcode the lifter rejects.
fn opcode_name(opcode: LLVMOpcode) -> String {
    let debug = format!("{opcode:?}");
    debug.trim_start_matches("LLVM").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_attribute_values_map_to_call_effects() {
        // memory(none)
        assert_eq!(effects_of_memory_attribute(Some(0)), CallEffects::Pure);
        // memory(read): Ref (1) for every location.
        assert_eq!(effects_of_memory_attribute(Some(0b01_01_01_01)), CallEffects::ReadOnly);
        // memory(argmem: read)
        assert_eq!(effects_of_memory_attribute(Some(0b01)), CallEffects::ReadOnly);
        // memory(argmem: readwrite)
        assert_eq!(effects_of_memory_attribute(Some(0b11)), CallEffects::SideEffects);
        // memory(errnomem: write)
        assert_eq!(effects_of_memory_attribute(Some(0b10_00_00)), CallEffects::SideEffects);
        // No attribute at all.
        assert_eq!(effects_of_memory_attribute(None), CallEffects::SideEffects);
    }

    #[test]
    fn fast_math_bits_map_to_flags() {
        let flags =
            fast_math_from_bits(llvm_sys::LLVMFastMathNoNaNs | llvm_sys::LLVMFastMathAllowContract);
        assert!(flags.nnan && flags.contract);
        assert!(!flags.ninf && !flags.reassoc && !flags.nsz && !flags.arcp && !flags.afn);
    }

    #[test]
    fn rejected_opcodes_have_llvm_like_names() {
        assert_eq!(opcode_name(LLVMOpcode::LLVMAtomicRMW), "atomicrmw");
        assert_eq!(opcode_name(LLVMOpcode::LLVMCatchSwitch), "catchswitch");
    }
}
