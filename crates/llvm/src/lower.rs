//! Lowering the Lanewise IR into LLVM IR.
//!
//! The last step of the WFV pipeline (Karrenberg 2014, §5.8, "the vectorized
//! function is handed back to LLVM"): a Lanewise function, typically a widened
//! variant with vector parameters, becomes a new LLVM function in the module
//! of its scalar source. Each Lanewise instruction becomes one LLVM
//! instruction, except:
//!
//! - `Splat` becomes `insertelement` into poison plus a zero-mask
//!   `shufflevector` (what LLVM's own vectorizers emit for a broadcast);
//! - `MaskedLoad`, `MaskedStore`, `Gather` and `Scatter` become calls of
//!   `llvm.masked.{load,store,gather,scatter}`; in LLVM 22 their alignment is
//!   an `align N` attribute on the pointer argument, not an `i32` operand;
//! - `extractvalue`/`insertvalue` with several indices become chains of
//!   single-index ones (LLVM-C builds only those).
//!
//! Direct calls are resolved by name: a function of the module, an intrinsic
//! (declared through LLVM's intrinsic tables so that it gets its attributes),
//! or a new external declaration with the call's signature. An `invoke` is
//! lowered like a call (same callee resolution, calling convention and ABI
//! extension attributes), with its two destinations; `landingpad` and
//! `resume` one to one. A function with a personality (`Function::personality`)
//! gets it back, so its landing pads verify.
//!
//! Blocks are created first, in layout order; instructions are then emitted
//! in reverse post-order of the CFG so that every definition is emitted
//! before its non-phi uses, and phi inputs are filled in at the end. An
//! operand defined nowhere reachable (only possible in unreachable code)
//! becomes `poison`.
//!
//! Function attributes of the scalar function are copied, except the `_ZGV`
//! variant names, `optnone`/`noinline`, `allocsize` (it names parameters) and
//! `memory(...)`: a variant may write where the scalar function does not
//! (through the hidden result pointer of a wide result, for one), so a
//! `memory(none)` copied from the scalar function would let callers' optimizers
//! delete the writes;
//! `min-legal-vector-width` is set to the widest vector in the signature, in
//! calls and in operations LLVM cannot split (`min_legal_vector_bits`), and
//! `target-features` to the union of the scalar's and the requested ones.
//! Parameter attributes are not copied because types change, except the ABI
//! extension attributes `signext`/`zeroext` of parameters and results whose
//! type is unchanged (callers compiled by clang rely on them).

use std::collections::{HashMap, HashSet};

use inkwell::llvm_sys::{
    LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate,
};
use lanewise_ir::{
    ArithFlags, AtomicAttrs, AtomicOrdering, AtomicRmwOp, BinaryOp, Block, CallEffects, Callee,
    CastOp, Constant, FastMathFlags, FloatPredicate, Function, Inst, InstData, IntPredicate,
    SyncScope, Type, UnaryOp, Value, ValueDef,
};

use crate::module::BridgeError;
use crate::raw::{
    attribute_contents, param_attribute_index, AttributeContents, RawBlock, RawBuilder, RawContext,
    RawModule, RawType, RawValue, FUNCTION_ATTRIBUTE_INDEX, RETURN_ATTRIBUTE_INDEX,
};

fn llvm_atomic_rmw_op(op: AtomicRmwOp) -> LLVMAtomicRMWBinOp {
    use LLVMAtomicRMWBinOp::*;
    match op {
        AtomicRmwOp::Xchg => LLVMAtomicRMWBinOpXchg,
        AtomicRmwOp::Add => LLVMAtomicRMWBinOpAdd,
        AtomicRmwOp::Sub => LLVMAtomicRMWBinOpSub,
        AtomicRmwOp::And => LLVMAtomicRMWBinOpAnd,
        AtomicRmwOp::Nand => LLVMAtomicRMWBinOpNand,
        AtomicRmwOp::Or => LLVMAtomicRMWBinOpOr,
        AtomicRmwOp::Xor => LLVMAtomicRMWBinOpXor,
        AtomicRmwOp::Max => LLVMAtomicRMWBinOpMax,
        AtomicRmwOp::Min => LLVMAtomicRMWBinOpMin,
        AtomicRmwOp::UMax => LLVMAtomicRMWBinOpUMax,
        AtomicRmwOp::UMin => LLVMAtomicRMWBinOpUMin,
        AtomicRmwOp::FAdd => LLVMAtomicRMWBinOpFAdd,
        AtomicRmwOp::FSub => LLVMAtomicRMWBinOpFSub,
        AtomicRmwOp::FMax => LLVMAtomicRMWBinOpFMax,
        AtomicRmwOp::FMin => LLVMAtomicRMWBinOpFMin,
    }
}

fn llvm_ordering(ordering: AtomicOrdering) -> LLVMAtomicOrdering {
    use LLVMAtomicOrdering::*;
    match ordering {
        AtomicOrdering::Unordered => LLVMAtomicOrderingUnordered,
        AtomicOrdering::Monotonic => LLVMAtomicOrderingMonotonic,
        AtomicOrdering::Acquire => LLVMAtomicOrderingAcquire,
        AtomicOrdering::Release => LLVMAtomicOrderingRelease,
        AtomicOrdering::AcqRel => LLVMAtomicOrderingAcquireRelease,
        AtomicOrdering::SeqCst => LLVMAtomicOrderingSequentiallyConsistent,
    }
}

/// LLVM's fixed sync scope ids: 0 `singlethread`, 1 the system.
fn sync_scope_id(attrs: &AtomicAttrs) -> u32 {
    match attrs.scope {
        SyncScope::SingleThread => 0,
        SyncScope::System => 1,
    }
}

/// The alignment and `volatile` flag of a built atomic.
fn set_atomic_attrs(lowered: RawValue<'_>, attrs: &AtomicAttrs) {
    lowered.set_alignment(attrs.align);
    if attrs.volatile {
        lowered.set_volatile();
    }
}

/// Converts a Lanewise type into an LLVM type of `context`.
pub(crate) fn lower_type<'ctx>(context: RawContext<'ctx>, ty: &Type) -> RawType<'ctx> {
    match ty {
        Type::Void => context.void_type(),
        Type::Int(bits) => context.int_type(*bits),
        Type::F16 => context.half_type(),
        Type::F32 => context.float_type(),
        Type::F64 => context.double_type(),
        Type::Ptr(space) => context.pointer_type(*space),
        Type::Vector { elem, lanes } => context.vector_type(lower_type(context, elem), *lanes),
        Type::Array { elem, len } => context.array_type(lower_type(context, elem), *len),
        Type::Struct { fields, packed } => {
            let fields: Vec<RawType<'ctx>> =
                fields.iter().map(|field| lower_type(context, field)).collect();
            context.struct_type(&fields, *packed)
        }
    }
}

