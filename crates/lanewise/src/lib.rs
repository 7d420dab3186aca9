//! Lanewise as a library: vectorize the functions of an LLVM module.
//!
//! The pipeline for one variant is straight-line code in [`vectorize_variant`]:
//! lift (LLVM → Lanewise IR, after LLVM's canonicalizing passes) → loop and
//! divergence analysis (shapes with sync dependence) → divergent-loop
//! transform, masks and partial linearization (PLDI'18), so that every branch
//! left is uniform → shapes of the rewritten function → widening under the
//! block predicates → vector ABI signature → lower (Lanewise IR → a new LLVM
//! function) → LLVM verifier → cleanup pipeline. Each step recomputes what it
//! needs; nothing is cached across steps.
//!
//! Two modes: [`Mode::DeclareSimd`] produces every `_ZGV...` variant named by
//! clang's `#pragma omp declare simd` attributes; [`Mode::Explicit`] vectorizes
//! one function with argument shapes given by the caller (for SPMD compilers).

use std::path::Path;

mod basic_blocks;
mod lanes_independent;
pub mod pass_times;
mod report;
mod shared_variants;
mod simd_loops;
mod variant;
mod variant_calls;

use lanewise_analysis::loops::LoopInfo;
use lanewise_analysis::uniformity::check_uniform_control_flow;
use lanewise_analysis::{
    ControlFlowGraph, DivergenceInfo, DominatorTree, PostDominatorTree, ShapeInfo,
};
use lanewise_ir::vfabi::{is_supported_width, Isa, ParamKind, ParamSpec, VariantName, MAX_WIDTH};
use lanewise_ir::{verify_function, CallEffects, Callee, DataLayout, Function, InstData, Type};
use lanewise_llvm::{with_module, with_module_from_bytes, LlvmModule};
use lanewise_transform::abi::has_vector_abi;
use lanewise_transform::divergent_loops::flatten_nests::{flatten_divergent_nests, NestProfit};
use lanewise_transform::dynamic_variants::{
    add_safety_net, may_run_per_lane, per_lane_callee, read_lane_arguments_from_memory,
    PerLaneForm, NET_BEGIN, NET_END,
};
use lanewise_transform::linearize::{linearize_function, DivergenceFacts, LinearizeReport};
use lanewise_transform::one_lane_builtins::{one_lane_builtin, SPMD_BUILTINS};
use lanewise_transform::predicates::add_entry_mask_param;
use lanewise_transform::select_chains::fold_nested_selects;
use lanewise_transform::widen::{
    refuse_exception_handling, widen_function_with_stats, CallStats, CalleeVariants,
    MemoryAccessStats,
};
use lanewise_transform::{
    bound_loops_without_active_lanes, choose_gather_forms, guard_divergent_regions,
    interleave_private_arrays, lower_vector_abi, mark_blocks_with_an_active_lane,
    narrow_divergent_loops, pair_adjacent_gathers, share_uniform_allocas,
    skip_loops_without_active_lanes, split_private_structs, widen_mask_phis, BlockPredicates,
    NarrowConfig, NarrowReport, RegionCosts, WidenConfig,
};

pub use basic_blocks::{Slp, SlpFunction};
pub use lanes_independent::LANES_INDEPENDENT;
pub use lanewise_llvm::OutputFormat;
pub use lanewise_transform::dynamic_variants::SafetyNetMode;
pub use lanewise_transform::linearize::LinearizeMode;
pub use lanewise_transform::loop_vectorize::TailPolicy;
pub use lanewise_transform::slp::SlpAlgorithm;
pub use lanewise_transform::VectorMath;
pub use report::{
    BranchCounts, CallCounts, LoopCounts, MaskedCounts, MemoryCounts, ProducedFunction, Remark,
    RemarkKind, Report,
};
pub(crate) use variant::{
    finish_variant, has_target_feature, vectorize_variant, widen_masks_below_avx512vl,
    widen_variant, widen_variant_once,
};

/// Whether a divergent loop nested in a divergent loop becomes one loop
/// with its parent (`--flatten-nests`,
/// `lanewise_transform::divergent_loops::flatten_nests`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FlattenNests {
    /// Where the inner loop's body outweighs the outer loop's code and the
    /// blends of the two headers' phis (`is_worth_flattening`).
    Auto,
    /// Never.
    Off,
    /// Every eligible nest, whatever it costs: for tests.
    Always,
}

/// A pass after which the IR can be dumped.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Pass {
    /// The scalar function as lifted from LLVM.
    Lift,
    /// The scalar function after the divergent-loop transform and partial
    /// linearization (only functions with divergent control flow, masked
    /// variants, or `--linearize=full`).
    Linearize,
    /// The vector function after widening.
    Widen,
    /// The vector function after its signature follows the vector ABI.
    Abi,
    /// The vector function after narrowing its divergent loops
    /// ([`NarrowLoops`]) and, below AVX-512VL, with the masks that cross
    /// loops in full-width lanes.
    Narrow,
    /// The LLVM IR of the new function after lowering.
    Lower,
}

/// Whether divergent loops of the vector functions get narrow copies that
/// continue at half the width once at most half of the lanes are live
/// (`lanewise_transform::narrow_loops`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NarrowLoops {
    /// Where it pays: on AVX-512 targets (avx512f and avx512vl; x86 has no
    /// compress and expand instructions below), in `e` variants and `omp
    /// simd` bodies (loops worth narrowing span two zmm registers, more than
    /// two of a smaller ISA's), down to 256-bit vectors, compaction after
    /// 16 iterations of the loop.
    Auto,
    /// Never.
    Off,
    /// On every target, every eligible loop down to one lane, compaction as
    /// soon as half the lanes are idle: the most compactions, for tests.
    /// Compresses work on the registers of the variant's ISA.
    Always,
}

