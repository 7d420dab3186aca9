//! Analyses over the Lanewise IR. Each analysis is one module with a
//! `compute` constructor and query methods; results are side tables keyed by
//! entity ids. Nothing here is updated incrementally: a pass that changes the
//! function recomputes what it needs.
//!
//! The control-flow graph and the dominator tree live in `lanewise-ir` (the
//! verifier needs them) and are re-exported here.
//!
//! - [`shapes`]: vector shapes (uniform / strided(k) / varying + alignment).
//! - [`uniformity`]: the check that a function's control flow is uniform,
//!   which this milestone requires.
//! - [`loops`]: natural loops and their nesting.
//! - [`loop_uses`]: each loop's values used outside it, and where.
//! - [`control_dependence`]: which CFG edges each block is control dependent on.
//! - [`block_index`]: the loop- and dominance-compact topological block
//!   order of partial linearization.
//! - [`divergence`]: shapes with control divergence (sync dependence, join
//!   blocks, divergent loops), uniform predicates and `by_all`.

pub mod block_index;
pub mod control_dependence;
pub mod divergence;
pub mod loop_uses;
pub mod loops;
pub mod shapes;
#[cfg(test)]
pub(crate) mod testing;
pub mod uniformity;

pub use block_index::BlockIndex;
pub use control_dependence::{CfgEdge, ControlDependence};
pub use divergence::{AllocaReport, DivergenceInfo};
pub use lanewise_ir::cfg::ControlFlowGraph;
pub use lanewise_ir::dominators::{DominatorTree, PostDominatorTree};
pub use loop_uses::{LoopUses, UseSite};
pub use loops::{IrreducibleError, Loop, LoopData, LoopInfo};
pub use shapes::{Shape, ShapeError, ShapeInfo, ShapeSolver, ValueShape};
pub use uniformity::{check_uniform_control_flow, DivergenceError, DivergentTerminator};

use lanewise_ir::{Block, Function, SecondaryMap};

/// The blocks reachable from the entry block along terminator successors.
pub(crate) fn reachable_blocks(func: &Function) -> SecondaryMap<Block, bool> {
    let mut reachable = SecondaryMap::new();
    let Some(entry) = func.entry_block() else { return reachable };
    let mut stack = vec![entry];
    reachable[entry] = true;
    while let Some(block) = stack.pop() {
        for successor in func.successors(block) {
            if !reachable[successor] {
                reachable[successor] = true;
                stack.push(successor);
            }
        }
    }
    reachable
}
