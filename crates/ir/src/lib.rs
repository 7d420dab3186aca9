//! The Lanewise SSA intermediate representation.
//!
//! A [`Function`] owns a [`DataFlowGraph`] (what instructions and values are)
//! and a [`Layout`] (in which order blocks and instructions come). Entities are
//! typed `u32` ids ([`Block`], [`Inst`], [`Value`]); analyses keep their
//! results in side tables keyed by them. See ARCHITECTURE.md for the
//! invariants that every pass keeps and that [`verify_function`] checks.

pub mod builder;
pub mod cfg;
pub mod dfg;
pub mod dominators;
pub mod entities;
pub mod exact_math;
pub mod function;
pub mod instructions;
pub mod layout;
pub mod loop_hints;
pub mod paper_figures;
pub mod printer;
#[cfg(test)]
mod test_functions;
pub mod types;
pub mod verifier;
pub mod vfabi;

pub use builder::FunctionBuilder;
pub use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
pub use dfg::{Constant, DataFlowGraph, ValueData, ValueDef};
pub use entities::{Block, Inst, Value};
pub use function::{Function, LifetimeMarker, Param};
pub use instructions::*;
pub use layout::Layout;
pub use loop_hints::{Independence, LoopHints};
pub use types::{DataLayout, Type};
pub use verifier::{verify_function, VerifierError, VerifierErrors};
