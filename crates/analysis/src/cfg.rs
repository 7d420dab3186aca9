//! TODO
pub struct ControlFlowGraph;
