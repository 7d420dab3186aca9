//! Typed `u32` ids for the entities of a function.
//!
//! As in Cranelift (`ir/entities.rs`), entities are small copyable indices into
//! arenas owned by the [`crate::DataFlowGraph`], not references: a vectorizer
//! rewires instructions constantly, and indices keep that free of borrow fights.
//! Side tables keyed by these ids (`SecondaryMap`) hold analysis results.
//! `Display` prints the text-format name used by the printer (`v3`, `block2`).

use cranelift_entity::entity_impl;

/// A basic block.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// An instruction. Its result, if any, is a [`Value`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// An SSA value: a function parameter, an instruction result or a constant.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");