/// What to vectorize.
#[derive(Clone, Debug)]
pub enum Mode {
    /// Every `_ZGV` variant named on a defined function.
    DeclareSimd,
    /// One function with the given shapes.
    Explicit(ExplicitRequest),
}

/// Explicit mode: vectorize `function` at `width` lanes.
#[derive(Clone, Debug)]
pub struct ExplicitRequest {
    pub function: String,
    pub width: u32,
    /// One spec per parameter of the function.
    pub params: Vec<ParamSpec>,
    /// Name of the new function; default: the vector function ABI name.
    pub name: Option<String>,
    /// Target ISA; default: the smallest whose registers hold the widest vector.
    pub isa: Option<Isa>,
}

/// Options of a run.
/// The annotation (`llvm.global.annotations`) that clang's frontend plugin
/// `liblanewise_frontend.so` (crates/plugin/src/frontend.cpp) puts on a
/// definition that got its `declare simd` clauses from an earlier
/// declaration, a prototype that other files include: its variants are
/// built in full ([`Options::full_variants`]).
pub const DECLARED_ELSEWHERE: &str = "lanewise.declared-elsewhere";

#[derive(Clone, Debug)]
pub struct Options {
    pub mode: Mode,
    pub vector_math: VectorMath,
    /// Partial linearization (PLDI'18) or full if-conversion (the baseline).
    pub linearize: LinearizeMode,
    /// BOSCC (Shin; PLDI'18 section 4): jump over costly regions behind a
    /// divergent branch, and loops under a varying predicate, when no lane
    /// is active there. Off: every region and loop runs under its mask.
    pub boscc: bool,
    /// Passes after which the IR is printed to stderr.
    pub dump_after: Option<Vec<Pass>>,
    /// Declare-simd mode: skip functions that cannot be vectorized (they are
    /// listed in [`Report::skipped`]) instead of failing the whole run.
    pub keep_going: bool,
    /// Run the IR verifier after every pass (always done in tests).
    pub verify_each: bool,
    /// Count active lanes per block execution in every produced function and
    /// print the SIMD utilization when the program exits.
    pub instrument_utilization: bool,
    /// Also vectorize the loops marked by `#pragma omp simd` (or `#pragma
    /// clang loop vectorize(assume_safety)`) in every defined function.
    pub simd_loops: bool,
    /// The last `TC % W` iterations of a SIMD loop: a masked call, a scalar
    /// remainder loop, or (`Auto`) whichever the cost model of
    /// `loop_vectorize::tail` expects to be faster.
    pub simd_tail: TailPolicy,
    /// With `simd_loops`: leave a marked loop scalar (with a `Missed`
    /// remark) when the cost model of `loop_vectorize::profit` is decisive
    /// that its vector form is slower. Off: every loop that can be
    /// vectorized is, as the pragma asks.
    pub simd_loops_cost: bool,
    /// Narrow copies of divergent loops (see [`NarrowLoops`]).
    pub narrow_loops: NarrowLoops,
    /// Give every vector variant the module declares but does not define a
    /// weak definition that calls the scalar function once per active lane
    /// (see [`define_weak_variant_fallbacks`]).
    pub weak_variant_fallbacks: bool,
    /// Put `vector-function-abi-variant` attributes on the calls of
    /// `declare simd` functions in the module, naming the variants whose
    /// vector ABI is LLVM's own, so that clang's loop vectorizer calls them
    /// (`lanewise cc` turns this on; see [`variant_calls`]).
    pub annotate_variants: bool,
    /// Run LLVM's cleanup pipeline (`lanewise_llvm::CLEANUP_PIPELINE`:
    /// instcombine, simplifycfg, early-cse, GVN) on every function added,
    /// so the output module reads well. `lanewise cc` turns it off: its
    /// step 3 runs clang's whole `-O3` pipeline on the module anyway.
    pub cleanup: bool,
    /// Which declare-simd variants to produce (see [`VariantSelection`]).
    pub variants: VariantSelection,
    /// With [`VariantSelection::Shared`]: functions whose variants all get
    /// bodies of their own, as with `All` (`lanewise cc` names those that
    /// another file of the same command declares with the pragma, and
    /// both it and the pass plugin those marked [`DECLARED_ELSEWHERE`]:
    /// other files' loops may call any of their variants).
    pub full_variants: Vec<String>,
    /// Functions a vector variant calls once for all its lanes (with the
    /// same arguments in every lane), not once per lane: the OpenCL
    /// platform's work-group barrier (see `WidenConfig::group_functions`).
    pub group_functions: Vec<String>,
    /// Functions declared lanes-independent besides those marked
    /// `RV_LANES_INDEPENDENT` (`--lanes-independent`; see
    /// [`LANES_INDEPENDENT`]): each lane computes and does what it would in
    /// any group of lanes, so their safety net may run the one-lane form.
    pub lanes_independent: Vec<String>,
    /// The run-time safety net of declare-simd variants with divergent
    /// loops: choose per call between the vector body and per-lane calls
    /// of the scalar function (`dynamic_variants::safety_net`).
    pub safety_net: SafetyNetMode,
    /// WFV-SLP (`--wfv-slp`, `transform::widen::wfv_slp`): independent
    /// libmvec calls under a mask packed into one call when few lanes are
    /// active.
    pub wfv_slp: bool,
    /// Dynamic variants of gathers and scatters (`--dynamic-tests`,
    /// `transform::widen::dynamic`): run-time address tests with scalar-
    /// and vector-load fast paths.
    pub dynamic_tests: bool,
    /// Page-safe speculative loads (`--speculative-loads`,
    /// `transform::widen::page_safe_loads`): masked contiguous loads
    /// unmasked where they stay within one page with an active lane.
    pub speculative_loads: bool,
    /// Wide cells (`--wide-cells`, `transform::private_memory`): interleaved
    /// private arrays of 1- or 2-byte values accessed at a varying index get
    /// 4-byte cells, so their gathers and scatters are vector instructions.
    pub wide_cells: bool,
    /// `expf`, `exp2f`, `logf`, `log2f`, `exp` and `log` in vector registers with the bits of glibc's
    /// scalar calls (`--exact-vector-math`, `lanewise_ir::exact_math`), on
    /// targets with FMA and AVX2 (where glibc runs its FMA builds of them).
    pub exact_vector_math: bool,
    /// Gathers of neighbouring 32-bit elements fused in pairs into one
    /// gather of 64-bit elements (`--gather-pairs`,
    /// `transform::widen::gather_pairs`).
    pub gather_pairs: bool,
    /// Lanewise's forms of gathers where LLVM expands gathers into per-lane
    /// loads, a branch per lane under a mask (`--gather-forms`,
    /// `transform::widen::gather_forms`): masked gathers as gather
    /// instructions, unmasked ones as scalar loads.
    pub gather_forms: bool,
    /// Divergent loops nested in divergent loops become one loop (see
    /// [`FlattenNests`]).
    pub flatten_nests: FlattenNests,
    /// Basic-block (SLP) vectorization of every function, after everything
    /// else ([`basic_blocks`]).
    pub slp: Slp,
}