fn binary_opcode(op: BinaryOp) -> LLVMOpcode {
    use LLVMOpcode::*;
    match op {
        BinaryOp::Add => LLVMAdd,
        BinaryOp::Sub => LLVMSub,
        BinaryOp::Mul => LLVMMul,
        BinaryOp::UDiv => LLVMUDiv,
        BinaryOp::SDiv => LLVMSDiv,
        BinaryOp::URem => LLVMURem,
        BinaryOp::SRem => LLVMSRem,
        BinaryOp::Shl => LLVMShl,
        BinaryOp::LShr => LLVMLShr,
        BinaryOp::AShr => LLVMAShr,
        BinaryOp::And => LLVMAnd,
        BinaryOp::Or => LLVMOr,
        BinaryOp::Xor => LLVMXor,
        BinaryOp::FAdd => LLVMFAdd,
        BinaryOp::FSub => LLVMFSub,
        BinaryOp::FMul => LLVMFMul,
        BinaryOp::FDiv => LLVMFDiv,
        BinaryOp::FRem => LLVMFRem,
    }
}

fn cast_opcode(op: CastOp) -> LLVMOpcode {
    use LLVMOpcode::*;
    match op {
        CastOp::Trunc => LLVMTrunc,
        CastOp::ZExt => LLVMZExt,
        CastOp::SExt => LLVMSExt,
        CastOp::FPTrunc => LLVMFPTrunc,
        CastOp::FPExt => LLVMFPExt,
        CastOp::FPToUI => LLVMFPToUI,
        CastOp::FPToSI => LLVMFPToSI,
        CastOp::UIToFP => LLVMUIToFP,
        CastOp::SIToFP => LLVMSIToFP,
        CastOp::PtrToInt => LLVMPtrToInt,
        CastOp::IntToPtr => LLVMIntToPtr,
        CastOp::Bitcast => LLVMBitCast,
        CastOp::AddrSpaceCast => LLVMAddrSpaceCast,
    }
}

fn int_predicate(pred: IntPredicate) -> LLVMIntPredicate {
    use LLVMIntPredicate::*;
    match pred {
        IntPredicate::Eq => LLVMIntEQ,
        IntPredicate::Ne => LLVMIntNE,
        IntPredicate::Ugt => LLVMIntUGT,
        IntPredicate::Uge => LLVMIntUGE,
        IntPredicate::Ult => LLVMIntULT,
        IntPredicate::Ule => LLVMIntULE,
        IntPredicate::Sgt => LLVMIntSGT,
        IntPredicate::Sge => LLVMIntSGE,
        IntPredicate::Slt => LLVMIntSLT,
        IntPredicate::Sle => LLVMIntSLE,
    }
}

fn float_predicate(pred: FloatPredicate) -> LLVMRealPredicate {
    use LLVMRealPredicate::*;
    match pred {
        FloatPredicate::False => LLVMRealPredicateFalse,
        FloatPredicate::Oeq => LLVMRealOEQ,
        FloatPredicate::Ogt => LLVMRealOGT,
        FloatPredicate::Oge => LLVMRealOGE,
        FloatPredicate::Olt => LLVMRealOLT,
        FloatPredicate::Ole => LLVMRealOLE,
        FloatPredicate::One => LLVMRealONE,
        FloatPredicate::Ord => LLVMRealORD,
        FloatPredicate::Uno => LLVMRealUNO,
        FloatPredicate::Ueq => LLVMRealUEQ,
        FloatPredicate::Ugt => LLVMRealUGT,
        FloatPredicate::Uge => LLVMRealUGE,
        FloatPredicate::Ult => LLVMRealULT,
        FloatPredicate::Ule => LLVMRealULE,
        FloatPredicate::Une => LLVMRealUNE,
        FloatPredicate::True => LLVMRealPredicateTrue,
    }
}

pub(crate) fn fast_math_to_bits(flags: FastMathFlags) -> u32 {
    use inkwell::llvm_sys::*;
    let mut bits = 0;
    for (set, bit) in [
        (flags.reassoc, LLVMFastMathAllowReassoc),
        (flags.nnan, LLVMFastMathNoNaNs),
        (flags.ninf, LLVMFastMathNoInfs),
        (flags.nsz, LLVMFastMathNoSignedZeros),
        (flags.arcp, LLVMFastMathAllowReciprocal),
        (flags.contract, LLVMFastMathAllowContract),
        (flags.afn, LLVMFastMathApproxFunc),
    ] {
        if set {
            bits |= bit;
        }
    }
    bits
}

/// The `target-features` of a variant: the scalar's features, then the
/// requested ones that are not there yet. A requested `+f` replaces a `-f`
/// of the scalar (and the other way round), duplicates are dropped.
pub(crate) fn merge_target_features(scalar_features: &str, requested: &[&str]) -> String {
    let mut features: Vec<String> = scalar_features
        .split(',')
        .map(str::trim)
        .filter(|feature| !feature.is_empty())
        .map(str::to_owned)
        .collect();
    for feature in requested {
        let feature = feature.trim();
        let Some(name) = feature.strip_prefix(['+', '-']) else { continue };
        if features.iter().any(|existing| existing == feature) {
            continue;
        }
        features.retain(|existing| existing.strip_prefix(['+', '-']) != Some(name));
        features.push(feature.to_owned());
    }
    let mut seen = HashSet::new();
    features.retain(|feature| seen.insert(feature.clone()));
    features.join(",")
}

/// Width in bits of the widest vector type among `types` (0 if none).
fn widest_vector_bits<'a>(types: impl Iterator<Item = &'a Type>) -> u64 {
    types.filter_map(Type::vector_bits).max().unwrap_or(0)
}

/// The `min-legal-vector-width` `func` needs: the widest vector it must
/// keep whole in registers. LLVM's x86 backend legalizes vectors wider than
/// the attribute (with 256-bit tuning, as on x86-64-v4 and every Intel
/// AVX-512 CPU) in registers of the preferred width, which breaks:
///
/// - the calling convention: a `<16 x float>` argument goes in two ymm
///   registers where an `e` variant (`_ZGVeN16v_f`, ours or GCC's) takes
///   one zmm register; so the function's own parameters and result count,
///   and so do the arguments and results of the functions it calls (an
///   `omp simd` loop body calling a variant, a variant calling another
///   one), as clang counts them for its own calls; intrinsics are no calls
///   in machine code;
/// - operations LLVM 22 cannot split: `llvm.experimental.vector.compress`
///   ("Do not know how to split the result of this operator!") and the x86
///   intrinsics, whose widths are fixed (`llvm.x86.avx512.mask.expand`):
///   narrowing (`lanewise_transform::narrow_loops`) emits them at the
///   register width of the variant's ISA;
/// - inline assembly, whose register operands are not split: a
///   [`InstData::SpeculativeLoad`] of 512 bits needs a zmm register
///   ("couldn't allocate output register for constraint 'v'").
fn min_legal_vector_bits(func: &Function) -> u64 {
    let signature = func.params.iter().map(|param| &param.ty).chain(std::iter::once(&func.ret_ty));
    let mut whole_types = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(*block) {
            if let InstData::SpeculativeLoad { ty, .. } = func.dfg.inst(*inst) {
                whole_types.push(ty.clone());
                continue;
            }
            let (InstData::Call { callee, args, ret_ty, .. }
            | InstData::Invoke { callee, args, ret_ty, .. }) = func.dfg.inst(*inst)
            else {
                continue;
            };
            let kept_whole = match callee {
                Callee::Direct(name) => {
                    !name.starts_with("llvm.")
                        || name.starts_with("llvm.x86.")
                        || name.starts_with("llvm.experimental.vector.compress.")
                }
                Callee::Indirect(_) | Callee::InlineAsm(_) => true,
            };
            if kept_whole {
                whole_types.extend(args.iter().map(|arg| func.dfg.value_type(*arg).clone()));
                whole_types.push(ret_ty.clone());
            }
        }
    }
    widest_vector_bits(signature.chain(whole_types.iter()))
}

