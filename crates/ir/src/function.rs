//! A function: signature, data-flow graph and layout.

use std::collections::{BTreeSet, HashMap};

use crate::dfg::DataFlowGraph;

use crate::entities::{Block, Inst, Value};
use crate::layout::Layout;
use crate::loop_hints::LoopHints;
use crate::types::Type;

/// A function parameter.
#[derive(Clone, PartialEq, Debug)]
pub struct Param {
    pub ty: Type,
    pub value: Value,
}

/// A function of the Lanewise IR.
#[derive(Clone, Debug, Default)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    pub ret_ty: Type,
    pub dfg: DataFlowGraph,
    pub layout: Layout,
    /// Allocas that hold one buffer for all lanes instead of one copy per
    /// lane: the interleaved private arrays of
    /// `lanewise_transform::private_memory`, whose lanes address their cells
    /// through `rv_lane_id()`. The shape analysis gives them a uniform address.
    pub shared_allocas: BTreeSet<Inst>,
    /// The input's loop metadata, per loop-latch terminator (see
    /// [`crate::loop_hints`]); empty for functions Lanewise builds.
    pub loop_hints: HashMap<Inst, LoopHints>,
    /// The personality function (by name: `__gxx_personality_v0` for C++)
    /// that interprets the function's landing pads; a function with
    /// `landingpad` or `resume` must have one.
    pub personality: Option<String>,
    /// The input's `llvm.lifetime.start`/`end` calls, which the lift drops,
    /// as facts: the stack slot, the block that held the marker, and
    /// whether it started the slot's lifetime. Valid for the lifted function
    /// only (passes do not update it); `omp simd` loop planning reads it to
    /// find the slots private to an iteration.
    pub lifetime_markers: Vec<LifetimeMarker>,
    /// The pointer parameters the input marks `noalias` (C's `restrict`):
    /// memory reached through one of them is reached through no pointer
    /// not derived from it while the function runs. Read by the
    /// basic-block vectorizer's dependence test; functions Lanewise builds
    /// have none.
    pub noalias_params: BTreeSet<u32>,
}

/// One dropped lifetime marker (see [`Function::lifetime_markers`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct LifetimeMarker {
    pub slot: Value,
    pub block: Block,
    pub start: bool,
}

impl Function {
    /// A function with the given signature and no blocks; parameter values
    /// are created here.
    pub fn new(name: impl Into<String>, param_types: Vec<Type>, ret_ty: Type) -> Self {
        let mut dfg = DataFlowGraph::new();
        let params = param_types
            .into_iter()
            .enumerate()
            .map(|(index, ty)| {
                let value = dfg.make_param(index as u32, ty.clone());
                Param { ty, value }
            })
            .collect();
        Function {
            name: name.into(),
            params,
            ret_ty,
            dfg,
            layout: Layout::new(),
            shared_allocas: BTreeSet::new(),
            loop_hints: HashMap::new(),
            personality: None,
            lifetime_markers: Vec::new(),
            noalias_params: BTreeSet::new(),
        }
    }

    pub fn param_value(&self, index: usize) -> Value {
        self.params[index].value
    }

    pub fn entry_block(&self) -> Option<Block> {
        self.layout.entry_block()
    }

    /// The terminator of `block`, if the block ends with one.
    pub fn terminator(&self, block: Block) -> Option<Inst> {
        let last = self.layout.last_inst(block)?;
        self.dfg.inst(last).is_terminator().then_some(last)
    }

    /// Successors of `block` in terminator order, duplicates removed.
    pub fn successors(&self, block: Block) -> Vec<Block> {
        let mut successors = match self.terminator(block) {
            Some(term) => self.dfg.inst(term).successors(),
            None => Vec::new(),
        };
        let mut seen = Vec::with_capacity(successors.len());
        successors.retain(|block| {
            if seen.contains(block) {
                false
            } else {
                seen.push(*block);
                true
            }
        });
        successors
    }

    /// Appends a new instruction at the end of `block` and returns it.
    pub fn append(&mut self, block: Block, data: crate::InstData, result_ty: Type) -> Inst {
        let inst = self.dfg.make_inst(data, result_ty);
        self.layout.append_inst(inst, block);
        inst
    }

    /// A name for `block` in diagnostics.
    pub fn block_name(&self, block: Block) -> String {
        self.dfg.display_block(block)
    }
}
