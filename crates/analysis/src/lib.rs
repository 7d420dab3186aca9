//! Analyses over the Lanewise IR. Each analysis is one module with a
//! `compute` constructor and query methods; results are side tables keyed by
//! entity ids. Nothing here is updated incrementally: a pass that changes the
//! function recomputes what it needs.

pub mod cfg;
pub mod dominators;
pub mod loops;
pub mod shapes;

pub use cfg::ControlFlowGraph;
pub use dominators::DominatorTree;
pub use loops::LoopInfo;
pub use shapes::{Shape, ShapeError, ShapeInfo, ValueShape};
