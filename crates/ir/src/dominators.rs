//! Dominator and post-dominator trees.
//!
//! Block `a` dominates block `b` if every path from the entry to `b` passes
//! through `a`; `a` post-dominates `b` if every path from `b` to an exit
//! passes through `a`. The vectorizer needs both: dominance for SSA (the
//! verifier, SSA repair after linearization), post-dominance for control
//! dependence and for the divergence analysis with sync dependence
//! (Karrenberg 2014 Sec. 5.6; PLDI'18 Sec. 3, where a block is control
//! dependent on a branch iff it post-dominates one successor edge but not
//! the branch).
//!
//! # Algorithm
//! [`GenericDominatorTree`] implements the iterative algorithm of Cooper,
//! Harvey and Kennedy ("A Simple, Fast Dominance Algorithm", 2001) over any
//! rooted graph whose nodes are entity ids: nodes are numbered in reverse
//! post-order, then the immediate dominator of every node is refined, in that
//! order, to the nearest common dominator of its already-processed
//! predecessors, until nothing changes (two passes for reducible graphs). The
//! tree is then numbered in pre-order so that `dominates(a, b)` is two integer
//! comparisons.
//!
//! [`DominatorTree`] runs it on the CFG from the entry block.
//! [`PostDominatorTree`] runs it on the reversed CFG from a *virtual exit*
//! node whose successors (in the reversed graph) are all exit blocks (blocks
//! reachable from the entry whose terminator has no successor: `ret`,
//! `unreachable`). The virtual exit is a block id one past every block of the
//! function; it never escapes the public API of [`PostDominatorTree`], where
//! "post-dominated only by the virtual exit" reads as `None`.
//!
//! # Unreachable blocks
//! Blocks not reachable from the root (from the entry; for post-dominance:
//! blocks that reach no exit, such as infinite loops, and blocks unreachable
//! from the entry) are not in the tree: they have no immediate dominator, no
//! children, and `dominates(a, b)` is false unless `a == b`.
//!
//! # What invalidates it
//! Everything that invalidates the [`ControlFlowGraph`] it was computed from
//! (see `cfg.rs`). The instruction-level query
//! [`DominatorTree::inst_dominates`] reads the current layout, so it also
//! follows instructions moved within or between blocks, as long as the CFG
//! itself did not change.

use cranelift_entity::{EntityRef, SecondaryMap};

use crate::cfg::{reverse_post_order_from, ControlFlowGraph};
use crate::entities::{Block, Inst};
use crate::function::Function;

/// Marks a node not (yet) in the tree in the dense RPO-numbered tables.
const UNDEFINED: u32 = u32::MAX;

/// A dominator tree over any rooted graph whose nodes are entity ids.
///
/// Used with `Node = Block` for both [`DominatorTree`] (the CFG) and
/// [`PostDominatorTree`] (the reversed CFG plus a virtual exit).
#[derive(Clone, Debug)]
pub struct GenericDominatorTree<Node: EntityRef> {
    root: Option<Node>,
    /// Nodes reachable from the root, in reverse post-order (root first).
    reverse_post_order: Vec<Node>,
    /// Position in `reverse_post_order`, or `UNDEFINED` for unreachable nodes.
    rpo_number: SecondaryMap<Node, u32>,
    idom: SecondaryMap<Node, Option<Node>>,
    /// Children in the tree, in reverse post-order.
    children: SecondaryMap<Node, Vec<Node>>,
    /// Nodes in pre-order of the tree (children in reverse post-order).
    preorder: Vec<Node>,
    preorder_number: SecondaryMap<Node, u32>,
    /// The largest pre-order number in the subtree of each node.
    subtree_last_preorder_number: SecondaryMap<Node, u32>,
    depth: SecondaryMap<Node, u32>,
}

impl<Node: EntityRef> Default for GenericDominatorTree<Node> {
    fn default() -> Self {
        GenericDominatorTree {
            root: None,
            reverse_post_order: Vec::new(),
            rpo_number: SecondaryMap::with_default(UNDEFINED),
            idom: SecondaryMap::new(),
            children: SecondaryMap::new(),
            preorder: Vec::new(),
            preorder_number: SecondaryMap::with_default(UNDEFINED),
            subtree_last_preorder_number: SecondaryMap::with_default(UNDEFINED),
            depth: SecondaryMap::new(),
        }
    }
}

impl<Node: EntityRef> GenericDominatorTree<Node> {
    /// A tree without nodes (the tree of a function without blocks).
    pub fn empty() -> Self {
        Self::default()
    }