/// Which of the variants that the `_ZGV` attributes ask for a run produces.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VariantSelection {
    /// All of them: callers in other translation units, compiled for any
    /// ISA, may call any (the vector function ABI's promise).
    All,
    /// Only those the module itself calls (its `omp simd` loops, other
    /// variants): less code and compile time when no other translation
    /// unit calls the variants. Calls are not annotated for LLVM's
    /// vectorizer then (`Options::annotate_variants` is ignored).
    /// A caller elsewhere then links to a weak per-lane fallback of its
    /// own, or fails to link.
    Referenced,
    /// All of them, but only those the module calls get a body of their
    /// own; the others are adapters: each calls one shared body per
    /// function, the masked variant at the widest ISA the function's target
    /// features enable (internal if no `_ZGV` attribute names it), on its
    /// lanes in parts or padded with inactive lanes. The vector function
    /// ABI's promise holds (every variant exists and runs vector code) at
    /// the compile time of about one variant per function; a caller in
    /// another file gets vector code at the shared body's width. Where an
    /// adapter cannot serve, a variant gets a body of its own (the rules
    /// are in the `shared_variants` module).
    Shared,
}

impl std::str::FromStr for VariantSelection {
    type Err = String;

    /// `all`, `shared` or `referenced` (`--variants`, `LANEWISE_VARIANTS`).
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "all" => Ok(VariantSelection::All),
            "shared" => Ok(VariantSelection::Shared),
            "referenced" => Ok(VariantSelection::Referenced),
            other => Err(format!("`{other}`: expected all, shared or referenced")),
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::DeclareSimd,
            vector_math: VectorMath::Auto,
            linearize: LinearizeMode::Partial,
            boscc: true,
            dump_after: None,
            keep_going: false,
            verify_each: true,
            instrument_utilization: false,
            simd_loops: false,
            simd_tail: TailPolicy::Auto,
            simd_loops_cost: true,
            narrow_loops: NarrowLoops::Auto,
            annotate_variants: false,
            weak_variant_fallbacks: false,
            cleanup: true,
            variants: VariantSelection::All,
            full_variants: Vec::new(),
            group_functions: Vec::new(),
            lanes_independent: Vec::new(),
            safety_net: SafetyNetMode::Adaptive,
            wfv_slp: true,
            dynamic_tests: true,
            speculative_loads: true,
            wide_cells: true,
            exact_vector_math: true,
            gather_pairs: true,
            gather_forms: true,
            flatten_nests: FlattenNests::Auto,
            slp: Slp::Off,
        }
    }
}

/// Errors of a run; each names the function (and block and instruction where
/// it applies).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Bridge(#[from] lanewise_llvm::BridgeError),
    /// An analysis rejected the function; the message names the function.
    #[error("{message}")]
    Analysis { function: String, message: String },
    #[error("variant `{variant}`: {message}")]
    Variant { variant: String, message: String },
    #[error("lanewise produced invalid IR after {pass:?} for `{function}` (a bug):\n{errors}")]
    Verifier { pass: Pass, function: String, errors: String },
    #[error("{0}")]
    Request(String),
    #[error("internal error in `{function}` (a bug): {message}")]
    Internal { function: String, message: String },
}

impl Error {
    /// Whether the error is a bug of lanewise (a verifier rejected its output)
    /// rather than a problem with the input.
    pub fn is_internal(&self) -> bool {
        matches!(
            self,
            Error::Verifier { .. }
                | Error::Internal { .. }
                | Error::Bridge(lanewise_llvm::BridgeError::Verify(_))
        )
    }

