//! Instruction widening (Karrenberg 2014, section 2.4 and chapter 6.4).
//! API fixed here; implementation in progress.

use lanewise_analysis::ShapeInfo;
use lanewise_ir::vfabi::{Isa, ParamSpec};
use lanewise_ir::{DataLayout, Function};

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
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WidenError {
    #[error("in function `{function}`, block `{block}`, instruction `{inst}`: {message}")]
    Unsupported { function: String, block: String, inst: String, message: String },
}

/// Produces the W-lane vector function of `scalar`.
pub fn widen_function(
    scalar: &Function,
    shapes: &ShapeInfo,
    data_layout: &DataLayout,
    config: &WidenConfig,
) -> Result<Function, WidenError> {
    let _ = (scalar, shapes, data_layout, config);
    todo!("widening")
}
