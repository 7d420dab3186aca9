//! Natural loops and their nesting.
//!
//! A *back edge* is a CFG edge `latch -> header` whose target dominates its
//! source; the natural loop of a header is the header plus every block that
//! reaches one of its latches without passing through the header. Loops with
//! the same header are merged (one [`Loop`] per header, with several
//! latches). In a reducible CFG two natural loops are either disjoint or
//! nested, which gives the loop tree: parent, children and depth (outermost
//! loops have depth 1, blocks outside every loop depth 0).
//!
//! WFV assumes a reducible CFG (Karrenberg 2014, 3.1 and 6.5; PLDI'18
//! Sec. 2): its divergent-loop transform and linearization reason about loops
//! with a single header. So does this analysis: a *retreating* edge of a
//! depth-first search (an edge to a block still on the search stack) whose
//! target does not dominate its source closes a cycle with a second entry,
//! and [`LoopInfo::compute`] rejects it with an [`IrreducibleError`] that
//! names the function and both blocks.
//!
//! For every loop this records its blocks (header first, then in reverse
//! post-order), its latches, its *exiting* blocks (inside, with a successor
//! outside) and its *exit* blocks (outside, with a predecessor inside). Only
//! blocks reachable from the entry take part.
//!
//! What invalidates it: everything that invalidates the CFG and the
//! dominator tree it was computed from (adding, removing or retargeting
//! edges or blocks). Recompute after such changes.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};
use lanewise_ir::cfg::ControlFlowGraph;
use lanewise_ir::dominators::DominatorTree;
use lanewise_ir::{Block, Function};

/// A natural loop, identified by its header.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loop(u32);
entity_impl!(Loop, "loop");

/// Everything known about one loop.
#[derive(Clone, Debug)]
pub struct LoopData {
    /// The only block of the loop with predecessors outside it; it
    /// dominates every block of the loop.
    pub header: Block,
    /// The innermost loop strictly containing this one.
    pub parent: PackedOption<Loop>,
    /// 1 for an outermost loop, parent depth + 1 otherwise.
    pub depth: u32,
    /// Loops directly nested in this one, in reverse post-order of headers.
    pub children: Vec<Loop>,
    /// All blocks of the loop, nested loops included: the header first,
    /// then reverse post-order.
    pub blocks: Vec<Block>,
    /// Blocks of the loop with an edge back to the header, in reverse post-order.
    pub latches: Vec<Block>,
    /// Blocks of the loop with a successor outside the loop, in reverse post-order.
    pub exiting_blocks: Vec<Block>,
    /// Blocks outside the loop with a predecessor inside it, in the order the
    /// exiting blocks' terminators name them.
    pub exit_blocks: Vec<Block>,
}

/// A cycle of the CFG with more than one entry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "function `{function}` has irreducible control flow: the edge from `{source_block}` to \
     `{target}` closes a cycle that `{target}` does not dominate (the cycle has more than one \
     entry); irreducible loops are not supported"
)]
pub struct IrreducibleError {
    pub function: String,
    /// The source of the retreating edge.
    pub source_block: String,
    /// Its target, a block on the cycle that is not its only entry.
    pub target: String,
}

/// The loop forest of one function.
#[derive(Clone, Debug, Default)]
pub struct LoopInfo {
    loops: PrimaryMap<Loop, LoopData>,
    /// The innermost loop containing each block.
    innermost: SecondaryMap<Block, PackedOption<Loop>>,
    /// The loop whose header each block is.
    header_of: SecondaryMap<Block, PackedOption<Loop>>,
    top_level: Vec<Loop>,
}