    /// Computes the dominator tree of the graph given by `root` and
    /// `successors` (called more than once per node; it must answer the same
    /// each time). Only nodes reachable from `root` are in the tree.
    pub fn compute<Successors>(root: Node, mut successors: impl FnMut(Node) -> Successors) -> Self
    where
        Successors: IntoIterator<Item = Node>,
    {
        let mut tree = Self::empty();
        tree.root = Some(root);
        tree.reverse_post_order = reverse_post_order_from(root, &mut successors);
        for (number, &node) in tree.reverse_post_order.iter().enumerate() {
            tree.rpo_number[node] = number as u32;
        }

        // Predecessors among reachable nodes, as RPO numbers.
        let node_count = tree.reverse_post_order.len();
        let mut predecessor_numbers: Vec<Vec<u32>> = vec![Vec::new(); node_count];
        for (number, &node) in tree.reverse_post_order.iter().enumerate() {
            for successor in successors(node) {
                let successor_number = tree.rpo_number[successor];
                if successor_number != UNDEFINED
                    && !predecessor_numbers[successor_number as usize].contains(&(number as u32))
                {
                    predecessor_numbers[successor_number as usize].push(number as u32);
                }
            }
        }

        let idom_numbers = cooper_harvey_kennedy(&predecessor_numbers);
        for (number, &node) in tree.reverse_post_order.iter().enumerate().skip(1) {
            let parent = tree.reverse_post_order[idom_numbers[number] as usize];
            tree.idom[node] = Some(parent);
            tree.children[parent].push(node);
        }
        tree.number_in_preorder();
        tree
    }

    /// Numbers the tree in pre-order, for constant-time `dominates` queries.
    fn number_in_preorder(&mut self) {
        let Some(root) = self.root else { return };
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            self.preorder_number[node] = self.preorder.len() as u32;
            self.preorder.push(node);
            if let Some(parent) = self.idom[node] {
                self.depth[node] = self.depth[parent] + 1;
            }
            // Push children reversed so that the first child is visited first.
            stack.extend(self.children[node].iter().rev().copied());
        }
        // A node's subtree is the pre-order interval up to its last descendant:
        // walking the pre-order backwards, each node's last descendant is known
        // before its parent is reached.
        for &node in self.preorder.iter().rev() {
            let last = match self.children[node].last() {
                Some(&last_child) => self.subtree_last_preorder_number[last_child],
                None => self.preorder_number[node],
            };
            self.subtree_last_preorder_number[node] = last;
        }
    }

    /// The root of the graph the tree was computed from.
    pub fn root(&self) -> Option<Node> {
        self.root
    }

    /// Whether `node` is reachable from the root (and thus in the tree).
    pub fn is_reachable(&self, node: Node) -> bool {
        self.rpo_number[node] != UNDEFINED
    }

    /// The immediate dominator of `node`; `None` for the root and for
    /// unreachable nodes.
    pub fn idom(&self, node: Node) -> Option<Node> {
        self.idom[node]
    }

    /// Whether `a` dominates `b` (reflexive: every node dominates itself).
    /// False if `a != b` and either is unreachable.
    pub fn dominates(&self, a: Node, b: Node) -> bool {
        if a == b {
            return true;
        }
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        let b_number = self.preorder_number[b];
        self.preorder_number[a] <= b_number && b_number <= self.subtree_last_preorder_number[a]
    }

    /// Whether `a` dominates `b` and `a != b`.
    pub fn strictly_dominates(&self, a: Node, b: Node) -> bool {
        a != b && self.dominates(a, b)
    }

    /// The children of `node` in the tree, in reverse post-order of the graph.
    pub fn children(&self, node: Node) -> &[Node] {
        &self.children[node]
    }

    /// The nodes of the tree in pre-order (parents before children, children
    /// in reverse post-order of the graph).
    pub fn preorder(&self) -> &[Node] {
        &self.preorder
    }

    /// The reachable nodes in reverse post-order of the graph (root first).
    pub fn reverse_post_order(&self) -> &[Node] {
        &self.reverse_post_order
    }

    /// The position of `node` in the reverse post-order, if it is reachable.
    pub fn rpo_number(&self, node: Node) -> Option<u32> {
        let number = self.rpo_number[node];
        (number != UNDEFINED).then_some(number)
    }

    /// The number of edges from the root to `node` in the tree (0 for the
    /// root and for unreachable nodes).
    pub fn depth(&self, node: Node) -> u32 {
        self.depth[node]
    }

    /// The nearest node dominating both `a` and `b`; `None` if either is
    /// unreachable.
    pub fn nearest_common_dominator(&self, a: Node, b: Node) -> Option<Node> {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return None;
        }
        let (mut a, mut b) = (a, b);
        while a != b {
            // A node cannot dominate a node at the same or a smaller depth
            // other than itself: move the deeper one (or `a`, on a tie) up.
            if self.depth[a] >= self.depth[b] {
                a = self.idom[a]?;
            } else {
                b = self.idom[b]?;
            }
        }
        Some(a)
    }
}

