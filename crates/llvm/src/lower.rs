//! Lowering the Lanewise IR into LLVM IR.
