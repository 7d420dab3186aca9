//! Control dependence (Ferrante, Ottenstein & Warren 1987; PLDI'18 Sec. 2.4).
//!
//! Block `k` is *control dependent* on the CFG edge `a -> b` iff `k`
//! post-dominates `b` but does not *strictly* post-dominate `a`: taking the
//! edge commits execution to reach `k`, not taking it may avoid `k`. The
//! block predicates of if-conversion are built from these edges (PLDI'18
//! 2.4: `p(b)` is the disjunction of the predicates of `b`'s cdep edges), and
//! the divergence analysis uses them for `uni(b)` and `by_all`
//! ([`crate::divergence`]).
//!
//! PLDI'18 writes "`k` does not post-dominate `a`" (reflexively). On the
//! acyclic CFGs that partial linearization works on the two readings agree,
//! because `a` can post-dominate its successor `b` only on a cycle. On a CFG
//! with loops we use the classic strict reading, which makes a block of a
//! loop control dependent on the branches that decide whether the loop runs
//! another iteration (a `while` header is control dependent on its own
//! `header -> body` edge). That is what `by_all` needs: a block of a loop
//! with a varying exit is not executed by all lanes in later iterations.
//!
//! # Algorithm
//! For every edge `a -> b`, walk the post-dominator tree from `b` up to, but
//! excluding, the immediate post-dominator of `a`; every block on the way is
//! control dependent on the edge. (`ipdom(a)` post-dominates every
//! successor of `a`, so the walk always reaches it.) Linear in the size of
//! the result, which is O(edges × blocks) in the worst case.
//!
//! # Several returns, infinite loops
//! The post-dominator tree is rooted at a *virtual exit* that every exit
//! block (`ret`, `unreachable`) flows into ([`PostDominatorTree`]). When
//! `ipdom(a)` is the virtual exit, the walk goes up to the root: a block
//! that only some paths from `a` reach before returning is control
//! dependent on `a`'s edges, and so is a `ret` block reached from only one
//! side of a branch. The virtual exit itself is never reported.
//!
//! Blocks from which no exit is reachable (an infinite loop) are not in the
//! post-dominator tree: we record them in [`ControlDependence::reaches_no_exit`],
//! give them no control dependences and skip edges into them. Their
//! dependence is unknown, so clients must treat them conservatively (the
//! divergence analysis never calls them `by_all` or `uniform_predicate`).
//! PLDI'18 assumes every loop exits (2.1), so the vectorizer rejects such
//! functions before linearization anyway.
//!
//! Unreachable blocks take no part. What invalidates the result: everything
//! that invalidates the CFG and the post-dominator tree it was computed from.

use std::collections::BTreeMap;

use lanewise_ir::cfg::ControlFlowGraph;
use lanewise_ir::dominators::PostDominatorTree;
use lanewise_ir::{Block, Function, SecondaryMap};

/// A CFG edge `source -> target`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct CfgEdge {
    pub source: Block,
    pub target: Block,
}

impl CfgEdge {
    pub fn new(source: Block, target: Block) -> Self {
        CfgEdge { source, target }
    }
}

impl std::fmt::Display for CfgEdge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} -> {}", self.source, self.target)
    }
}

/// The control dependences of one function.
#[derive(Clone, Debug, Default)]
pub struct ControlDependence {
    /// The cdep edges of each block, sorted by source then target.
    edges_of_block: SecondaryMap<Block, Vec<CfgEdge>>,
    /// The blocks control dependent on each edge, in post-dominator tree order
    /// (closest to the edge target first).
    dependents_of_edge: BTreeMap<CfgEdge, Vec<Block>>,
    reaches_no_exit: SecondaryMap<Block, bool>,
    valid: bool,
}

impl ControlDependence {
    /// Computes the control dependences of `func` from its CFG and
    /// post-dominator tree.
    pub fn compute(func: &Function, cfg: &ControlFlowGraph, postdom: &PostDominatorTree) -> Self {
        let _ = func;
        let mut result = ControlDependence { valid: true, ..ControlDependence::default() };
        let tree = postdom.generic();
        let virtual_exit = postdom.virtual_exit();
        for &source in cfg.reverse_post_order() {
            if !postdom.reaches_exit(source) {
                result.reaches_no_exit[source] = true;
                continue;
            }
            // The root (virtual exit) if `source` is an exit or its paths end
            // in different exits.
            let stop = tree.idom(source).unwrap_or(virtual_exit);
            for &target in cfg.succs(source) {
                if !postdom.reaches_exit(target) {
                    continue;
                }
                let edge = CfgEdge::new(source, target);
                let mut dependent = target;
                while dependent != stop && dependent != virtual_exit {
                    result.edges_of_block[dependent].push(edge);
                    result.dependents_of_edge.entry(edge).or_default().push(dependent);
                    match tree.idom(dependent) {
                        Some(parent) => dependent = parent,
                        None => break,
                    }
                }
            }
        }
        for block in cfg.reverse_post_order() {
            result.edges_of_block[*block].sort();
        }
        result
    }

    /// Whether the result has been computed.
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// The edges `block` is control dependent on (`cdep(block)`), sorted.
    /// Empty for the entry block, for blocks every path from the entry
    /// reaches, and for blocks that reach no exit.
    pub fn cdep_edges(&self, block: Block) -> &[CfgEdge] {
        debug_assert!(self.is_valid());
        &self.edges_of_block[block]
    }