/// The iterative fixed point of Cooper, Harvey and Kennedy, on nodes numbered
/// in reverse post-order (node 0 is the root). `predecessors[n]` lists the
/// RPO numbers of the reachable predecessors of node `n`. Returns the RPO
/// number of the immediate dominator of every node (the root's is itself).
fn cooper_harvey_kennedy(predecessors: &[Vec<u32>]) -> Vec<u32> {
    let mut idom = vec![UNDEFINED; predecessors.len()];
    if idom.is_empty() {
        return idom;
    }
    idom[0] = 0;
    let intersect = |idom: &[u32], mut finger_a: u32, mut finger_b: u32| {
        while finger_a != finger_b {
            while finger_a > finger_b {
                finger_a = idom[finger_a as usize];
            }
            while finger_b > finger_a {
                finger_b = idom[finger_b as usize];
            }
        }
        finger_a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for node in 1..predecessors.len() {
            let mut new_idom = UNDEFINED;
            for &predecessor in &predecessors[node] {
                if idom[predecessor as usize] == UNDEFINED {
                    continue; // Not processed yet (a back edge in this pass).
                }
                new_idom = if new_idom == UNDEFINED {
                    predecessor
                } else {
                    intersect(&idom, predecessor, new_idom)
                };
            }
            // Every reachable non-root node has a predecessor earlier in RPO,
            // so `new_idom` is always defined here.
            if new_idom != idom[node] {
                idom[node] = new_idom;
                changed = true;
            }
        }
    }
    idom
}

/// The dominator tree of a function's CFG, rooted at the entry block.
#[derive(Clone, Debug, Default)]
pub struct DominatorTree {
    tree: GenericDominatorTree<Block>,
    valid: bool,
}

impl DominatorTree {
    /// Computes the dominator tree of `func`, whose CFG is `cfg`.
    /// (The CFG holds everything needed; `_func` keeps the API uniform with
    /// [`PostDominatorTree::compute`].)
    pub fn compute(_func: &Function, cfg: &ControlFlowGraph) -> Self {
        let tree = match cfg.entry_block() {
            Some(entry) => GenericDominatorTree::compute(entry, |block| cfg.succs(block).to_vec()),
            None => GenericDominatorTree::empty(),
        };
        DominatorTree { tree, valid: true }
    }

    /// Whether the tree has been computed (see the module docs for what
    /// makes it stale).
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// The entry block, root of the tree.
    pub fn entry_block(&self) -> Option<Block> {
        self.tree.root()
    }

    /// The immediate dominator of `block`; `None` for the entry block and
    /// for unreachable blocks.
    pub fn idom(&self, block: Block) -> Option<Block> {
        debug_assert!(self.is_valid());
        self.tree.idom(block)
    }

