//! lanewise-plugin: Lanewise inside stock clang-22 (issue 18).
//!
//! `clang-22 -O2 -fopenmp-simd -fpass-plugin=liblanewise_plugin.so x.c`
//! (or `opt-22 -load-pass-plugin=liblanewise_plugin.so -passes=lanewise`)
//! loads this library; its C++ shim (src/shim.cpp, built by build.rs)
//! registers a module pass at the start of the module optimization
//! pipeline (and as `-passes=lanewise`), and the pass runs [`vectorize`]
//! on the module in place: the declare-simd variants and the omp simd
//! loops, with the options of `lanewise cc`. A second registration, at the
//! start of clang's pipeline, keeps the loops Lanewise will vectorize from
//! being unrolled before it sees them (`lanewise cc` needs `-mllvm
//! -unroll-full-max-count=0` and more for that); [`vectorize`] releases
//! them, so the plugin needs no flags.
//! Environment: `LANEWISE_VECTOR_MATH=auto|exact|libmvec` (default
//! `auto`: libmvec only for calls clang marked `afn`);
//! `LANEWISE_VARIANTS=all|shared|referenced` (default `shared`: every
//! variant the `_ZGV` attributes name, those the module does not call as
//! adapters over one shared body per function; `all`: each with a body of
//! its own; `referenced`: only those the module calls);
//! `LANEWISE_SPECULATIVE_LOADS=off` keeps masked loads masked (for
//! programs checked with valgrind; `lanewise --speculative-loads`);
//! `LANEWISE_TIME_PASSES=1` prints the time of each Lanewise pass per
//! translation unit on stderr (`lanewise --time-passes`);
//! `LANEWISE_SLP=lanewise` (and `LANEWISE_SLP_ALGORITHM=tree|pair`) runs
//! Lanewise's basic-block vectorizer at the end of the module optimization
//! pipeline, a third registration (with `-fno-slp-vectorize`, instead of
//! LLVM's).

use std::ffi::{c_char, c_void};

use lanewise::{Mode, Options, RemarkKind, Slp, SlpAlgorithm, VariantSelection, VectorMath};
use lanewise_llvm::plugin::{PluginStage, RemarkSink};
use lanewise_llvm::LlvmModule;

/// LLVM's `PassPluginLibraryInfo` (llvm/Plugins/PassPlugin.h), which the
/// entry point returns by value, field for field: LLVM 22.1 added
/// `PreCodeGenCallback` without a new API version, and a struct without it
/// left that field to whatever the caller's stack held, which clang then
/// called (a crash on every compilation on one machine, none on another).
/// The shim checks the size against the header at compile time
/// ([`PASS_PLUGIN_INFO_BYTES`]).
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_builder_callbacks: unsafe extern "C" fn(*mut c_void),
    /// `bool (*)(Module &, TargetMachine &, CodeGenFileType,
    /// raw_pwrite_stream &)`: none, so clang generates code itself.
    pre_code_gen_callback: Option<unsafe extern "C" fn()>,
}

/// `sizeof(llvm::PassPluginLibraryInfo)` in LLVM 22.1 (src/shim.cpp
/// asserts the same number against the header).
const PASS_PLUGIN_INFO_BYTES: usize = 40;
const _: () = assert!(std::mem::size_of::<PassPluginLibraryInfo>() == PASS_PLUGIN_INFO_BYTES);

/// LLVM_PLUGIN_API_VERSION of LLVM 22 (the shim checks it at compile time).
const PLUGIN_API_VERSION: u32 = 2;

extern "C" {
    /// src/shim.cpp: registers the pass with a `llvm::PassBuilder`.
    fn lanewise_register_pass_builder_callbacks(builder: *mut c_void);
}

/// The entry point clang and opt look up when they load the plugin:
/// registers [`vectorize`] with the bridge and returns the shim's callback.
#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    lanewise_llvm::plugin::register_plugin_body(vectorize);
    PassPluginLibraryInfo {
        api_version: PLUGIN_API_VERSION,
        plugin_name: c"lanewise".as_ptr(),
        plugin_version: c"0.1".as_ptr(),
        register_pass_builder_callbacks: lanewise_register_pass_builder_callbacks,
        pre_code_gen_callback: None,
    }
}

