//! Vector shape analysis (Karrenberg 2014, section 2.4 / chapter 5).
//!
//! API fixed here; implementation in progress.

use lanewise_ir::vfabi::ParamSpec;
use lanewise_ir::{DataLayout, Function, SecondaryMap, Value};

/// How a value varies across the W lanes of the vectorized function.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Shape {
    /// Not yet known (bottom of the lattice during the fixed point; never a
    /// final answer for a value that is used).
    #[default]
    Undef,
    /// The same value in every lane.
    Uniform,
    /// Lane i holds `lane0 + i * stride` (`stride != 0`; in bytes for
    /// pointers, in units of the integer for integers).
    Strided(i64),
    /// Anything else.
    Varying,
}

/// A shape plus what is known of the alignment of the lane-0 value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct ValueShape {
    pub shape: Shape,
    /// The lane-0 value is a multiple of this (bytes for pointers); 1 if unknown.
    pub align: u64,
}

impl Default for ValueShape {
    fn default() -> Self {
        ValueShape { shape: Shape::Undef, align: 1 }
    }
}

/// Shapes of all values of one function.
#[derive(Clone, Debug, Default)]
pub struct ShapeInfo {
    pub shapes: SecondaryMap<Value, ValueShape>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    #[error("function `{function}` has {actual} parameters but the shapes name {expected}")]
    ParamCount { function: String, expected: usize, actual: usize },
}

impl ShapeInfo {
    pub fn compute(
        func: &Function,
        data_layout: &DataLayout,
        params: &[ParamSpec],
    ) -> Result<ShapeInfo, ShapeError> {
        let _ = (func, data_layout, params);
        todo!("shape analysis")
    }

    pub fn shape(&self, value: Value) -> ValueShape {
        self.shapes[value]
    }
}