impl LoopInfo {
    /// Finds the natural loops of `func`, whose CFG and dominator tree are
    /// `cfg` and `domtree`, or reports that the CFG is irreducible.
    pub fn compute(
        func: &Function,
        cfg: &ControlFlowGraph,
        domtree: &DominatorTree,
    ) -> Result<LoopInfo, IrreducibleError> {
        check_reducible(func, cfg, domtree)?;
        let mut info = LoopInfo::default();
        let rpo = cfg.reverse_post_order();
        let mut rpo_number: SecondaryMap<Block, u32> = SecondaryMap::new();
        for (number, block) in rpo.iter().enumerate() {
            rpo_number[*block] = number as u32;
        }

        // Headers in reverse post-order: an outer header strictly dominates
        // the headers nested in it, so it comes first, and each loop's parent
        // is the innermost loop found so far that contains its header.
        for &header in rpo {
            let mut latches: Vec<Block> = cfg
                .preds(header)
                .iter()
                .copied()
                .filter(|pred| cfg.is_reachable(*pred) && domtree.dominates(header, *pred))
                .collect();
            if latches.is_empty() {
                continue;
            }
            latches.sort_by_key(|block| rpo_number[*block]);

            // The body: everything that reaches a latch without passing the header.
            let mut in_loop: SecondaryMap<Block, bool> = SecondaryMap::new();
            in_loop[header] = true;
            let mut blocks = vec![header];
            let mut stack = latches.clone();
            while let Some(block) = stack.pop() {
                if in_loop[block] {
                    continue;
                }
                in_loop[block] = true;
                blocks.push(block);
                stack.extend(
                    cfg.preds(block)
                        .iter()
                        .copied()
                        .filter(|pred| cfg.is_reachable(*pred) && !in_loop[*pred]),
                );
            }
            blocks[1..].sort_by_key(|block| rpo_number[*block]);

            let mut exiting_blocks = Vec::new();
            let mut exit_blocks = Vec::new();
            for &block in &blocks {
                let mut exits_here = false;
                for &successor in cfg.succs(block) {
                    if !in_loop[successor] {
                        exits_here = true;
                        if !exit_blocks.contains(&successor) {
                            exit_blocks.push(successor);
                        }
                    }
                }
                if exits_here {
                    exiting_blocks.push(block);
                }
            }

            let parent = info.innermost[header];
            let depth = parent.expand().map_or(1, |parent| info.loops[parent].depth + 1);
            let this = info.loops.push(LoopData {
                header,
                parent,
                depth,
                children: Vec::new(),
                blocks,
                latches,
                exiting_blocks,
                exit_blocks,
            });
            match parent.expand() {
                Some(parent) => info.loops[parent].children.push(this),
                None => info.top_level.push(this),
            }
            info.header_of[header] = this.into();
            for &block in &info.loops[this].blocks {
                info.innermost[block] = this.into();
            }
        }
        Ok(info)
    }

    /// All loops, outer loops before the loops nested in them.
    pub fn loops(&self) -> impl Iterator<Item = Loop> + '_ {
        self.loops.keys()
    }

    /// The number of loops.
    pub fn len(&self) -> usize {
        self.loops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// The outermost loops, in reverse post-order of their headers.
    pub fn top_level_loops(&self) -> &[Loop] {
        &self.top_level
    }

    /// Everything known about `lp`.
    pub fn data(&self, lp: Loop) -> &LoopData {
        &self.loops[lp]
    }

    pub fn header(&self, lp: Loop) -> Block {
        self.loops[lp].header
    }

    pub fn parent(&self, lp: Loop) -> Option<Loop> {
        self.loops[lp].parent.expand()
    }

    pub fn depth(&self, lp: Loop) -> u32 {
        self.loops[lp].depth
    }

    pub fn children(&self, lp: Loop) -> &[Loop] {
        &self.loops[lp].children
    }

    /// The blocks of `lp` (nested loops included), header first.
    pub fn blocks(&self, lp: Loop) -> &[Block] {
        &self.loops[lp].blocks
    }

    pub fn latches(&self, lp: Loop) -> &[Block] {
        &self.loops[lp].latches
    }

    pub fn exiting_blocks(&self, lp: Loop) -> &[Block] {
        &self.loops[lp].exiting_blocks
    }

    pub fn exit_blocks(&self, lp: Loop) -> &[Block] {
        &self.loops[lp].exit_blocks
    }

    /// The innermost loop containing `block`, if any.
    pub fn innermost_loop(&self, block: Block) -> Option<Loop> {
        self.innermost[block].expand()
    }

    /// The loop whose header `block` is, if any.
    pub fn loop_of_header(&self, block: Block) -> Option<Loop> {
        self.header_of[block].expand()
    }

    pub fn is_header(&self, block: Block) -> bool {
        self.header_of[block].is_some()
    }

    /// The number of loops containing `block` (0 outside every loop).
    pub fn loop_depth(&self, block: Block) -> u32 {
        self.innermost_loop(block).map_or(0, |lp| self.depth(lp))
    }

    /// Whether `block` belongs to `lp` (directly or through a nested loop).
    pub fn contains(&self, lp: Loop, block: Block) -> bool {
        let mut current = self.innermost_loop(block);
        while let Some(candidate) = current {
            if candidate == lp {
                return true;
            }
            if self.depth(candidate) <= self.depth(lp) {
                return false;
            }
            current = self.parent(candidate);
        }
        false
    }

    /// Whether `inner` is `outer` or nested in it.
    pub fn is_nested_in(&self, inner: Loop, outer: Loop) -> bool {
        self.contains(outer, self.header(inner))
    }
}

