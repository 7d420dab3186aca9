//! CFG canonicalization that runs once, right after lifting, before any
//! analysis: [`irreducible`] gives every cycle a single header. (The
//! helpers that later passes use to keep the CFG in the form partial
//! linearization assumes are in [`crate::cfg_canon`].)

pub mod irreducible;

pub use irreducible::{make_reducible, IrreducibleCycleError, ReducedCycle};
