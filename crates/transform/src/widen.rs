//! Instruction widening (Karrenberg 2014, section 6.4 "Instruction
//! Vectorization"), for functions whose remaining branches are uniform.
//!
//! [`widen_function`] builds a *new* function that runs W instances of the
//! scalar one at once, with the x86 Vector Function ABI signature: parameter
//! i is `<W x T>` if its [`ParamSpec`] kind is `Vector`, else the scalar `T`
//! (uniform and linear parameters are passed as their lane-0 value); the
//! result is `<W x T>`. Control flow must be uniform (every branch and switch
//! condition uniform; reported as [`WidenError::Unsupported`] if not), so the
//! new function has the scalar function's blocks, and terminators stay
//! scalar. Divergent control flow is linearized before widening; the
//! linearized function comes with [`BlockPredicates`] (the contract is in
//! [`crate::predicates`]), and [`widen_function_masked`] masks what must not
//! run in inactive lanes ([`masked`]: masked loads and stores, gathers and
//! scatters with the mask, per-lane guard chains that split blocks, guarded
//! uniform accesses, safe divisors; masked `M` variants and their mask ABI).
//! [`widen_function_with_stats`] also counts the memory accesses by kind.
//! The SPMD builtins (`rv_any`, `rv_ballot`, ...) are widened in `builtins`.
//!
//! # Representations ([`ValueMap`])
//! Every scalar value is represented in the new function by one of
//! (see [`Widened`]):
//! * `Uniform(s)`: the same scalar in all lanes (6.4.1);
//! * `Strided { lane0, stride }`: lane i is `lane0 + i*stride` (bytes for
//!   pointers), the "consecutive value optimization" of 6.4.2 generalized
//!   to any constant stride;
//! * `Vector(v)`: a `<W x T>` vector; for a value of a short vector type
//!   `<N x T>`, the packed lane-major `<W*N x T>` ([`short_vectors`]);
//! * `Lanes([s0, ..])`: W scalars, the results of duplicated (sequential)
//!   instructions (6.4.3, 6.4.4).
//!
//! Other forms are *materialized lazily* and cached: the vector of a uniform
//! value is a `Splat` (constants become constant vectors), of a strided one
//! `splat(lane0) + <0, k, 2k, ..>` (pointers: a GEP over `i8` with the byte
//! offsets), of duplicated results a chain of `insertelement`s; lane i of a
//! vector is an `extractelement`, of a strided value `lane0 + i*k`. A
//! materialization is placed right after the definition it derives from
//! (after the phis for a phi, at the top of the entry block for parameters
//! and constants), so it dominates every use, and is emitted at most once:
//! "broadcast late", only where a varying use needs it (Listings 3.1/3.2).
//!
//! # Instruction families
//! * Pure lanewise instructions (arithmetic, comparisons, casts, select,
//!   freeze, GEP, phi): if the shape analysis marks the result uniform or
//!   strided, the instruction stays scalar and is computed on the lane-0
//!   values of its operands (lane 0 of a lanewise operation is the operation
//!   on lane 0; the stride of the result is the analysis's claim, which is
//!   only accepted for the opcodes whose transfer functions produce strides,
//!   section 5.6 and `accepts_strided_result`). Otherwise it becomes the
//!   vector instruction of the same opcode and flags.
//! * Loads and stores (5.6.8, 6.4.4): uniform address → scalar access (a
//!   store of a varying value to a uniform address stores the last lane's
//!   value: lanes run in order, the highest lane wins); address strided by
//!   the element size → one vector access with the scalar alignment (raised
//!   only to what the shape analysis proves for lane 0); other addresses →
//!   gather (AVX2, AVX-512) / scatter (AVX-512), else W scalar accesses in
//!   lane order. Volatile accesses are always duplicated in lane order.
//! * Allocas: a strided alloca (stride = its size) becomes one alloca of W
//!   copies, lane i's copy at `base + i*stride`.
//! * Calls: pure or read-only calls with uniform arguments stay scalar;
//!   elementwise intrinsics become their vector form; libm calls become
//!   libmvec calls where [`VectorMath::allows_libmvec`] ([`crate::vector_math`]);
//!   calls of functions with vector variants (`declare simd`, GCC clones)
//!   call a fitting variant ([`calls`]); everything else is duplicated per
//!   lane in lane order 0..W-1 (6.4.4).
//!
//! Anything else (varying aggregates, vectors of vectors, varying
//! branches) is reported as [`WidenError::Unsupported`] naming the
//! function, block and instruction; widening never panics on its input.
//! Exception handling (`invoke`, `landingpad`, `resume`: C++ code that may
//! throw) is refused up front ([`refuse_exception_handling`]): W lanes
//! cannot unwind separately, so such a function or loop body stays scalar.
//! Blocks unreachable from the entry keep their name but only hold
//! `unreachable` (their code never runs; phi inputs from them are dropped).

use std::collections::{HashMap, HashSet};

use lanewise_analysis::{Shape, ShapeInfo};
use lanewise_ir::exact_math::ExactMathFunction;
use lanewise_ir::vfabi::{Isa, ParamKind, ParamSpec};
use lanewise_ir::{
    ArithFlags, BinaryOp, Block, CallEffects, Callee, CastFlags, CastOp, Constant, DataLayout,
    FastMathFlags, Function, Inst, InstData, Type, Value,
};

use crate::predicates::BlockPredicates;
use crate::vector_math::VectorMath;

mod atomics;
mod builtins;
pub mod calls;
mod division;
mod dynamic;
pub mod gather_forms;
pub mod gather_pairs;
mod lane_loops;
pub mod masked;
mod memory;
pub mod page_safe_loads;
pub mod short_vectors;
mod special_calls;
mod value_map;
pub mod wfv_slp;

pub use calls::{CallStats, CalleeVariants};
use value_map::Cursor;
pub use value_map::ValueMap;