    /// The message without the lines that follow it in LLVM's parser errors
    /// (the offending source line and a caret) and internal errors (the
    /// verifier's findings, the IR): one line unless a name taken from the
    /// input holds a line break, which the printer escapes.
    pub fn summary_line(&self) -> String {
        let message = self.to_string();
        if self.is_internal()
            || matches!(self, Error::Bridge(lanewise_llvm::BridgeError::Parse { .. }))
        {
            return message.lines().next().unwrap_or_default().to_owned();
        }
        message
    }
}

/// Reads `input`, vectorizes it as `options` say and writes `output`.
pub fn vectorize_file(
    input: &Path,
    output: &Path,
    format: OutputFormat,
    options: &Options,
) -> Result<Report, Error> {
    with_module(input, |module| {
        let report = vectorize_module(module, options);
        Ok(report.and_then(|report| {
            module.write(output, format)?;
            Ok(report)
        }))
    })?
}

/// [`vectorize_file`] on the contents of a file read already (`input_name`
/// names it in messages): the `lanewise` binary reads its input once, checks
/// it in a child process, then hands the same bytes here.
pub fn vectorize_bytes_to_file(
    input: &[u8],
    input_name: &str,
    output: &Path,
    format: OutputFormat,
    options: &Options,
) -> Result<Report, Error> {
    with_module_from_bytes(input, input_name, |module| {
        let report = vectorize_module(module, options);
        Ok(report.and_then(|report| {
            module.write(output, format)?;
            Ok(report)
        }))
    })?
}

/// Library entry point for in-memory modules: vectorizes `input` (LLVM IR
/// text or bitcode) and returns the output module as LLVM IR text.
pub fn vectorize_ir(input: &[u8], options: &Options) -> Result<(String, Report), Error> {
    with_module_from_bytes(input, "<input>", |module| {
        let report = vectorize_module(module, options);
        Ok(report.map(|report| (module.to_text(), report)))
    })?
}

/// Vectorizes the functions of `module` that `options` ask for, adding the
/// new functions to it.
pub fn vectorize_module(module: &mut LlvmModule<'_>, options: &Options) -> Result<Report, Error> {
    pass_times::time("other", || vectorize_module_timed(module, options))
}

fn vectorize_module_timed(module: &mut LlvmModule<'_>, options: &Options) -> Result<Report, Error> {
    let data_layout = module.data_layout();
    if options.instrument_utilization {
        module.add_utilization_runtime()?;
    }
    let mut report = Report::default();
    module.name_unnamed_globals();
    repair_local_variant_attributes(module, &mut report);
    let mut produced_names = Vec::new();
    match &options.mode {
        Mode::DeclareSimd => {
            if options.variants == VariantSelection::All {
                let names = declare_simd_variants(
                    module,
                    VariantSelection::All,
                    &data_layout,
                    options,
                    &mut report,
                )?;
                produced_names.extend(names);
            }
        }
        Mode::Explicit(request) => {
            if !is_supported_width(request.width) {
                return Err(Error::Request(format!(
                    "width {}: expected a power of two from 1 to {MAX_WIDTH}",
                    request.width
                )));
            }
            if let Some(name) = &request.name {
                check_new_function_name(name)?;
            }
            let scalar = lift(module, &request.function, options, &mut report)?;
            if request.params.len() != scalar.params.len() {
                return Err(Error::Request(format!(
                    "--shapes names {} parameters but `{}` has {}",
                    request.params.len(),
                    request.function,
                    scalar.params.len()
                )));
            }
            let isa =
                request.isa.unwrap_or_else(|| default_isa(&scalar, &request.params, request.width));
            let variant = VariantName {
                isa,
                masked: false,
                width: request.width,
                params: request.params.clone(),
                scalar_name: request.function.clone(),
            };
            let name = request.name.clone().unwrap_or_else(|| variant.mangle());
            let produced = vectorize_variant(
                module,
                &scalar,
                &variant,
                &name,
                VariantBody::Full,
                &data_layout,
                options,
            )?;
            report.functions.push(produced);
            produced_names.push(name);
        }
    }
    if options.simd_loops {
        produced_names.extend(simd_loops::vectorize_simd_loops(
            module,
            &data_layout,
            options,
            &mut report,
        )?);
        // The loops left scalar go to LLVM's loop vectorizer, which must
        // not trust clang's parallel-access marks (they cover the loop
        // body's variables, which share one `alloca` across iterations).
        module.drop_parallel_access_assertions();
    }
    if matches!(options.mode, Mode::DeclareSimd) && options.variants != VariantSelection::All {
        // The variants the loops (and the calls annotated for LLVM's
        // vectorizer) reference, then those the new variants reference,
        // until none is new.
        loop {
            let names = declare_simd_variants(
                module,
                VariantSelection::Referenced,
                &data_layout,
                options,
                &mut report,
            )?;
            if names.is_empty() {
                break;
            }
            produced_names.extend(names);
        }
    }
    if matches!(options.mode, Mode::DeclareSimd) && options.variants == VariantSelection::Shared {
        let names = declare_simd_variants(
            module,
            VariantSelection::Shared,
            &data_layout,
            options,
            &mut report,
        )?;
        produced_names.extend(names);
    }
    // With referenced variants only, the annotations would reference (and
    // so build) every variant LLVM's vectorizer could use: none are made.
    if options.annotate_variants && options.variants != VariantSelection::Referenced {
        pass_times::time("annotate variant calls", || {
            variant_calls::annotate_variant_calls(module)
        })?;
    }
    if options.weak_variant_fallbacks {
        let fallbacks = pass_times::time("weak variant fallbacks", || {
            define_weak_variant_fallbacks(module, &data_layout, options)
        })?;
        produced_names.extend(fallbacks);
    }
    produced_names.extend(define_one_lane_builtins(module)?);
    if options.cleanup {
        pass_times::time("llvm: cleanup pipeline", || module.cleanup(&produced_names))?;
    }
    let slp_changed =
        basic_blocks::vectorize_module_basic_blocks(module, options.slp, &mut report)?;
    if options.cleanup {
        pass_times::time("llvm: cleanup pipeline", || module.cleanup(&slp_changed))?;
    }
    report.added_functions = produced_names;
    pass_times::time("llvm: verify module", || module.verify())?;
    Ok(report)
}

