//! The entry point of the clang pass plugin (crates/plugin).
//!
//! The plugin's C++ shim registers a module pass with LLVM's new pass
//! manager and hands each module to [`lanewise_plugin_run_module`] through
//! the C ABI. The plugin crate registers, at load time, the Rust function
//! that vectorizes a module ([`register_plugin_body`]); this crate only
//! turns the module pointer into an [`LlvmModule`] (the one `unsafe` step,
//! in `raw`) and keeps panics from unwinding into C++.

use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::OnceLock;

use crate::LlvmModule;

/// Emits one optimization remark through the compiler's own machinery
/// (`-Rpass=lanewise`): `(function, passed, message)`.
pub type RemarkSink<'a> = &'a dyn Fn(&str, bool, &str);

/// Where in the compiler's pipeline the plugin's pass runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PluginStage {
    /// At the start of clang's pipeline (`-O1` and up), before the
    /// simplification passes: the plugin keeps the `omp simd` loops from
    /// being unrolled before it sees them
    /// ([`LlvmModule::hold_simd_loop_unrolling`]).
    PipelineStart,
    /// At the start of the module optimization pipeline (clang's `-O1` and
    /// up): after inlining and the function simplification passes, before
    /// the loop vectorizer, the unroller and the late cleanups, which then
    /// also clean up what the pass added.
    OptimizerEarly,
    /// At the end of the module optimization pipeline, after LLVM's
    /// vectorizers: where the plugin runs Lanewise's basic-block vectorizer
    /// (`LANEWISE_SLP=lanewise`).
    OptimizerLast,
    /// Named in a pass pipeline (`opt -passes=lanewise`): nothing may run
    /// after it.
    Explicit,
}

/// What the plugin does to a module: `Ok(true)` if it changed it.
pub type PluginBody = fn(&mut LlvmModule<'_>, RemarkSink<'_>, PluginStage) -> Result<bool, String>;

/// The shim's remark emitter: `(module, function name, passed, message)`,
/// both strings NUL-terminated.
pub type EmitRemark = extern "C" fn(*mut c_void, *const c_char, c_int, *const c_char);

static BODY: OnceLock<PluginBody> = OnceLock::new();

/// Sets what [`lanewise_plugin_run_module`] runs (the first call wins).
pub fn register_plugin_body(body: PluginBody) {
    let _ = BODY.set(body);
}

/// Called by the shim for each module: 1 if the module changed, 0 if not,
/// -1 on an error (printed as one `lanewise: error:` line; the module is
/// then left as the compiler gave it or with whole functions added).
/// `emit_remark` turns the report's remarks into the compiler's; `stage`
/// is 3 for [`PluginStage::OptimizerLast`], 2 for
/// [`PluginStage::PipelineStart`], 1 for
/// [`PluginStage::OptimizerEarly`], 0 for [`PluginStage::Explicit`].
#[no_mangle]
pub extern "C" fn lanewise_plugin_run_module(
    module: *mut c_void,
    emit_remark: EmitRemark,
    stage: c_int,
) -> i32 {
    let stage = match stage {
        3 => PluginStage::OptimizerLast,
        2 => PluginStage::PipelineStart,
        1 => PluginStage::OptimizerEarly,
        _ => PluginStage::Explicit,
    };
    let Some(body) = BODY.get().copied() else {
        eprintln!("lanewise: error: the plugin was not registered (lanewise_plugin_register)");
        return -1;
    };
    let sink = |function: &str, passed: bool, message: &str| {
        let (Ok(function), Ok(message)) = (CString::new(function), CString::new(message)) else {
            return;
        };
        emit_remark(module, function.as_ptr(), c_int::from(passed), message.as_ptr());
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::raw::with_borrowed_module(module, |module| body(module, &sink, stage))
    }));
    match outcome {
        Ok(Some(Ok(changed))) => i32::from(changed),
        Ok(Some(Err(message))) => {
            eprintln!("lanewise: error: {message}");
            -1
        }
        Ok(None) => {
            eprintln!("lanewise: error: the plugin was given no module");
            -1
        }
        Err(_) => {
            eprintln!("lanewise: error: internal error (a panic) while vectorizing the module");
            -1
        }
    }
}
