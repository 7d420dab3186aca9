//! TODO
pub struct LoopInfo;
