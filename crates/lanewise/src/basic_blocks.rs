//! Basic-block (SLP) vectorization of every function of a module (`--slp`):
//! Lanewise's own vectorizer ([`lanewise_transform::slp`], Foss 2013) or
//! LLVM's `slp-vectorizer` pass, on the scalar code of the input and on the
//! uniform code left in the variants Lanewise made.
//!
//! Each defined function is lifted as it stands (no canonicalization: the
//! module is already optimized when `lanewise cc` gets here), vectorized
//! block by block, checked by Lanewise's verifier, and its body replaced
//! only if something was fused. A function that does not lift (an
//! instruction outside Lanewise's IR) is left alone with a `missed` remark.
//! The target of each function decides the vector width: its
//! `target-features`, and for AVX-512 the tuning of its processor (LLVM's
//! Intel tunings and `x86-64-v4` prefer 256-bit vectors, AMD's Zen 4 and 5
//! 512-bit ones; `prefer-vector-width` overrides both), as LLVM's own SLP
//! vectorizer reads them.

use lanewise_ir::verifier::verify_function;
use lanewise_ir::vfabi::Isa;
use lanewise_llvm::LlvmModule;
use lanewise_transform::slp::{vectorize_basic_blocks, SlpAlgorithm, SlpConfig};

use crate::pass_times::time;
use crate::{has_target_feature, Error, Remark, RemarkKind, Report};

/// Which basic-block vectorizer runs on the module's functions.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Slp {
    /// None.
    #[default]
    Off,
    /// Lanewise's, with one of Foss's two algorithms.
    Lanewise(SlpAlgorithm),
    /// LLVM's `slp-vectorizer` pass.
    Llvm,
}

/// What `--slp lanewise` did to one function.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SlpFunction {
    pub name: String,
    /// Pairs fused (a pair of fused pairs counts again).
    pub fused_pairs: usize,
    /// Blocks that changed.
    pub blocks: usize,
    /// The widest vector made, in lanes.
    pub widest_lanes: u32,
}

/// Runs the basic-block vectorizer `slp` on every function defined in
/// `module` (reads each function's target attributes; replaces the bodies
/// it changes, records them in `report`). Returns the names of the
/// functions it changed.
pub(crate) fn vectorize_module_basic_blocks(
    module: &mut LlvmModule<'_>,
    slp: Slp,
    report: &mut Report,
) -> Result<Vec<String>, Error> {
    let names = module.defined_function_names();
    match slp {
        Slp::Off => Ok(Vec::new()),
        Slp::Llvm => {
            time("llvm: slp-vectorizer", || {
                for name in &names {
                    module.run_function_pipeline(name, "slp-vectorizer")?;
                }
                Ok::<_, Error>(())
            })?;
            // LLVM's output needs no cleanup.
            Ok(Vec::new())
        }
        Slp::Lanewise(algorithm) => {
            let data_layout = module.data_layout();
            let mut changed = Vec::new();
            for name in names {
                let mut func = match time("lift", || module.lift(&name)) {
                    Ok(func) => func,
                    Err(error) => {
                        report.remarks.push(Remark {
                            kind: RemarkKind::Missed,
                            function: name.clone(),
                            location: String::new(),
                            message: format!("basic-block vectorization: {error}"),
                        });
                        continue;
                    }
                };
                let config = SlpConfig { algorithm, ..slp_config(module, &name) };
                let summary =
                    time("slp", || vectorize_basic_blocks(&mut func, &data_layout, &config));
                if !summary.changed() {
                    continue;
                }
                verify_function(&func).map_err(|errors| Error::Internal {
                    function: name.clone(),
                    message: format!("basic-block vectorization made invalid IR:\n{errors}"),
                })?;
                time("lower", || module.replace_function_body(&func))?;
                report.remarks.push(Remark {
                    kind: RemarkKind::Passed,
                    function: name.clone(),
                    location: String::new(),
                    message: format!(
                        "basic-block vectorization fused {} pairs in {} blocks, up to {} lanes",
                        summary.fused_pairs, summary.blocks, summary.widest_lanes
                    ),
                });
                report.basic_blocks.push(SlpFunction {
                    name: name.clone(),
                    fused_pairs: summary.fused_pairs,
                    blocks: summary.blocks,
                    widest_lanes: summary.widest_lanes,
                });
                changed.push(name);
            }
            Ok(changed)
        }
    }
}

/// The vector instructions and width the function `name` may use.
fn slp_config(module: &LlvmModule<'_>, name: &str) -> SlpConfig {
    let features = module.function_target_features(name);
    let has = |feature: &str| has_target_feature(&features, feature);
    let isa = if has("+avx512f") {
        Isa::Avx512
    } else if has("+avx2") {
        Isa::Avx2
    } else if has("+avx") {
        Isa::Avx
    } else {
        Isa::Sse
    };
    let mut config = SlpConfig::for_isa(isa);
    if isa == Isa::Avx512 {
        let preferred = module
            .function_attribute(name, "prefer-vector-width")
            .and_then(|width| width.parse::<u32>().ok());
        let processor = module
            .function_attribute(name, "tune-cpu")
            .or_else(|| module.function_attribute(name, "target-cpu"))
            .unwrap_or_default();
        config.max_vector_bits = match preferred {
            Some(bits) => bits.clamp(128, 512),
            None if prefers_512_bit_vectors(&processor) => 512,
            None => 256,
        };
    }
    config
}

/// Whether LLVM 22's tuning for `processor` uses 512-bit vectors (AMD's
/// AVX-512 processors); Intel's and `x86-64-v4` prefer 256-bit ones.
fn prefers_512_bit_vectors(processor: &str) -> bool {
    matches!(processor, "znver4" | "znver5")
}

#[cfg(test)]
mod tests {
    use super::prefers_512_bit_vectors;

    #[test]
    fn only_amd_tunings_prefer_512_bit_vectors() {
        assert!(prefers_512_bit_vectors("znver4"));
        assert!(!prefers_512_bit_vectors("skylake-avx512"));
        assert!(!prefers_512_bit_vectors("x86-64-v4"));
    }
}