/// Runs only the basic-block vectorizer `slp` on every function of
/// `module` (`lanewise cc --slp lanewise` runs it on the module its back end
/// optimized, the plugin at the end of clang's pipeline). Then, when
/// `unrolling_held` (LLVM's `-O` pipeline ran without its partial and
/// runtime unrolling), the part of LLVM's pipeline that follows its SLP
/// vectorizer on every function ([`lanewise_llvm::POST_SLP_PIPELINE`],
/// which unrolls the fused loops as LLVM unrolls its own SLP vectorizer's
/// output); otherwise LLVM's cleanup pipeline on the functions it changed.
pub fn vectorize_basic_blocks_of_module(
    module: &mut LlvmModule<'_>,
    slp: Slp,
    unrolling_held: bool,
) -> Result<Report, Error> {
    let mut report = Report::default();
    let changed = basic_blocks::vectorize_module_basic_blocks(module, slp, &mut report)?;
    if unrolling_held {
        let names = module.defined_function_names();
        pass_times::time("llvm: post-SLP pipeline", || module.run_post_slp_pipeline(&names))?;
    } else {
        pass_times::time("llvm: cleanup pipeline", || module.cleanup(&changed))?;
    }
    pass_times::time("llvm: verify module", || module.verify())?;
    Ok(report)
}

/// The declare-simd variants of every function of the module that has
/// `_ZGV` attributes, or with [`VariantSelection::Referenced`] those that
/// the module references but does not define yet. Returns their names.
fn declare_simd_variants(
    module: &mut LlvmModule<'_>,
    selection: VariantSelection,
    data_layout: &DataLayout,
    options: &Options,
    report: &mut Report,
) -> Result<Vec<String>, Error> {
    let mut produced_names = Vec::new();
    for info in module.defined_functions() {
        let variant_names: Vec<String> = match selection {
            VariantSelection::All | VariantSelection::Shared => info.variant_names.clone(),
            VariantSelection::Referenced => info
                .variant_names
                .iter()
                .filter(|name| is_referenced(module, name))
                .cloned()
                .collect(),
        };
        if variant_names.is_empty() {
            continue;
        }
        let result = vectorize_declare_simd_function(
            module,
            &info.name,
            &variant_names,
            selection,
            data_layout,
            options,
            report,
        );
        match result {
            Ok(names) => {
                record_declare_simd_remarks(report, &info.name, &names);
                produced_names.extend(names);
            }
            Err(error) if options.keep_going => {
                report.remarks.push(Remark {
                    kind: RemarkKind::Missed,
                    function: info.name.clone(),
                    location: String::new(),
                    message: format!(
                        "declare simd variants of `{}` not generated: {}",
                        info.name,
                        error.summary_line()
                    ),
                });
                report.skipped.push(error.summary_line());
            }
            Err(error) => return Err(error),
        }
    }
    Ok(produced_names)
}

/// Whether the module declares the function `name` without defining it: a
/// call (or a call's annotation for LLVM's vectorizer) references it.
fn is_referenced(module: &LlvmModule<'_>, name: &str) -> bool {
    module.function_signature(name).is_ok() && !module.defines_function(name)
}

/// The name of the function explicit mode adds: not empty, and not in the
/// `llvm.` namespace, which LLVM reserves for intrinsics (its verifier
/// rejects their definitions). A name the module already uses for another
/// symbol is refused when the function is added.
fn check_new_function_name(name: &str) -> Result<(), Error> {
    if name.is_empty() {
        return Err(Error::Request("--name: the name is empty".to_owned()));
    }
    if name.starts_with("llvm.") {
        return Err(Error::Request(format!(
            "--name `{name}`: names starting with `llvm.` are reserved for LLVM intrinsics"
        )));
    }
    Ok(())
}

/// One `Passed` remark per variant of `scalar_name` produced (the entries of
/// `report.functions` named in `produced`).
fn record_declare_simd_remarks(report: &mut Report, scalar_name: &str, produced: &[String]) {
    for function in report.functions.iter().filter(|function| produced.contains(&function.name)) {
        let divergent = match (function.branches.divergent, function.loops.divergent) {
            (0, 0) => String::new(),
            (branches, loops) => {
                format!("; {branches} divergent branches, {loops} divergent loops linearized")
            }
        };
        let narrowed = match function.loops.narrowed {
            0 => String::new(),
            narrowed => format!(", {narrowed} narrowed"),
        };
        let exit_stable = match function.loops.exit_stable {
            0 => String::new(),
            stable => format!(", {stable} exit-stable"),
        };
        let flattened = match function.loops.flattened_nests {
            0 => String::new(),
            1 => ", 1 nest flattened".to_owned(),
            nests => format!(", {nests} nests flattened"),
        };
        report.remarks.push(Remark {
            kind: RemarkKind::Passed,
            function: scalar_name.to_owned(),
            location: String::new(),
            message: format!(
                "vectorized `{scalar_name}` as `{}` ({} lanes, isa {}{}{divergent}{narrowed}\
                 {exit_stable}{flattened})",
                function.name,
                function.width,
                function.isa,
                if function.masked_variant { ", masked" } else { "" },
            ),
        });
    }
}