/// What runs after Lanewise changed a module, on the module: the inliner
/// (the outlined `omp simd` loop bodies back into their loops, and small
/// vector variants into the vectorized loops that call them, as `lanewise
/// cc`'s second `-O3` does: linear_ref_cpp runs 1.7x faster with it than
/// with the bodies inlined alone). The inliner ran before the pass, in the
/// simplification pipeline; in clang's pipeline the optimization passes
/// after it (instcombine, simplifycfg, LICM, the vectorizers, unrolling,
/// global DCE) then clean up, as `lanewise cc`'s step 3 does.
const FOLLOW_UP_IN_PIPELINE: &str = "cgscc(inline)";

/// Then, on each function whose loops Lanewise rewrote, the cleanups that
/// follow inlining in clang's function simplification pipeline, which ran
/// before the pass: the inlined loop bodies' reduction slots and loads of
/// loop-invariant values leave the vector loop (LICM promotes the slots to
/// registers). Without them the plugin's reduce_float ran 15% slower than
/// `lanewise cc`'s, whose second `-O3` runs the whole pipeline again.
const FOLLOW_UP_IN_PIPELINE_FUNCTION: &str =
    "sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,simplifycfg,loop-mssa(licm)";

/// In a module the inliner has no work in: the always-inliner, for the
/// run-time safety net's bookkeeping.
const FOLLOW_UP_SAFETY_NET: &str = "always-inline";

/// With `-passes=lanewise` nothing runs after the pass: the inliner, the
/// functions no longer called away, and on each function whose loops
/// Lanewise rewrote the cleanups that follow inlining (the bodies'
/// reduction slots become registers). The added functions get Lanewise's
/// own cleanup pipeline.
const FOLLOW_UP_ALONE_MODULE: &str = "cgscc(inline),globaldce";
const FOLLOW_UP_ALONE_FUNCTION: &str = "sroa,early-cse,instcombine,simplifycfg";

/// Vectorizes `module` in place as `lanewise cc` does. Returns whether it
/// changed.
fn vectorize(
    module: &mut LlvmModule<'_>,
    emit_remark: RemarkSink<'_>,
    stage: PluginStage,
) -> Result<bool, String> {
    if stage == PluginStage::PipelineStart {
        return Ok(module.hold_simd_loop_unrolling() > 0);
    }
    if stage == PluginStage::OptimizerLast {
        return vectorize_basic_blocks(module, emit_remark);
    }
    let in_pipeline = stage == PluginStage::OptimizerEarly;
    let result = vectorize_in_pipeline(module, emit_remark, in_pipeline);
    // Whatever happened, the loops unroll as clang would unroll them from
    // here on.
    let released = module.release_simd_loop_unrolling() > 0;
    result.map(|changed| changed || released)
}

/// `LANEWISE_SLP=lanewise` (`LANEWISE_SLP_ALGORITHM=tree|pair`): Lanewise's
/// basic-block vectorizer on every function, at the end of clang's module
/// optimization pipeline (LLVM's own SLP vectorizer has run by then unless
/// `-fno-slp-vectorize` turned it off). Any other value: nothing.
fn vectorize_basic_blocks(
    module: &mut LlvmModule<'_>,
    emit_remark: RemarkSink<'_>,
) -> Result<bool, String> {
    if std::env::var("LANEWISE_SLP").as_deref() != Ok("lanewise") {
        return Ok(false);
    }
    let algorithm = match std::env::var("LANEWISE_SLP_ALGORITHM").as_deref() {
        Ok("pair") => SlpAlgorithm::Pair,
        _ => SlpAlgorithm::Tree,
    };
    // The loop vectorizer, the only reader of the variant annotations, has
    // run; LLVM's other passes may have left them stale.
    module.remove_variant_annotations();
    let report =
        lanewise::vectorize_basic_blocks_of_module(module, Slp::Lanewise(algorithm), false)
            .map_err(|error| error.to_string())?;
    for remark in &report.remarks {
        emit_remark(&remark.function, remark.kind == RemarkKind::Passed, &remark.message);
    }
    Ok(!report.basic_blocks.is_empty())
}