/// What variant to produce.
#[derive(Clone, Debug)]
pub struct WidenConfig {
    /// Name of the produced function.
    pub name: String,
    /// Number of lanes W.
    pub width: u32,
    /// Target ISA (decides gathers vs. scalarized memory accesses).
    pub isa: Isa,
    /// One spec per scalar parameter.
    pub params: Vec<ParamSpec>,
    /// How libm calls are widened (default: [`VectorMath::Exact`]).
    pub vector_math: VectorMath,
    /// Produce the masked (`M`) variant: the scalar function's last parameter
    /// is the `i1` entry mask (see [`crate::predicates`] for the contract and
    /// [`masked`] for its ABI form). Default `false`.
    pub masked: bool,
    /// Count, at every block execution, the active lanes and the lane slots
    /// into the globals [`ACTIVE_LANES_COUNTER`] and [`LANE_SLOTS_COUNTER`]
    /// (SIMD utilization as PLDI'18 measures it). Default `false`.
    pub instrument_utilization: bool,
    /// The vector variants of the functions the scalar code calls (see
    /// [`calls`]): such calls become calls of a variant. Default empty.
    pub callee_variants: CalleeVariants,
    /// Scatters may be AVX-512 scatter instructions (`llvm.masked.scatter`)
    /// rather than W scalar stores. True for the AVX-512 ISA (the default),
    /// and worth setting for a narrower ISA when the produced function's
    /// target features enable avx512f and avx512vl anyway (a `d` variant
    /// built with `-march=native` on an AVX-512 host): the vector ABI fixes
    /// the registers, the target features what instructions may be used.
    pub native_scatter: bool,
    /// Functions that run once per SIMD group rather than once per lane:
    /// a call of one, with the same arguments in every lane, becomes one
    /// call, made when a lane is active (an OpenCL work-group barrier,
    /// which the W work-items in the lanes reach together). Default empty.
    pub group_functions: Vec<String>,
    /// The function is an adapter: a variant whose body is one call of the
    /// scalar function it stands for, widened into a call of that
    /// function's shared variant (lanewise's `--variants shared`). Its
    /// callees' variants may then be of any ISA (the module's target
    /// features enable every one offered), and a masked variant wider than
    /// W is called once, with its extra lanes inactive and zero arguments
    /// there. Default `false`.
    pub adapter: bool,
    /// WFV-SLP ([`wfv_slp`], thesis 7.4): independent libmvec calls of one
    /// function in a masked block of an AVX-512 variant run as one call
    /// when their active lanes fit in one vector. Default `true`.
    pub wfv_slp: bool,
    /// Dynamic variants of gathers and scatters ([`dynamic`], thesis
    /// 7.1/7.2): run-time tests of the addresses with a scalar-load or
    /// vector-load fast path. Default `true`; `false` for ablation.
    pub dynamic_tests: bool,
    /// Page-safe speculative loads ([`page_safe_loads`]): a masked
    /// contiguous load is unmasked where it stays within one page with an
    /// active lane. Default `true`; `false` for ablation.
    pub speculative_loads: bool,
    /// `expf`, `exp2f`, `logf`, `log2f`, `exp` and `log` as one call of their exact vector form
    /// ([`lanewise_ir::exact_math`]): bit-exact only where glibc's FMA
    /// builds of them run, so the driver sets it for targets with FMA and
    /// AVX2 (`--exact-vector-math`). Default `false`.
    pub exact_vector_math: bool,
}

/// The global `i64` that `--instrument-utilization` adds the active lanes of
/// every block execution to.
pub const ACTIVE_LANES_COUNTER: &str = "__lanewise_active_lanes";
/// The global `i64` that `--instrument-utilization` adds W to at every block
/// execution.
pub const LANE_SLOTS_COUNTER: &str = "__lanewise_lane_slots";

