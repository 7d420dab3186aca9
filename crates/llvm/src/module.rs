//! Loading, canonicalizing, verifying and writing LLVM modules.
//!
//! A module lives inside an LLVM context that must outlive it; rather than
//! exposing that lifetime pair, [`with_module`] parses a file into a fresh
//! context and hands the module to a closure. Canonicalization (Karrenberg
//! 2014, §5.1: WFV expects loop-simplified, LCSSA-form SSA code) and all other
//! pass pipelines go through LLVM's new pass manager.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::rc::Rc;

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, InitializationConfig, RelocMode, Target, TargetData, TargetMachine,
};
use inkwell::values::FunctionValue;
use inkwell::OptimizationLevel;

use lanewise_ir::exact_math::ExactMathFunction;
use lanewise_ir::{DataLayout, Function, LoopHints};

use crate::raw::{
    attribute_contents, param_attribute_index, AttributeContents, RawBlock, RawContext, RawModule,
    RawValue, FUNCTION_ATTRIBUTE_INDEX, RETURN_ATTRIBUTE_INDEX,
};

/// One value [`LlvmModule::annotate_calls`] may attach to a call.
#[derive(Clone, Debug)]
pub struct CallAnnotation<'a> {
    /// The text of the value (for `vector-function-abi-variant`, one
    /// mapping `_ZGV..._f(_ZGV..._f)`).
    pub value: String,
    /// The target features the calling function must enable.
    pub required_features: &'a [&'a str],
    /// The widest vector the call the value allows passes in registers.
    pub vector_bits: u64,
}

/// The value of the string attribute `key` of `function`, if it has one.
fn string_function_attribute(function: RawValue<'_>, key: &str) -> Option<String> {
    function.function_attributes(FUNCTION_ATTRIBUTE_INDEX).into_iter().find_map(|attribute| {
        match attribute_contents(attribute) {
            AttributeContents::String { key: found, value } if found == key => Some(value),
            _ => None,
        }
    })
}

/// Raises `function`'s `min-legal-vector-width` to `bits` if it is lower
/// (a function without the attribute has no limit and keeps none).
fn raise_min_legal_vector_width<'ctx>(
    context: RawContext<'ctx>,
    function: RawValue<'ctx>,
    bits: u64,
) {
    let Some(current) = string_function_attribute(function, "min-legal-vector-width") else {
        return;
    };
    if current.parse::<u64>().is_ok_and(|current| current >= bits) {
        return;
    }
    let attribute = context.string_attribute("min-legal-vector-width", &bits.to_string());
    function.add_function_attribute(FUNCTION_ATTRIBUTE_INDEX, attribute);
}

thread_local! {
    /// The machines [`LlvmModule::target_machine`] made, by target triple,
    /// one per thread. A machine keeps the subtarget of each target-cpu and
    /// target-features pair it has seen, which the target analysis of a
    /// pipeline run builds otherwise, every run (with a fresh machine per
    /// run, the largest cost of a small pipeline on a small function:
    /// Lanewise's canonicalizing pipeline took 0.8 ms per function).
    static TARGET_MACHINES: RefCell<HashMap<String, Rc<TargetMachine>>> =
        RefCell::new(HashMap::new());
    /// The answers of [`LlvmModule::expands_masked_gathers`], by target
    /// triple and function attributes.
    static GATHER_PROBES: RefCell<HashMap<String, bool>> = RefCell::new(HashMap::new());
}

/// The pipeline [`LlvmModule::canonicalize`] runs: SSA construction, CFG
/// cleanup, loop-simplify form and LCSSA, and nothing that rewrites
/// arithmetic (no instcombine), so the lifted code stays close to the input.
/// `partially-inline-libcalls` splits a `sqrt` call that may set errno into
/// the same call marked `memory(none)` (widened to a vector sqrt) and, for
/// negative or NaN inputs only, the errno-setting call: LLVM's code generator
/// does the same to the scalar function, so both compute the same values
/// and errno.
pub const CANONICALIZE_PIPELINE: &str =
    "mem2reg,sroa,partially-inline-libcalls,simplifycfg,loop-simplify,lcssa";

/// The pipeline [`LlvmModule::lift_canonical`] runs before canonicalizing:
/// the vector code of the scalar function (clang's own loop and SLP
/// vectorizers put some there at -O2) turned back into scalar code, since
/// vectorizing across lanes pays more than keeping clang's short vectors
/// inside one lane, and widening handles scalar code.
pub const SCALARIZE_PIPELINE: &str = "expand-reductions,scalarizer<load-store>,dce";

/// The function [`LlvmModule::add_utilization_runtime`] registers as a
/// destructor.
const UTILIZATION_REPORT_FUNCTION: &str = "__lanewise_report_utilization";

/// The utilization runtime in LLVM IR: the counters the widening
/// instrumentation updates (`lanewise_transform::widen::ACTIVE_LANES_COUNTER`
/// and `LANE_SLOTS_COUNTER`) and the report printed at exit.
const UTILIZATION_RUNTIME: &str = r#"
@__lanewise_active_lanes = weak global i64 0, align 8
@__lanewise_lane_slots = weak global i64 0, align 8
@stderr = external global ptr
@__lanewise_utilization_format = private unnamed_addr constant [61 x i8] c"lanewise utilization %.4f (%llu active lanes of %llu slots)\0A\00"
@llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @__lanewise_report_utilization, ptr null }]

declare i32 @fprintf(ptr, ptr, ...)

define weak void @__lanewise_report_utilization() {
entry:
  %slots = load i64, ptr @__lanewise_lane_slots, align 8
  %none = icmp eq i64 %slots, 0
  br i1 %none, label %done, label %print
print:
  %active = load i64, ptr @__lanewise_active_lanes, align 8
  %active.f = uitofp i64 %active to double
  %slots.f = uitofp i64 %slots to double
  %ratio = fdiv double %active.f, %slots.f
  %stream = load ptr, ptr @stderr, align 8
  %printed = call i32 (ptr, ptr, ...) @fprintf(ptr %stream, ptr @__lanewise_utilization_format, double %ratio, i64 %active, i64 %slots)
  br label %done
done:
  ret void
}
"#;

/// The runtime of the run-time safety net
/// (`lanewise_transform::dynamic_variants::safety_net`), commented in the file.
const SAFETY_NET_RUNTIME: &str = include_str!("safety_net_runtime.ll");
/// The loop-ID entry that marks `llvm.loop.unroll.disable` as Lanewise's
/// ([`LlvmModule::hold_simd_loop_unrolling`]).
pub const HELD_UNROLLING: &str = "lanewise.unroll.held";

/// The runtime function whose presence says the module has that runtime.
const SAFETY_NET_BEGIN: &str = "__lanewise_net_begin";
/// The functions of that runtime, internal to the module once linked.
const SAFETY_NET_FUNCTIONS: [&str; 4] =
    [SAFETY_NET_BEGIN, "__lanewise_net_end", "__lanewise_net_next_phase", "__lanewise_net_trace"];

/// The function attributes an exact vector math function copies from its
/// caller ([`LlvmModule::link_exact_math`]): what it compiles for, and how
/// wide a vector may travel in one register.
const CALLER_TARGET_ATTRIBUTES: [&str; 5] =
    ["target-cpu", "target-features", "tune-cpu", "min-legal-vector-width", "prefer-vector-width"];

/// The per-function pipeline [`LlvmModule::cleanup`] runs on new functions.
pub const CLEANUP_PIPELINE: &str =
    "instcombine<no-verify-fixpoint>,simplifycfg,early-cse,gvn,instcombine<no-verify-fixpoint>,dce,simplifycfg";