/// Weak definitions of the `_ZGV` variants this module references (declared,
/// called by vectorized code or named for clang's vectorizer) but does not
/// define, and of every variant the attributes of a function defined here
/// name but vectorization did not produce (a function Lanewise refused with
/// `keep_going`; with [`VariantSelection::Referenced`] only those referenced):
/// each calls the scalar function once per active lane, in
/// lane order, behind the variant's ABI signature, as GCC's clones do.
/// clang attaches `declare simd` attributes only to the declaration that
/// carries the pragma, so a function declared with the pragma in a header
/// but defined (and compiled) in another translation unit gets no variants
/// there; without a fallback, a caller compiled separately would not link.
/// A real definition (ours from a translation unit that saw the pragma on
/// the definition, or GCC's clones) wins over the weak one at link time.
/// Returns the new names.
fn define_weak_variant_fallbacks(
    module: &mut LlvmModule<'_>,
    data_layout: &DataLayout,
    options: &Options,
) -> Result<Vec<String>, Error> {
    let defined: std::collections::HashSet<String> =
        module.defined_function_names().into_iter().collect();
    let mut produced = Vec::new();
    for info in module.functions_with_variants() {
        // The attributes' names and GCC's names of the AVX ones (what
        // vectorized callers call, see `variant_calls::callee_variant_table`).
        let mut names = info.variant_names.clone();
        if let Ok((params, ret)) = module.function_signature(&info.name) {
            for mangled in &info.variant_names {
                let Ok(variant) = VariantName::parse(mangled) else { continue };
                if let Some(twin) = variant_calls::gcc_avx_twin(&variant, &params, &ret) {
                    names.push(twin.mangle());
                }
            }
        }
        // The definition's translation unit owns every variant its
        // attributes name (GCC's mangling of the AVX ones only if called),
        // unless the user asked for the referenced ones only.
        let defines_scalar =
            options.variants != VariantSelection::Referenced && defined.contains(&info.name);
        for mangled in &names {
            let owned = defines_scalar && info.variant_names.contains(mangled);
            if defined.contains(mangled) || !(owned || module.function_signature(mangled).is_ok()) {
                continue;
            }
            // Only valid variants of this very function (see `parse_variant_of`).
            let Ok(variant) = parse_variant_of(mangled, &info.name, None, false) else { continue };
            let Ok((param_types, ret_ty)) = module.function_signature(&info.name) else {
                continue;
            };
            if variant.params.len() != param_types.len() {
                continue;
            }
            let mut wrapper = Function::new(info.name.clone(), param_types, ret_ty.clone());
            let args: Vec<_> = wrapper.params.iter().map(|param| param.value).collect();
            let mut builder = lanewise_ir::FunctionBuilder::new(&mut wrapper);
            let entry = builder.create_block(Some("entry"));
            builder.switch_to_block(entry);
            let call = builder.call(
                lanewise_ir::Callee::Direct(info.name.clone()),
                args,
                ret_ty.clone(),
                lanewise_ir::CallEffects::SideEffects,
            );
            let result = builder.func.dfg.result(call);
            builder.ret(result.filter(|_| ret_ty != Type::Void));
            // No callee variants: the fallback must call the scalar function.
            let widened = widen_variant(
                &wrapper,
                &variant,
                mangled,
                data_layout,
                &CalleeVariants::new(),
                "",
                options,
                SafetyNetMode::Off,
                PerLaneForm::ScalarCalls,
            );
            let Ok((mut vector, _)) = widened else { continue };
            // No loops to narrow: one call per lane.
            widen_masks_below_avx512vl(&mut vector, variant.isa, "");
            lower_vector_abi(&mut vector, variant.isa);
            let added = pass_times::time("lower", || {
                module.add_vector_function(&vector, &info.name, variant.isa.target_features())
            });
            if added.is_ok() {
                module.set_fallback_linkage(mangled, &info.name)?;
                produced.push(mangled.clone());
            }
        }
    }
    Ok(produced)
}

/// Internal, always-inlined definitions of the SPMD builtins (`rv_any`, ...)
/// the module declares but does not define, with their one-lane meaning
/// (`lanewise_transform::one_lane_builtins`): the scalar functions that call
/// them then link without `LANEWISE_RV_SCALAR` anywhere. Returns the names.
/// `lanewise cc` also calls it on the scalar module when Lanewise failed on
/// it, so that the scalar fallback links.
pub fn define_one_lane_builtins(module: &mut LlvmModule<'_>) -> Result<Vec<String>, Error> {
    let defined: std::collections::HashSet<String> =
        module.defined_function_names().into_iter().collect();
    let mut produced = Vec::new();
    for &name in SPMD_BUILTINS {
        if defined.contains(name) {
            continue;
        }
        let Ok((params, ret)) = module.function_signature(name) else { continue };
        let Some(definition) = one_lane_builtin(name, &params, &ret) else { continue };
        module.add_internal_function(&definition, name, &[])?;
        produced.push(name.to_owned());
    }
    Ok(produced)
}

