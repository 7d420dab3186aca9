//! Support code of the corpus differential tests (see tests/corpus/README.md).

pub mod driver;
pub mod harness_module;
pub mod llvm_text;
pub mod pipeline;
pub mod variant_name;