    /// Whether block `a` dominates block `b` (reflexive; false if `a != b`
    /// and either is unreachable).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        debug_assert!(self.is_valid());
        self.tree.dominates(a, b)
    }

    /// Whether `a` dominates `b` and `a != b`.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        debug_assert!(self.is_valid());
        self.tree.strictly_dominates(a, b)
    }

    /// Whether the instruction `def_inst` comes before `use_inst` on every
    /// path from the entry: in the same block, `def_inst` is placed strictly
    /// before `use_inst` (whether or not the block is reachable); in
    /// different blocks, the block of `def_inst` strictly dominates the
    /// block of `use_inst`. False if either instruction is not in the
    /// layout, and for `def_inst == use_inst`.
    ///
    /// This is the plain SSA rule for non-phi uses; a phi uses its incoming
    /// value at the end of the incoming block (see the verifier).
    pub fn inst_dominates(&self, func: &Function, def_inst: Inst, use_inst: Inst) -> bool {
        debug_assert!(self.is_valid());
        let (Some(def_block), Some(use_block)) =
            (func.layout.inst_block(def_inst), func.layout.inst_block(use_inst))
        else {
            return false;
        };
        if def_block != use_block {
            return self.strictly_dominates(def_block, use_block);
        }
        for &inst in func.layout.block_insts(def_block) {
            if inst == use_inst {
                return false;
            }
            if inst == def_inst {
                return true;
            }
        }
        false
    }

    /// Whether `block` is reachable from the entry block.
    pub fn is_reachable(&self, block: Block) -> bool {
        debug_assert!(self.is_valid());
        self.tree.is_reachable(block)
    }

    /// The blocks `block` immediately dominates, in reverse post-order.
    pub fn children(&self, block: Block) -> &[Block] {
        debug_assert!(self.is_valid());
        self.tree.children(block)
    }

    /// Reachable blocks in pre-order of the tree (dominators first).
    pub fn preorder(&self) -> &[Block] {
        debug_assert!(self.is_valid());
        self.tree.preorder()
    }

    /// Reachable blocks in reverse post-order of the CFG.
    pub fn reverse_post_order(&self) -> &[Block] {
        debug_assert!(self.is_valid());
        self.tree.reverse_post_order()
    }

    /// Depth of `block` in the tree (the entry is at depth 0).
    pub fn depth(&self, block: Block) -> u32 {
        debug_assert!(self.is_valid());
        self.tree.depth(block)
    }

    /// The nearest block dominating both `a` and `b`.
    pub fn nearest_common_dominator(&self, a: Block, b: Block) -> Option<Block> {
        debug_assert!(self.is_valid());
        self.tree.nearest_common_dominator(a, b)
    }

    /// The underlying generic tree.
    pub fn generic(&self) -> &GenericDominatorTree<Block> {
        &self.tree
    }
}

/// The post-dominator tree of a function: the dominator tree of the reversed
/// CFG, rooted at a virtual exit that every exit block flows into.
///
/// Only blocks reachable from the entry and from which an exit is reachable
/// are in the tree ([`PostDominatorTree::reaches_exit`]); a block in an
/// infinite loop post-dominates nothing and is post-dominated by nothing.
#[derive(Clone, Debug)]
pub struct PostDominatorTree {
    tree: GenericDominatorTree<Block>,
    virtual_exit: Block,
    exits: Vec<Block>,
    valid: bool,
}

impl PostDominatorTree {
    /// Computes the post-dominator tree of `func`, whose CFG is `cfg`.
    pub fn compute(func: &Function, cfg: &ControlFlowGraph) -> Self {
        // A block id past every block the function mentions stands for the
        // virtual exit.
        let block_bound = func
            .layout
            .blocks()
            .iter()
            .map(|block| block.index() + 1)
            .chain(std::iter::once(func.dfg.blocks.len()))
            .max()
            .unwrap_or(0);
        let virtual_exit = Block::new(block_bound);
        let exits: Vec<Block> = func
            .layout
            .blocks()
            .iter()
            .copied()
            .filter(|&block| cfg.is_reachable(block) && cfg.succs(block).is_empty())
            .collect();
        let tree = GenericDominatorTree::compute(virtual_exit, |node| {
            if node == virtual_exit {
                exits.clone()
            } else {
                cfg.preds(node).iter().copied().filter(|&pred| cfg.is_reachable(pred)).collect()
            }
        });
        PostDominatorTree { tree, virtual_exit, exits, valid: true }
    }

    /// Whether the tree has been computed.
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// The exit blocks (reachable blocks without successors), in layout order.
    pub fn exits(&self) -> &[Block] {
        debug_assert!(self.is_valid());
        &self.exits
    }

    /// Whether an exit is reachable from `block` (and `block` is reachable
    /// from the entry), i.e. whether `block` is in the tree.
    pub fn reaches_exit(&self, block: Block) -> bool {
        debug_assert!(self.is_valid());
        block != self.virtual_exit && self.tree.is_reachable(block)
    }

    /// The immediate post-dominator of `block`: `None` if only the virtual
    /// exit post-dominates it (it is an exit, or its paths end in different
    /// exits) or if it is not in the tree.
    pub fn ipdom(&self, block: Block) -> Option<Block> {
        debug_assert!(self.is_valid());
        self.tree.idom(block).filter(|&parent| parent != self.virtual_exit)
    }

