//! The control-flow graph: predecessors and successors of every block, the
//! reverse post-order from the entry block, and which blocks are reachable.
//!
//! Like Cranelift's `flowgraph.rs`, this is a plain side table computed from
//! a [`Function`] in one pass over the terminators of the blocks in the
//! layout; nothing here is updated incrementally. Every analysis of the
//! vectorizer (dominators, loops, control dependence, divergence, Karrenberg
//! 2014 Ch. 5) starts from it.
//!
//! # Shape of the result
//! - `succs(block)`: the successors named by the block's terminator, in
//!   terminator order (a branch's `then` before its `else`, a switch's
//!   default before its cases), duplicates removed.
//! - `preds(block)`: the blocks whose terminator names `block`, in layout
//!   order, duplicates removed (a switch with two cases going to `block`
//!   gives one predecessor).
//! - `reverse_post_order()`: the blocks reachable from the entry block, in
//!   reverse post-order of a depth-first search. Every block comes before
//!   its successors except along back edges. The search visits successors in
//!   reverse terminator order, so that of two successors the first one listed
//!   by the terminator comes first in the reverse post-order (a diamond reads
//!   entry, then, else, join; a loop reads header, body, exit).
//!
//! # Robustness
//! The verifier computes the CFG of functions that may be broken, so
//! `compute` never panics: a block without terminator has no successors, an
//! instruction id past the end of the DFG is ignored, and a successor that is
//! not in the layout (or does not exist at all) is left out of the graph. The
//! verifier reports those defects itself.
//!
//! # What invalidates it
//! Adding or removing blocks from the layout, changing which block comes
//! first, and changing the successors of any terminator (including replacing
//! a terminator). Moving a block elsewhere in the layout keeps the graph
//! itself but may change the order of predecessor lists. Adding, removing or
//! rewriting non-terminator instructions keeps it valid. Recompute with
//! [`ControlFlowGraph::compute`] after such changes; [`ControlFlowGraph::is_valid`]
//! only says whether it was computed at all.

use cranelift_entity::{EntityRef, SecondaryMap};

use crate::entities::Block;
use crate::function::Function;

/// Predecessors, successors, reverse post-order and reachability of the
/// blocks of one function.
#[derive(Clone, Debug, Default)]
pub struct ControlFlowGraph {
    predecessors: SecondaryMap<Block, Vec<Block>>,
    successors: SecondaryMap<Block, Vec<Block>>,
    reverse_post_order: Vec<Block>,
    reachable: SecondaryMap<Block, bool>,
    entry: Option<Block>,
    valid: bool,
}

impl ControlFlowGraph {
    /// An empty, invalid graph (to be filled by [`ControlFlowGraph::compute`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes the graph of `func` from the terminators of its layout blocks.
    pub fn compute(func: &Function) -> Self {
        let mut cfg = ControlFlowGraph::new();
        cfg.recompute(func);
        cfg
    }

    /// Recomputes the graph in place, reusing its allocations.
    pub fn recompute(&mut self, func: &Function) {
        self.clear();
        for &block in func.layout.blocks() {
            for successor in terminator_successors(func, block) {
                if !func.layout.is_block_inserted(successor) {
                    continue;
                }
                if !self.successors[block].contains(&successor) {
                    self.successors[block].push(successor);
                }
                if !self.predecessors[successor].contains(&block) {
                    self.predecessors[successor].push(block);
                }
            }
        }
        self.entry = func.layout.entry_block();
        if let Some(entry) = self.entry {
            let successors = &self.successors;
            self.reverse_post_order =
                reverse_post_order_from(entry, |block| successors[block].clone());
        }
        for &block in &self.reverse_post_order {
            self.reachable[block] = true;
        }
        self.valid = true;
    }

    /// Empties the graph and marks it invalid.
    pub fn clear(&mut self) {
        self.predecessors.clear();
        self.successors.clear();
        self.reverse_post_order.clear();
        self.reachable.clear();
        self.entry = None;
        self.valid = false;
    }

