//! TODO
pub struct DominatorTree;