    /// The blocks `block` is control dependent on: the sources of its cdep
    /// edges, sorted and without duplicates.
    pub fn cdep_blocks(&self, block: Block) -> Vec<Block> {
        let mut blocks: Vec<Block> =
            self.cdep_edges(block).iter().map(|edge| edge.source).collect();
        blocks.dedup();
        blocks
    }

    /// The blocks control dependent on the edge `source -> target`, closest
    /// to `target` first (the post-dominator chain from `target`).
    pub fn dependents(&self, source: Block, target: Block) -> &[Block] {
        debug_assert!(self.is_valid());
        self.dependents_of_edge.get(&CfgEdge::new(source, target)).map_or(&[], Vec::as_slice)
    }

    /// Every edge that some block is control dependent on, with its
    /// dependents, in edge order.
    pub fn edges(&self) -> impl Iterator<Item = (CfgEdge, &[Block])> + '_ {
        self.dependents_of_edge.iter().map(|(edge, blocks)| (*edge, blocks.as_slice()))
    }

    /// Whether `block` is reachable from the entry but reaches no exit (it
    /// is in or leads only to an infinite loop); its control dependences
    /// are unknown.
    pub fn reaches_no_exit(&self, block: Block) -> bool {
        debug_assert!(self.is_valid());
        self.reaches_no_exit[block]
    }
}

#[cfg(test)]
mod tests {
    use lanewise_ir::dominators::PostDominatorTree;

    use super::*;
    use crate::testing::cfg_function;

    fn cdep_of(names: &[&str], edges: &[(&str, &str)]) -> (ControlDependence, Vec<Block>) {
        let (func, blocks) = cfg_function(names, edges);
        let cfg = ControlFlowGraph::compute(&func);
        let postdom = PostDominatorTree::compute(&func, &cfg);
        (ControlDependence::compute(&func, &cfg, &postdom), blocks)
    }

    fn edge(source: Block, target: Block) -> CfgEdge {
        CfgEdge::new(source, target)
    }

    #[test]
    fn diamond_arms_depend_on_their_edges_and_the_join_on_nothing() {
        let names = ["entry", "then", "else", "join"];
        let edges = [("entry", "then"), ("entry", "else"), ("then", "join"), ("else", "join")];
        let (cdep, b) = cdep_of(&names, &edges);
        assert_eq!(cdep.cdep_edges(b[0]), &[]);
        assert_eq!(cdep.cdep_edges(b[1]), &[edge(b[0], b[1])]);
        assert_eq!(cdep.cdep_edges(b[2]), &[edge(b[0], b[2])]);
        assert_eq!(cdep.cdep_edges(b[3]), &[]);
        assert_eq!(cdep.dependents(b[0], b[1]), &[b[1]]);
        assert_eq!(cdep.dependents(b[1], b[3]), &[]);
        assert_eq!(cdep.cdep_blocks(b[2]), vec![b[0]]);
    }

    #[test]
    fn loop_blocks_depend_on_the_edge_that_stays_in_the_loop() {
        // entry -> header; header -> body | exit; body -> header.
        let names = ["entry", "header", "body", "exit"];
        let edges =
            [("entry", "header"), ("header", "body"), ("header", "exit"), ("body", "header")];
        let (cdep, b) = cdep_of(&names, &edges);
        let (header, body) = (b[1], b[2]);
        // The header runs again only if header -> body was taken.
        assert_eq!(cdep.cdep_edges(header), &[edge(header, body)]);
        assert_eq!(cdep.cdep_edges(body), &[edge(header, body)]);
        assert_eq!(cdep.dependents(header, body), &[body, header]);
        assert_eq!(cdep.cdep_edges(b[3]), &[]);
    }

    #[test]
    fn several_returns_use_the_virtual_exit() {
        // entry -> early | work; early returns; work -> a | b2; a, b2 -> tail; tail returns.
        let names = ["entry", "early", "work", "a", "b2", "tail"];
        let edges = [
            ("entry", "early"),
            ("entry", "work"),
            ("work", "a"),
            ("work", "b2"),
            ("a", "tail"),
            ("b2", "tail"),
        ];
        let (cdep, b) = cdep_of(&names, &edges);
        let (entry, early, work, a, tail) = (b[0], b[1], b[2], b[3], b[5]);
        // `ipdom(entry)` is the virtual exit: the walk from `work` goes to the root.
        assert_eq!(cdep.cdep_edges(early), &[edge(entry, early)]);
        assert_eq!(cdep.dependents(entry, work), &[work, tail]);
        assert_eq!(cdep.cdep_edges(tail), &[edge(entry, work)]);
        assert_eq!(cdep.cdep_edges(a), &[edge(work, a)]);
    }

    #[test]
    fn infinite_loops_have_no_control_dependences() {
        let names = ["entry", "spin", "exit"];
        let edges = [("entry", "spin"), ("entry", "exit"), ("spin", "spin")];
        let (cdep, b) = cdep_of(&names, &edges);
        assert!(cdep.reaches_no_exit(b[1]));
        assert_eq!(cdep.cdep_edges(b[1]), &[]);
        assert!(!cdep.reaches_no_exit(b[2]));
        // The post-dominator tree ignores the spinning path, so `exit`
        // post-dominates `entry` and depends on nothing.
        assert_eq!(cdep.cdep_edges(b[2]), &[]);
    }
}
