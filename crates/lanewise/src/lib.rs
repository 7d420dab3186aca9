//! Lanewise as a library: vectorize the functions of an LLVM module.
//!
//! The pipeline for one variant is straight-line code in [`vectorize_variant`]:
//! lift (LLVM → Lanewise IR, after LLVM's canonicalizing passes) → shape
//! analysis → uniform-control-flow check and loop analysis → widening → lower
//! (Lanewise IR → a new LLVM function) → LLVM verifier → cleanup pipeline.
//! Each step recomputes what it needs; nothing is cached across steps.
//!
//! Two modes: [`Mode::DeclareSimd`] produces every `_ZGV...` variant named by
//! clang's `#pragma omp declare simd` attributes; [`Mode::Explicit`] vectorizes
//! one function with argument shapes given by the caller (for SPMD compilers).

use std::path::Path;

use lanewise_analysis::loops::LoopInfo;
use lanewise_analysis::uniformity::check_uniform_control_flow;
use lanewise_analysis::{ControlFlowGraph, DominatorTree, ShapeInfo};
use lanewise_ir::vfabi::{Isa, ParamSpec, VariantName};
use lanewise_ir::{verify_function, DataLayout, Function, Type};
use lanewise_llvm::{with_module, with_module_from_bytes, LlvmModule};
use lanewise_transform::{lower_vector_abi, widen_function, WidenConfig};

pub use lanewise_llvm::OutputFormat;
pub use lanewise_transform::VectorMath;

/// A pass after which the IR can be dumped.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Pass {
    /// The scalar function as lifted from LLVM.
    Lift,
    /// The vector function after widening.
    Widen,
    /// The vector function after its signature follows the vector ABI.
    Abi,
    /// The LLVM IR of the new function after lowering.
    Lower,
}

/// What to vectorize.
#[derive(Clone, Debug)]
pub enum Mode {
    /// Every non-masked `_ZGV` variant named on a defined function.
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
#[derive(Clone, Debug)]
pub struct Options {
    pub mode: Mode,
    pub vector_math: VectorMath,
    /// Passes after which the IR is printed to stderr.
    pub dump_after: Option<Vec<Pass>>,
    /// Declare-simd mode: skip functions that cannot be vectorized (they are
    /// listed in [`Report::skipped`]) instead of failing the whole run.
    pub keep_going: bool,
    /// Run the IR verifier after every pass (always done in tests).
    pub verify_each: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::DeclareSimd,
            vector_math: VectorMath::Libmvec,
            dump_after: None,
            keep_going: false,
            verify_each: true,
        }
    }
}

/// One function Lanewise produced.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ProducedFunction {
    pub name: String,
    pub scalar: String,
    pub width: u32,
    pub isa: char,
}

/// What a run did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Report {
    pub functions: Vec<ProducedFunction>,
    /// Variants not produced, each with the reason (one line).
    pub skipped: Vec<String>,
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
}