    /// Whether the graph has been computed (not whether it is still current:
    /// see the module docs for what invalidates it).
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// The entry block of the function the graph was computed for.
    pub fn entry_block(&self) -> Option<Block> {
        debug_assert!(self.is_valid());
        self.entry
    }

    /// The predecessors of `block`, in layout order, without duplicates.
    pub fn preds(&self, block: Block) -> &[Block] {
        debug_assert!(self.is_valid());
        &self.predecessors[block]
    }

    /// The successors of `block`, in terminator order, without duplicates.
    pub fn succs(&self, block: Block) -> &[Block] {
        debug_assert!(self.is_valid());
        &self.successors[block]
    }

    /// The blocks reachable from the entry, in reverse post-order (entry first).
    pub fn reverse_post_order(&self) -> &[Block] {
        debug_assert!(self.is_valid());
        &self.reverse_post_order
    }

    /// The blocks reachable from the entry, in post-order (entry last).
    pub fn post_order(&self) -> impl Iterator<Item = Block> + '_ {
        debug_assert!(self.is_valid());
        self.reverse_post_order.iter().rev().copied()
    }

    /// Whether `block` is reachable from the entry block.
    pub fn is_reachable(&self, block: Block) -> bool {
        debug_assert!(self.is_valid());
        self.reachable[block]
    }
}

/// The successors named by the terminator of `block`, in order, with
/// duplicates; empty if the block does not end with a terminator or its last
/// instruction does not exist. Never panics.
fn terminator_successors(func: &Function, block: Block) -> Vec<Block> {
    let Some(last) = func.layout.last_inst(block) else {
        return Vec::new();
    };
    match func.dfg.insts.get(last) {
        Some(data) if data.is_terminator() => data.successors(),
        _ => Vec::new(),
    }
}

