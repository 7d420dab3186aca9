//! Text form of the IR (LLVM-like), used by `--dump-after`, diagnostics and tests.

use std::fmt;

use crate::function::Function;

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "function {}", self.name)
    }
}
