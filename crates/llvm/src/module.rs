//! Loading, canonicalizing, verifying and writing LLVM modules.

use std::path::Path;

use inkwell::context::Context;
use inkwell::module::Module;

use lanewise_ir::{DataLayout, Function};

/// Errors of the bridge. Each names the function, block and instruction where
/// it can.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error("cannot read `{path}`: {message}")]
    Read { path: String, message: String },
    #[error("`{path}` is not valid LLVM IR or bitcode: {message}")]
    Parse { path: String, message: String },
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
    let _ = (path, body);
    todo!()
}

/// Parses `bytes` (LLVM IR text or bitcode; `name` is for messages) and runs `body` on it.
pub fn with_module_from_bytes<R>(
    bytes: &[u8],
    name: &str,
    body: impl FnOnce(&mut LlvmModule<'_>) -> Result<R, BridgeError>,
) -> Result<R, BridgeError> {
    let _ = (bytes, name, body);
    todo!()
}

impl<'ctx> LlvmModule<'ctx> {
    /// Functions defined in the module, with their `_ZGV` attributes.
    pub fn defined_functions(&self) -> Vec<ScalarFunctionInfo> {
        todo!()
    }

    /// The module's data layout (sizes and alignments).
    pub fn data_layout(&self) -> DataLayout {
        todo!()
    }

    /// Runs the canonicalizing pipeline (mem2reg, SROA, simplifycfg,
    /// loop-simplify, LCSSA) on the function `name` before lifting.
    pub fn canonicalize(&mut self, name: &str) -> Result<(), BridgeError> {
        let _ = name;
        todo!()
    }

    /// Lifts the defined function `name` into the Lanewise IR.
    pub fn lift(&self, name: &str) -> Result<Function, BridgeError> {
        let _ = name;
        todo!()
    }

    /// Adds `func` to the module as a new function with external linkage,
    /// copying the attributes of the scalar function `scalar_name` that still
    /// apply and adding `target_features` (e.g. `["+avx2"]`).
    pub fn add_vector_function(
        &mut self,
        func: &Function,
        scalar_name: &str,
        target_features: &[&str],
    ) -> Result<(), BridgeError> {
        let _ = (func, scalar_name, target_features);
        todo!()
    }

    /// Runs the LLVM verifier on the whole module.
    pub fn verify(&self) -> Result<(), BridgeError> {
        todo!()
    }

    /// Runs an LLVM new-pass-manager pipeline (`"default<O3>"`, ...) on the module.
    pub fn run_pipeline(&mut self, pipeline: &str) -> Result<(), BridgeError> {
        let _ = pipeline;
        todo!()
    }

    /// Writes the module.
    pub fn write(&self, path: &Path, format: OutputFormat) -> Result<(), BridgeError> {
        let _ = (path, format);
        todo!()
    }

    /// The module as LLVM IR text.
    pub fn to_text(&self) -> String {
        self.module.print_to_string().to_string()
    }
}
