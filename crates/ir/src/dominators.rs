//! Dominator tree. TODO
/// Placeholder (being implemented).
pub struct DominatorTree;