impl WidenConfig {
    /// A configuration with the default options (`vector_math` exact).
    pub fn new(name: impl Into<String>, width: u32, isa: Isa, params: Vec<ParamSpec>) -> Self {
        WidenConfig {
            name: name.into(),
            width,
            isa,
            params,
            vector_math: VectorMath::default(),
            masked: false,
            instrument_utilization: false,
            callee_variants: CalleeVariants::new(),
            native_scatter: isa == Isa::Avx512,
            group_functions: Vec::new(),
            adapter: false,
            wfv_slp: true,
            dynamic_tests: true,
            speculative_loads: true,
            exact_vector_math: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WidenError {
    #[error("in function `{function}`, block `{block}`, instruction `{inst}`: {message}")]
    Unsupported { function: String, block: String, inst: String, message: String },
    /// The configuration does not fit the function (parameter count, width,
    /// parameter or return types).
    #[error("cannot widen function `{function}`: {message}")]
    BadConfig { function: String, message: String },
}

/// Produces the W-lane vector function of `scalar` (which is not modified),
/// with every block running for all lanes (uniform control flow, unmasked
/// variant). Equivalent to [`widen_function_masked`] with
/// [`BlockPredicates::all_active`].
pub fn widen_function(
    scalar: &Function,
    shapes: &ShapeInfo,
    data_layout: &DataLayout,
    config: &WidenConfig,
) -> Result<Function, WidenError> {
    widen_function_with_stats(scalar, shapes, data_layout, config, &BlockPredicates::all_active())
        .map(|widened| widened.function)
}

/// Produces the W-lane vector function of a linearized `scalar` function
/// whose blocks run under `predicates` (see [`crate::predicates`]): memory
/// accesses, side effects and divisions in a block are masked by its
/// predicate.
pub fn widen_function_masked(
    scalar: &Function,
    shapes: &ShapeInfo,
    data_layout: &DataLayout,
    config: &WidenConfig,
    predicates: &BlockPredicates,
) -> Result<Function, WidenError> {
    widen_function_with_stats(scalar, shapes, data_layout, config, predicates)
        .map(|widened| widened.function)
}

/// The vector function and what widening did to the memory accesses.
#[derive(Clone, Debug)]
pub struct WidenedFunction {
    pub function: Function,
    pub stats: MemoryAccessStats,
    /// How the calls were widened.
    pub calls: CallStats,
}

/// How the scalar loads and stores (and `rv_load`/`rv_store`) were widened,
/// for the `--report`. Every access counts in exactly one of the first six
/// fields; `masked` additionally counts the accesses that run under a mask
/// (a predicate that is not all-true).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct MemoryAccessStats {
    /// Uniform address: one scalar access.
    pub uniform: u32,
    /// Consecutive elements: one (masked) vector access.
    pub contiguous: u32,
    /// Constant stride other than the element size (served by a gather,
    /// a scatter or per-lane accesses).
    pub strided: u32,
    /// Varying address, one gather.
    pub gather: u32,
    /// Varying address, one scatter.
    pub scatter: u32,
    /// Varying address (or volatile), one scalar access per lane; also
    /// atomics run once per lane (a uniform-address atomic combined into
    /// one counts as uniform).
    pub scalarized: u32,
    /// Accesses under a mask (also counted above).
    pub masked: u32,
    /// Masked vector loads of consecutive elements (contiguous loads and
    /// the consecutive fast paths of gathers) given a page-safe
    /// speculative form ([`page_safe_loads`]).
    pub speculative: u32,
}

/// [`widen_function_masked`], also returning the memory access counters.
pub fn widen_function_with_stats(
    scalar: &Function,
    shapes: &ShapeInfo,
    data_layout: &DataLayout,
    config: &WidenConfig,
    predicates: &BlockPredicates,
) -> Result<WidenedFunction, WidenError> {
    let bad_config =
        |message: String| WidenError::BadConfig { function: scalar.name.clone(), message };
    if config.width == 0 {
        return Err(bad_config("the vector width must be at least 1".to_owned()));
    }
    if config.params.len() != scalar.params.len() {
        return Err(bad_config(format!(
            "{} parameter specs given for {} parameters",
            config.params.len(),
            scalar.params.len()
        )));
    }
    if scalar.entry_block().is_none() {
        return Err(bad_config("the function has no body".to_owned()));
    }
    refuse_exception_handling(scalar)?;
    let mut widener =
        Widener::new(scalar, shapes, data_layout, config, predicates).map_err(bad_config)?;
    widener.widen_blocks()?;
    widener.complete_phis()?;
    let packed =
        wfv_slp::pack_math_calls(&mut widener.func, &widener.packable_calls, widener.width);
    widener.call_stats.packed_math_groups = packed as u32;
    Ok(WidenedFunction { function: widener.func, stats: widener.stats, calls: widener.call_stats })
}

/// Refuses a function that holds exception handling (`invoke`, `landingpad`,
/// `resume`), naming the first such instruction: a call that may throw cannot
/// run for W lanes at once (which lane's exception would unwind, and what
/// would the other lanes do?), so neither a `declare simd` function nor a
/// SIMD loop body with one is vectorized. The code around a SIMD loop may
/// hold them: only the outlined body is widened.
pub fn refuse_exception_handling(func: &Function) -> Result<(), WidenError> {
    for &block in func.layout.blocks() {
        for &inst in func.layout.block_insts(block) {
            let data = func.dfg.inst(inst);
            if !data.is_exception_handling() {
                continue;
            }
            let inst_name = match func.dfg.result(inst) {
                Some(result) => {
                    format!("{} = {}", func.dfg.display_value(result), data.opcode_name())
                }
                None => data.opcode_name().to_owned(),
            };
            return Err(WidenError::Unsupported {
                function: func.name.clone(),
                block: func.block_name(block),
                inst: inst_name,
                message: format!(
                    "exception handling (`{}`) cannot be vectorized: the code may throw, and W lanes cannot unwind one by one",
                    data.opcode_name()
                ),
            });
        }
    }
    Ok(())
}

/// How one scalar value is represented in the vector function.
#[derive(Clone, PartialEq, Debug)]
pub enum Widened {
    /// The same scalar in every lane.
    Uniform(Value),
    /// Lane i holds `lane0 + i*stride` (bytes for pointers).
    Strided { lane0: Value, stride: i64 },
    /// A `<W x T>` vector.
    Vector(Value),
    /// One scalar per lane (duplicated instructions), packed on demand.
    Lanes(Vec<Value>),
}

/// Whether the shape analysis may mark the result of `data` strided: the
/// transfer functions of Karrenberg 2014, 5.6 (plus strides, as suggested
/// there) only produce strides for these opcodes. A strided claim for any
/// other instruction is rejected rather than trusted.
fn accepts_strided_result(data: &InstData) -> bool {
    match data {
        InstData::Binary { op, .. } => matches!(
            op,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Shl | BinaryOp::Or
        ),
        InstData::Cast { op, .. } => matches!(
            op,
            CastOp::Trunc
                | CastOp::ZExt
                | CastOp::SExt
                | CastOp::PtrToInt
                | CastOp::IntToPtr
                | CastOp::Bitcast
                | CastOp::AddrSpaceCast
        ),
        InstData::Gep { .. }
        | InstData::Phi { .. }
        | InstData::Select { .. }
        | InstData::Freeze { .. }
        | InstData::Alloca { .. } => true,
        _ => false,
    }
}

/// The instruction computing lane 0's value of a strided result, which
/// every other lane's value is derived from (`lane0 + i*stride`). Lane 0 may
/// be inactive, and then its value may break the promises of the scalar
/// instruction's poison-generating flags (`nsw`, `nuw`, `exact`,
/// `disjoint`, `nneg`, `inbounds`) although the active lanes keep them: a
/// `linear(a:3)` parameter with a = -2 in lane 0 and 1 in lane 1, under
/// `zext nneg` and `getelementptr inbounds`, must not make lane 1's address
/// poison. So the copy drops them, computing lane 0's value in the modular
/// arithmetic the strides are exact in:
/// - `or disjoint` (strided as an addition) becomes `add`;
/// - `zext nneg` becomes `sext` when the stride is positive (the active,
///   non-negative lanes then lie above any negative lane 0, on the same side
///   of the signed wrap) and a plain `zext` when it is negative (they lie
///   below it, across the wrap from a negative lane 0).
fn lane0_of_strided(mut data: InstData, stride: i64) -> InstData {
    match &mut data {
        InstData::Binary { op, flags, .. } => {
            if *op == BinaryOp::Or && flags.disjoint {
                *op = BinaryOp::Add;
            }
            *flags = ArithFlags { fast_math: flags.fast_math, ..ArithFlags::default() };
        }
        InstData::Cast { op, flags, .. } => {
            if *op == CastOp::ZExt && flags.nneg && stride > 0 {
                *op = CastOp::SExt;
            }
            *flags = CastFlags::default();
        }
        InstData::Gep { inbounds, .. } => *inbounds = false,
        _ => {}
    }
    data
}

struct Widener<'a> {
    scalar: &'a Function,
    shapes: &'a ShapeInfo,
    data_layout: &'a DataLayout,
    config: &'a WidenConfig,
    width: u32,
    func: Function,
    values: ValueMap<'a>,
    blocks: HashMap<Block, Block>,
    /// The scalar blocks reachable from the entry, in reverse post-order,
    /// and the same as a set.
    reachable: Vec<Block>,
    is_reachable: HashSet<Block>,
    /// Scalar phi, new phi, whether the new phi is a vector.
    pending_phis: Vec<(Inst, Inst, bool)>,
    /// The scalar block and instruction being widened, for diagnostics.
    location: Option<(Block, Inst)>,
    /// The new block being appended to.
    current: Option<Block>,
    /// The active-lane predicates of the scalar blocks.
    predicates: &'a BlockPredicates,
    /// The `<W x i1>` entry mask of a masked variant (`None`: all lanes).
    entry_mask: Option<Value>,
    /// The mask of the block being widened, once asked for
    /// (`Some(None)`: all lanes that entered are active).
    current_mask: Option<Option<Value>>,
    /// Caches of `any(mask)` and of the mask packed into an integer, placed
    /// right after the mask's definition.
    mask_any: HashMap<Value, Value>,
    mask_bits: HashMap<Value, Value>,
    /// Per integer parameter passed as a vector: whether its lanes were
    /// consecutive, tested at entry (dynamic.rs), once asked for.
    param_consecutive: HashMap<u32, Value>,
    /// The new block holding the terminator of each scalar block (the last
    /// block of a per-lane guard chain, if the block was split).
    exit_blocks: HashMap<Block, Block>,
    /// Numbers the blocks created for guards, for unique readable names.
    guard_serial: u32,
    /// The libmvec calls in masked blocks, for [`wfv_slp`].
    packable_calls: Vec<wfv_slp::PackableCall>,
    stats: MemoryAccessStats,
    call_stats: CallStats,
}

impl<'a> Widener<'a> {
    fn new(
        scalar: &'a Function,
        shapes: &'a ShapeInfo,
        data_layout: &'a DataLayout,
        config: &'a WidenConfig,
        predicates: &'a BlockPredicates,
    ) -> Result<Self, String> {
        let width = config.width;
        let mut param_types = Vec::new();
        let mask_abi =
            if config.masked { Some(masked::MaskAbi::for_variant(scalar, config)?) } else { None };
        let data_params = scalar.params.len() - usize::from(config.masked);
        for (index, (param, spec)) in
            scalar.params.iter().zip(&config.params).enumerate().take(data_params)
        {
            param_types.push(match spec.kind {
                ParamKind::Vector => {
                    short_vectors::varying_type(&param.ty, width).ok_or_else(|| {
                        format!(
                            "parameter {index} of type {} cannot be passed as a vector: {}",
                            param.ty,
                            short_vectors::why_not_packed(&param.ty)
                        )
                    })?
                }
                _ => param.ty.clone(),
            });
        }
        let ret_ty = match &scalar.ret_ty {
            Type::Void => Type::Void,
            ty => short_vectors::varying_type(ty, width).ok_or_else(|| {
                let why = short_vectors::why_not_packed(ty);
                format!("the return type {ty} has no vector form: {why}")
            })?,
        };
        if let Some(mask_abi) = &mask_abi {
            param_types.extend(mask_abi.param_types());
        }
        let mut func = Function::new(config.name.clone(), param_types, ret_ty);
        let mut blocks = HashMap::new();
        for &block in scalar.layout.blocks() {
            let new_block = func.dfg.make_block(scalar.dfg.blocks[block].name.clone());
            func.layout.append_block(new_block);
            blocks.insert(block, new_block);
        }
        let reachable = reverse_postorder(scalar);
        let mut widener = Widener {
            scalar,
            shapes,
            data_layout,
            config,
            width,
            func,
            values: ValueMap::new(scalar, width),
            blocks,
            reachable: reachable.clone(),
            is_reachable: reachable.into_iter().collect(),
            pending_phis: Vec::new(),
            location: None,
            current: None,
            predicates,
            entry_mask: None,
            current_mask: None,
            mask_any: HashMap::new(),
            mask_bits: HashMap::new(),
            param_consecutive: HashMap::new(),
            exit_blocks: HashMap::new(),
            guard_serial: 0,
            packable_calls: Vec::new(),
            stats: MemoryAccessStats::default(),
            call_stats: CallStats::default(),
        };
        widener.map_params(data_params)?;
        if let Some(mask_abi) = mask_abi {
            widener.map_entry_mask(&mask_abi, data_params);
        }
        Ok(widener)
    }

