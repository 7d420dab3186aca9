//! Analyses over the Lanewise IR. Each analysis is one module with a
//! `compute` constructor and query methods; results are side tables keyed by
//! entity ids. Nothing here is updated incrementally: a pass that changes the
//! function recomputes what it needs.
//!
//! The control-flow graph and the dominator tree live in `lanewise-ir` (the
//! verifier needs them) and are re-exported here.

pub mod loops;
pub mod shapes;

pub use lanewise_ir::cfg::ControlFlowGraph;
pub use lanewise_ir::dominators::DominatorTree;
pub use loops::LoopInfo;
pub use shapes::{Shape, ShapeError, ShapeInfo, ValueShape};