impl Error {
    /// Whether the error is a bug of lanewise (a verifier rejected its output)
    /// rather than a problem with the input.
    pub fn is_internal(&self) -> bool {
        matches!(
            self,
            Error::Verifier { .. } | Error::Bridge(lanewise_llvm::BridgeError::Verify(_))
        )
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
    let data_layout = module.data_layout();
    let mut report = Report::default();
    let mut produced_names = Vec::new();
    match &options.mode {
        Mode::DeclareSimd => {
            for info in module.defined_functions() {
                if info.variant_names.is_empty() {
                    continue;
                }
                let result = vectorize_declare_simd_function(
                    module,
                    &info.name,
                    &info.variant_names,
                    &data_layout,
                    options,
                    &mut report,
                );
                match result {
                    Ok(names) => produced_names.extend(names),
                    Err(error) if options.keep_going => report.skipped.push(error.to_string()),
                    Err(error) => return Err(error),
                }
            }
        }
        Mode::Explicit(request) => {
            module.canonicalize(&request.function)?;
            let scalar = lift(module, &request.function, options)?;
            if request.params.len() != scalar.params.len() {
                return Err(Error::Request(format!(
                    "--shapes names {} parameters but `{}` has {}",
                    request.params.len(),
                    request.function,
                    scalar.params.len()
                )));
            }
            let isa = request.isa.unwrap_or_else(|| default_isa(&scalar, request.width));
            let variant = VariantName {
                isa,
                masked: false,
                width: request.width,
                params: request.params.clone(),
                scalar_name: request.function.clone(),
            };
            let name = request.name.clone().unwrap_or_else(|| variant.mangle());
            vectorize_variant(module, &scalar, &variant, &name, &data_layout, options)?;
            report.functions.push(produced(&name, &variant));
            produced_names.push(name);
        }
    }
    module.cleanup(&produced_names)?;
    module.verify()?;
    Ok(report)
}

/// All variants of one declare-simd function. Masked variants are skipped
/// (listed in the report) until masking lands.
fn vectorize_declare_simd_function(
    module: &mut LlvmModule<'_>,
    scalar_name: &str,
    variant_names: &[String],
    data_layout: &DataLayout,
    options: &Options,
    report: &mut Report,
) -> Result<Vec<String>, Error> {
    module.canonicalize(scalar_name)?;
    let scalar = lift(module, scalar_name, options)?;
    let mut produced_names = Vec::new();
    for mangled in variant_names {
        let variant = VariantName::parse(mangled).map_err(|error| Error::Variant {
            variant: mangled.clone(),
            message: error.to_string(),
        })?;
        if variant.masked {
            report.skipped.push(format!(
                "`{mangled}`: masked (inbranch) variants are not generated yet; \
                 use `notinbranch` or call the unmasked variant"
            ));
            continue;
        }
        if variant.params.len() != scalar.params.len() {
            return Err(Error::Variant {
                variant: mangled.clone(),
                message: format!(
                    "names {} parameters but `{scalar_name}` has {}",
                    variant.params.len(),
                    scalar.params.len()
                ),
            });
        }
        vectorize_variant(module, &scalar, &variant, mangled, data_layout, options)?;
        report.functions.push(produced(mangled, &variant));
        produced_names.push(mangled.clone());
    }
    Ok(produced_names)
}

fn produced(name: &str, variant: &VariantName) -> ProducedFunction {
    ProducedFunction {
        name: name.to_owned(),
        scalar: variant.scalar_name.clone(),
        width: variant.width,
        isa: variant.isa.letter(),
    }
}

fn lift(module: &LlvmModule<'_>, name: &str, options: &Options) -> Result<Function, Error> {
    let scalar = module.lift(name)?;
    check(&scalar, Pass::Lift, options)?;
    Ok(scalar)
}

/// The pipeline for one variant of one scalar function.
fn vectorize_variant(
    module: &mut LlvmModule<'_>,
    scalar: &Function,
    variant: &VariantName,
    name: &str,
    data_layout: &DataLayout,
    options: &Options,
) -> Result<(), Error> {
    let analysis_error =
        |message: String| Error::Analysis { function: scalar.name.clone(), message };

    let cfg = ControlFlowGraph::compute(scalar);
    let domtree = DominatorTree::compute(scalar, &cfg);
    LoopInfo::compute(scalar, &cfg, &domtree).map_err(|error| analysis_error(error.to_string()))?;
    let shapes = ShapeInfo::compute(scalar, data_layout, &variant.params)
        .map_err(|error| analysis_error(error.to_string()))?;
    check_uniform_control_flow(scalar, &shapes)
        .map_err(|error| analysis_error(error.to_string()))?;

    let mut config = WidenConfig::new(name, variant.width, variant.isa, variant.params.clone());
    config.vector_math = options.vector_math;
    let mut vector = widen_function(scalar, &shapes, data_layout, &config)
        .map_err(|error| Error::Variant { variant: name.to_owned(), message: error.to_string() })?;
    check(&vector, Pass::Widen, options)?;

    lower_vector_abi(&mut vector, variant.isa);
    check(&vector, Pass::Abi, options)?;

    module.add_vector_function(&vector, &scalar.name, variant.isa.target_features())?;
    if wants_dump(options, Pass::Lower) {
        eprintln!("; *** IR after lower: {name} ***\n{}", module.function_text(name)?);
    }
    Ok(())
}

/// Dumps `func` if asked, and runs the verifier if asked.
fn check(func: &Function, pass: Pass, options: &Options) -> Result<(), Error> {
    if wants_dump(options, pass) {
        eprintln!("; *** IR after {pass:?}: {} ***\n{func}", func.name);
    }
    if options.verify_each {
        verify_function(func).map_err(|errors| Error::Verifier {
            pass,
            function: func.name.clone(),
            errors: errors.to_string(),
        })?;
    }
    Ok(())
}

fn wants_dump(options: &Options, pass: Pass) -> bool {
    options.dump_after.as_ref().is_some_and(|passes| passes.contains(&pass))
}

/// The smallest x86 ISA whose registers hold `width` lanes of the widest
/// scalar parameter or result of `scalar` (AVX2 rather than AVX for 256 bits).
fn default_isa(scalar: &Function, width: u32) -> Isa {
    let widest_bits = scalar
        .params
        .iter()
        .map(|param| &param.ty)
        .chain(std::iter::once(&scalar.ret_ty))
        .filter_map(Type::scalar_bits)
        .max()
        .unwrap_or(32);
    match widest_bits * width {
        0..=128 => Isa::Sse,
        129..=256 => Isa::Avx2,
        _ => Isa::Avx512,
    }
}