    fn map_params(&mut self, data_params: usize) -> Result<(), String> {
        for index in 0..data_params {
            let old = self.scalar.param_value(index);
            let new = self.func.param_value(index);
            self.func.dfg.value_names[new] = self.scalar.dfg.value_names[old].clone();
            let ty = self.scalar.params[index].ty.clone();
            let widened = match self.config.params[index].kind {
                ParamKind::Vector => Widened::Vector(new),
                ParamKind::Uniform
                | ParamKind::Linear { step: 0 }
                | ParamKind::LinearRef { step: 0 } => Widened::Uniform(new),
                ParamKind::Linear { step } | ParamKind::LinearRef { step }
                    if ty.is_int() || ty.is_ptr() =>
                {
                    Widened::Strided { lane0: new, stride: step }
                }
                ParamKind::LinearVariableStep { step_param } if ty.is_int() || ty.is_ptr() => {
                    let step = self.func.params.get(step_param as usize).map(|param| param.value);
                    let step = step.filter(|step| self.func.dfg.value_type(*step).is_int());
                    let step = step.ok_or_else(|| {
                        format!("parameter {index}: step parameter {step_param} is not an integer")
                    })?;
                    Widened::Vector(self.variable_step_vector(new, step))
                }
                kind => return Err(format!("parameter {index} of type {ty} cannot be {kind:?}")),
            };
            self.values.define(old, widened);
        }
        Ok(())
    }

    /// `<p, p+s, p+2s, ..>` for a parameter with a step held in parameter `step`.
    fn variable_step_vector(&mut self, param: Value, step: Value) -> Value {
        let width = self.width;
        let entry = self.func.entry_block().expect("entry");
        let mut cursor = Cursor { block: entry, position: 0, in_entry_prologue: true };
        cursor.position = self.values.entry_prologue_len;
        let param_ty = self.func.dfg.value_type(param).clone();
        let offset_ty = if param_ty.is_ptr() { Type::I64 } else { param_ty.clone() };
        let step_ty = self.func.dfg.value_type(step).clone();
        let mut step = step;
        if step_ty != offset_ty {
            let (op, to) = if step_ty.int_bits() > offset_ty.int_bits() {
                (CastOp::Trunc, offset_ty.clone())
            } else {
                (CastOp::SExt, offset_ty.clone())
            };
            let cast =
                InstData::Cast { op, arg: step, to: to.clone(), flags: CastFlags::default() };
            step = self.values.insert(&mut self.func, &mut cursor, cast, to);
        }
        let offset_vector_ty = offset_ty.vector_of(width);
        let splat_step = InstData::Splat { scalar: step, lanes: width };
        let steps =
            self.values.insert(&mut self.func, &mut cursor, splat_step, offset_vector_ty.clone());
        let lane_numbers = self.values.step_vector(&mut self.func, &offset_ty, 1);
        let multiply = InstData::Binary {
            op: BinaryOp::Mul,
            lhs: steps,
            rhs: lane_numbers,
            flags: ArithFlags::default(),
        };
        let offsets =
            self.values.insert(&mut self.func, &mut cursor, multiply, offset_vector_ty.clone());
        let vector_ty = param_ty.vector_of(width);
        if param_ty.is_ptr() {
            let gep = InstData::Gep {
                source_ty: Type::I8,
                base: param,
                indices: vec![offsets],
                inbounds: false,
            };
            self.values.insert(&mut self.func, &mut cursor, gep, vector_ty)
        } else {
            let splat = InstData::Splat { scalar: param, lanes: width };
            let splat = self.values.insert(&mut self.func, &mut cursor, splat, vector_ty.clone());
            let add = InstData::Binary {
                op: BinaryOp::Add,
                lhs: splat,
                rhs: offsets,
                flags: ArithFlags::default(),
            };
            self.values.insert(&mut self.func, &mut cursor, add, vector_ty)
        }
    }

    // ----- Diagnostics -----

    fn unsupported(&self, message: impl Into<String>) -> WidenError {
        let (block, inst) = match self.location {
            Some((block, inst)) => {
                let data = self.scalar.dfg.inst(inst);
                let inst_name = match self.scalar.dfg.result(inst) {
                    Some(result) => {
                        format!(
                            "{} = {}",
                            self.scalar.dfg.display_value(result),
                            data.opcode_name()
                        )
                    }
                    None => data.opcode_name().to_owned(),
                };
                (self.scalar.block_name(block), inst_name)
            }
            None => ("-".to_owned(), "-".to_owned()),
        };
        WidenError::Unsupported {
            function: self.scalar.name.clone(),
            block,
            inst,
            message: message.into(),
        }
    }

    // ----- Value access (errors located at the current instruction) -----

    fn lane(&mut self, value: Value, lane: u32) -> Result<Value, WidenError> {
        self.values.lane(&mut self.func, value, lane).map_err(|message| self.unsupported(message))
    }

    fn lane0(&mut self, value: Value) -> Result<Value, WidenError> {
        self.lane(value, 0)
    }

    fn vector(&mut self, value: Value) -> Result<Value, WidenError> {
        self.values.vector(&mut self.func, value).map_err(|message| self.unsupported(message))
    }

    fn widened(&mut self, value: Value) -> Result<Widened, WidenError> {
        self.values.get(&mut self.func, value).map_err(|message| self.unsupported(message))
    }

    fn is_uniform(&mut self, value: Value) -> Result<bool, WidenError> {
        Ok(matches!(self.widened(value)?, Widened::Uniform(_)))
    }

    /// The `<W x T>` type of scalar type `ty`, or an error for other types.
    fn vector_type(&self, ty: &Type) -> Result<Type, WidenError> {
        if ty.is_scalar() {
            Ok(ty.vector_of(self.width))
        } else {
            Err(self.unsupported(format!("a varying value of type {ty} has no vector form")))
        }
    }

    /// The analysis shape of the result of `inst`.
    fn result_shape(&self, inst: Inst) -> Result<Shape, WidenError> {
        let result = self.scalar.dfg.result(inst).expect("instruction with a result");
        match self.shapes.shape(result).shape {
            Shape::Undef => Err(self.unsupported("the shape analysis gave the result no shape")),
            shape => Ok(shape),
        }
    }

    // ----- Emission -----

    /// Appends an instruction to the current block; returns its result, if any.
    fn append(&mut self, data: InstData, ty: Type) -> Option<Value> {
        let block = self.current.expect("a current block");
        let inst = self.func.append(block, data, ty);
        self.func.dfg.result(inst)
    }

