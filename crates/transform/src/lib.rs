//! Transforms of the Lanewise IR. Each pass is one module whose entry point's
//! signature says what it reads and what it produces.

pub mod widen;

pub use widen::{widen_function, WidenConfig, WidenError};