/// The part of LLVM 22's `default<O3>` function pipeline that follows its
/// SLP vectorizer (from `opt-22 -passes='default<O3>'
/// -print-pipeline-passes`, without `transform-warning`, whose warnings the
/// full pipeline gave already): [`LlvmModule::run_post_slp_pipeline`].
pub const POST_SLP_PIPELINE: &str = "vector-combine,\
    instcombine<max-iterations=1;no-verify-fixpoint>,loop-unroll<O3>,sroa<preserve-cfg>,\
    infer-alignment,instcombine<max-iterations=1;no-verify-fixpoint>,\
    loop-mssa(licm<allowspeculation>),alignment-from-assumptions,loop-sink,instsimplify,\
    div-rem-pairs,tailcallelim,simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;\
    switch-range-to-icmp;switch-to-arithmetic;no-switch-to-lookup;keep-loops;\
    no-hoist-common-insts;hoist-loads-stores-with-cond-faulting;no-sink-common-insts;\
    speculate-blocks;simplify-cond-branch;speculate-unpredictables>";

/// Errors of the bridge. Each names the function, block and instruction where
/// it can.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error("cannot read `{path}`: {message}")]
    Read { path: String, message: String },
    #[error("`{path}` is not valid LLVM IR or bitcode: {message}")]
    Parse { path: String, message: String },
    #[error("`{path}` is not a valid LLVM module: {message}")]
    InvalidModule { path: String, message: String },
    #[error("no function named `{0}` is defined in the module")]
    UnknownFunction(String),
    #[error("in function `{function}`, block `{block}`, instruction `{inst}`: {message}")]
    Unsupported { function: String, block: String, inst: String, message: String },
    #[error("in function `{function}`: {message}")]
    Function { function: String, message: String },
    #[error("LLVM verifier rejected the output: {0}")]
    Verify(String),
    #[error("LLVM pass pipeline `{pipeline}` failed: {message}")]
    Passes { pipeline: String, message: String },
    #[error("cannot write `{path}`: {message}")]
    Write { path: String, message: String },
    #[error("no LLVM target machine for `{triple}`: {message}")]
    Target { triple: String, message: String },
}

/// The output format.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum OutputFormat {
    /// Textual LLVM IR (`.ll`).
    Text,
    /// LLVM bitcode (`.bc`).
    Bitcode,
}

/// What the driver needs to know of a scalar function defined in the module.
#[derive(Clone, Debug)]
pub struct ScalarFunctionInfo {
    pub name: String,
    /// The `_ZGV...` variant names in the function's attributes, in attribute order.
    pub variant_names: Vec<String>,
}

/// A defined function with loops that ask to be vectorized (`!llvm.loop`
/// with `llvm.loop.vectorize.enable` and no `llvm.loop.isvectorized`).
#[derive(Clone, Debug)]
pub struct SimdLoopFunction {
    pub name: String,
    /// Whether the function holds vector code produced by LLVM's loop
    /// vectorizer: vector instructions and a loop marked
    /// `llvm.loop.isvectorized`. Such a function is lifted with
    /// the omp simd loop driver without [`SCALARIZE_PIPELINE`], which does not
    /// scalarize it. Vector code without a vectorized loop (clang's short
    /// vector types, `float4`) is scalarized by [`LlvmModule::lift_canonical`].
    pub has_vector_code: bool,
    /// The `target-features` attribute of the function (may be empty).
    pub target_features: String,
}

/// The `target-features` attribute of `function` (empty if it has none).
fn target_features(function: &FunctionValue<'_>) -> String {
    function
        .get_string_attribute(AttributeLoc::Function, "target-features")
        .map(|attribute| attribute.get_string_value().to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The name and `_ZGV` attributes of `function`.
fn scalar_function_info(function: &FunctionValue<'_>) -> ScalarFunctionInfo {
    let variant_names = RawValue::from_inkwell(function)
        .function_attributes(FUNCTION_ATTRIBUTE_INDEX)
        .into_iter()
        .filter_map(|attribute| match attribute_contents(attribute) {
            AttributeContents::String { key, .. } if key.starts_with("_ZGV") => Some(key),
            _ => None,
        })
        .collect();
    ScalarFunctionInfo { name: function.get_name().to_string_lossy().into_owned(), variant_names }
}

/// The back edges of `function`'s control-flow graph that a depth-first
/// search from its entry finds, as (the latch's terminator, the header): in
/// a reducible graph, its loops' latches.
fn back_edges<'ctx>(function: RawValue<'ctx>) -> Vec<(RawValue<'ctx>, RawBlock<'ctx>)> {
    let Some(&entry) = function.blocks().first() else { return Vec::new() };
    let terminator = |block: RawBlock<'ctx>| block.instructions().last().copied();
    let successors =
        |block: RawBlock<'ctx>| terminator(block).map(RawValue::successors).unwrap_or_default();
    let mut on_stack: HashSet<RawBlock<'ctx>> = HashSet::from([entry]);
    let mut visited: HashSet<RawBlock<'ctx>> = HashSet::from([entry]);
    let mut stack = vec![(entry, successors(entry), 0)];
    let mut edges = Vec::new();
    while let Some((block, next, index)) = stack.last_mut() {
        let Some(&successor) = next.get(*index) else {
            on_stack.remove(block);
            stack.pop();
            continue;
        };
        *index += 1;
        let block = *block;
        if on_stack.contains(&successor) {
            edges.extend(terminator(block).map(|latch| (latch, successor)));
        } else if visited.insert(successor) {
            on_stack.insert(successor);
            stack.push((successor, successors(successor), 0));
        }
    }
    edges
}

/// A parsed LLVM module.
pub struct LlvmModule<'ctx> {
    pub(crate) context: &'ctx Context,
    pub(crate) module: Module<'ctx>,
}