    fn append_value(&mut self, data: InstData, ty: Type) -> Value {
        self.append(data, ty).expect("non-void instruction")
    }

    /// Records the representation of the result of `inst` and names the new value.
    fn define_result(&mut self, inst: Inst, widened: Widened) {
        let result = self.scalar.dfg.result(inst).expect("instruction with a result");
        let name = self.scalar.dfg.value_names[result].clone();
        match &widened {
            Widened::Uniform(value)
            | Widened::Strided { lane0: value, .. }
            | Widened::Vector(value) => {
                if self.func.dfg.defining_inst(*value).is_some() {
                    self.func.dfg.value_names[*value] = name;
                }
            }
            Widened::Lanes(lanes) => {
                if let Some(name) = name {
                    for (lane, value) in lanes.iter().enumerate() {
                        self.func.dfg.value_names[*value] = Some(format!("{name}.lane{lane}"));
                    }
                }
            }
        }
        self.values.define(result, widened);
    }

    /// Result representation for a scalar instruction whose result has `shape`.
    fn scalar_result(
        &self,
        inst: Inst,
        scalar: Value,
        shape: Shape,
    ) -> Result<Widened, WidenError> {
        match shape {
            Shape::Uniform => Ok(Widened::Uniform(scalar)),
            Shape::Strided(stride) => {
                let data = self.scalar.dfg.inst(inst);
                let ty = self.scalar.dfg.value_type(scalar_result_value(self.scalar, inst));
                if !(ty.is_int() || ty.is_ptr()) || !accepts_strided_result(data) {
                    return Err(self.unsupported(format!(
                        "the shape analysis marks a {} of type {ty} strided",
                        data.opcode_name()
                    )));
                }
                Ok(Widened::Strided { lane0: scalar, stride })
            }
            _ => unreachable!("scalar_result of a varying shape"),
        }
    }

    // ----- Driver -----

    fn widen_blocks(&mut self) -> Result<(), WidenError> {
        for block in self.reachable.clone() {
            self.current = Some(self.blocks[&block]);
            self.current_mask = None;
            let mut counted = !self.config.instrument_utilization;
            for &inst in self.scalar.layout.block_insts(block) {
                self.location = Some((block, inst));
                if !counted && self.scalar.dfg.inst(inst).is_terminator() {
                    self.count_active_lanes()?;
                    counted = true;
                }
                self.widen_inst(inst)?;
            }
        }
        for &block in self.scalar.layout.blocks() {
            if !self.is_reachable.contains(&block) {
                self.current = Some(self.blocks[&block]);
                self.append(InstData::Unreachable, Type::Void);
            }
        }
        Ok(())
    }

    /// Adds this block execution's active lanes and W to the utilization
    /// counters (before the block's terminator, where its mask is defined).
    fn count_active_lanes(&mut self) -> Result<(), WidenError> {
        let width = self.width;
        let active = match self.block_mask()? {
            None => self.func.dfg.int_const(Type::I64, u128::from(width)),
            Some(mask) => {
                let lanes_ty = Type::I64.vector_of(width);
                let cast = InstData::Cast {
                    op: CastOp::ZExt,
                    arg: mask,
                    to: lanes_ty.clone(),
                    flags: CastFlags::default(),
                };
                let ones = self.append_value(cast, lanes_ty);
                let sum = InstData::Call {
                    callee: Callee::Direct(format!("llvm.vector.reduce.add.v{width}i64")),
                    args: vec![ones],
                    ret_ty: Type::I64,
                    effects: CallEffects::Pure,
                    flags: FastMathFlags::default(),
                };
                self.append_value(sum, Type::I64)
            }
        };
        let slots = self.func.dfg.int_const(Type::I64, u128::from(width));
        for (counter, amount) in [(ACTIVE_LANES_COUNTER, active), (LANE_SLOTS_COUNTER, slots)] {
            let address = self.func.dfg.make_const(Type::PTR, Constant::Symbol(counter.to_owned()));
            let load = InstData::Load { ty: Type::I64, addr: address, align: 8, volatile: false };
            let old = self.append_value(load, Type::I64);
            let add = InstData::Binary {
                op: BinaryOp::Add,
                lhs: old,
                rhs: amount,
                flags: ArithFlags::default(),
            };
            let new = self.append_value(add, Type::I64);
            let store = InstData::Store { value: new, addr: address, align: 8, volatile: false };
            self.append(store, Type::Void);
        }
        Ok(())
    }

    fn widen_inst(&mut self, inst: Inst) -> Result<(), WidenError> {
        if self.widen_short_vector_op(inst)? {
            return Ok(());
        }
        if self.needs_per_lane_copies(inst)? {
            return self.widen_per_lane(inst);
        }
        match self.scalar.dfg.inst(inst) {
            InstData::Binary { .. }
            | InstData::Unary { .. }
            | InstData::Icmp { .. }
            | InstData::Fcmp { .. }
            | InstData::Cast { .. }
            | InstData::Freeze { .. } => self.widen_lanewise(inst),
            InstData::Select { .. } => self.widen_select(inst),
            InstData::Gep { .. } => self.widen_gep(inst),
            InstData::Phi { .. } => self.widen_phi(inst),
            InstData::Load { .. } => self.widen_load(inst),
            InstData::Store { .. } => self.widen_store(inst),
            InstData::Alloca { .. } => self.widen_alloca(inst),
            InstData::Call { .. } => self.widen_call(inst),
            InstData::AtomicRmw { .. } | InstData::CmpXchg { .. } => self.widen_atomic(inst),
            InstData::ExtractValue { .. }
            | InstData::InsertValue { .. }
            | InstData::ExtractElement { .. }
            | InstData::InsertElement { .. }
            | InstData::Shuffle { .. } => self.widen_uniform_only(inst),
            InstData::Splat { .. }
            | InstData::MaskedLoad { .. }
            | InstData::SpeculativeLoad { .. }
            | InstData::MaskedStore { .. }
            | InstData::Gather { .. }
            | InstData::Scatter { .. } => {
                Err(self.unsupported("vector-only instruction in the scalar function"))
            }
            InstData::Jump { .. }
            | InstData::Branch { .. }
            | InstData::Switch { .. }
            | InstData::Return { .. }
            | InstData::Unreachable => self.widen_terminator(inst),
            InstData::Invoke { .. } | InstData::LandingPad { .. } | InstData::Resume { .. } => {
                Err(self.unsupported("exception handling cannot be vectorized"))
            }
        }
    }

    /// The scalar copy of `inst` with every operand replaced by its lane-0 value.
    fn lane0_copy(&mut self, inst: Inst) -> Result<InstData, WidenError> {
        let mut data = self.scalar.dfg.inst(inst).clone();
        let mut lane0_operands = Vec::new();
        for operand in data.operands() {
            lane0_operands.push(self.lane0(operand)?);
        }
        let mut replacements = lane0_operands.into_iter();
        data.map_operands(|_| replacements.next().expect("same operand count"));
        Ok(data)
    }

    /// Uniform or strided result: the scalar instruction on lane-0 operands.
    fn widen_as_scalar(&mut self, inst: Inst, shape: Shape) -> Result<(), WidenError> {
        let mut data = self.lane0_copy(inst)?;
        if let Shape::Strided(stride) = shape {
            data = lane0_of_strided(data, stride);
        }
        self.guard_divisor(&mut data)?;
        let ty = self.scalar.dfg.value_type(scalar_result_value(self.scalar, inst)).clone();
        let scalar = self.append_value(data, ty);
        let widened = self.scalar_result(inst, scalar, shape)?;
        self.define_result(inst, widened);
        Ok(())
    }