/// The nodes reachable from `root` in reverse post-order of a depth-first
/// search that visits the successors of each node in the reverse of the order
/// `successors` returns them, so that in the result the first successor comes
/// before the second (unless an edge between them says otherwise).
///
/// Generic over the node type so that the dominator computation can run it on
/// the reversed graph with a virtual exit node as well. Iterative (no
/// recursion), so deep graphs cannot overflow the stack.
pub fn reverse_post_order_from<Node, Successors>(
    root: Node,
    mut successors: impl FnMut(Node) -> Successors,
) -> Vec<Node>
where
    Node: EntityRef,
    Successors: IntoIterator<Item = Node>,
{
    let mut visited: SecondaryMap<Node, bool> = SecondaryMap::new();
    let mut post_order = Vec::new();
    // Each stack entry is a node and its successors not yet explored; `pop`
    // takes the last successor first.
    let mut stack: Vec<(Node, Vec<Node>)> = Vec::new();
    visited[root] = true;
    stack.push((root, successors(root).into_iter().collect()));
    while let Some((node, pending)) = stack.last_mut() {
        match pending.pop() {
            Some(next) => {
                if !visited[next] {
                    visited[next] = true;
                    stack.push((next, successors(next).into_iter().collect()));
                }
            }
            None => {
                post_order.push(*node);
                stack.pop();
            }
        }
    }
    post_order.reverse();
    post_order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::FunctionBuilder;
    use crate::instructions::InstData;
    use crate::test_functions::{counting_loop, diamond, invoke_with_landing_pad, several_returns};
    use crate::types::Type;

    fn block(index: usize) -> Block {
        Block::new(index)
    }

    fn blocks(indices: &[usize]) -> Vec<Block> {
        indices.iter().map(|&index| block(index)).collect()
    }

    #[test]
    fn diamond_has_two_paths_and_a_join() {
        let cfg = ControlFlowGraph::compute(&diamond());
        assert!(cfg.is_valid());
        assert_eq!(cfg.succs(block(0)), blocks(&[1, 2]));
        assert_eq!(cfg.succs(block(1)), blocks(&[3]));
        assert_eq!(cfg.preds(block(3)), blocks(&[1, 2]));
        assert_eq!(cfg.preds(block(0)), blocks(&[]));
        assert_eq!(cfg.reverse_post_order(), blocks(&[0, 1, 2, 3]));
        assert_eq!(cfg.post_order().collect::<Vec<_>>(), blocks(&[3, 2, 1, 0]));
        assert_eq!(cfg.entry_block(), Some(block(0)));
    }

    #[test]
    fn invoke_has_its_normal_and_unwind_destinations_as_successors() {
        let cfg = ControlFlowGraph::compute(&invoke_with_landing_pad());
        assert_eq!(cfg.succs(block(0)), blocks(&[1, 2]));
        assert_eq!(cfg.preds(block(2)), blocks(&[0]));
        // `resume` leaves the function, like `ret`.
        assert_eq!(cfg.succs(block(2)), blocks(&[]));
        assert_eq!(cfg.reverse_post_order(), blocks(&[0, 1, 2]));
    }

    #[test]
    fn loop_header_has_the_latch_as_predecessor() {
        let cfg = ControlFlowGraph::compute(&counting_loop());
        assert_eq!(cfg.preds(block(1)), blocks(&[0, 2]));
        assert_eq!(cfg.succs(block(1)), blocks(&[2, 3]));
        // Header, then the body (first successor), then the exit.
        assert_eq!(cfg.reverse_post_order(), blocks(&[0, 1, 2, 3]));
    }

    #[test]
    fn unreachable_blocks_are_left_out_of_the_order() {
        let cfg = ControlFlowGraph::compute(&several_returns());
        assert_eq!(cfg.reverse_post_order(), blocks(&[0, 1, 2, 3, 4, 5]));
        assert!(cfg.is_reachable(block(5)));
        assert!(!cfg.is_reachable(block(6)));
        assert_eq!(cfg.succs(block(6)), blocks(&[]));
        assert_eq!(cfg.preds(block(5)), blocks(&[3, 4]));
    }

    #[test]
    fn duplicate_edges_are_merged() {
        let mut func = Function::new("switchy", vec![Type::I32], Type::Void);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(None);
        let target = b.create_block(None);
        let other = b.create_block(None);
        let selector = b.func.param_value(0);
        b.switch_to_block(entry);
        let cases = vec![(1, target), (2, other), (3, target)];
        b.ins(InstData::Switch { value: selector, default: target, cases }, Type::Void);
        b.switch_to_block(target);
        b.ret(None);
        b.switch_to_block(other);
        b.branch(selector, target, target);
        let cfg = ControlFlowGraph::compute(&func);
        assert_eq!(cfg.succs(entry), [target, other]);
        assert_eq!(cfg.preds(target), [entry, other]);
        assert_eq!(cfg.succs(other), [target]);
    }

    #[test]
    fn broken_functions_do_not_panic() {
        let mut func = Function::new("broken", vec![], Type::Void);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(None);
        let empty = b.create_block(None);
        b.switch_to_block(entry);
        // A jump to a block that exists nowhere, and one that is not in the layout.
        let detached = b.func.dfg.make_block(None);
        b.branch(crate::Value::new(999), Block::new(1000), detached);
        let cfg = ControlFlowGraph::compute(&func);
        assert_eq!(cfg.succs(entry), blocks(&[]));
        assert_eq!(cfg.succs(empty), blocks(&[]));
        assert_eq!(cfg.reverse_post_order(), [entry]);

        let empty_function = Function::new("empty", vec![], Type::Void);
        let cfg = ControlFlowGraph::compute(&empty_function);
        assert_eq!(cfg.entry_block(), None);
        assert!(cfg.reverse_post_order().is_empty());
    }
}