/// Depth-first search from the entry; every retreating edge (to a block on
/// the search stack) must be a back edge (its target dominates its source).
fn check_reducible(
    func: &Function,
    cfg: &ControlFlowGraph,
    domtree: &DominatorTree,
) -> Result<(), IrreducibleError> {
    let Some(entry) = cfg.entry_block() else { return Ok(()) };
    let mut visited: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut on_stack: SecondaryMap<Block, bool> = SecondaryMap::new();
    // (block, index of the next successor to look at)
    let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
    visited[entry] = true;
    on_stack[entry] = true;
    while let Some((block, next)) = stack.last_mut() {
        let block = *block;
        let Some(&successor) = cfg.succs(block).get(*next) else {
            on_stack[block] = false;
            stack.pop();
            continue;
        };
        *next += 1;
        if on_stack[successor] {
            if !domtree.dominates(successor, block) {
                return Err(IrreducibleError {
                    function: func.name.clone(),
                    source_block: func.block_name(block),
                    target: func.block_name(successor),
                });
            }
        } else if !visited[successor] {
            visited[successor] = true;
            on_stack[successor] = true;
            stack.push((successor, 0));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use lanewise_ir::{FunctionBuilder, Type};

    use super::*;

    /// Builds a function whose blocks are named `names` (the first is the
    /// entry) with the given edges: one successor is a jump, two a branch on
    /// a parameter, none a return.
    fn cfg_function(names: &[&str], edges: &[(&str, &str)]) -> (Function, Vec<Block>) {
        let mut func = Function::new("f", vec![Type::BOOL], Type::Void);
        let flag = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let blocks: Vec<Block> = names.iter().map(|name| b.create_block(Some(name))).collect();
        let find = |name: &str| blocks[names.iter().position(|n| *n == name).unwrap()];
        for (index, name) in names.iter().enumerate() {
            b.switch_to_block(blocks[index]);
            let targets: Vec<Block> =
                edges.iter().filter(|(from, _)| from == name).map(|(_, to)| find(to)).collect();
            match targets.as_slice() {
                [] => b.ret(None),
                [dest] => b.jump(*dest),
                [then_dest, else_dest] => b.branch(flag, *then_dest, *else_dest),
                _ => panic!("at most two successors in these tests"),
            };
        }
        (func, blocks)
    }

    fn loops_of(func: &Function) -> Result<LoopInfo, IrreducibleError> {
        let cfg = ControlFlowGraph::compute(func);
        let domtree = DominatorTree::compute(func, &cfg);
        LoopInfo::compute(func, &cfg, &domtree)
    }

    #[test]
    fn straight_line_code_has_no_loops() {
        let (func, blocks) = cfg_function(&["entry", "a", "b"], &[("entry", "a"), ("a", "b")]);
        let info = loops_of(&func).unwrap();
        assert!(info.is_empty());
        assert_eq!(info.innermost_loop(blocks[1]), None);
        assert_eq!(info.loop_depth(blocks[1]), 0);
    }

    #[test]
    fn nested_loops_form_a_tree() {
        // entry -> outer; outer -> inner | exit; inner -> inner.body;
        // inner.body -> inner | outer.latch; outer.latch -> outer.
        let names = ["entry", "outer", "inner", "inner.body", "outer.latch", "exit"];
        let edges = [
            ("entry", "outer"),
            ("outer", "inner"),
            ("outer", "exit"),
            ("inner", "inner.body"),
            ("inner.body", "inner"),
            ("inner.body", "outer.latch"),
            ("outer.latch", "outer"),
        ];
        let (func, b) = cfg_function(&names, &edges);
        let (entry, outer, inner, inner_body, outer_latch, exit) =
            (b[0], b[1], b[2], b[3], b[4], b[5]);
        let info = loops_of(&func).unwrap();
        assert_eq!(info.len(), 2);
        let outer_loop = info.loop_of_header(outer).unwrap();
        let inner_loop = info.loop_of_header(inner).unwrap();
        assert_eq!(info.top_level_loops(), &[outer_loop]);
        assert_eq!(info.parent(inner_loop), Some(outer_loop));
        assert_eq!(info.parent(outer_loop), None);
        assert_eq!(info.children(outer_loop), &[inner_loop]);
        assert_eq!((info.depth(outer_loop), info.depth(inner_loop)), (1, 2));
        assert_eq!(info.blocks(outer_loop), &[outer, inner, inner_body, outer_latch]);
        assert_eq!(info.blocks(inner_loop), &[inner, inner_body]);
        assert_eq!(info.latches(outer_loop), &[outer_latch]);
        assert_eq!(info.latches(inner_loop), &[inner_body]);
        assert_eq!(info.exiting_blocks(outer_loop), &[outer]);
        assert_eq!(info.exit_blocks(outer_loop), &[exit]);
        assert_eq!(info.exiting_blocks(inner_loop), &[inner_body]);
        assert_eq!(info.exit_blocks(inner_loop), &[outer_latch]);
        assert_eq!(info.innermost_loop(inner_body), Some(inner_loop));
        assert_eq!(info.innermost_loop(outer_latch), Some(outer_loop));
        assert_eq!(info.innermost_loop(entry), None);
        assert_eq!(info.loop_depth(inner_body), 2);
        assert!(info.contains(outer_loop, inner_body));
        assert!(!info.contains(inner_loop, outer_latch));
        assert!(info.is_nested_in(inner_loop, outer_loop));
        assert!(!info.is_nested_in(outer_loop, inner_loop));
    }

    #[test]
    fn a_loop_with_two_exits() {
        // header -> body | exit1; body -> latch | exit2; latch -> header.
        let names = ["entry", "header", "body", "latch", "exit1", "exit2"];
        let edges = [
            ("entry", "header"),
            ("header", "body"),
            ("header", "exit1"),
            ("body", "latch"),
            ("body", "exit2"),
            ("latch", "header"),
        ];
        let (func, b) = cfg_function(&names, &edges);
        let info = loops_of(&func).unwrap();
        assert_eq!(info.len(), 1);
        let lp = info.innermost_loop(b[2]).unwrap();
        assert_eq!(info.header(lp), b[1]);
        assert_eq!(info.blocks(lp), &[b[1], b[2], b[3]]);
        assert_eq!(info.exiting_blocks(lp), &[b[1], b[2]]);
        assert_eq!(info.exit_blocks(lp), &[b[4], b[5]]);
        assert_eq!(info.latches(lp), &[b[3]]);
    }

    #[test]
    fn back_edges_to_one_header_merge_into_one_loop() {
        // header -> a | b; a -> header; b -> header | exit.
        let names = ["entry", "header", "a", "b", "exit"];
        let edges = [
            ("entry", "header"),
            ("header", "a"),
            ("header", "b"),
            ("a", "header"),
            ("b", "header"),
            ("b", "exit"),
        ];
        let (func, b) = cfg_function(&names, &edges);
        let info = loops_of(&func).unwrap();
        assert_eq!(info.len(), 1);
        let lp = info.loop_of_header(b[1]).unwrap();
        assert_eq!(info.latches(lp), &[b[2], b[3]]);
        assert_eq!(info.blocks(lp), &[b[1], b[2], b[3]]);
        assert_eq!(info.exit_blocks(lp), &[b[4]]);
    }

    #[test]
    fn self_loops_are_loops() {
        let (func, b) = cfg_function(
            &["entry", "spin", "exit"],
            &[("entry", "spin"), ("spin", "spin"), ("spin", "exit")],
        );
        let info = loops_of(&func).unwrap();
        let lp = info.loop_of_header(b[1]).unwrap();
        assert_eq!(info.blocks(lp), &[b[1]]);
        assert_eq!(info.latches(lp), &[b[1]]);
        assert_eq!(info.exiting_blocks(lp), &[b[1]]);
    }

    #[test]
    fn irreducible_cycles_are_rejected_naming_both_blocks() {
        // entry -> left | right; left <-> right: the cycle has two entries.
        let names = ["entry", "left", "right", "exit"];
        let edges = [
            ("entry", "left"),
            ("entry", "right"),
            ("left", "right"),
            ("right", "left"),
            ("right", "exit"),
        ];
        let (func, _) = cfg_function(&names, &edges);
        let error = loops_of(&func).unwrap_err();
        assert_eq!(error.function, "f");
        let mut blocks = [error.source_block.as_str(), error.target.as_str()];
        blocks.sort();
        assert_eq!(blocks, ["left", "right"]);
        assert!(error.to_string().contains("irreducible control flow"), "{error}");
    }

    #[test]
    fn unreachable_cycles_are_ignored() {
        let names = ["entry", "dead1", "dead2"];
        let edges = [("dead1", "dead2"), ("dead2", "dead1")];
        let (func, b) = cfg_function(&names, &edges);
        let info = loops_of(&func).unwrap();
        assert!(info.is_empty());
        assert_eq!(info.innermost_loop(b[1]), None);
    }
}