    /// In a masked block, an integer division or remainder divides the
    /// inactive lanes by one (they may hold a zero divisor).
    fn guard_divisor(&mut self, data: &mut InstData) -> Result<(), WidenError> {
        if let InstData::Binary { op, rhs, .. } = data {
            if op.can_trap() {
                *rhs = self.safe_divisor(*rhs)?;
            }
        }
        Ok(())
    }

    /// Arithmetic, comparisons, casts, freeze.
    fn widen_lanewise(&mut self, inst: Inst) -> Result<(), WidenError> {
        let shape = self.result_shape(inst)?;
        if shape != Shape::Varying {
            return self.widen_as_scalar(inst, shape);
        }
        let mut data = self.scalar.dfg.inst(inst).clone();
        let result_ty =
            self.vector_type(self.scalar.dfg.value_type(scalar_result_value(self.scalar, inst)))?;
        let mut vectors = Vec::new();
        for operand in data.operands() {
            vectors.push(self.vector(operand)?);
        }
        let mut replacements = vectors.into_iter();
        data.map_operands(|_| replacements.next().expect("same operand count"));
        if let InstData::Cast { to, .. } = &mut data {
            *to = result_ty.clone();
        }
        self.guard_divisor(&mut data)?;
        let vector = match self.division_fast_path(&data) {
            Some(path) => self.divide_with_fast_path(data, result_ty, path)?,
            None => self.append_value(data, result_ty),
        };
        self.define_result(inst, Widened::Vector(vector));
        Ok(())
    }

    /// Select: a uniform condition stays scalar in a vector select.
    fn widen_select(&mut self, inst: Inst) -> Result<(), WidenError> {
        let shape = self.result_shape(inst)?;
        if shape != Shape::Varying {
            return self.widen_as_scalar(inst, shape);
        }
        let InstData::Select { cond, if_true, if_false, flags } =
            self.scalar.dfg.inst(inst).clone()
        else {
            unreachable!()
        };
        let result_ty = self.vector_type(self.scalar.dfg.value_type(if_true))?;
        if let Some(vector) = self.select_on_uniform_bool(cond, if_true, if_false, &result_ty)? {
            self.define_result(inst, Widened::Vector(vector));
            return Ok(());
        }
        let cond = if self.is_uniform(cond)? { self.lane0(cond)? } else { self.vector(cond)? };
        let if_true = self.vector(if_true)?;
        let if_false = self.vector(if_false)?;
        let vector =
            self.append_value(InstData::Select { cond, if_true, if_false, flags }, result_ty);
        self.define_result(inst, Widened::Vector(vector));
        Ok(())
    }

    /// `c && u` (`select(c, u, false)`) and `c || u` (`select(c, true, u)`)
    /// of a varying mask `c` and a uniform `u`, as `select(u, c, false)` and
    /// `select(u, true, c)` on the scalar `u`: LLVM keeps a select on a
    /// scalar condition a branch, where a splat of `u` would cost a move
    /// into a mask register and an `and` in every iteration of a divergent
    /// loop whose exit test has a uniform part (`while (x > t && rounds <
    /// 30)`). `u` is frozen: the scalar select gives `false` (`true`) in the
    /// lanes where `c` is false (true) even if `u` is poison.
    fn select_on_uniform_bool(
        &mut self,
        cond: Value,
        if_true: Value,
        if_false: Value,
        result_ty: &Type,
    ) -> Result<Option<Value>, WidenError> {
        if *self.scalar.dfg.value_type(if_true) != Type::BOOL || self.is_uniform(cond)? {
            return Ok(None);
        }
        let constant = |value| self.scalar.dfg.int_constant(value);
        let (uniform, and) = if constant(if_false) == Some(0) && self.is_uniform(if_true)? {
            (if_true, true)
        } else if constant(if_true) == Some(1) && self.is_uniform(if_false)? {
            (if_false, false)
        } else {
            return Ok(None);
        };
        let scalar = self.lane0(uniform)?;
        let frozen = self.append_value(InstData::Freeze { arg: scalar }, Type::BOOL);
        let mask = self.vector(cond)?;
        let (if_true, if_false) =
            if and { (mask, self.constant_mask(false)) } else { (self.constant_mask(true), mask) };
        let select =
            InstData::Select { cond: frozen, if_true, if_false, flags: Default::default() };
        Ok(Some(self.append_value(select, result_ty.clone())))
    }

    /// GEP: uniform base and indices stay scalar (struct field indices must),
    /// the others become vectors; the result is a vector of pointers.
    fn widen_gep(&mut self, inst: Inst) -> Result<(), WidenError> {
        let shape = self.result_shape(inst)?;
        if shape != Shape::Varying {
            return self.widen_as_scalar(inst, shape);
        }
        let InstData::Gep { source_ty, base, indices, inbounds } =
            self.scalar.dfg.inst(inst).clone()
        else {
            unreachable!()
        };
        let result_ty =
            self.vector_type(self.scalar.dfg.value_type(scalar_result_value(self.scalar, inst)))?;
        // Uniform operands stay scalar; the others become vectors. GEP
        // indices are sign-extended to the pointer width anyway: a varying
        // `sext i32` (or `zext nneg i32`) index stays a vector of i32, which
        // x86 gathers and scatters take as 32-bit indices (vpgatherdd: half
        // the index register and a shorter latency than 64-bit indices).
        let mut any_vector = false;
        let mut new_base = if self.is_uniform(base)? {
            self.lane0(base)?
        } else {
            any_vector = true;
            self.vector(base)?
        };
        let mut new_indices = Vec::new();
        for index in indices {
            if self.is_uniform(index)? {
                new_indices.push(self.lane0(index)?);
                continue;
            }
            any_vector = true;
            let narrow = match self.scalar.dfg.defining_inst(index).map(|i| self.scalar.dfg.inst(i))
            {
                Some(InstData::Cast { op: CastOp::SExt, arg, .. })
                | Some(InstData::Cast {
                    op: CastOp::ZExt,
                    arg,
                    flags: CastFlags { nneg: true, .. },
                    ..
                }) if *self.scalar.dfg.value_type(*arg) == Type::I32 => Some(*arg),
                _ => None,
            };
            new_indices.push(self.vector(narrow.unwrap_or(index))?);
        }
        if !any_vector {
            // A varying claim for a GEP of uniform operands: keep it a vector.
            new_base = self.vector(base)?;
        }
        let gep = InstData::Gep { source_ty, base: new_base, indices: new_indices, inbounds };
        let vector = self.append_value(gep, result_ty);
        self.define_result(inst, Widened::Vector(vector));
        Ok(())
    }

    /// Phis: scalar phis for uniform and strided results, vector phis
    /// otherwise; incoming values are filled in by [`Self::complete_phis`].
    fn widen_phi(&mut self, inst: Inst) -> Result<(), WidenError> {
        let shape = self.result_shape(inst)?;
        let InstData::Phi { ty, .. } = self.scalar.dfg.inst(inst).clone() else { unreachable!() };
        let block = self.current.expect("a current block");
        let (new_ty, is_vector) = match short_vectors::packed_type(&ty, self.width) {
            Some(packed) if shape == Shape::Varying => (packed, true),
            _ if shape == Shape::Varying => (self.vector_type(&ty)?, true),
            _ => (ty, false),
        };
        let new_inst = self.func.append(
            block,
            InstData::Phi { ty: new_ty.clone(), incoming: Vec::new() },
            new_ty,
        );
        let new_value = self.func.dfg.result(new_inst).expect("phi result");
        let widened = if is_vector {
            Widened::Vector(new_value)
        } else {
            self.scalar_result(inst, new_value, shape)?
        };
        self.define_result(inst, widened);
        self.pending_phis.push((inst, new_inst, is_vector));
        Ok(())
    }