/// All variants of one declare-simd function. A `_ZGV` name that is not a
/// valid variant of this function (bad vector length, shapes or step
/// parameters, another function's name, another parameter count) is an
/// error, or with `keep_going` a warning in `report.skipped` and no variant;
/// the function's other variants are still produced.
fn vectorize_declare_simd_function(
    module: &mut LlvmModule<'_>,
    scalar_name: &str,
    variant_names: &[String],
    selection: VariantSelection,
    data_layout: &DataLayout,
    options: &Options,
    report: &mut Report,
) -> Result<Vec<String>, Error> {
    let param_count = module.function_signature(scalar_name).ok().map(|(params, _)| params.len());
    let sret = module.returns_through_pointer(scalar_name);
    let mut variants = Vec::new();
    for mangled in variant_names {
        match parse_variant_of(mangled, scalar_name, param_count, sret) {
            Ok(variant) => variants.push((mangled, variant)),
            Err(error) if options.keep_going => {
                report.remarks.push(Remark {
                    kind: RemarkKind::Missed,
                    function: scalar_name.to_owned(),
                    location: String::new(),
                    message: format!(
                        "declare simd variant of `{scalar_name}` not generated: {error}"
                    ),
                });
                report.skipped.push(error.summary_line());
            }
            Err(error) => return Err(error),
        }
    }
    if variants.is_empty() {
        return Ok(Vec::new());
    }
    if selection == VariantSelection::Shared {
        let variants = variants.into_iter().map(|(_, variant)| variant).collect();
        return shared_variants::vectorize_shared(
            module,
            scalar_name,
            variants,
            data_layout,
            options,
            report,
        );
    }
    let scalar = lift(module, scalar_name, options, report)?;
    let mut produced_names = Vec::new();
    for (mangled, variant) in variants {
        if variant.params.len() != scalar.params.len() {
            return Err(Error::Variant {
                variant: mangled.clone(),
                message: parameter_count_mismatch(
                    variant.params.len(),
                    scalar_name,
                    scalar.params.len(),
                    sret,
                ),
            });
        }
        let produced = vectorize_variant(
            module,
            &scalar,
            &variant,
            mangled,
            VariantBody::Full,
            data_layout,
            options,
        )?;
        report.functions.push(produced);
        produced_names.push(mangled.clone());
        // GCC's name for the AVX variant, where it differs: GCC-compiled
        // callers call that one (`variant_calls::gcc_avx_twin`).
        let param_types: Vec<Type> = scalar.params.iter().map(|param| param.ty.clone()).collect();
        if let Some(twin) = variant_calls::gcc_avx_twin(&variant, &param_types, &scalar.ret_ty) {
            let twin_name = twin.mangle();
            let wanted = match selection {
                VariantSelection::All | VariantSelection::Shared => true,
                VariantSelection::Referenced => is_referenced(module, &twin_name),
            };
            if wanted && !variant_names.contains(&twin_name) && !produced_names.contains(&twin_name)
            {
                let produced = vectorize_variant(
                    module,
                    &scalar,
                    &twin,
                    &twin_name,
                    VariantBody::Full,
                    data_layout,
                    options,
                )?;
                report.functions.push(produced);
                produced_names.push(twin_name);
            }
        }
    }
    Ok(produced_names)
}

/// clang's optimizer removes unused parameters of local functions (dead
/// argument elimination, in `lanewise cc`'s first step and before the
/// plugin's pass) but keeps their `_ZGV` attributes, which then name more
/// parameters than the function has: a `static` declare-simd function with
/// an unused parameter got no variants, and the loops calling it called it
/// per lane. Nothing outside the translation unit names the variants of a
/// local function, so such attributes are rewritten with every remaining
/// parameter varying (`v`), which is right whatever each one was (which
/// one was removed is not known); the ISA, mask and width stay. A remark
/// says so.
fn repair_local_variant_attributes(module: &mut LlvmModule<'_>, report: &mut Report) {
    for info in module.functions_with_variants() {
        // With no parameter left, there is no VFABI name to give (and no
        // lane-dependent input): the variants stay refused, as before.
        let Some(arity) = module.local_function_arity(&info.name).filter(|arity| *arity > 0) else {
            continue;
        };
        let mut repaired = Vec::new();
        for mangled in &info.variant_names {
            let Ok(variant) = VariantName::parse(mangled) else { continue };
            if variant.scalar_name != info.name || variant.params.len() <= arity {
                continue;
            }
            let varying = ParamSpec { kind: ParamKind::Vector, align: None };
            let rebuilt = VariantName { params: vec![varying; arity], ..variant };
            if module.replace_variant_attribute(&info.name, mangled, &rebuilt.mangle()) {
                repaired.push(mangled.as_str());
            }
        }
        if let Some(first) = repaired.first() {
            report.remarks.push(Remark {
                kind: RemarkKind::Missed,
                function: info.name.clone(),
                location: String::new(),
                message: format!(
                    "`{first}` names more parameters than the function has (clang's optimizer \
                     removed unused ones): its {} variants take every parameter as a vector",
                    repaired.len()
                ),
            });
        }
    }
}

/// Parses the `_ZGV` attribute `mangled` of the function `scalar_name` and
/// checks that it names that function and, when `param_count` is known, as
/// many parameters as it has (`sret`: the function returns a struct through
/// a pointer parameter, see [`parameter_count_mismatch`]).
fn parse_variant_of(
    mangled: &str,
    scalar_name: &str,
    param_count: Option<usize>,
    sret: bool,
) -> Result<VariantName, Error> {
    let variant_error = |message: String| Error::Variant { variant: mangled.to_owned(), message };
    let variant = VariantName::parse(mangled).map_err(|error| variant_error(error.to_string()))?;
    if variant.scalar_name != scalar_name {
        return Err(variant_error(format!(
            "names the function `{}` but is an attribute of `{scalar_name}`",
            variant.scalar_name
        )));
    }
    if let Some(count) = param_count.filter(|count| *count != variant.params.len()) {
        return Err(variant_error(parameter_count_mismatch(
            variant.params.len(),
            scalar_name,
            count,
            sret,
        )));
    }
    Ok(variant)
}