/// Parses `path` (LLVM IR text or bitcode) and runs `body` on it.
pub fn with_module<R>(
    path: &Path,
    body: impl FnOnce(&mut LlvmModule<'_>) -> Result<R, BridgeError>,
) -> Result<R, BridgeError> {
    with_parsed_module(&read_module_file(path)?, &path.display().to_string(), false, body)
}

/// Parses `bytes` (LLVM IR text or bitcode; `name` is for messages) and runs `body` on it.
///
/// The module must pass the LLVM verifier (LLVM's parsers do not run it, and
/// passes assume it), and its x86 functions may only name processors LLVM
/// knows in `target-cpu`; target features and `tune-cpu` values LLVM does
/// not know (`+avx512er` of KNL, removed in LLVM 19) are dropped, as LLVM
/// would ignore them, with a warning per pass pipeline ([`x86_targets`]).
///
/// [`x86_targets`]: crate::x86_targets
pub fn with_module_from_bytes<R>(
    bytes: &[u8],
    name: &str,
    body: impl FnOnce(&mut LlvmModule<'_>) -> Result<R, BridgeError>,
) -> Result<R, BridgeError> {
    with_parsed_module(bytes, name, false, body)
}

/// Parses `path` as [`with_module`] does, for a module LLVM's whole `-O`
/// pipeline has run on: the `vector-function-abi-variant` attributes of its
/// calls are removed before the module is verified. They served LLVM's loop
/// vectorizer, which has run, and LLVM's other passes do not keep them
/// true: dead argument elimination changes a callee's signature but not the
/// names of the variants its calls carry, which the verifier then rejects
/// (clang, which runs its pipeline and code generation in one go, never
/// verifies in between).
pub fn with_optimized_module<R>(
    path: &Path,
    body: impl FnOnce(&mut LlvmModule<'_>) -> Result<R, BridgeError>,
) -> Result<R, BridgeError> {
    with_parsed_module(&read_module_file(path)?, &path.display().to_string(), true, body)
}

fn read_module_file(path: &Path) -> Result<Vec<u8>, BridgeError> {
    std::fs::read(path).map_err(|error| BridgeError::Read {
        path: path.display().to_string(),
        message: error.to_string(),
    })
}

/// Parses `bytes`, drops the spent variant annotations if
/// `optimized` ([`with_optimized_module`]), checks the module
/// ([`with_module_from_bytes`]) and runs `body` on it.
fn with_parsed_module<R>(
    bytes: &[u8],
    name: &str,
    optimized: bool,
    body: impl FnOnce(&mut LlvmModule<'_>) -> Result<R, BridgeError>,
) -> Result<R, BridgeError> {
    let context = Context::create();
    let buffer = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(bytes, name);
    let module = context.create_module_from_ir(buffer).map_err(|message| BridgeError::Parse {
        path: name.to_owned(),
        message: message.to_string().trim().to_owned(),
    })?;
    let mut llvm_module = LlvmModule { context: &context, module };
    if optimized {
        llvm_module.remove_variant_annotations();
    }
    llvm_module.check_input(name)?;
    body(&mut llvm_module)
}

/// Parses and verifies `bytes` as [`with_module_from_bytes`] does, and
/// nothing else: what a child process runs to find out whether LLVM's
/// readers survive a file (a corrupt bitcode file can crash them).
pub fn check_module_bytes(bytes: &[u8], name: &str) -> Result<(), BridgeError> {
    with_module_from_bytes(bytes, name, |_| Ok(()))
}

/// Makes LLVM's fatal errors (`report_fatal_error`: `LLVM ERROR: ...`, after
/// which LLVM exits with status 1) print one line, `{prefix}{reason}`, instead.
pub fn report_llvm_fatal_errors_as(prefix: &str) {
    crate::raw::install_fatal_error_handler(prefix);
}

/// The first lines of an LLVM message (the verifier's: the problem, then the
/// instruction) as one line.
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .take(2)
        .collect::<Vec<_>>()
        .join(": ")
}

impl<'ctx> LlvmModule<'ctx> {
    /// The checks [`with_module_from_bytes`] runs on every input module.
    fn check_input(&mut self, path: &str) -> Result<(), BridgeError> {
        crate::raw::verify_module(RawModule::new(&self.module)).map_err(|message| {
            BridgeError::InvalidModule { path: path.to_owned(), message: one_line(&message) }
        })?;
        let triple = self.module.get_triple().as_str().to_string_lossy().into_owned();
        let x86 = triple.is_empty()
            || triple.starts_with("x86")
            || (triple.starts_with('i') && triple.get(2..4) == Some("86"));
        if x86 {
            let is_64_bit = triple.is_empty() || triple.starts_with("x86_64");
            self.drop_unknown_x86_target_names(is_64_bit)?;
        }
        Ok(())
    }

    /// See [`with_module_from_bytes`]: unknown target features and
    /// `tune-cpu` values are removed; an unknown `target-cpu` is an error
    /// (LLVM would stop with `64-bit code requested on a subtarget that
    /// doesn't support it`), and so is a processor without 64-bit mode in a
    /// 64-bit module.
    fn drop_unknown_x86_target_names(&mut self, is_64_bit: bool) -> Result<(), BridgeError> {
        use crate::x86_targets::{X86_32_BIT_CPUS, X86_CPUS, X86_FEATURES};
        for function in self.module.get_functions() {
            let attribute = |key: &str| {
                function
                    .get_string_attribute(AttributeLoc::Function, key)
                    .map(|attribute| attribute.get_string_value().to_string_lossy().into_owned())
            };
            let name = || function.get_name().to_string_lossy().into_owned();
            if let Some(cpu) = attribute("target-cpu") {
                if !X86_CPUS.contains(&cpu.as_str()) {
                    return Err(BridgeError::Function {
                        function: name(),
                        message: format!(
                            "target-cpu `{cpu}` is not an x86 processor LLVM 22 knows"
                        ),
                    });
                }
                if is_64_bit && X86_32_BIT_CPUS.contains(&cpu.as_str()) {
                    return Err(BridgeError::Function {
                        function: name(),
                        message: format!(
                            "target-cpu `{cpu}` has no 64-bit mode (the module is x86-64)"
                        ),
                    });
                }
            }
            if let Some(cpu) = attribute("tune-cpu") {
                if !X86_CPUS.contains(&cpu.as_str()) {
                    function.remove_string_attribute(AttributeLoc::Function, "tune-cpu");
                }
            }
            if let Some(features) = attribute("target-features") {
                let known: Vec<&str> = features
                    .split(',')
                    .filter(|feature| {
                        feature
                            .strip_prefix(['+', '-'])
                            .is_some_and(|name| X86_FEATURES.contains(&name))
                    })
                    .collect();
                let kept = known.join(",");
                if kept != features {
                    function.remove_string_attribute(AttributeLoc::Function, "target-features");
                    if !kept.is_empty() {
                        function.add_attribute(
                            AttributeLoc::Function,
                            self.context.create_string_attribute("target-features", &kept),
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// Functions defined in the module, with their `_ZGV` attributes.
    pub fn defined_functions(&self) -> Vec<ScalarFunctionInfo> {
        self.module
            .get_functions()
            .filter(|function| function.count_basic_blocks() > 0)
            .map(|function| scalar_function_info(&function))
            .collect()
    }

    /// Adds the `_ZGV...` variant names `variant_names` as attributes of the
    /// defined function `name` (those it lacks), as clang would have if the
    /// `declare simd` pragma had been on the definition. Returns how many
    /// were added; 0 if `name` is not defined here.
    pub fn add_variant_attributes(&mut self, name: &str, variant_names: &[String]) -> usize {
        let Some(function) = self.module.get_function(name) else { return 0 };
        if function.count_basic_blocks() == 0 {
            return 0;
        }
        let existing = scalar_function_info(&function).variant_names;
        let context = RawContext::new(self.context);
        let raw = RawValue::from_inkwell(&function);
        let mut added = 0;
        for variant in variant_names {
            if variant.starts_with("_ZGV") && !existing.contains(variant) {
                raw.add_function_attribute(
                    FUNCTION_ATTRIBUTE_INDEX,
                    context.string_attribute(variant, ""),
                );
                added += 1;
            }
        }
        added
    }

    /// The parameter count of the function `name` if it is defined here
    /// with local linkage (C's `static`: no other object calls it or its
    /// variants).
    pub fn local_function_arity(&self, name: &str) -> Option<usize> {
        let function = self.module.get_function(name)?;
        let defined = function.count_basic_blocks() > 0;
        let local = RawValue::from_inkwell(&function).has_local_linkage();
        (defined && local).then(|| function.count_params() as usize)
    }

    /// Replaces the `_ZGV` attribute `old` of the function `name` by `new`.
    /// Returns whether `old` was there.
    pub fn replace_variant_attribute(&mut self, name: &str, old: &str, new: &str) -> bool {
        let Some(function) = self.module.get_function(name) else { return false };
        if function.get_string_attribute(AttributeLoc::Function, old).is_none() {
            return false;
        }
        function.remove_string_attribute(AttributeLoc::Function, old);
        function
            .add_attribute(AttributeLoc::Function, self.context.create_string_attribute(new, ""));
        true
    }

    /// Every function of the module, defined or only declared, that carries
    /// `_ZGV` variant attributes: the vector variants a call of it may use.
    /// clang puts the attributes of `#pragma omp declare simd` on
    /// declarations too; the bodies come from Lanewise (this or another
    /// translation unit) or from GCC's simd clones.
    pub fn functions_with_variants(&self) -> Vec<ScalarFunctionInfo> {
        self.module
            .get_functions()
            .map(|function| scalar_function_info(&function))
            .filter(|info| !info.variant_names.is_empty())
            .collect()
    }

    /// The module's data layout (sizes and alignments).
    pub fn data_layout(&self) -> DataLayout {
        let layout_string = self.module.get_data_layout().as_str().to_string_lossy().into_owned();
        let target_data = TargetData::create(&layout_string);
        DataLayout {
            pointer_bytes: u64::from(target_data.get_pointer_byte_size(None)),
            i64_align: u64::from(target_data.get_abi_alignment(&self.context.i64_type())),
        }
    }

    /// The defined function `name`.
    fn defined_function(&self, name: &str) -> Result<FunctionValue<'ctx>, BridgeError> {
        self.module
            .get_function(name)
            .filter(|function| function.count_basic_blocks() > 0)
            .ok_or_else(|| BridgeError::UnknownFunction(name.to_owned()))
    }

    /// A target machine for the module's triple (the host's if it has none),
    /// so that passes see the real cost model; per-function `target-cpu` and
    /// `target-features` attributes still apply on top of it.
    fn target_machine(&self) -> Result<Rc<TargetMachine>, BridgeError> {
        Target::initialize_x86(&InitializationConfig::default());
        let module_triple = self.module.get_triple();
        let triple = if module_triple.as_str().to_bytes().is_empty() {
            TargetMachine::get_default_triple()
        } else {
            module_triple
        };
        let triple_text = triple.as_str().to_string_lossy().into_owned();
        let cached = TARGET_MACHINES.with_borrow(|machines| machines.get(&triple_text).cloned());
        if let Some(machine) = cached {
            return Ok(machine);
        }
        let target = Target::from_triple(&triple).map_err(|message| BridgeError::Target {
            triple: triple_text.clone(),
            message: message.to_string(),
        })?;
        let machine = target
            .create_target_machine(
                &triple,
                "generic",
                "",
                OptimizationLevel::Default,
                RelocMode::PIC,
                CodeModel::Default,
            )
            .ok_or_else(|| BridgeError::Target {
                triple: triple_text.clone(),
                message: "LLVM could not create it".to_owned(),
            })?;
        let machine = Rc::new(machine);
        TARGET_MACHINES.with_borrow_mut(|machines| machines.insert(triple_text, machine.clone()));
        Ok(machine)
    }

    /// Whether LLVM's code generator expands a masked gather into scalar
    /// loads, one behind a branch per lane, in a function compiled like
    /// `function` with `isa_features` added (a variant of it), rather than
    /// emitting a gather instruction. LLVM 22 emits them on AVX-512 targets
    /// and on AVX2 targets tuned for Skylake or later Intel cores, and
    /// expands them elsewhere (`x86-64-v3`, Haswell, AMD Zen 1-3). The
    /// answer comes from the code generator itself: a probe function with
    /// `function`'s `target-cpu`, `tune-cpu` and the merged
    /// `target-features` is compiled to assembly, which either holds a
    /// gather instruction or not. Answers are cached per attribute set.
    /// (`lanewise_transform::choose_gather_forms` serves such targets.)
    pub fn expands_masked_gathers(
        &self,
        function: &str,
        isa_features: &[&str],
    ) -> Result<bool, BridgeError> {
        let scalar_features = self.function_target_features(function);
        let mut attributes = String::new();
        for key in ["target-cpu", "tune-cpu"] {
            if let Some(value) = self.function_attribute(function, key) {
                attributes.push_str(&format!("\"{key}\"=\"{value}\" "));
            }
        }
        let features = crate::lower::merge_target_features(&scalar_features, isa_features);
        attributes.push_str(&format!("\"target-features\"=\"{features}\""));
        let machine = self.target_machine()?;
        let key = format!("{} {attributes}", machine.get_triple().as_str().to_string_lossy());
        if let Some(expands) = GATHER_PROBES.with_borrow(|probes| probes.get(&key).copied()) {
            return Ok(expands);
        }
        let probe = format!(
            "define <8 x i32> @probe(<8 x ptr> %addrs, <8 x i1> %mask) #0 {{\n\
             \x20 %v = call <8 x i32> @llvm.masked.gather.v8i32.v8p0(<8 x ptr> align 4 %addrs, \
             <8 x i1> %mask, <8 x i32> poison)\n\
             \x20 ret <8 x i32> %v\n\
             }}\n\
             attributes #0 = {{ {attributes} }}\n"
        );
        let context = Context::create();
        let buffer = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(
            probe.as_bytes(),
            "gather_probe",
        );
        let module = context.create_module_from_ir(buffer).map_err(|message| {
            BridgeError::Parse { path: "gather_probe".to_owned(), message: message.to_string() }
        })?;
        module.set_triple(&machine.get_triple());
        let assembly = machine
            .write_to_memory_buffer(&module, inkwell::targets::FileType::Assembly)
            .map_err(|message| BridgeError::Target {
                triple: machine.get_triple().as_str().to_string_lossy().into_owned(),
                message: format!("compiling the gather probe: {message}"),
            })?;
        let text = String::from_utf8_lossy(assembly.as_slice());
        // `vpgatherdd`, `vgatherdps` and their kin (AVX2, AVX-512).
        let expands = !(text.contains("vpgather") || text.contains("vgather"));
        GATHER_PROBES.with_borrow_mut(|probes| probes.insert(key, expands));
        Ok(expands)
    }

    /// Runs a function pass pipeline on the defined function `name`.
    pub fn run_function_pipeline(&mut self, name: &str, pipeline: &str) -> Result<(), BridgeError> {
        let function = self.defined_function(name)?;
        let machine = self.target_machine()?;
        function.run_passes(pipeline, &machine, PassBuilderOptions::create()).map_err(|message| {
            BridgeError::Passes {
                pipeline: format!("{pipeline} on `{name}`"),
                message: message.to_string(),
            }
        })
    }

    /// Runs the canonicalizing pipeline (mem2reg, SROA, simplifycfg,
    /// loop-simplify, LCSSA) on the function `name` before lifting.
    ///
    /// `optnone` and `noinline` (which clang -O0 puts on every function, and
    /// which make every pass skip it) are removed from the function first.
    pub fn canonicalize(&mut self, name: &str) -> Result<(), BridgeError> {
        let function = self.defined_function(name)?;
        for attribute in ["optnone", "noinline"] {
            function.remove_enum_attribute(
                AttributeLoc::Function,
                Attribute::get_named_enum_kind_id(attribute),
            );
        }
        self.run_function_pipeline(name, CANONICALIZE_PIPELINE)
    }

    /// Adds the SIMD-utilization runtime: the two `i64` counters that
    /// instrumented variants add to (weak, so every instrumented object of a
    /// program shares one pair) and a destructor that prints
    /// `lanewise utilization R (A active lanes of S lane slots)` on stderr when
    /// the program exits. Does nothing if the module already has them.
    pub fn add_utilization_runtime(&mut self) -> Result<(), BridgeError> {
        if self.module.get_function(UTILIZATION_REPORT_FUNCTION).is_some() {
            return Ok(());
        }
        self.link_runtime(UTILIZATION_RUNTIME, "utilization runtime", UTILIZATION_REPORT_FUNCTION)
    }

    /// Defines the exact vector math functions ([`lanewise_ir::exact_math`])
    /// that the function `caller`, just lowered, calls: a copy of its own
    /// per function, internal, named after both (`__lanewise_expf_exact_v8.f`),
    /// with the caller's target attributes, so that it compiles for the
    /// caller's features and takes its vectors in the same registers
    /// (an AVX-512 variant's `<16 x float>` in one zmm register). The
    /// declaration widening called is replaced by the copy. Their vector
    /// path repeats glibc's x86-64 functions, so it is taken only for a
    /// `x86_64-*-linux-gnu` triple; for another target (musl, another libm)
    /// each active lane calls the scalar function ([`crate::exact_math`]).
    pub fn link_exact_math(&mut self, caller: &str) -> Result<(), BridgeError> {
        let triple = self.module.get_triple().as_str().to_string_lossy().into_owned();
        let runs_glibc = triple.starts_with("x86_64-") && triple.contains("-linux-gnu");
        // Declarations only: each is replaced right after the one function
        // that calls it is lowered, so all its uses are `caller`'s.
        let wanted: Vec<(FunctionValue<'ctx>, ExactMathFunction, u32)> = self
            .module
            .get_functions()
            .filter(|function| function.count_basic_blocks() == 0)
            .filter_map(|function| {
                let name = function.get_name().to_string_lossy().into_owned();
                let (math, lanes) = ExactMathFunction::parse_vector_name(&name)?;
                Some((function, math, lanes))
            })
            .collect();
        let Some(caller_function) = self.module.get_function(caller) else { return Ok(()) };
        for (declaration, math, lanes) in wanted {
            let name = format!("{}.{caller}", math.vector_name(lanes));
            let text = crate::exact_math::exact_math_module(math, lanes, &name, runs_glibc);
            self.link_runtime(&text, "exact vector math", &name)?;
            let Some(copy) = self.module.get_function(&name) else { continue };
            copy.set_linkage(inkwell::module::Linkage::Internal);
            copy.as_global_value().set_visibility(inkwell::GlobalVisibility::Default);
            for key in CALLER_TARGET_ATTRIBUTES {
                if let Some(attribute) =
                    caller_function.get_string_attribute(AttributeLoc::Function, key)
                {
                    copy.add_attribute(AttributeLoc::Function, attribute);
                }
            }
            let (declaration, copy) =
                (RawValue::from_inkwell(&declaration), RawValue::from_inkwell(&copy));
            declaration.replace_all_uses_with(copy);
            declaration.delete_function();
        }
        Ok(())
    }

    /// Parses `text` (LLVM IR) and links it into the module; `what` and
    /// `function` name it in errors.
    fn link_runtime(&mut self, text: &str, what: &str, function: &str) -> Result<(), BridgeError> {
        let buffer = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(
            text.as_bytes(),
            what,
        );
        // The runtimes name their values; a context that discards names
        // (clang's, for the pass plugin) keeps them while parsing.
        let context = RawContext::new(self.context);
        let discarding = context.discards_value_names();
        context.set_discard_value_names(false);
        let parsed = self.context.create_module_from_ir(buffer);
        context.set_discard_value_names(discarding);
        let runtime = parsed.map_err(|message| BridgeError::Parse {
            path: format!("<{what}>"),
            message: message.to_string(),
        })?;
        runtime.set_triple(&self.module.get_triple());
        runtime.set_data_layout(&self.module.get_data_layout());
        self.module.link_in_module(runtime).map_err(|message| BridgeError::Function {
            function: function.to_owned(),
            message: format!("cannot link the {what}: {message}"),
        })
    }

    /// Points every use of the declared function `from` at the function
    /// `to` (with the same signature) and deletes the declaration: the
    /// safety net's per-lane call of the scalar function, lowered under a
    /// name of its own so that widening calls it once for all lanes. The
    /// calls of `from` in `caller` take `to`'s calling convention and
    /// argument extensions, and become `noinline`: the scalar function
    /// inlined into the variant's loop over the lanes ran 10-17% slower
    /// than the scalar program's own calls of it (tree walks, a run scan).
    pub fn redirect_calls(&mut self, caller: &str, from: &str, to: &str) {
        let context = RawContext::new(self.context);
        let module = RawModule::new(&self.module);
        let (Some(from), Some(to)) = (module.named_function(from), module.named_function(to))
        else {
            return;
        };
        if let Some(caller) = module.named_function(caller) {
            let noinline = context.enum_attribute(context.enum_attribute_kind("noinline"), 0);
            // The ABI extensions `to` expects of its arguments and result
            // (`zeroext` bools, `signext` shorts), as lowering copies them.
            let positions: Vec<u32> = std::iter::once(RETURN_ATTRIBUTE_INDEX)
                .chain((0..to.params().len() as u32).map(param_attribute_index))
                .collect();
            let extensions: Vec<(u32, u32)> = ["signext", "zeroext"]
                .into_iter()
                .map(|name| context.enum_attribute_kind(name))
                .flat_map(|kind| positions.iter().map(move |&position| (position, kind)))
                .filter(|&(position, kind)| to.enum_attribute_value(position, kind).is_some())
                .collect();
            for block in caller.blocks() {
                for inst in block.instructions() {
                    if inst.is_call() && inst.called_value() == Some(from) {
                        inst.add_call_site_attribute(FUNCTION_ATTRIBUTE_INDEX, noinline);
                        // clang gives internal functions `fastcc`: a call
                        // with another convention is undefined behaviour.
                        inst.set_call_convention(to.call_convention());
                        for &(position, kind) in &extensions {
                            inst.add_call_site_attribute(position, context.enum_attribute(kind, 0));
                        }
                    }
                }
            }
        }
        from.replace_all_uses_with(to);
        from.delete_function();
    }

    /// Adds the thread-local record `state` of a variant's run-time safety
    /// net (`[8 x i64]`, zero), the C string `name_symbol` holding
    /// `variant` (what `LANEWISE_NET_TRACE` prints) and, once per module,
    /// the runtime that keeps them ([`SAFETY_NET_RUNTIME`]:
    /// `__lanewise_net_begin`, `__lanewise_net_end`).
    pub fn add_safety_net_state(
        &mut self,
        state: &str,
        name_symbol: &str,
        variant: &str,
    ) -> Result<(), BridgeError> {
        if self.module.get_function(SAFETY_NET_BEGIN).is_none() {
            self.link_runtime(SAFETY_NET_RUNTIME, "safety net runtime", SAFETY_NET_BEGIN)?;
            for function in SAFETY_NET_FUNCTIONS {
                if let Some(function) = self.module.get_function(function) {
                    function.set_linkage(inkwell::module::Linkage::Internal);
                    function.as_global_value().set_visibility(inkwell::GlobalVisibility::Default);
                }
            }
        }
        if self.module.get_global(state).is_none() {
            let record = self.context.i64_type().array_type(8);
            let global = self.module.add_global(record, None, state);
            global.set_linkage(inkwell::module::Linkage::Internal);
            global.set_thread_local(true);
            global.set_initializer(&record.const_zero());
            global.set_alignment(8);
        }
        if self.module.get_global(name_symbol).is_none() {
            let text = self.context.const_string(variant.as_bytes(), true);
            let global = self.module.add_global(text.get_type(), None, name_symbol);
            global.set_linkage(inkwell::module::Linkage::Private);
            global.set_constant(true);
            global.set_unnamed_addr(true);
            global.set_initializer(&text);
        }
        Ok(())
    }

    /// Lifts the defined function `name` after canonicalizing a copy of the
    /// module ([`LlvmModule::canonicalize`], then [`SCALARIZE_PIPELINE`]); the module's own function is
    /// left exactly as it was, so the scalar code in the output is the input's.
    pub fn lift_canonical(&self, name: &str) -> Result<Function, BridgeError> {
        let mut copy = self.copy();
        copy.canonicalize(name)?;
        copy.scalarize(name)?;
        copy.lift(name)
    }

    /// A copy of the module in the same context (the steps of
    /// [`LlvmModule::lift_canonical`] run on one).
    pub fn copy(&self) -> LlvmModule<'ctx> {
        LlvmModule { context: self.context, module: self.module.clone() }
    }

    /// Runs [`SCALARIZE_PIPELINE`] on the defined function `name`.
    pub fn scalarize(&mut self, name: &str) -> Result<(), BridgeError> {
        self.run_function_pipeline(name, SCALARIZE_PIPELINE)
    }

    /// Lifts the defined function `name` into the Lanewise IR.
    pub fn lift(&self, name: &str) -> Result<Function, BridgeError> {
        let function = self.defined_function(name)?;
        crate::lift::lift_function(
            RawContext::new(self.context),
            RawValue::from_inkwell(&function),
            &self.data_layout(),
        )
    }

    /// Adds `func` to the module as a new function with external linkage,
    /// copying the attributes of the scalar function `scalar_name` that still
    /// apply and adding `target_features` (e.g. `["+avx2"]`).
    ///
    /// The new function is checked by the Lanewise verifier before and by the
    /// LLVM verifier after lowering; on error it is removed again.
    pub fn add_vector_function(
        &mut self,
        func: &Function,
        scalar_name: &str,
        target_features: &[&str],
    ) -> Result<(), BridgeError> {
        crate::lower::lower_function(
            RawContext::new(self.context),
            RawModule::new(&self.module),
            func,
            scalar_name,
            target_features,
        )?;
        self.link_exact_math(&func.name)
    }

    /// Runs [`CLEANUP_PIPELINE`] on each of the functions `names` (typically
    /// the functions [`LlvmModule::add_vector_function`] added), leaving the
    /// rest of the module as it is.
    pub fn cleanup(&mut self, names: &[String]) -> Result<(), BridgeError> {
        for name in names {
            self.run_function_pipeline(name, CLEANUP_PIPELINE)?;
        }
        Ok(())
    }

    /// Runs [`POST_SLP_PIPELINE`] on each of the functions `names`.
    pub fn run_post_slp_pipeline(&mut self, names: &[String]) -> Result<(), BridgeError> {
        for name in names {
            self.run_function_pipeline(name, POST_SLP_PIPELINE)?;
        }
        Ok(())
    }

    /// Runs the LLVM verifier on the whole module.
    pub fn verify(&self) -> Result<(), BridgeError> {
        crate::raw::verify_module(RawModule::new(&self.module)).map_err(BridgeError::Verify)
    }

    /// Runs an LLVM new-pass-manager pipeline (`"default<O3>"`, ...) on the module.
    pub fn run_pipeline(&mut self, pipeline: &str) -> Result<(), BridgeError> {
        let machine = self.target_machine()?;
        self.module.run_passes(pipeline, &machine, PassBuilderOptions::create()).map_err(
            |message| BridgeError::Passes {
                pipeline: pipeline.to_owned(),
                message: message.to_string(),
            },
        )
    }

    /// Writes the module. The bytes are produced in memory and written by
    /// Rust, so that a failed write (a full disk) is an error naming the
    /// file rather than LLVM's fatal `IO failure on output stream`.
    pub fn write(&self, path: &Path, format: OutputFormat) -> Result<(), BridgeError> {
        let write = |bytes: &[u8]| {
            std::fs::write(path, bytes).map_err(|error| BridgeError::Write {
                path: path.display().to_string(),
                message: error.to_string(),
            })
        };
        match format {
            OutputFormat::Text => write(self.module.print_to_string().to_bytes()),
            OutputFormat::Bitcode => write(self.module.write_bitcode_to_memory().as_slice()),
        }
    }

    /// The module as LLVM IR text.
    pub fn to_text(&self) -> String {
        self.module.print_to_string().to_string()
    }

    /// One function (defined or declared) as LLVM IR text.
    pub fn function_text(&self, name: &str) -> Result<String, BridgeError> {
        let function = self
            .module
            .get_function(name)
            .ok_or_else(|| BridgeError::UnknownFunction(name.to_owned()))?;
        Ok(RawValue::from_inkwell(&function).to_text())
    }

    /// The `target-features` attribute of the function `name` (empty if it
    /// has none or there is no such function).
    pub fn function_target_features(&self, name: &str) -> String {
        self.module
            .get_function(name)
            .map(|function| target_features(&function))
            .unwrap_or_default()
    }

    /// Removes the `vector-function-abi-variant` attributes of every call:
    /// for a module LLVM's loop vectorizer has seen, whose other passes may
    /// have left them stale (see [`with_optimized_module`]).
    pub fn remove_variant_annotations(&mut self) {
        for function in self.module.get_functions() {
            for block in RawValue::from_inkwell(&function).blocks() {
                for inst in block.instructions() {
                    inst.remove_call_site_string_attribute(
                        FUNCTION_ATTRIBUTE_INDEX,
                        "vector-function-abi-variant",
                    );
                }
            }
        }
    }

    /// The string attribute `key` of the function `name` (`target-cpu`,
    /// `prefer-vector-width`), if it has one.
    pub fn function_attribute(&self, name: &str, key: &str) -> Option<String> {
        let function = self.module.get_function(name)?;
        let attribute = function.get_string_attribute(AttributeLoc::Function, key)?;
        Some(attribute.get_string_value().to_string_lossy().into_owned())
    }

    /// The defined functions with loops marked for vectorization that LLVM
    /// did not vectorize (`#pragma omp simd` loops left scalar), in module order.
    pub fn simd_loop_functions(&self) -> Vec<SimdLoopFunction> {
        let context = RawContext::new(self.context);
        let loop_kind = context.metadata_kind("llvm.loop");
        self.module
            .get_functions()
            .filter(|function| function.count_basic_blocks() > 0)
            .filter_map(|function| {
                let raw = RawValue::from_inkwell(&function);
                let hints: Vec<_> = raw
                    .blocks()
                    .into_iter()
                    .flat_map(|block| block.instructions())
                    .filter_map(|inst| inst.loop_metadata_hints(loop_kind))
                    .collect();
                let wants = hints.iter().any(LoopHints::wants_vectorization);
                let has_vectorized_loop = hints.iter().any(|hints| hints.is_vectorized);
                wants.then(|| SimdLoopFunction {
                    name: function.get_name().to_string_lossy().into_owned(),
                    has_vector_code: has_vectorized_loop && raw.has_vector_instructions(),
                    target_features: target_features(&function),
                })
            })
            .collect()
    }

    /// Keeps LLVM's simplification passes from unrolling the loops that
    /// Lanewise will vectorize before it sees them (the pass plugin, at the
    /// start of clang's pipeline; what `lanewise cc` does with `-mllvm
    /// -unroll-full-max-count=0` in its step 1, but for these loops only):
    /// a loop of a small constant trip count was fully unrolled, in an `omp
    /// simd` loop or in a `declare simd` function, and its iterations were
    /// straight-line code to widen. The loops are those of functions with
    /// `_ZGV` attributes, of functions with a loop that asks for
    /// vectorization, and of the functions these call (which the inliner
    /// may put into them), found as the back edges of a depth-first search;
    /// each that says nothing about unrolling and is not vectorized gets
    /// `llvm.loop.unroll.disable` and [`HELD_UNROLLING`] (a loop ID is made
    /// where there is none), which
    /// [`LlvmModule::release_simd_loop_unrolling`] takes back. Returns how
    /// many latches it changed.
    pub fn hold_simd_loop_unrolling(&mut self) -> usize {
        let context = RawContext::new(self.context);
        let loop_kind = context.metadata_kind("llvm.loop");
        let functions: Vec<RawValue<'_>> = self
            .module
            .get_functions()
            .filter(|function| function.count_basic_blocks() > 0)
            .map(|function| RawValue::from_inkwell(&function))
            .collect();
        let mut held: HashSet<RawValue<'_>> = HashSet::new();
        for &function in &functions {
            let declare_simd = function
                .function_attributes(FUNCTION_ATTRIBUTE_INDEX)
                .into_iter()
                .any(|attribute| {
                    matches!(attribute_contents(attribute),
                    AttributeContents::String { key, .. } if key.starts_with("_ZGV"))
                });
            let simd_loop =
                function.blocks().into_iter().flat_map(|block| block.instructions()).any(|inst| {
                    inst.loop_metadata_hints(loop_kind)
                        .is_some_and(|hints| hints.wants_vectorization())
                });
            if declare_simd || simd_loop {
                held.insert(function);
                let calls = function.blocks().into_iter().flat_map(|block| block.instructions());
                held.extend(
                    calls.filter_map(RawValue::called_value).filter(|callee| callee.is_function()),
                );
            }
        }
        let mut rebuilt = HashMap::new();
        let mut changed = 0;
        for function in functions.into_iter().filter(|function| held.contains(function)) {
            for (latch, header) in back_edges(function) {
                let keys = latch.loop_metadata_keys(loop_kind).unwrap_or_default();
                let says_how = keys.iter().any(|key| {
                    key.starts_with("llvm.loop.unroll.") || key == "llvm.loop.isvectorized"
                });
                if !says_how {
                    latch.edit_loop_metadata(
                        context,
                        loop_kind,
                        &[],
                        &["llvm.loop.unroll.disable", HELD_UNROLLING],
                        header.id(),
                        &mut rebuilt,
                    );
                    changed += 1;
                }
            }
        }
        changed
    }

    /// Removes `llvm.loop.parallel_accesses` from the loops that still ask
    /// to be vectorized and are not (the `omp simd` loops Lanewise left
    /// scalar), so that LLVM's loop vectorizer, which the loops' metadata
    /// forces on, vectorizes them only where its own dependence analysis
    /// proves it safe. clang puts a variable declared in the loop body in
    /// one `alloca` before the loop and marks its accesses parallel too, so
    /// a vectorized loop shared it between the lanes: LLVM 22 miscompiles
    /// such a loop (plain `clang-22 -O2 -fopenmp-simd` as well; fuzz seed
    /// 55011 and 52841, tests/fuzz_regressions/024 and 025). Returns how many latches
    /// changed.
    pub fn drop_parallel_access_assertions(&mut self) -> usize {
        let context = RawContext::new(self.context);
        let loop_kind = context.metadata_kind("llvm.loop");
        let mut rebuilt = HashMap::new();
        let mut changed = 0;
        for function in self.module.get_functions() {
            let raw = RawValue::from_inkwell(&function);
            for inst in raw.blocks().into_iter().flat_map(|block| block.instructions()) {
                let asks = inst
                    .loop_metadata_hints(loop_kind)
                    .is_some_and(|hints| hints.wants_vectorization());
                let keys = inst.loop_metadata_keys(loop_kind).unwrap_or_default();
                if asks && keys.iter().any(|key| key == "llvm.loop.parallel_accesses") {
                    inst.edit_loop_metadata(
                        context,
                        loop_kind,
                        &["llvm.loop.parallel_accesses"],
                        &[],
                        0,
                        &mut rebuilt,
                    );
                    changed += 1;
                }
            }
        }
        changed
    }

    /// Takes back what [`LlvmModule::hold_simd_loop_unrolling`] added, so
    /// that the loops Lanewise left scalar (and its own) unroll as clang
    /// would unroll them. Returns how many latches it changed.
    pub fn release_simd_loop_unrolling(&mut self) -> usize {
        let context = RawContext::new(self.context);
        let loop_kind = context.metadata_kind("llvm.loop");
        let mut rebuilt = HashMap::new();
        let mut changed = 0;
        for function in self.module.get_functions() {
            let raw = RawValue::from_inkwell(&function);
            for inst in raw.blocks().into_iter().flat_map(|block| block.instructions()) {
                let keys = inst.loop_metadata_keys(loop_kind).unwrap_or_default();
                if keys.iter().any(|key| key == HELD_UNROLLING) {
                    inst.edit_loop_metadata(
                        context,
                        loop_kind,
                        &["llvm.loop.unroll.disable", HELD_UNROLLING],
                        &[],
                        0,
                        &mut rebuilt,
                    );
                    changed += 1;
                }
            }
        }
        changed
    }

    /// Adds `func` as an internal, `alwaysinline` function (a helper only
    /// this module calls, e.g. a vectorized loop body): lowered like
    /// [`LlvmModule::add_vector_function`], with the attributes of `like`.
    pub fn add_internal_function(
        &mut self,
        func: &Function,
        like: &str,
        target_features: &[&str],
    ) -> Result<(), BridgeError> {
        let context = RawContext::new(self.context);
        let function = crate::lower::lower_function(
            context,
            RawModule::new(&self.module),
            func,
            like,
            target_features,
        )?;
        function.set_linkage_internal();
        let always_inline = context.enum_attribute_kind("alwaysinline");
        function.add_function_attribute(
            FUNCTION_ATTRIBUTE_INDEX,
            context.enum_attribute(always_inline, 0),
        );
        self.link_exact_math(&func.name)
    }

    /// Replaces the body of the defined function `func.name` by `func`
    /// (same signature): `func` is lowered into a temporary function, whose
    /// blocks then move into the original, so that linkage, attributes,
    /// personality and debug subprogram stay. The temporary gets `func`'s
    /// personality (`Function::personality`, lifted from the original), which
    /// its landing pads need to pass the LLVM verifier. Calls and invokes of
    /// the new body get a line-0 debug location when the function has a
    /// subprogram. On error the original is left unchanged.
    pub fn replace_function_body(&mut self, func: &Function) -> Result<(), BridgeError> {
        let original = self.defined_function(&func.name)?;
        let mut temporary = func.clone();
        temporary.name = format!("{}.lanewise.body", func.name);
        let context = RawContext::new(self.context);
        let donor = crate::lower::lower_function(
            context,
            RawModule::new(&self.module),
            &temporary,
            &func.name,
            &[],
        )?;
        let original = RawValue::from_inkwell(&original);
        if original.function_type() != donor.function_type() {
            donor.delete_function();
            return Err(BridgeError::Function {
                function: func.name.clone(),
                message: "the new body has another signature".to_owned(),
            });
        }
        // The new body may call vector functions the old one did not (the
        // vectorized loop body, when not inlined, or the variants it calls
        // once it is): their registers need the width that lowering gave
        // the temporary (see `lower::min_legal_vector_bits`).
        let min_legal_width = string_function_attribute(donor, "min-legal-vector-width");
        if let Some(bits) = min_legal_width.and_then(|width| width.parse::<u64>().ok()) {
            raise_min_legal_vector_width(context, original, bits);
        }
        original.replace_body_with(donor, context);
        // Exact vector math the new body calls (none today: rewritten loops
        // call their widened bodies as functions of their own) gets its
        // copy like any caller's.
        self.link_exact_math(&func.name)
    }

    /// Deletes the function `name` (defined or declared) if it exists.
    pub fn delete_function(&mut self, name: &str) {
        if let Some(function) = self.module.get_function(name) {
            RawValue::from_inkwell(&function).delete_function();
        }
    }

    /// The parameter and result types of the function `name` (defined or
    /// declared).
    pub fn function_signature(
        &self,
        name: &str,
    ) -> Result<(Vec<lanewise_ir::Type>, lanewise_ir::Type), BridgeError> {
        let function = RawModule::new(&self.module)
            .named_function(name)
            .ok_or_else(|| BridgeError::UnknownFunction(name.to_owned()))?;
        let signature = function.function_type().and_then(|ty| ty.function_signature());
        let unsupported = |message: String| BridgeError::Function {
            function: name.to_owned(),
            message: format!("signature: {message}"),
        };
        let (ret, params, _) = signature.ok_or_else(|| unsupported("not a function".into()))?;
        let params = params
            .into_iter()
            .map(crate::lift::lift_type)
            .collect::<Result<Vec<_>, _>>()
            .map_err(unsupported)?;
        Ok((params, crate::lift::lift_type(ret).map_err(unsupported)?))
    }

    /// Whether the function `name` returns a struct through a pointer
    /// parameter (`sret`, as clang returns structs over 16 bytes).
    pub fn returns_through_pointer(&self, name: &str) -> bool {
        let Some(function) = RawModule::new(&self.module).named_function(name) else {
            return false;
        };
        let sret_kind = RawContext::new(self.context).enum_attribute_kind("sret");
        (0..function.params().len()).any(|index| {
            let attribute_index = crate::raw::param_attribute_index(index as u32);
            function.function_type_attribute(attribute_index, sret_kind).is_some()
        })
    }

    /// For each parameter of the function `name`: the bytes of the struct it
    /// points to if it is passed `byval` (the callee's copy of a struct
    /// argument), else `None`.
    pub fn byval_param_sizes(&self, name: &str) -> Result<Vec<Option<u64>>, BridgeError> {
        let function = RawModule::new(&self.module)
            .named_function(name)
            .ok_or_else(|| BridgeError::UnknownFunction(name.to_owned()))?;
        let byval_kind = RawContext::new(self.context).enum_attribute_kind("byval");
        let data_layout = self.data_layout();
        let mut sizes = Vec::new();
        for index in 0..function.params().len() {
            let attribute_index = crate::raw::param_attribute_index(index as u32);
            let size = match function.function_type_attribute(attribute_index, byval_kind) {
                Some(ty) => {
                    let ty =
                        crate::lift::lift_type(ty).map_err(|message| BridgeError::Function {
                            function: name.to_owned(),
                            message: format!("byval parameter {index}: {message}"),
                        })?;
                    Some(data_layout.alloc_size(&ty))
                }
                None => None,
            };
            sizes.push(size);
        }
        Ok(sizes)
    }

    /// Declares the function `name` with this signature unless the module
    /// has a symbol of that name. Returns whether the module now has a
    /// function `name` of exactly this type.
    pub fn declare_function(
        &mut self,
        name: &str,
        params: &[lanewise_ir::Type],
        ret: &lanewise_ir::Type,
    ) -> bool {
        let context = RawContext::new(self.context);
        let module = RawModule::new(&self.module);
        let param_types: Vec<_> =
            params.iter().map(|ty| crate::lower::lower_type(context, ty)).collect();
        let function_type =
            context.function_type(crate::lower::lower_type(context, ret), &param_types);
        match module.named_function(name) {
            Some(function) => function.function_type() == Some(function_type),
            None if module.named_symbol(name).is_some() => false,
            None => {
                module.add_function(name, function_type);
                true
            }
        }
    }

    /// Keeps the functions `names` (declarations, typically) in the module
    /// through every optimization: they are added to `@llvm.compiler.used`,
    /// as LLVM's own `inject-tli-mappings` does for the vector functions it
    /// names in `vector-function-abi-variant` attributes. Unknown names are
    /// ignored.
    pub fn keep_functions(&mut self, names: &[String]) {
        let module = RawModule::new(&self.module);
        let functions: Vec<_> =
            names.iter().filter_map(|name| module.named_function(name)).collect();
        if !functions.is_empty() {
            module.append_to_compiler_used(RawContext::new(self.context), &functions);
        }
    }

    /// Sets the string attribute `key` on every call of the function
    /// `callee` in the defined functions that are not vector variants (whose
    /// names do not start with `_ZGV`): its value is the comma-separated list
    /// of the `values` whose required target features (`+avx2`, ...) the
    /// calling function's `target-features` attribute all enable (`+sse2` is
    /// implied on x86-64), in the order given. Calls in functions that enable
    /// none are left alone. A function with annotated calls gets a
    /// `min-legal-vector-width` of at least the widest `vector_bits` of the
    /// values chosen for it: the calls that the attribute lets LLVM make
    /// pass vectors that wide in registers (see `lower::min_legal_vector_bits`).
    /// Returns the number of calls annotated.
    pub fn annotate_calls(
        &mut self,
        callee: &str,
        key: &str,
        values: &[CallAnnotation<'_>],
    ) -> usize {
        let context = RawContext::new(self.context);
        let Some(target) = RawModule::new(&self.module).named_function(callee) else {
            return 0;
        };
        let mut annotated = 0;
        for function in self.module.get_functions() {
            if function.get_name().to_bytes().starts_with(b"_ZGV") {
                continue;
            }
            let raw_function = RawValue::from_inkwell(&function);
            let features =
                string_function_attribute(raw_function, "target-features").unwrap_or_default();
            let enabled: Vec<&str> = features.split(',').collect();
            let chosen: Vec<&CallAnnotation<'_>> = values
                .iter()
                .filter(|annotation| {
                    annotation
                        .required_features
                        .iter()
                        .all(|feature| *feature == "+sse2" || enabled.contains(feature))
                })
                .collect();
            if chosen.is_empty() {
                continue;
            }
            let value =
                chosen.iter().map(|annotation| annotation.value.as_str()).collect::<Vec<_>>();
            let value = value.join(",");
            let before = annotated;
            for block in raw_function.blocks() {
                for inst in block.instructions() {
                    if inst.is_call() && inst.called_value() == Some(target) {
                        let attribute = context.string_attribute(key, &value);
                        inst.add_call_site_attribute(FUNCTION_ATTRIBUTE_INDEX, attribute);
                        annotated += 1;
                    }
                }
            }
            let widest = chosen.iter().map(|annotation| annotation.vector_bits).max();
            if annotated > before {
                raise_min_legal_vector_width(context, raw_function, widest.unwrap_or(0));
            }
        }
        annotated
    }

    /// Gives the defined function `name`, a fallback of a variant of
    /// `scalar_name`, weak linkage: a definition the linker drops when
    /// another object defines the symbol. The fallback of a `static`
    /// function stays local: no other object can define (or call) that
    /// variant, and another file's `static` function of the same name has
    /// fallbacks of its own.
    pub fn set_fallback_linkage(
        &mut self,
        name: &str,
        scalar_name: &str,
    ) -> Result<(), BridgeError> {
        let function = self.defined_function(name)?;
        let scalar = RawModule::new(&self.module)
            .named_function(scalar_name)
            .ok_or_else(|| BridgeError::UnknownFunction(scalar_name.to_owned()))?;
        if scalar.has_local_linkage() {
            function.set_linkage(inkwell::module::Linkage::Internal);
        } else {
            function.set_linkage(inkwell::module::Linkage::WeakAny);
        }
        Ok(())
    }

    /// Gives the defined function `name` internal linkage (a function only
    /// this module calls).
    pub fn make_internal(&mut self, name: &str) -> Result<(), BridgeError> {
        self.defined_function(name)?.set_linkage(inkwell::module::Linkage::Internal);
        Ok(())
    }

    /// Marks the defined function `name` `noinline`.
    pub fn make_noinline(&mut self, name: &str) -> Result<(), BridgeError> {
        let function = self.defined_function(name)?;
        let kind = Attribute::get_named_enum_kind_id("noinline");
        function.add_attribute(AttributeLoc::Function, self.context.create_enum_attribute(kind, 0));
        Ok(())
    }

    /// Names of all functions defined in the module, in module order.
    pub fn defined_function_names(&self) -> Vec<String> {
        self.defined_functions().into_iter().map(|info| info.name).collect()
    }

    /// The functions `__attribute__((annotate(annotation)))` names: the
    /// entries of clang's `@llvm.global.annotations` (`{ ptr @function, ptr
    /// @string, ptr @file, i32 line, ptr args }`) whose string is
    /// `annotation`, in module order.
    pub fn annotated_functions(&self, annotation: &str) -> Vec<String> {
        let Some(entries) = self
            .module
            .get_global("llvm.global.annotations")
            .and_then(|global| global.get_initializer())
        else {
            return Vec::new();
        };
        let entries = RawValue::from_inkwell(&entries);
        let string_of = |pointer: RawValue<'_>| {
            let global = self.module.get_global(&pointer.name()?)?;
            let inkwell::values::BasicValueEnum::ArrayValue(text) = global.get_initializer()?
            else {
                return None;
            };
            let bytes = text.as_const_string()?;
            Some(String::from_utf8_lossy(bytes.strip_suffix(&[0]).unwrap_or(bytes)).into_owned())
        };
        (0..)
            .map_while(|index| entries.aggregate_element(index))
            .filter_map(|entry| {
                let function = entry.aggregate_element(0)?;
                let text = string_of(entry.aggregate_element(1)?)?;
                (function.is_function() && text == annotation).then(|| function.name()).flatten()
            })
            .collect()
    }

    /// Whether the module defines (not only declares) the function `name`.
    pub fn defines_function(&self, name: &str) -> bool {
        self.module.get_function(name).is_some_and(|function| function.count_basic_blocks() > 0)
    }

    /// Names the module's unnamed global variables and functions
    /// (`__lanewise.unnamed.N`, LLVM makes each unique): Lanewise's IR refers
    /// to globals by name. clang's `-fopenmp` outlined regions read unnamed
    /// `ident_t` records (`@0`, `@1`); they are private or internal, so the
    /// name appears in no symbol table. Returns how many were named.
    pub fn name_unnamed_globals(&mut self) -> usize {
        let mut named = 0;
        for global in self.module.get_globals() {
            if global.get_name().to_bytes().is_empty() {
                global.set_name(&format!("__lanewise.unnamed.{named}"));
                named += 1;
            }
        }
        for function in self.module.get_functions() {
            if function.get_name().to_bytes().is_empty() {
                function.as_global_value().set_name(&format!("__lanewise.unnamed.{named}"));
                named += 1;
            }
        }
        named
    }

    /// Makes every global variable the module defines and may write
    /// (not `constant`) thread-local; returns their names. The OpenCL
    /// platform's use: in an OpenCL 1.2 program such a global is a
    /// kernel's `__local` variable, which each work-group needs a copy of,
    /// and a work-group runs on one thread.
    pub fn make_writable_globals_thread_local(&mut self) -> Vec<String> {
        let mut names = Vec::new();
        for global in self.module.get_globals() {
            if global.is_declaration() || global.is_constant() || global.is_thread_local() {
                continue;
            }
            global.set_thread_local(true);
            names.push(global.get_name().to_string_lossy().into_owned());
        }
        names
    }
}