    fn complete_phis(&mut self) -> Result<(), WidenError> {
        for (inst, new_inst, is_vector) in std::mem::take(&mut self.pending_phis) {
            let block = self.scalar.layout.inst_block(inst).expect("phi in layout");
            self.location = Some((block, inst));
            let InstData::Phi { incoming, .. } = self.scalar.dfg.inst(inst).clone() else {
                unreachable!()
            };
            let mut new_incoming = Vec::new();
            for (predecessor, value) in incoming {
                if !self.is_reachable.contains(&predecessor) {
                    continue;
                }
                let new_value = if is_vector { self.vector(value)? } else { self.lane0(value)? };
                // The edge leaves the last block of the predecessor's guard chain.
                let exit_block = self.exit_blocks.get(&predecessor).copied();
                new_incoming.push((exit_block.unwrap_or(self.blocks[&predecessor]), new_value));
            }
            if let InstData::Phi { incoming, .. } = self.func.dfg.inst_mut(new_inst) {
                *incoming = new_incoming;
            }
        }
        Ok(())
    }

    // ----- Calls -----

    fn widen_call(&mut self, inst: Inst) -> Result<(), WidenError> {
        let InstData::Call { callee, args, ret_ty, effects, flags } =
            self.scalar.dfg.inst(inst).clone()
        else {
            unreachable!()
        };
        let mut all_uniform = match callee {
            Callee::Indirect(pointer) => self.is_uniform(pointer)?,
            Callee::Direct(_) | Callee::InlineAsm(_) => true,
        };
        for &arg in &args {
            all_uniform &= self.is_uniform(arg)?;
        }
        let has_result = ret_ty != Type::Void;
        if let Callee::Direct(name) = &callee {
            if let Some(widened) = self.widen_spmd_builtin(name, &args, &ret_ty)? {
                if has_result {
                    self.define_result(inst, widened);
                }
                return Ok(());
            }
        }
        if let Callee::Direct(name) = &callee {
            if self.config.group_functions.contains(name) {
                return self.widen_group_call(inst, name, all_uniform);
            }
        }
        if all_uniform && effects != CallEffects::SideEffects {
            let data = self.lane0_copy(inst)?;
            // A read-only call reads memory like a load, a pure one may trap
            // or loop on an input no lane passes it: only if a lane is active.
            let speculative =
                effects == CallEffects::Pure && calls::may_run_speculatively(&callee, &ret_ty);
            let mask = if speculative { None } else { self.block_mask()? };
            let result = match mask {
                None => self.append(data, ret_ty),
                Some(mask) => self
                    .emit_if_any_lane_active(mask, "call", |this| Ok(this.append(data, ret_ty)))?,
            };
            if let Some(result) = result {
                self.define_result(inst, Widened::Uniform(result));
            }
            return Ok(());
        }
        if let Callee::Direct(name) = &callee {
            // `expf`, `exp2f`, `logf`, `log2f`, `exp` and `log` with the scalar call's bits, in vector
            // registers (where libmvec, when allowed, is not preferred).
            if let Some(function) = ExactMathFunction::of_call(name, &ret_ty)
                .filter(|_| self.config.exact_vector_math)
                .filter(|_| !self.config.vector_math.allows_libmvec(flags))
            {
                let vector = self.widen_exact_math_call(function, args[0], effects, flags)?;
                self.define_result(inst, Widened::Vector(vector));
                return Ok(());
            }
            // Exact math intrinsics that LLVM lowers to W libm calls: under
            // a mask, calls for the active lanes only (`lane_loops`).
            if lane_loops::is_libcall_intrinsic(name)
                && !self.config.vector_math.allows_libmvec(flags)
            {
                let mask = self.block_mask()?;
                if mask.is_some() && self.fits_lane_loop(inst)? {
                    self.call_stats.per_lane += 1;
                    if let Some(vector) = self.call_per_active_lane(inst, mask)? {
                        self.define_result(inst, Widened::Vector(vector));
                    }
                    return Ok(());
                }
            }
            if let Some(vector) = self.widen_math_call(name, &args, &ret_ty, effects, flags)? {
                self.define_result(inst, Widened::Vector(vector));
                return Ok(());
            }
        }
        if self.widen_variant_call(inst)? {
            return Ok(());
        }
        self.call_stats.per_lane += 1;
        self.duplicate_call(inst, has_result)
    }

    /// One scalar call per lane, in lane order (6.4.4): under a mask a loop
    /// over the active lanes where the types allow ([`lane_loops`]), else
    /// written out lane by lane.
    fn duplicate_call(&mut self, inst: Inst, has_result: bool) -> Result<(), WidenError> {
        let InstData::Call { callee, args, ret_ty, effects, flags } =
            self.scalar.dfg.inst(inst).clone()
        else {
            unreachable!()
        };
        let lane_call = |this: &mut Self, lane: u32| -> Result<Option<Value>, WidenError> {
            let lane_callee = match &callee {
                Callee::Direct(name) => Callee::Direct(name.clone()),
                Callee::Indirect(pointer) => Callee::Indirect(this.lane(*pointer, lane)?),
                Callee::InlineAsm(asm) => Callee::InlineAsm(asm.clone()),
            };
            let mut lane_args = Vec::new();
            for &arg in &args {
                lane_args.push(this.lane(arg, lane)?);
            }
            let call = InstData::Call {
                callee: lane_callee,
                args: lane_args,
                ret_ty: ret_ty.clone(),
                effects,
                flags,
            };
            Ok(this.append(call, ret_ty.clone()))
        };
        // Under a mask, a loop over the active lanes; with every lane
        // active, W calls written out (a loop measured 3.5% slower on
        // tests/programs/double_math, whose libm calls run in every lane).
        let mask = self.block_mask()?;
        if mask.is_some() && self.fits_lane_loop(inst)? {
            let result = self.call_per_active_lane(inst, mask)?;
            if let (true, Some(vector)) = (has_result, result) {
                self.define_result(inst, Widened::Vector(vector));
            }
            return Ok(());
        }
        // Only intrinsics and libm functions run in inactive lanes too
        // (`calls::may_run_speculatively`).
        let speculative =
            effects == CallEffects::Pure && calls::may_run_speculatively(&callee, &ret_ty);
        let mask = if speculative { None } else { self.block_mask()? };
        let results = match mask {
            Some(mask) => self.emit_per_lane_guarded(mask, "call", lane_call)?.unwrap_or_default(),
            None => {
                let mut results = Vec::new();
                for lane in 0..self.width {
                    results.extend(lane_call(self, lane)?);
                }
                results
            }
        };
        if has_result {
            self.define_result(inst, Widened::Lanes(results));
        }
        Ok(())
    }

