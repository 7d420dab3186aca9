//! Lifting LLVM IR into the Lanewise IR.
