//! The bridge between LLVM 22 (through inkwell) and the Lanewise IR.
//!
//! This is the only crate that touches LLVM and the only one with `unsafe`.
//! [`LlvmModule`] wraps a parsed module; [`with_module`] gives a closure
//! access to one. Lifting ([`lift`]) turns one LLVM function into a
//! [`lanewise_ir::Function`]; lowering ([`lower`]) adds a Lanewise function to
//! the module as a new LLVM function.
//!
//! Every call into LLVM-C that inkwell does not wrap goes through the private
//! `raw` module, which states the safety argument once; `lift`, `lower` and
//! `module` contain no `unsafe`.

pub mod exact_math;
pub mod lift;
pub mod lower;
pub mod module;
pub mod plugin;
mod raw;
pub mod x86_targets;

pub use module::{
    check_module_bytes, report_llvm_fatal_errors_as, with_module, with_module_from_bytes,
    with_optimized_module, BridgeError, CallAnnotation, LlvmModule, OutputFormat,
    ScalarFunctionInfo, SimdLoopFunction, CANONICALIZE_PIPELINE, CLEANUP_PIPELINE,
    POST_SLP_PIPELINE, SCALARIZE_PIPELINE,
};