    /// Whether `inst` is a pure operation on vector or aggregate values of the
    /// scalar code (what is left of clang's short vectors after
    /// canonicalization, structs in registers) with a non-uniform operand.
    /// Such values have no W-lane vector form, so the operation runs once
    /// per lane on each lane's values (thesis 6.4.4, "sequential").
    fn needs_per_lane_copies(&mut self, inst: Inst) -> Result<bool, WidenError> {
        let data = self.scalar.dfg.inst(inst).clone();
        let pure_operation = matches!(
            data,
            InstData::Binary { .. }
                | InstData::Unary { .. }
                | InstData::Icmp { .. }
                | InstData::Fcmp { .. }
                | InstData::Cast { .. }
                | InstData::Freeze { .. }
                | InstData::Select { .. }
                | InstData::ExtractValue { .. }
                | InstData::InsertValue { .. }
                | InstData::ExtractElement { .. }
                | InstData::InsertElement { .. }
                | InstData::Shuffle { .. }
        );
        if !pure_operation || data.can_trap_on_inactive_lanes() {
            return Ok(false);
        }
        let operands = data.operands();
        let result_ty = self.scalar.dfg.result(inst).map(|value| self.scalar.dfg.value_type(value));
        let non_scalar = result_ty.is_some_and(|ty| !ty.is_scalar())
            || operands.iter().any(|value| !self.scalar.dfg.value_type(*value).is_scalar());
        if !non_scalar {
            return Ok(false);
        }
        for operand in operands {
            if !self.is_uniform(operand)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// One copy of `inst` per lane, on that lane's operands (see
    /// [`Widener::needs_per_lane_copies`]).
    fn widen_per_lane(&mut self, inst: Inst) -> Result<(), WidenError> {
        let data = self.scalar.dfg.inst(inst).clone();
        let result_ty = self
            .scalar
            .dfg
            .result(inst)
            .map(|value| self.scalar.dfg.value_type(value).clone())
            .unwrap_or(Type::Void);
        let operands = data.operands();
        let mut results = Vec::with_capacity(self.width as usize);
        for lane in 0..self.width {
            let lane_operands = operands
                .iter()
                .map(|value| self.lane(*value, lane))
                .collect::<Result<Vec<_>, _>>()?;
            let mut copy = data.clone();
            let mut next = lane_operands.into_iter();
            copy.map_operands(|_| next.next().expect("one lane value per operand"));
            results.push(self.append_value(copy, result_ty.clone()));
        }
        self.define_result(inst, Widened::Lanes(results));
        Ok(())
    }

    /// Aggregate and vector operations: only uniform ones are supported.
    fn widen_uniform_only(&mut self, inst: Inst) -> Result<(), WidenError> {
        let shape = self.result_shape(inst)?;
        let data = self.scalar.dfg.inst(inst);
        let mut operands_uniform = true;
        for operand in data.operands() {
            operands_uniform &= self.is_uniform(operand)?;
        }
        if shape != Shape::Uniform || !operands_uniform {
            return Err(
                self.unsupported("varying aggregate and vector operations are not widened yet")
            );
        }
        self.widen_as_scalar(inst, Shape::Uniform)
    }

    // ----- Terminators -----

    /// The lane-0 value of a branch or switch condition, which must be uniform.
    ///
    /// In a block that may run with no active lane (linearized code under a
    /// varying predicate that is not known to hold somewhere), the condition
    /// is frozen: it may derive from a computation no scalar lane would have
    /// made (a skipped uniform load, an `nsw` overflow on inactive data), so
    /// it may be poison, and branching on poison is undefined behaviour that
    /// LLVM's optimizations exploit. With no active lane either successor is
    /// correct; with one, the value is what the scalar code computes.
    fn uniform_condition(&mut self, cond: Value) -> Result<Value, WidenError> {
        let constant = self.scalar.dfg.constant(cond).is_some();
        let uniform =
            constant || self.shapes.shape(cond).shape == Shape::Uniform || self.is_uniform(cond)?;
        if !uniform {
            return Err(self.unsupported(
                "varying branch condition: the control flow must be linearized before widening",
            ));
        }
        let scalar = self.lane0(cond)?;
        let (scalar_block, _) = self.location.expect("widening a terminator");
        let may_run_without_lanes =
            !self.predicates.some_lane_active(scalar_block) && self.block_mask()?.is_some();
        if constant || !may_run_without_lanes || self.is_mask_query(cond) {
            return Ok(scalar);
        }
        let ty = self.func.dfg.value_type(scalar).clone();
        Ok(self.append_value(InstData::Freeze { arg: scalar }, ty))
    }

    /// Whether the scalar `cond` asks about masks only: `rv_any`/`rv_all`
    /// calls (BOSCC guards, divergent loop exits) and `and`/`or`/`xor` of
    /// such and of frozen values (the exits of loops that may run with no
    /// active lane, [`crate::linearize::empty_mask_loops`]). Masks are never poison (edge predicates are `select`s), so
    /// these need no freeze; freezing them would also be harmful: LLVM
    /// pushes the freeze up to the `<W x i1>` mask, and its x86 back end
    /// cannot split a frozen `<32 x i1>` ("Do not know how to split the
    /// result of this operator") when 256-bit vectors are preferred.
    fn is_mask_query(&self, cond: Value) -> bool {
        let mut pending = vec![cond];
        let mut visited = 0;
        while let Some(value) = pending.pop() {
            visited += 1;
            if visited > 16 {
                return false;
            }
            if self.scalar.dfg.constant(value).is_some() {
                continue;
            }
            let Some(inst) = self.scalar.dfg.defining_inst(value) else { return false };
            match self.scalar.dfg.inst(inst) {
                InstData::Call { callee: Callee::Direct(name), .. }
                    if name == "rv_any" || name == "rv_all" => {}
                // A frozen value is never poison.
                InstData::Freeze { .. } => {}
                InstData::Binary {
                    op: BinaryOp::And | BinaryOp::Or | BinaryOp::Xor,
                    lhs,
                    rhs,
                    ..
                } => pending.extend([*lhs, *rhs]),
                _ => return false,
            }
        }
        true
    }

    fn widen_terminator(&mut self, inst: Inst) -> Result<(), WidenError> {
        let mut data = self.scalar.dfg.inst(inst).clone();
        match &mut data {
            InstData::Branch { cond, .. } => *cond = self.uniform_condition(*cond)?,
            InstData::Switch { value, .. } => *value = self.uniform_condition(*value)?,
            InstData::Return { value: Some(value) } => *value = self.vector(*value)?,
            _ => {}
        }
        data.map_successors(|successor| self.blocks[&successor]);
        if let Some((scalar_block, _)) = self.location {
            self.exit_blocks.insert(scalar_block, self.current.expect("a current block"));
        }
        self.append(data, Type::Void);
        Ok(())
    }
}

/// The result value of a scalar instruction that has one.
fn scalar_result_value(scalar: &Function, inst: Inst) -> Value {
    scalar.dfg.result(inst).expect("instruction with a result")
}

/// Blocks reachable from the entry, in reverse postorder (definitions come
/// before their non-phi uses in SSA form).
fn reverse_postorder(func: &Function) -> Vec<Block> {
    let Some(entry) = func.entry_block() else { return Vec::new() };
    let mut visited = std::collections::HashSet::from([entry]);
    let mut postorder = Vec::new();
    let mut stack = vec![(entry, func.successors(entry), 0usize)];
    while let Some((block, successors, next)) = stack.last_mut() {
        if let Some(&successor) = successors.get(*next) {
            *next += 1;
            if visited.insert(successor) {
                let successors = func.successors(successor);
                stack.push((successor, successors, 0));
            }
        } else {
            postorder.push(*block);
            stack.pop();
        }
    }
    postorder.reverse();
    postorder
}

#[cfg(test)]
mod tests;