/// A `_ZGV` attribute names `named` parameters where the LLVM function has
/// `count`; `sret`: the function returns a struct through a pointer
/// parameter, which clang adds to those of the source.
fn parameter_count_mismatch(named: usize, scalar_name: &str, count: usize, sret: bool) -> String {
    let why = if sret {
        ": it returns a struct through a pointer (`sret`), which vector variants do not support"
    } else {
        ""
    };
    format!("names {named} parameters but `{scalar_name}` has {count}{why}")
}

pub(crate) fn lift(
    module: &LlvmModule<'_>,
    name: &str,
    options: &Options,
    report: &mut Report,
) -> Result<Function, Error> {
    let mut scalar = lift_canonical(module, name, Scalarize::Yes)?;
    pass_times::time("canonicalize", || {
        lanewise_transform::cfg_canon::fold_branches_to_unreachable(&mut scalar);
        make_reducible(&mut scalar, report)
    })?;
    check(&scalar, Pass::Lift, options)?;
    Ok(scalar)
}

/// Whether [`lift_canonical`] scalarizes LLVM's vector code first.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Scalarize {
    Yes,
    /// Vector code elsewhere in a function with `omp simd` loops stays as
    /// it is.
    No,
}

/// The function `name` lifted from a canonicalized copy of the module, as
/// `LlvmModule::lift_canonical` does it, with each step timed.
pub(crate) fn lift_canonical(
    module: &LlvmModule<'_>,
    name: &str,
    scalarize: Scalarize,
) -> Result<Function, Error> {
    let mut copy = pass_times::time("llvm: copy the module", || module.copy());
    pass_times::time("llvm: canonicalize", || copy.canonicalize(name))?;
    if scalarize == Scalarize::Yes {
        pass_times::time("llvm: scalarize", || copy.scalarize(name))?;
    }
    let lifted = pass_times::time("lift", || copy.lift(name))?;
    pass_times::time("llvm: copy the module", || drop(copy));
    Ok(lifted)
}

/// Gives every irreducible cycle of `func` a single header
/// ([`lanewise_transform::canonicalize::irreducible`]), with a remark per
/// cycle saying what was done.
pub(crate) fn make_reducible(func: &mut Function, report: &mut Report) -> Result<(), Error> {
    let reduced = lanewise_transform::canonicalize::make_reducible(func).map_err(|error| {
        Error::Analysis { function: func.name.clone(), message: error.to_string() }
    })?;
    for cycle in reduced {
        let entries: Vec<String> = cycle.entries.iter().map(|entry| format!("%{entry}")).collect();
        report.remarks.push(Remark {
            kind: RemarkKind::Passed,
            function: func.name.clone(),
            location: format!("block %{}", cycle.entries[0]),
            message: format!(
                "irreducible control flow: the cycle of {} blocks entered at {} now has one \
                 header, %{}, which branches to the entry each lane took",
                cycle.blocks,
                entries.join(", "),
                cycle.dispatch
            ),
        });
    }
    Ok(())
}

/// What the body of a variant is.
#[derive(Copy, Clone)]
pub(crate) enum VariantBody<'a> {
    /// The scalar function, vectorized.
    Full,
    /// One call of the scalar function, which the widener turns into calls
    /// of this shared body (`--variants shared`).
    Adapter(&'a VariantName),
}

/// Dumps `func` if asked, and runs the verifier if asked.
fn check(func: &Function, pass: Pass, options: &Options) -> Result<(), Error> {
    if wants_dump(options, pass) {
        eprintln!("; *** IR after {pass:?}: {} ***\n{func}", func.name);
    }
    if options.verify_each {
        pass_times::time("verify (lanewise)", || verify_function(func)).map_err(|errors| {
            Error::Verifier { pass, function: func.name.clone(), errors: errors.to_string() }
        })?;
    }
    Ok(())
}

fn wants_dump(options: &Options, pass: Pass) -> bool {
    options.dump_after.as_ref().is_some_and(|passes| passes.contains(&pass))
}

/// The smallest x86 ISA whose registers hold `width` lanes of the widest
/// value passed as a vector: the varying (`v`) parameters of `params` and
/// the result of `scalar` (AVX2 rather than AVX for 256 bits). Uniform and
/// linear parameters are scalars in the variant, whatever their type (a
/// pointer or `i64` step does not ask for AVX-512); 32 bits when no value
/// is a vector.
fn default_isa(scalar: &Function, params: &[ParamSpec], width: u32) -> Isa {
    let widest_bits = scalar
        .params
        .iter()
        .zip(params)
        .filter(|(_, spec)| spec.kind == ParamKind::Vector)
        .map(|(param, _)| &param.ty)
        .chain(std::iter::once(&scalar.ret_ty))
        // A short vector `<N x T>` is N values of T per lane.
        .filter_map(|ty| Some(ty.scalar_type().scalar_bits()? * ty.lanes().unwrap_or(1)))
        .max()
        .unwrap_or(32);
    match widest_bits * width {
        0..=128 => Isa::Sse,
        129..=256 => Isa::Avx2,
        _ => Isa::Avx512,
    }
}