    /// Whether `a` post-dominates `b` (reflexive; false if `a != b` and
    /// either is not in the tree).
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        debug_assert!(self.is_valid());
        self.tree.dominates(a, b)
    }

    /// Whether `a` post-dominates `b` and `a != b`.
    pub fn strictly_post_dominates(&self, a: Block, b: Block) -> bool {
        debug_assert!(self.is_valid());
        self.tree.strictly_dominates(a, b)
    }

    /// The blocks `block` immediately post-dominates, in reverse post-order
    /// of the reversed CFG.
    pub fn children(&self, block: Block) -> &[Block] {
        debug_assert!(self.is_valid());
        self.tree.children(block)
    }

    /// The blocks post-dominated by nothing but the virtual exit: the roots
    /// of the post-dominator forest.
    pub fn roots(&self) -> &[Block] {
        debug_assert!(self.is_valid());
        self.tree.children(self.virtual_exit)
    }

    /// The nearest block post-dominating both `a` and `b`; `None` if that is
    /// the virtual exit or either block is not in the tree.
    pub fn nearest_common_post_dominator(&self, a: Block, b: Block) -> Option<Block> {
        debug_assert!(self.is_valid());
        self.tree.nearest_common_dominator(a, b).filter(|&common| common != self.virtual_exit)
    }

    /// The id standing for the virtual exit in [`PostDominatorTree::generic`].
    pub fn virtual_exit(&self) -> Block {
        self.virtual_exit
    }

    /// The underlying generic tree, rooted at [`PostDominatorTree::virtual_exit`].
    pub fn generic(&self) -> &GenericDominatorTree<Block> {
        &self.tree
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::FunctionBuilder;
    use crate::test_functions::{counting_loop, diamond, several_returns};
    use crate::types::Type;

    fn block(index: usize) -> Block {
        Block::new(index)
    }

    fn blocks(indices: &[usize]) -> Vec<Block> {
        indices.iter().map(|&index| block(index)).collect()
    }

    fn trees(func: &Function) -> (DominatorTree, PostDominatorTree) {
        let cfg = ControlFlowGraph::compute(func);
        (DominatorTree::compute(func, &cfg), PostDominatorTree::compute(func, &cfg))
    }

    #[test]
    fn diamond_dominators() {
        let func = diamond();
        let (domtree, postdomtree) = trees(&func);
        assert_eq!(domtree.idom(block(0)), None);
        assert_eq!(domtree.idom(block(1)), Some(block(0)));
        assert_eq!(domtree.idom(block(2)), Some(block(0)));
        assert_eq!(domtree.idom(block(3)), Some(block(0)));
        assert_eq!(domtree.children(block(0)), blocks(&[1, 2, 3]));
        assert!(domtree.dominates(block(0), block(3)));
        assert!(domtree.dominates(block(3), block(3)));
        assert!(!domtree.strictly_dominates(block(3), block(3)));
        assert!(!domtree.dominates(block(1), block(3)));
        assert_eq!(domtree.preorder(), blocks(&[0, 1, 2, 3]));
        assert_eq!(domtree.depth(block(3)), 1);
        assert_eq!(domtree.nearest_common_dominator(block(1), block(2)), Some(block(0)));

        assert_eq!(postdomtree.exits(), blocks(&[3]));
        assert_eq!(postdomtree.ipdom(block(0)), Some(block(3)));
        assert_eq!(postdomtree.ipdom(block(1)), Some(block(3)));
        assert_eq!(postdomtree.ipdom(block(3)), None);
        assert!(postdomtree.post_dominates(block(3), block(0)));
        assert!(!postdomtree.post_dominates(block(1), block(0)));
        assert_eq!(postdomtree.roots(), blocks(&[3]));
    }

    #[test]
    fn loop_dominators() {
        let func = counting_loop();
        let (domtree, postdomtree) = trees(&func);
        assert_eq!(domtree.idom(block(1)), Some(block(0)));
        assert_eq!(domtree.idom(block(2)), Some(block(1)));
        assert_eq!(domtree.idom(block(3)), Some(block(1)));
        assert_eq!(domtree.children(block(1)), blocks(&[2, 3]));
        assert!(domtree.dominates(block(1), block(2)));
        assert!(!domtree.dominates(block(2), block(1)));
        // The header post-dominates the body (the body always returns to it).
        assert_eq!(postdomtree.ipdom(block(2)), Some(block(1)));
        assert_eq!(postdomtree.ipdom(block(1)), Some(block(3)));
        assert_eq!(postdomtree.ipdom(block(0)), Some(block(1)));
    }

    #[test]
    fn post_dominators_with_several_returns() {
        let func = several_returns();
        let (domtree, postdomtree) = trees(&func);
        assert_eq!(domtree.idom(block(5)), Some(block(2)));
        assert!(!domtree.is_reachable(block(6)));
        assert_eq!(domtree.idom(block(6)), None);
        assert!(!domtree.dominates(block(0), block(6)));

        assert_eq!(postdomtree.exits(), blocks(&[1, 5]));
        assert_eq!(postdomtree.ipdom(block(0)), None);
        assert_eq!(postdomtree.ipdom(block(1)), None);
        assert_eq!(postdomtree.ipdom(block(2)), Some(block(5)));
        assert_eq!(postdomtree.ipdom(block(3)), Some(block(5)));
        assert_eq!(postdomtree.ipdom(block(4)), Some(block(5)));
        assert_eq!(postdomtree.ipdom(block(5)), None);
        assert_eq!(postdomtree.roots(), blocks(&[1, 5, 0]));
        assert_eq!(postdomtree.children(block(5)), blocks(&[3, 4, 2]));
        assert!(postdomtree.post_dominates(block(5), block(2)));
        assert!(!postdomtree.post_dominates(block(5), block(0)));
        assert!(!postdomtree.reaches_exit(block(6)));
        assert_eq!(postdomtree.nearest_common_post_dominator(block(3), block(4)), Some(block(5)));
        assert_eq!(postdomtree.nearest_common_post_dominator(block(1), block(2)), None);
    }

    #[test]
    fn infinite_loops_post_dominate_nothing() {
        let mut func = Function::new("spin", vec![Type::BOOL], Type::Void);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(None);
        let spin = b.create_block(None);
        let exit = b.create_block(None);
        let cond = b.func.param_value(0);
        b.switch_to_block(entry);
        b.branch(cond, spin, exit);
        b.switch_to_block(spin);
        b.jump(spin);
        b.switch_to_block(exit);
        b.ret(None);
        let (_, postdomtree) = trees(&func);
        assert!(!postdomtree.reaches_exit(spin));
        assert_eq!(postdomtree.ipdom(spin), None);
        assert_eq!(postdomtree.ipdom(entry), Some(exit));
    }

    #[test]
    fn irreducible_graph() {
        // 0 -> 1, 2; 1 -> 2; 2 -> 1, 3: two loop entries, neither dominates the other.
        let successors = |node: Block| match node.index() {
            0 => blocks(&[1, 2]),
            1 => blocks(&[2]),
            2 => blocks(&[1, 3]),
            _ => blocks(&[]),
        };
        let tree = GenericDominatorTree::compute(block(0), successors);
        assert_eq!(tree.idom(block(1)), Some(block(0)));
        assert_eq!(tree.idom(block(2)), Some(block(0)));
        assert_eq!(tree.idom(block(3)), Some(block(2)));
        // The search enters 2 first (last successor first) and reaches 1 from
        // there; 1 -> 2 is then the back edge.
        assert_eq!(tree.reverse_post_order(), blocks(&[0, 2, 1, 3]));
        assert_eq!(tree.rpo_number(block(3)), Some(3));
        assert_eq!(tree.rpo_number(block(4)), None);
        assert!(tree.dominates(block(0), block(3)));
        assert!(!tree.dominates(block(1), block(3)));
    }

    #[test]
    fn instruction_dominance() {
        let func = diamond();
        let (domtree, _) = trees(&func);
        let insts = |index: usize| func.layout.block_insts(block(index)).to_vec();
        let (compare, branch) = (insts(0)[0], insts(0)[1]);
        let negate = insts(1)[0];
        let phi = insts(3)[0];
        assert!(domtree.inst_dominates(&func, compare, branch));
        assert!(!domtree.inst_dominates(&func, branch, compare));
        assert!(!domtree.inst_dominates(&func, compare, compare));
        assert!(domtree.inst_dominates(&func, compare, phi));
        assert!(!domtree.inst_dominates(&func, negate, phi));
        let detached = Inst::new(999);
        assert!(!domtree.inst_dominates(&func, detached, phi));
    }

    #[test]
    fn function_without_blocks() {
        let func = Function::new("empty", vec![], Type::Void);
        let (domtree, postdomtree) = trees(&func);
        assert_eq!(domtree.entry_block(), None);
        assert!(domtree.reverse_post_order().is_empty());
        assert!(postdomtree.exits().is_empty());
        assert!(!domtree.is_reachable(block(0)));
    }
}
