//! Transforms of the Lanewise IR. Each pass is one module whose entry point's
//! signature says what it reads and what it produces.
//!
//! * [`canonicalize`]: right after lifting, irreducible cycles get a single
//!   header (a dispatch block), so every later pass sees natural loops.
//! * [`widen`]: instruction widening (Karrenberg 2014, section 6.4), under
//!   the block predicates of a linearized function ([`predicates`]).
//! * [`narrow_loops`]: divergent loops of a widened function continue at
//!   half the width once half of their lanes are idle.
//! * [`dynamic_variants`]: run-time choices of a variant (the safety net
//!   between the vector body and per-lane scalar calls).
//! * [`abi`]: the Vector Function ABI signature of a variant (wide vectors
//!   split into register-sized parts, booleans as bytes).
//! * [`vector_math`]: vector forms of math calls (LLVM intrinsics, libmvec).
//! * [`slp`]: basic-block (SLP) vectorization of scalar code (Foss 2013,
//!   the tree and the pair vectorizer).
//! * [`interp`]: a reference interpreter of the IR, the oracle of the
//!   widening tests (scalar lane by lane against vector).

pub mod abi;
pub mod boscc;
pub mod canonicalize;
pub mod cfg_canon;
pub mod divergent_loops;
pub mod dynamic_variants;
pub mod exit_stable;
pub mod interp;
pub mod linearize;
pub mod loop_vectorize;
pub mod mask_phis;
pub mod masks;
pub mod narrow_loops;
pub mod one_lane_builtins;
pub mod predicates;
pub mod private_memory;
pub mod select_chains;
pub mod slp;
pub mod ssa_repair;
pub mod struct_split;
pub mod uniform_memory;
pub mod vector_math;
pub mod widen;

#[cfg(test)]
mod test_support;

pub use abi::lower_vector_abi;
pub use boscc::{
    guard_divergent_regions, mark_blocks_with_an_active_lane, skip_loops_without_active_lanes,
    RegionCosts,
};
pub use linearize::empty_mask_loops::{bound_loops_without_active_lanes, EmptyMaskLoops};
pub use linearize::{
    linearize_function, DivergenceFacts, LinearizeError, LinearizeMode, LinearizeReport,
};
pub use mask_phis::widen_mask_phis;
pub use narrow_loops::{narrow_divergent_loops, NarrowConfig, NarrowReport};
pub use predicates::{add_entry_mask_param, BlockPredicates};
pub use private_memory::{interleave_private_arrays, InterleaveReport};
pub use struct_split::split_private_structs;
pub use uniform_memory::share_uniform_allocas;
pub use vector_math::VectorMath;
pub use widen::gather_forms::{choose_gather_forms, GatherForms};
pub use widen::gather_pairs::pair_adjacent_gathers;
pub use widen::{
    widen_function, widen_function_masked, widen_function_with_stats, MemoryAccessStats, ValueMap,
    WidenConfig, WidenError, Widened, WidenedFunction,
};
