//! Control-flow graph: predecessors and successors of every block. TODO
use crate::Block;
/// Placeholder (being implemented).
pub struct ControlFlowGraph {
    _blocks: Vec<Block>,
}