/// Where lowering stands, for error messages.
struct Lowerer<'ctx, 'f> {
    context: RawContext<'ctx>,
    module: RawModule<'ctx>,
    func: &'f Function,
    builder: RawBuilder<'ctx>,
    values: HashMap<Value, RawValue<'ctx>>,
    blocks: HashMap<Block, RawBlock<'ctx>>,
    /// Phis whose incoming values are added once every block is lowered.
    pending_phis: Vec<(Inst, RawValue<'ctx>)>,
    align_kind: u32,
    signext_kind: u32,
    zeroext_kind: u32,
    memory_kind: u32,
    /// The vector instructions the new function's `target-features` enable,
    /// for the inline assembly of [`InstData::SpeculativeLoad`].
    vector_features: VectorFeatures,
}

/// Which encodings of a vector load a function's `target-features` allow.
#[derive(Copy, Clone, Default, Debug, PartialEq, Eq)]
struct VectorFeatures {
    /// VEX-encoded instructions and 256-bit registers (`+avx` or later).
    avx: bool,
    /// 512-bit registers (`+avx512f`).
    avx512f: bool,
}

impl VectorFeatures {
    fn of(features: &str) -> VectorFeatures {
        let enabled = |name: &str| features.split(',').any(|feature| feature == name);
        let avx512f = enabled("+avx512f");
        VectorFeatures { avx: avx512f || enabled("+avx") || enabled("+avx2"), avx512f }
    }

    /// The inline assembly of an unmasked vector load of `bits` bits into a
    /// register from the memory its operand points to: `vmovups` where AVX
    /// is enabled (mixing legacy SSE encodings into AVX code costs a
    /// transition on Intel cores), else `movups`. `None` where the
    /// function's features have no register that wide.
    ///
    /// The operand is an indirect memory operand (`*m`, which needs an
    /// `elementtype` attribute at the call), not the address in a register
    /// (`r`): the code generator orders inline assembly against stores
    /// only when its constraints say it reads memory, whatever the call's
    /// `memory(...)` attribute says. With `r` the machine scheduler moved
    /// the load above the scalar stores of a scatter into the same private
    /// array (fuzz seed 311897, tests/fuzz_regressions/028-*).
    fn unaligned_load(self, bits: u64) -> Option<lanewise_ir::InlineAsm> {
        let (mnemonic, register) = match bits {
            128 if self.avx => ("vmovups", "x"),
            128 => ("movups", "x"),
            256 if self.avx => ("vmovups", "x"),
            512 if self.avx512f => ("vmovups", "v"),
            _ => return None,
        };
        Some(lanewise_ir::InlineAsm {
            asm: format!("{mnemonic} $1, $0"),
            constraints: format!("={register},*m"),
            side_effects: false,
            align_stack: false,
            intel_dialect: false,
            can_unwind: false,
            element_types: Vec::new(),
        })
    }
}

/// Whether `asm` is the inline assembly of a speculative load
/// ([`VectorFeatures::unaligned_load`] in any encoding): the lifter reads
/// it back as an [`InstData::SpeculativeLoad`], so that Lanewise's own
/// output lifts (its SLP pass reads the optimized module).
pub(crate) fn is_unaligned_load_asm(asm: &lanewise_ir::InlineAsm) -> bool {
    let encodings = [
        VectorFeatures { avx: false, avx512f: false },
        VectorFeatures { avx: true, avx512f: false },
        VectorFeatures { avx: true, avx512f: true },
    ];
    encodings
        .into_iter()
        .flat_map(|features| [128, 256, 512].map(|bits| features.unaligned_load(bits)))
        .any(|encoding| encoding.as_ref() == Some(asm))
}

/// Adds `func` to `module` as a new external function and returns it. On
/// error nothing is left in the module.
pub(crate) fn lower_function<'ctx>(
    context: RawContext<'ctx>,
    module: RawModule<'ctx>,
    func: &Function,
    scalar_name: &str,
    target_features: &[&str],
) -> Result<RawValue<'ctx>, BridgeError> {
    let function_error = |message: String| BridgeError::Function {
        function: func.name.clone(),
        message: message.clone(),
    };
    // Lanewise produced `func`: a verifier error is a bug, reported in full.
    lanewise_ir::verify_function(func).map_err(|errors| {
        BridgeError::Verify(format!("Lanewise IR of the new function `{}`: {errors}", func.name))
    })?;
    let scalar = module
        .named_function(scalar_name)
        .ok_or_else(|| BridgeError::UnknownFunction(scalar_name.to_owned()))?;
    // A declaration of the name (a vector function that calls this variant
    // was lowered first) is replaced by the definition once it is complete.
    let declaration =
        module.named_function(&func.name).filter(|function| function.blocks().is_empty());
    if declaration.is_none() && module.named_symbol(&func.name).is_some() {
        return Err(function_error("the module already has a symbol of this name".to_owned()));
    }
    if func.entry_block().is_none() {
        return Err(function_error("the function has no blocks".to_owned()));
    }

    let param_types: Vec<RawType<'ctx>> =
        func.params.iter().map(|param| lower_type(context, &param.ty)).collect();
    let function_type = context.function_type(lower_type(context, &func.ret_ty), &param_types);
    if let Some(declared_type) = declaration.and_then(|declaration| declaration.function_type()) {
        if declared_type != function_type {
            return Err(function_error(format!(
                "the module declares it as `{}`, the variant's ABI signature is `{}`",
                declared_type.to_text(),
                function_type.to_text()
            )));
        }
    }
    let function = match declaration {
        Some(_) => {
            module.add_function(&format!("{}.lanewise.definition", func.name), function_type)
        }
        None => module.add_function(&func.name, function_type),
    };
    function.set_linkage_of_variant_of(scalar);

    let mut lowerer = Lowerer {
        context,
        module,
        func,
        builder: RawBuilder::new(context),
        values: HashMap::new(),
        blocks: HashMap::new(),
        pending_phis: Vec::new(),
        align_kind: context.enum_attribute_kind("align"),
        signext_kind: context.enum_attribute_kind("signext"),
        zeroext_kind: context.enum_attribute_kind("zeroext"),
        memory_kind: context.enum_attribute_kind("memory"),
        vector_features: VectorFeatures::default(),
    };
    let features = lowerer.copy_attributes(scalar, function, target_features);
    lowerer.vector_features = VectorFeatures::of(&features);
    let result = lowerer
        .set_personality(function)
        .and_then(|()| lowerer.lower_body(function))
        .and_then(|()| {
            crate::raw::verify_function(module, function).map_err(|message| {
                BridgeError::Verify(format!("in the new function `{}`: {message}", func.name))
            })
        });
    match result {
        Ok(()) => {
            if let Some(declaration) = declaration {
                declaration.replace_all_uses_with(function);
                declaration.delete_function();
                function.set_name(&func.name);
            }
            Ok(function)
        }
        Err(error) => {
            drop(lowerer);
            function.delete_function();
            Err(error)
        }
    }
}