/// [`vectorize`] at the optimizer's start (`in_pipeline`) or alone.
fn vectorize_in_pipeline(
    module: &mut LlvmModule<'_>,
    emit_remark: RemarkSink<'_>,
    in_pipeline: bool,
) -> Result<bool, String> {
    let vector_math = match std::env::var("LANEWISE_VECTOR_MATH").as_deref() {
        Ok("exact") => VectorMath::Exact,
        Ok("libmvec") => VectorMath::Libmvec,
        _ => VectorMath::Auto,
    };
    let variants = match std::env::var("LANEWISE_VARIANTS") {
        Ok(value) => value.parse().unwrap_or_else(|message| {
            eprintln!("lanewise: warning: LANEWISE_VARIANTS={message}; using shared");
            VariantSelection::Shared
        }),
        Err(_) => VariantSelection::Shared,
    };
    let options = Options {
        mode: Mode::DeclareSimd,
        keep_going: true,
        simd_loops: true,
        // For clang's loop vectorizer, which runs after the pass in the
        // pipeline: its vectorized loops may call the variants.
        annotate_variants: in_pipeline,
        weak_variant_fallbacks: true,
        vector_math,
        verify_each: true,
        variants,
        // Functions whose `declare simd` came from a prototype, which other
        // files include (liblanewise_frontend.so marks them).
        full_variants: module.annotated_functions(lanewise::DECLARED_ELSEWHERE),
        // In the pipeline, clang's later passes clean up.
        cleanup: !in_pipeline,
        // `LANEWISE_SPECULATIVE_LOADS=off` for programs checked with valgrind.
        speculative_loads: std::env::var("LANEWISE_SPECULATIVE_LOADS").as_deref() != Ok("off"),
        // `LANEWISE_EXACT_VECTOR_MATH=off` where the program's libm is not glibc.
        exact_vector_math: std::env::var("LANEWISE_EXACT_VECTOR_MATH").as_deref() != Ok("off"),
        ..Options::default()
    };
    let time_passes = std::env::var("LANEWISE_TIME_PASSES").is_ok_and(|value| value == "1");
    let (result, mut times) =
        lanewise::pass_times::record(|| lanewise::vectorize_module(module, &options));
    let report = result.map_err(|error| error.to_string())?;
    for skipped in &report.skipped {
        eprintln!("lanewise: warning: {skipped}");
    }
    // Through clang's -Rpass=lanewise / -Rpass-missed=lanewise, at the
    // function's location; a loop's location ends the message.
    for remark in &report.remarks {
        let message = if remark.location.is_empty() {
            remark.message.clone()
        } else {
            format!("{} (at {})", remark.message, remark.location)
        };
        emit_remark(&remark.function, remark.kind == RemarkKind::Passed, &message);
    }
    let changed = !report.functions.is_empty() || !report.remarks.is_empty();
    if changed {
        let (result, follow_up) = lanewise::pass_times::record(|| {
            lanewise::pass_times::time("llvm: follow-up pipeline", || {
                run_follow_up(module, &report, in_pipeline)
            })
        });
        result.map_err(|error| error.to_string())?;
        times.rows.extend(follow_up.rows);
    }
    if time_passes {
        eprintln!("{times}");
    }
    Ok(changed)
}

/// The passes that follow Lanewise on a module it changed (see the
/// pipelines' docs): the outlined loop bodies back into their loops, then
/// the cleanups of the functions holding them.
fn run_follow_up(
    module: &mut LlvmModule<'_>,
    report: &lanewise::Report,
    in_pipeline: bool,
) -> Result<(), lanewise_llvm::BridgeError> {
    let rewritten = |module: &LlvmModule<'_>| {
        let defined = module.defined_function_names();
        report
            .rewritten_functions
            .iter()
            .filter(|name| defined.contains(name))
            .cloned()
            .collect::<Vec<_>>()
    };
    if !in_pipeline {
        module.run_pipeline(FOLLOW_UP_ALONE_MODULE)?;
        for name in rewritten(module) {
            module.run_function_pipeline(&name, FOLLOW_UP_ALONE_FUNCTION)?;
        }
        return Ok(());
    }
    // The inliner has work only where Lanewise outlined loop bodies or a
    // variant of its own calls another variant; it costs a few
    // milliseconds per file otherwise (it looks at every call of the
    // module). An adapter's call of its shared body is left alone.
    let calls_to_inline = !report.rewritten_functions.is_empty()
        || report
            .functions
            .iter()
            .any(|function| function.shared_body.is_none() && function.calls.vector_variant > 0);
    if calls_to_inline {
        module.run_pipeline(FOLLOW_UP_IN_PIPELINE)?;
        for name in rewritten(module) {
            module.run_function_pipeline(&name, FOLLOW_UP_IN_PIPELINE_FUNCTION)?;
        }
    } else if report.functions.iter().any(|function| function.safety_net) {
        // The safety net's bookkeeping is `alwaysinline`, and clang's
        // always-inliner ran before the pass: left as calls, it cost a call
        // per variant call, and code generation for a target of its own.
        module.run_pipeline(FOLLOW_UP_SAFETY_NET)?;
    }
    Ok(())
}