impl<'ctx> Lowerer<'ctx, '_> {
    fn error(&self, inst: Inst, message: impl std::fmt::Display) -> BridgeError {
        let block = self
            .func
            .layout
            .inst_block(inst)
            .map(|block| self.func.block_name(block))
            .unwrap_or_default();
        BridgeError::Function {
            function: self.func.name.clone(),
            message: format!(
                "block `{block}`, instruction `{}` ({inst}): {message}",
                self.func.dfg.inst(inst).opcode_name()
            ),
        }
    }

    /// Gives `function` the personality of the Lanewise function, if it has one.
    fn set_personality(&self, function: RawValue<'ctx>) -> Result<(), BridgeError> {
        let Some(name) = &self.func.personality else { return Ok(()) };
        let personality = self.module.named_symbol(name).ok_or_else(|| BridgeError::Function {
            function: self.func.name.clone(),
            message: format!("the personality function `{name}` is not in the module"),
        })?;
        function.set_personality(personality);
        Ok(())
    }

    /// Gives `function` the attributes of `scalar`, with `target_features`
    /// added; returns the new function's `target-features`.
    fn copy_attributes(
        &self,
        scalar: RawValue<'ctx>,
        function: RawValue<'ctx>,
        target_features: &[&str],
    ) -> String {
        let skipped_enum_kinds: Vec<u32> = ["optnone", "noinline", "allocsize", "memory"]
            .iter()
            .map(|name| self.context.enum_attribute_kind(name))
            .collect();
        let mut scalar_features = String::new();
        let mut scalar_min_legal_width = None;
        for attribute in scalar.function_attributes(FUNCTION_ATTRIBUTE_INDEX) {
            match attribute_contents(attribute) {
                AttributeContents::Enum { kind, .. } => {
                    if !skipped_enum_kinds.contains(&kind) {
                        function.add_function_attribute(FUNCTION_ATTRIBUTE_INDEX, attribute);
                    }
                }
                AttributeContents::String { key, value } => match key.as_str() {
                    "target-features" => scalar_features = value,
                    "min-legal-vector-width" => scalar_min_legal_width = value.parse::<u64>().ok(),
                    key if key.starts_with("_ZGV") => {}
                    _ => function.add_function_attribute(FUNCTION_ATTRIBUTE_INDEX, attribute),
                },
            }
        }
        let min_legal_width =
            min_legal_vector_bits(self.func).max(scalar_min_legal_width.unwrap_or(0));
        if min_legal_width > 0 || scalar_min_legal_width.is_some() {
            let attribute = self
                .context
                .string_attribute("min-legal-vector-width", &min_legal_width.to_string());
            function.add_function_attribute(FUNCTION_ATTRIBUTE_INDEX, attribute);
        }
        let features = merge_target_features(&scalar_features, target_features);
        if !features.is_empty() {
            let attribute = self.context.string_attribute("target-features", &features);
            function.add_function_attribute(FUNCTION_ATTRIBUTE_INDEX, attribute);
        }

        // ABI extension attributes of unchanged parameter and return types.
        let Some((scalar_ret, scalar_params, _)) =
            scalar.function_type().and_then(RawType::function_signature)
        else {
            return features;
        };
        let ret_unchanged = scalar_ret == lower_type(self.context, &self.func.ret_ty);
        let mut positions = vec![(RETURN_ATTRIBUTE_INDEX, ret_unchanged)];
        for (index, param) in self.func.params.iter().enumerate() {
            let unchanged = scalar_params
                .get(index)
                .is_some_and(|ty| *ty == lower_type(self.context, &param.ty));
            positions.push((param_attribute_index(index as u32), unchanged));
        }
        for (position, unchanged) in positions {
            if !unchanged {
                continue;
            }
            for kind in [self.signext_kind, self.zeroext_kind] {
                if scalar.enum_attribute_value(position, kind).is_some() {
                    function.add_function_attribute(position, self.context.enum_attribute(kind, 0));
                }
            }
        }
        features
    }

    /// Blocks in reverse post-order from the entry, then the unreachable ones
    /// in layout order.
    fn emission_order(&self) -> Vec<Block> {
        let entry = self.func.entry_block().expect("checked by the caller");
        let mut visited = HashSet::new();
        let mut post_order = Vec::new();
        // Iterative DFS: (block, index of the next successor to visit).
        let mut stack = vec![(entry, 0usize)];
        visited.insert(entry);
        while let Some((block, next)) = stack.pop() {
            let successors = self.func.successors(block);
            if let Some(successor) = successors.get(next).copied() {
                stack.push((block, next + 1));
                if visited.insert(successor) {
                    stack.push((successor, 0));
                }
            } else {
                post_order.push(block);
            }
        }
        post_order.reverse();
        let unreachable =
            self.func.layout.blocks().iter().copied().filter(|block| !visited.contains(block));
        post_order.into_iter().chain(unreachable).collect()
    }

    fn lower_body(&mut self, function: RawValue<'ctx>) -> Result<(), BridgeError> {
        for (index, param) in function.params().into_iter().enumerate() {
            let value = self.func.param_value(index);
            if let Some(name) = &self.func.dfg.value_names[value] {
                param.set_name(name);
            }
            self.values.insert(value, param);
        }
        for block in self.func.layout.blocks() {
            let name =
                self.func.dfg.blocks[*block].name.clone().unwrap_or_else(|| block.to_string());
            let llvm_block = self.context.append_block(function, &name);
            self.blocks.insert(*block, llvm_block);
        }
        for block in self.emission_order() {
            self.builder.position_at_end(self.blocks[&block]);
            for inst in self.func.layout.block_insts(block) {
                let lowered = self.lower_inst(*inst)?;
                if let (Some(result), Some(lowered)) = (self.func.dfg.result(*inst), lowered) {
                    if let Some(name) = &self.func.dfg.value_names[result] {
                        if lowered.is_instruction() {
                            lowered.set_name(name);
                        }
                    }
                    self.values.insert(result, lowered);
                }
            }
        }
        for (inst, phi) in std::mem::take(&mut self.pending_phis) {
            let InstData::Phi { incoming, .. } = self.func.dfg.inst(inst) else { continue };
            let phi_block = self.func.layout.inst_block(inst);
            let mut lowered_incoming = Vec::with_capacity(incoming.len());
            for (block, value) in incoming {
                // LLVM wants one entry per edge: a switch (or branch) with
                // several edges to the phi's block repeats the entry.
                let edges = self
                    .func
                    .terminator(*block)
                    .map(|term| {
                        let successors = self.func.dfg.inst(term).successors();
                        successors.iter().filter(|to| Some(**to) == phi_block).count()
                    })
                    .unwrap_or(1)
                    .max(1);
                let lowered_block = *self
                    .blocks
                    .get(block)
                    .ok_or_else(|| self.error(inst, format!("unknown block {block}")))?;
                let lowered_value = self.operand(*value)?;
                for _ in 0..edges {
                    lowered_incoming.push((lowered_value, lowered_block));
                }
            }
            self.builder.add_incoming(phi, &lowered_incoming);
        }
        Ok(())
    }

    fn ty(&self, value: Value) -> RawType<'ctx> {
        lower_type(self.context, self.func.dfg.value_type(value))
    }

    fn operand(&mut self, value: Value) -> Result<RawValue<'ctx>, BridgeError> {
        if let Some(lowered) = self.values.get(&value) {
            return Ok(*lowered);
        }
        let lowered = match self.func.dfg.value_def(value).clone() {
            ValueDef::Const(constant) => self.lower_constant(value, &constant)?,
            // Not defined on any path from the entry: only unreachable code
            // can use it, and there poison is as good as anything.
            ValueDef::Result(_) | ValueDef::Param(_) => {
                return Ok(self.context.poison(self.ty(value)))
            }
        };
        self.values.insert(value, lowered);
        Ok(lowered)
    }

    fn lower_constant(
        &mut self,
        value: Value,
        constant: &Constant,
    ) -> Result<RawValue<'ctx>, BridgeError> {
        let value_type = self.func.dfg.value_type(value).clone();
        let ty = lower_type(self.context, &value_type);
        let constant_error = |message: String| BridgeError::Function {
            function: self.func.name.clone(),
            message: format!("constant {value} of type {value_type}: {message}"),
        };
        Ok(match constant {
            Constant::Int(bits) => {
                if !value_type.is_int() {
                    return Err(constant_error(
                        "an integer constant of a non-integer type".to_owned(),
                    ));
                }
                self.context.const_int(ty, *bits)
            }
            Constant::Float(bits) => self
                .context
                .const_float_bits(ty, *bits)
                .ok_or_else(|| constant_error("a float constant of a non-float type".to_owned()))?,
            Constant::Null | Constant::Zero => self.context.const_null(ty),
            Constant::Undef => self.context.undef(ty),
            Constant::Poison => self.context.poison(ty),
            Constant::Aggregate(elements) => {
                let mut lowered = Vec::with_capacity(elements.len());
                for element in elements {
                    lowered.push(self.operand(*element)?);
                }
                match &value_type {
                    Type::Vector { .. } => self.context.const_vector(&lowered),
                    Type::Array { elem, .. } => {
                        self.context.const_array(lower_type(self.context, elem), &lowered)
                    }
                    Type::Struct { packed, .. } => self.context.const_struct(&lowered, *packed),
                    _ => {
                        return Err(constant_error(
                            "an aggregate constant of a scalar type".to_owned(),
                        ))
                    }
                }
            }
            Constant::Symbol(name) => self.module.named_symbol(name).ok_or_else(|| {
                constant_error(format!("the module has no global or function `{name}`"))
            })?,
        })
    }

    fn set_arith_flags(&self, lowered: RawValue<'ctx>, flags: &ArithFlags) {
        lowered.set_flags(flags.nuw, flags.nsw, flags.exact, flags.disjoint, false);
        lowered.set_fast_math_bits(fast_math_to_bits(flags.fast_math));
    }

    /// Whether a vector integer division or remainder is lowered through
    /// `double` division ([`Self::lower_division_through_double`]): lanes of
    /// at most 32 bits and a divisor that is not a constant (LLVM turns
    /// constant divisors into multiplications, which is faster still).
    fn divides_through_double(&self, op: BinaryOp, lhs: Value, rhs: Value) -> bool {
        let is_division =
            matches!(op, BinaryOp::SDiv | BinaryOp::UDiv | BinaryOp::SRem | BinaryOp::URem);
        let narrow_int_lanes = matches!(
            self.func.dfg.value_type(lhs),
            Type::Vector { elem, .. } if matches!(**elem, Type::Int(bits) if bits <= 32)
        );
        is_division && narrow_int_lanes && self.func.dfg.constant(rhs).is_none()
    }

    /// A vector `sdiv`/`udiv`/`srem`/`urem` of lanes of at most 32 bits
    /// through `double` division: x86 has no vector integer division, so
    /// LLVM scalarizes it into one `idiv` per lane (Euclid's loop in the
    /// `gcd_pairs` program spends most of its time there), while
    /// `fptosi(sitofp a / sitofp b)` is the exact truncated quotient: both
    /// operands convert exactly (|a|, |b| < 2^32 < 2^53), and the rounding
    /// error of the quotient, below |a/b| * 2^-53 < 1/|b|, cannot carry it
    /// across an integer (a non-integral a/b is at least 1/|b| away from
    /// one). The remainder is `a - q * b` (wrapping, exact). The cases LLVM
    /// leaves undefined (a zero divisor, `INT_MIN / -1`) give poison here;
    /// inactive lanes were given a divisor of one by the widening.
    fn lower_division_through_double(
        &self,
        op: BinaryOp,
        lhs: RawValue<'ctx>,
        rhs: RawValue<'ctx>,
        lanes: u32,
    ) -> RawValue<'ctx> {
        use LLVMOpcode::*;
        let signed = matches!(op, BinaryOp::SDiv | BinaryOp::SRem);
        let (to_double, to_int) =
            if signed { (LLVMSIToFP, LLVMFPToSI) } else { (LLVMUIToFP, LLVMFPToUI) };
        let double_vector = self.context.vector_type(self.context.double_type(), lanes);
        let lhs_double = self.builder.cast(to_double, lhs, double_vector);
        let rhs_double = self.builder.cast(to_double, rhs, double_vector);
        let quotient_double = self.builder.binary(LLVMFDiv, lhs_double, rhs_double);
        let quotient = self.builder.cast(to_int, quotient_double, lhs.ty());
        match op {
            BinaryOp::SDiv | BinaryOp::UDiv => quotient,
            _ => {
                let product = self.builder.binary(LLVMMul, quotient, rhs);
                self.builder.binary(LLVMSub, lhs, product)
            }
        }
    }

    fn lower_inst(&mut self, inst: Inst) -> Result<Option<RawValue<'ctx>>, BridgeError> {
        let data = self.func.dfg.inst(inst).clone();
        let lowered = match &data {
            InstData::Binary { op, lhs, rhs, .. }
                if self.divides_through_double(*op, *lhs, *rhs) =>
            {
                let lanes = match self.func.dfg.value_type(*lhs) {
                    Type::Vector { lanes, .. } => *lanes,
                    _ => unreachable!("divides_through_double accepts vectors only"),
                };
                let (lhs, rhs) = (self.operand(*lhs)?, self.operand(*rhs)?);
                self.lower_division_through_double(*op, lhs, rhs, lanes)
            }
            InstData::Binary { op, lhs, rhs, flags } => {
                let (lhs, rhs) = (self.operand(*lhs)?, self.operand(*rhs)?);
                let lowered = self.builder.binary(binary_opcode(*op), lhs, rhs);
                self.set_arith_flags(lowered, flags);
                lowered
            }
            InstData::Unary { op: UnaryOp::FNeg, arg, flags } => {
                let arg = self.operand(*arg)?;
                let lowered = self.builder.fneg(arg);
                self.set_arith_flags(lowered, flags);
                lowered
            }
            InstData::Icmp { pred, lhs, rhs } => {
                let (lhs, rhs) = (self.operand(*lhs)?, self.operand(*rhs)?);
                self.builder.icmp(int_predicate(*pred), lhs, rhs)
            }
            InstData::Fcmp { pred, lhs, rhs, flags } => {
                let (lhs, rhs) = (self.operand(*lhs)?, self.operand(*rhs)?);
                let lowered = self.builder.fcmp(float_predicate(*pred), lhs, rhs);
                lowered.set_fast_math_bits(fast_math_to_bits(*flags));
                lowered
            }
            InstData::Select { cond, if_true, if_false, flags } => {
                let (cond, if_true, if_false) =
                    (self.operand(*cond)?, self.operand(*if_true)?, self.operand(*if_false)?);
                let lowered = self.builder.select(cond, if_true, if_false);
                lowered.set_fast_math_bits(fast_math_to_bits(*flags));
                lowered
            }
            InstData::Cast { op, arg, to, flags } => {
                let arg = self.operand(*arg)?;
                let lowered =
                    self.builder.cast(cast_opcode(*op), arg, lower_type(self.context, to));
                lowered.set_flags(flags.nuw, flags.nsw, false, false, flags.nneg);
                lowered
            }
            InstData::Phi { ty, .. } => {
                let phi = self.builder.phi(lower_type(self.context, ty));
                self.pending_phis.push((inst, phi));
                phi
            }
            InstData::Load { ty, addr, align, volatile } => {
                let addr = self.operand(*addr)?;
                let lowered = self.builder.load(lower_type(self.context, ty), addr);
                lowered.set_alignment(*align);
                if *volatile {
                    lowered.set_volatile();
                }
                lowered
            }
            InstData::Store { value, addr, align, volatile } => {
                let (value, addr) = (self.operand(*value)?, self.operand(*addr)?);
                let lowered = self.builder.store(value, addr);
                lowered.set_alignment(*align);
                if *volatile {
                    lowered.set_volatile();
                }
                return Ok(None);
            }
            InstData::AtomicRmw { op, addr, value, attrs } => {
                let (addr, value) = (self.operand(*addr)?, self.operand(*value)?);
                let ordering = llvm_ordering(attrs.ordering);
                let lowered = self.builder.atomic_rmw(
                    llvm_atomic_rmw_op(*op),
                    addr,
                    value,
                    ordering,
                    sync_scope_id(attrs),
                );
                set_atomic_attrs(lowered, attrs);
                lowered
            }
            InstData::CmpXchg { addr, expected, new, attrs, failure_ordering, weak } => {
                let addr = self.operand(*addr)?;
                let (expected, new) = (self.operand(*expected)?, self.operand(*new)?);
                let lowered = self.builder.cmpxchg(
                    addr,
                    expected,
                    new,
                    llvm_ordering(attrs.ordering),
                    llvm_ordering(*failure_ordering),
                    sync_scope_id(attrs),
                    *weak,
                );
                set_atomic_attrs(lowered, attrs);
                lowered
            }
            InstData::Gep { source_ty, base, indices, inbounds } => {
                let base = self.operand(*base)?;
                let mut lowered_indices = Vec::with_capacity(indices.len());
                for index in indices {
                    lowered_indices.push(self.operand(*index)?);
                }
                self.builder.gep(
                    lower_type(self.context, source_ty),
                    base,
                    &lowered_indices,
                    *inbounds,
                )
            }
            InstData::Alloca { ty, count, align } => {
                let count = self.operand(*count)?;
                let lowered = self.builder.alloca(lower_type(self.context, ty), count);
                lowered.set_alignment(*align);
                lowered
            }
            InstData::ExtractValue { aggregate, indices } => {
                let mut current = self.operand(*aggregate)?;
                for index in indices {
                    current = self.builder.extract_value(current, *index);
                }
                current
            }
            InstData::InsertValue { aggregate, value, indices } => {
                if indices.is_empty() {
                    return Err(self.error(inst, "insertvalue without indices"));
                }
                let (aggregate, value) = (self.operand(*aggregate)?, self.operand(*value)?);
                // Extract the enclosing aggregates, insert innermost first.
                let mut path = vec![aggregate];
                for index in &indices[..indices.len() - 1] {
                    let inner = self
                        .builder
                        .extract_value(*path.last().expect("path starts non-empty"), *index);
                    path.push(inner);
                }
                let mut inserted = value;
                for (level, index) in indices.iter().enumerate().rev() {
                    inserted = self.builder.insert_value(path[level], inserted, *index);
                }
                inserted
            }
            InstData::ExtractElement { vector, index } => {
                let (vector, index) = (self.operand(*vector)?, self.operand(*index)?);
                self.builder.extract_element(vector, index)
            }
            InstData::InsertElement { vector, value, index } => {
                let (vector, value, index) =
                    (self.operand(*vector)?, self.operand(*value)?, self.operand(*index)?);
                self.builder.insert_element(vector, value, index)
            }
            InstData::Shuffle { lhs, rhs, mask } => {
                let (lhs, rhs) = (self.operand(*lhs)?, self.operand(*rhs)?);
                let i32_type = self.context.int_type(32);
                let mask_elements: Vec<RawValue<'ctx>> = mask
                    .iter()
                    .map(|element| {
                        if *element < 0 {
                            self.context.poison(i32_type)
                        } else {
                            self.context.const_int(i32_type, *element as u128)
                        }
                    })
                    .collect();
                let mask = self.context.const_vector(&mask_elements);
                self.builder.shuffle(lhs, rhs, mask)
            }
            InstData::Freeze { arg } => {
                let arg = self.operand(*arg)?;
                self.builder.freeze(arg)
            }
            InstData::Call { callee, args, ret_ty, effects, flags } => {
                let call = self.lower_call_site(inst, callee, args, ret_ty, *effects, None)?;
                call.set_fast_math_bits(fast_math_to_bits(*flags));
                call
            }
            InstData::Invoke { callee, args, ret_ty, effects, normal_dest, unwind_dest } => {
                let destinations =
                    (self.block(inst, *normal_dest)?, self.block(inst, *unwind_dest)?);
                self.lower_call_site(inst, callee, args, ret_ty, *effects, Some(destinations))?
            }
            InstData::LandingPad { ty, cleanup, clauses } => {
                let mut lowered_clauses = Vec::with_capacity(clauses.len());
                for clause in clauses {
                    lowered_clauses.push(self.operand(clause.value())?);
                }
                self.builder.landing_pad(lower_type(self.context, ty), *cleanup, &lowered_clauses)
            }
            InstData::Resume { value } => {
                let value = self.operand(*value)?;
                self.builder.resume(value);
                return Ok(None);
            }
            InstData::Splat { scalar, lanes } => {
                let scalar_value = self.operand(*scalar)?;
                let vector_type = self.context.vector_type(self.ty(*scalar), *lanes);
                let i32_type = self.context.int_type(32);
                let zero = self.context.const_int(i32_type, 0);
                let inserted = self.builder.insert_element(
                    self.context.poison(vector_type),
                    scalar_value,
                    zero,
                );
                let zero_mask = self.context.const_null(self.context.vector_type(i32_type, *lanes));
                self.builder.shuffle(inserted, self.context.poison(vector_type), zero_mask)
            }
            InstData::MaskedLoad { ty, addr, mask, passthru, align } => {
                let args = [self.operand(*addr)?, self.operand(*mask)?, self.operand(*passthru)?];
                let overloads = [lower_type(self.context, ty), args[0].ty()];
                self.masked_intrinsic_call(inst, "llvm.masked.load", &overloads, &args, 0, *align)?
            }
            InstData::SpeculativeLoad { ty, addr } => self.speculative_load(inst, ty, *addr)?,
            InstData::MaskedStore { value, addr, mask, align } => {
                let args = [self.operand(*value)?, self.operand(*addr)?, self.operand(*mask)?];
                let overloads = [args[0].ty(), args[1].ty()];
                self.masked_intrinsic_call(
                    inst,
                    "llvm.masked.store",
                    &overloads,
                    &args,
                    1,
                    *align,
                )?;
                return Ok(None);
            }
            InstData::Gather { ty, addrs, mask, passthru, align } => {
                let args = [self.operand(*addrs)?, self.operand(*mask)?, self.operand(*passthru)?];
                let overloads = [lower_type(self.context, ty), args[0].ty()];
                self.masked_intrinsic_call(
                    inst,
                    "llvm.masked.gather",
                    &overloads,
                    &args,
                    0,
                    *align,
                )?
            }
            InstData::Scatter { value, addrs, mask, align } => {
                let args = [self.operand(*value)?, self.operand(*addrs)?, self.operand(*mask)?];
                let overloads = [args[0].ty(), args[1].ty()];
                self.masked_intrinsic_call(
                    inst,
                    "llvm.masked.scatter",
                    &overloads,
                    &args,
                    1,
                    *align,
                )?;
                return Ok(None);
            }
            InstData::Jump { dest } => {
                self.builder.jump(self.block(inst, *dest)?);
                return Ok(None);
            }
            InstData::Branch { cond, then_dest, else_dest } => {
                let cond = self.operand(*cond)?;
                let (then_dest, else_dest) =
                    (self.block(inst, *then_dest)?, self.block(inst, *else_dest)?);
                self.builder.branch(cond, then_dest, else_dest);
                return Ok(None);
            }
            InstData::Switch { value, default, cases } => {
                let switch_type = self.ty(*value);
                let value = self.operand(*value)?;
                let default = self.block(inst, *default)?;
                let mut lowered_cases = Vec::with_capacity(cases.len());
                for (case_value, dest) in cases {
                    lowered_cases.push((
                        self.context.const_int(switch_type, *case_value),
                        self.block(inst, *dest)?,
                    ));
                }
                self.builder.switch(value, default, &lowered_cases);
                return Ok(None);
            }
            InstData::Return { value } => {
                let value = match value {
                    Some(value) => Some(self.operand(*value)?),
                    None => None,
                };
                self.builder.ret(value);
                return Ok(None);
            }
            InstData::Unreachable => {
                self.builder.unreachable();
                return Ok(None);
            }
        };
        Ok(Some(lowered))
    }

    fn block(&self, inst: Inst, block: Block) -> Result<RawBlock<'ctx>, BridgeError> {
        self.blocks
            .get(&block)
            .copied()
            .ok_or_else(|| self.error(inst, format!("{block} is not in the layout")))
    }

    /// A call of `llvm.masked.*` with `align N` on argument `pointer_arg`.
    fn masked_intrinsic_call(
        &mut self,
        inst: Inst,
        base_name: &str,
        overloads: &[RawType<'ctx>],
        args: &[RawValue<'ctx>],
        pointer_arg: u32,
        align: u32,
    ) -> Result<RawValue<'ctx>, BridgeError> {
        let declaration = self
            .module
            .intrinsic_id(base_name)
            .and_then(|id| self.module.intrinsic_declaration(id, overloads))
            .ok_or_else(|| {
                self.error(inst, format!("LLVM does not know the intrinsic `{base_name}`"))
            })?;
        let function_type =
            declaration.function_type().expect("an intrinsic declaration is a function");
        let call = self.builder.call(function_type, declaration, args);
        if align > 0 {
            let attribute = self.context.enum_attribute(self.align_kind, u64::from(align));
            call.add_call_site_attribute(param_attribute_index(pointer_arg), attribute);
        }
        Ok(call)
    }

    /// Finds or declares the function `name` for a call with `call_type`.
    fn direct_callee(
        &self,
        name: &str,
        call_type: RawType<'ctx>,
        arg_types: &[RawType<'ctx>],
        ret: RawType<'ctx>,
    ) -> (RawValue<'ctx>, RawType<'ctx>) {
        if let Some(function) = self.module.named_function(name) {
            let declared_type = function.function_type().expect("a function has a function type");
            let is_vararg = declared_type.function_signature().is_some_and(|(_, _, vararg)| vararg);
            let callee_type = if is_vararg { declared_type } else { call_type };
            return (function, callee_type);
        }
        if let Some(symbol) = self.module.named_symbol(name) {
            return (symbol, call_type);
        }
        if let Some(id) = self.module.intrinsic_id(name) {
            if let Some(declaration) = self.intrinsic_for_signature(id, name, arg_types, ret) {
                let declared_type =
                    declaration.function_type().expect("an intrinsic declaration is a function");
                return (declaration, declared_type);
            }
        }
        // Declaring by full name also gives an intrinsic its id.
        (self.module.add_function(name, call_type), call_type)
    }

    /// Declares intrinsic `id` if some choice of overload types among the
    /// call's return and argument types mangles to exactly `name`.
    fn intrinsic_for_signature(
        &self,
        id: u32,
        name: &str,
        arg_types: &[RawType<'ctx>],
        ret: RawType<'ctx>,
    ) -> Option<RawValue<'ctx>> {
        if !self.module.intrinsic_is_overloaded(id) {
            return self.module.intrinsic_declaration(id, &[]);
        }
        let mut candidates: Vec<RawType<'ctx>> = Vec::new();
        if ret != self.context.void_type() {
            candidates.push(ret);
        }
        candidates.extend(arg_types.iter().copied());
        let mut overload_lists: Vec<Vec<RawType<'ctx>>> =
            candidates.iter().map(|ty| vec![*ty]).collect();
        for first in &candidates {
            for second in &candidates {
                overload_lists.push(vec![*first, *second]);
            }
        }
        overload_lists
            .into_iter()
            .find(|overloads| self.module.intrinsic_overloaded_name(id, overloads) == name)
            .and_then(|overloads| self.module.intrinsic_declaration(id, &overloads))
    }

    /// An [`InstData::SpeculativeLoad`]: LLVM IR has no load that may read
    /// past its object (a plain or all-true masked load there is undefined
    /// behaviour, whatever the hardware does), so it becomes inline assembly,
    /// opaque to LLVM, marked as reading through its pointer argument only
    /// (`memory(argmem: read)`), not unwinding, and returning: LLVM may
    /// then move it across unrelated stores and delete it when unused. Its
    /// operand is an indirect memory operand, so the code generator too
    /// keeps it after the stores it may read.
    fn speculative_load(
        &mut self,
        inst: Inst,
        ty: &Type,
        addr: Value,
    ) -> Result<RawValue<'ctx>, BridgeError> {
        let bits = ty.vector_bits().unwrap_or(0);
        let asm = self.vector_features.unaligned_load(bits).ok_or_else(|| {
            self.error(inst, format!("the function's target features have no {bits}-bit register"))
        })?;
        let pointer = self.operand(addr)?;
        let call_type = self.context.function_type(lower_type(self.context, ty), &[pointer.ty()]);
        let callee = self.context.inline_asm(call_type, &asm);
        let call = self.builder.call(call_type, callee, &[pointer]);
        /// `memory(argmem: read)` in LLVM's `MemoryEffects` encoding (two bits
        /// per location, argument memory first, `1` = may read).
        const READS_ARGUMENT_MEMORY: u64 = 0b01;
        let attributes = [
            self.context.enum_attribute(self.memory_kind, READS_ARGUMENT_MEMORY),
            self.context.enum_attribute(self.context.enum_attribute_kind("nounwind"), 0),
            self.context.enum_attribute(self.context.enum_attribute_kind("willreturn"), 0),
        ];
        for attribute in attributes {
            call.add_call_site_attribute(FUNCTION_ATTRIBUTE_INDEX, attribute);
        }
        let element_type = self.context.type_attribute(
            self.context.enum_attribute_kind("elementtype"),
            lower_type(self.context, ty),
        );
        call.add_call_site_attribute(param_attribute_index(0), element_type);
        Ok(call)
    }

    /// A `call`, or with `destinations` (normal, unwind) an `invoke`.
    fn lower_call_site(
        &mut self,
        inst: Inst,
        callee: &Callee,
        args: &[Value],
        ret_ty: &Type,
        effects: CallEffects,
        destinations: Option<(RawBlock<'ctx>, RawBlock<'ctx>)>,
    ) -> Result<RawValue<'ctx>, BridgeError> {
        let mut lowered_args = Vec::with_capacity(args.len());
        for arg in args {
            lowered_args.push(self.operand(*arg)?);
        }
        let arg_types: Vec<RawType<'ctx>> = args.iter().map(|arg| self.ty(*arg)).collect();
        let ret = lower_type(self.context, ret_ty);
        let call_type = self.context.function_type(ret, &arg_types);
        let (callee_value, callee_type) = match callee {
            Callee::Direct(name) => self.direct_callee(name, call_type, &arg_types, ret),
            Callee::Indirect(pointer) => (self.operand(*pointer)?, call_type),
            Callee::InlineAsm(asm) => (self.context.inline_asm(call_type, asm), call_type),
        };
        if callee_value.is_function() && callee_type != call_type {
            let vararg = callee_type.function_signature().is_some_and(|(_, _, vararg)| vararg);
            if !vararg {
                return Err(self.error(
                    inst,
                    format!(
                        "the call's signature does not match the declaration `{}`",
                        callee_type.to_text()
                    ),
                ));
            }
        }
        let call = match destinations {
            None => self.builder.call(callee_type, callee_value, &lowered_args),
            Some((normal_dest, unwind_dest)) => self.builder.invoke(
                callee_type,
                callee_value,
                &lowered_args,
                normal_dest,
                unwind_dest,
            ),
        };
        if callee_value.is_function() {
            call.set_call_convention(callee_value.call_convention());
        }
        if let Callee::InlineAsm(asm) = callee {
            let kind = self.context.enum_attribute_kind("elementtype");
            for (index, element_type) in asm.element_types.iter().enumerate() {
                if let Some(element_type) = element_type {
                    let attribute =
                        self.context.type_attribute(kind, lower_type(self.context, element_type));
                    call.add_call_site_attribute(param_attribute_index(index as u32), attribute);
                }
            }
        }
        if callee_value.function_type() == Some(callee_type) {
            // The ABI extension attributes the callee expects (only where the
            // call's types are the declaration's).
            let mut positions = vec![RETURN_ATTRIBUTE_INDEX];
            positions.extend((0..args.len() as u32).map(param_attribute_index));
            for position in positions {
                for kind in [self.signext_kind, self.zeroext_kind] {
                    if callee_value.enum_attribute_value(position, kind).is_some() {
                        call.add_call_site_attribute(
                            position,
                            self.context.enum_attribute(kind, 0),
                        );
                    }
                }
            }
        }
        let callee_is_pure = callee_value
            .enum_attribute_value(FUNCTION_ATTRIBUTE_INDEX, self.memory_kind)
            == Some(0);
        if effects == CallEffects::Pure && !callee_is_pure {
            call.add_call_site_attribute(
                FUNCTION_ATTRIBUTE_INDEX,
                self.context.enum_attribute(self.memory_kind, 0),
            );
        }
        Ok(call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requested_features_are_added_once_and_override_disabled_ones() {
        let merged = merge_target_features("+cx8,+sse2,-avx2,+x87", &["+sse2", "+avx", "+avx2"]);
        assert_eq!(merged, "+cx8,+sse2,+x87,+avx,+avx2");
        assert_eq!(merge_target_features("", &["+avx512f"]), "+avx512f");
        assert_eq!(merge_target_features("+a,+a", &[]), "+a");
    }

    #[test]
    fn widest_vector_of_a_signature() {
        let types = [Type::F32.vector_of(16), Type::I32, Type::F64.vector_of(4)];
        assert_eq!(widest_vector_bits(types.iter()), 512);
        assert_eq!(widest_vector_bits([Type::I32].iter()), 0);
    }
}
