//! Divergence analysis: vector shapes with control divergence.
//!
//! The plain shape fixed point ([`crate::shapes`]) is exact only for uniform
//! control flow. Once a branch decides differently in different lanes
//! (*divergent*: its condition is not uniform), two more kinds of
//! dependence appear (Karrenberg 2014 5.6.5 and 5.6.12; Moll & Hack PLDI'18
//! Sec. 2.3 and 5, where divergence analysis is a black box; the
//! formulation below is the *sync dependence* of Rosemann, Moll & Hack):
//!
//! - **Join blocks.** A block reached from two different successors of a
//!   divergent branch by disjoint paths (thesis Def. 11, `blend_d`) sees
//!   lanes from both paths at once: its phis must blend and are Varying even
//!   when their incoming values are uniform.
//! - **Temporal divergence.** Lanes may leave a loop containing a divergent
//!   branch in different iterations or through different exits (a
//!   *divergent loop*). Values that leave the loop then differ per lane even
//!   if every iteration computed a uniform value.
//!
//! New Varying values can make more branches divergent, so the analysis
//! iterates to a fixed point: run the shape solver, find divergent branches,
//! force the phis of their join blocks and the live-outs of divergent loops
//! to Varying, solve again, until nothing changes. Everything only moves up
//! the lattice, so this terminates (at most one round per branch).
//!
//! # Join blocks and divergent exits of one branch (sync dependence)
//! For a divergent branch in block `d` we propagate *reaching labels* in
//! [`BlockIndex`] order (a topological order with loops contiguous): each
//! successor `s` of `d` starts with label `s`; a block reached by two
//! different labels is a *join block* and becomes a label of its own
//! (these are the join points of SSA construction, i.e. the iterated
//! dominance frontier of the successors, thesis 5.6.5). Beyond `d`'s
//! immediate post-dominator all lanes have reconverged, so propagation
//! stops there. Loops are handled as follows:
//!
//! - A loop *not* containing `d` is entered at its header; lanes from one
//!   label stay together inside it, so the header's label is passed straight
//!   to the loop's exits (its inner blocks get no label).
//! - A loop `L` *containing* `d`: the back edges are not followed; the
//!   labels arriving at `L`'s header over back edges are collected (the
//!   *header label*; the header itself if several labels arrive). Once all
//!   of `L` is processed, every exit of `L` also receives the header label:
//!   the lanes that went around may leave by any exit in a later
//!   iteration. An exit reached by any label other than the header label is
//!   a **divergent exit**: some lanes leave there while others keep
//!   iterating. `L` is then a divergent loop, and the exit becomes a label
//!   of its own (lanes arrive there at different times); the other exits
//!   carry the header label on. In Mandelbrot (thesis Fig. 5.7) the
//!   varying escape test sends its own label to its exit `f` while the
//!   header label reaches the uniform trip-count exit `e`, so `f` is a
//!   divergent exit and `g`, where both meet, a join block. Exits of `L` that
//!   also leave the enclosing loop are then judged against that loop's
//!   header, and so on outward: an inner divergent loop makes its parent
//!   divergent exactly when lanes that left it at different times can also
//!   leave the parent at different times (a break out of two levels).
//! - A header reached by several labels over back edges (a loop with
//!   several latches) is a join block.
//!
//! A loop whose exiting branch is itself varying is divergent by the same
//! rule (the exit is reached by the exit successor's label, the header by
//! the other one).
//!
//! # What is made Varying
//! - Every phi of a join block (unless all its incoming values are the
//!   same value) and every phi of an exit block of a divergent loop. At an
//!   exit that is not divergent the arriving lanes all left in the same
//!   iteration, so the value is the same *among them*; but lanes that left
//!   earlier hold other values in the same vector (the divergent-loop
//!   transform keeps each lane's value in a tracker), and a uniform value
//!   must be equal in every lane (widening reads lane 0). So those phis are
//!   Varying too, and a branch on them after the loop is divergent.
//! - For every divergent loop, every use *outside* the loop of a value
//!   defined inside it, except phis in exit blocks whose incoming edges
//!   with that value all come from inside the loop (LCSSA phis, forced
//!   above). The user's result is forced Varying, and the (user, value)
//!   pair is recorded in [`DivergenceInfo::temporally_divergent_uses`]: a
//!   branch outside the loop deciding on such a value is divergent, and
//!   widening must read such operands through the divergent-loop
//!   transform's trackers.
//! - Header phis are left to the fixed point: inside the loop they describe
//!   the lanes still iterating (PLDI'18 5: the divergent-loop transform
//!   keeps the values of lanes that left in trackers), so only the values
//!   leaving the loop become Varying.
//!
//! # Uniform predicates and `by_all`
//! `uniform_predicate(b)` is PLDI'18's `uni(b)`: every edge `a -> x` in
//! `cdep(b)` ([`ControlDependence`]) is uniform, i.e. `uni(a)` holds and
//! `a` ends in a branch that is not divergent. The recursion is cyclic
//! around loops (a loop header depends on its own exiting branches), and we
//! take the greatest fixed point: start with every block uniform and remove
//! blocks with a non-uniform cdep edge until nothing changes. So the blocks
//! of a uniform loop stay uniform, those of a divergent loop (control
//! dependent on its varying exit decision) do not.
//!
//! `by_all(b)` (thesis 5.6.11, Def. 12): no lane is inactive when `b`
//! runs. For the unmasked variant this analysis describes (entry executed
//! by all lanes), `by_all(b) == uniform_predicate(b)`: a uniform predicate
//! that is true for one active lane is true for all of them. A masked
//! variant has no `by_all` block at all; it may still use
//! `uniform_predicate` (then "all lanes of the entry mask").
//! Blocks that reach no exit (infinite loops) are neither.
//!
//! # Allocas
//! The shape rule for allocas is unchanged (one copy per lane, `Strided`,
//! or one shared copy for those in [`Function::shared_allocas`]). For each
//! alloca we report whether some store into it (through GEPs, casts, phis
//! and selects of its address) stores a non-uniform value, to a non-uniform
//! address, or runs under a non-uniform predicate, and whether its address
//! escapes (passed to a call other than a lifetime marker, stored,
//! converted to an integer). When none of this holds every lane's copy
//! holds the same bytes at every point: `lanewise_transform::uniform_memory`
//! keeps such allocas as one scalar copy.
//!
//! What invalidates the result: any change to the function.

use std::collections::{HashMap, HashSet};

use lanewise_ir::cfg::ControlFlowGraph;
use lanewise_ir::dominators::{DominatorTree, PostDominatorTree};
use lanewise_ir::vfabi::ParamSpec;
use lanewise_ir::{
    Block, Callee, CastOp, Constant, DataLayout, Function, Inst, InstData, SecondaryMap, Value,
};

use crate::block_index::BlockIndex;
use crate::control_dependence::ControlDependence;
use crate::loops::{Loop, LoopInfo};
use crate::shapes::{Shape, ShapeError, ShapeInfo, ShapeSolver};

/// What the divergence analysis knows about one alloca.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllocaReport {
    /// The alloca's result.
    pub alloca: Value,
    /// Some store into it writes a value that is not uniform.
    pub varying_store: bool,
    /// Some store into it writes to an address whose shape differs from the
    /// alloca's (lanes write different cells of their copies).
    pub varying_store_address: bool,
    /// Some store into it runs in a block whose predicate is not uniform.
    pub store_under_varying_predicate: bool,
    /// Its address (or one derived from it) is passed to a call, stored,
    /// converted to an integer or used in a way we do not follow.
    pub escapes: bool,
}

/// Shapes with control divergence, divergent branches and loops, join
/// blocks, uniform predicates and `by_all` (see the module docs).
#[derive(Clone, Debug)]
pub struct DivergenceInfo {
    /// Shapes of all values, with sync dependence and temporal divergence.
    pub shapes: ShapeInfo,
    control_dependence: ControlDependence,
    block_index: BlockIndex,
    divergent_branches: Vec<Block>,
    is_divergent_branch: SecondaryMap<Block, bool>,
    join_blocks: SecondaryMap<Block, Vec<Block>>,
    is_join_block: SecondaryMap<Block, bool>,
    divergent_loops: Vec<Loop>,
    is_divergent_loop: SecondaryMap<Loop, bool>,
    divergent_exits: SecondaryMap<Loop, Vec<Block>>,
    temporally_divergent_uses: Vec<(Inst, Value)>,
    uniform_predicate: SecondaryMap<Block, bool>,
    alloca_reports: Vec<AllocaReport>,
}

/// The join blocks and divergent loop exits caused by one divergent branch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct SyncDependence {
    joins: Vec<Block>,
    divergent_exits: Vec<(Loop, Block)>,
    /// The blocks lanes can reach from the branch before they reconverge:
    /// the branch itself, the blocks a label reached, and the blocks of
    /// loops (not containing the branch) whose header a label reached.
    reached: HashSet<Block>,
}

impl DivergenceInfo {
    /// Runs the shape fixed point with control divergence on `func`, whose
    /// parameters vary as `params` says. Errors are those of
    /// [`ShapeInfo::compute`].
    pub fn compute(
        func: &Function,
        cfg: &ControlFlowGraph,
        domtree: &DominatorTree,
        postdom: &PostDominatorTree,
        loops: &LoopInfo,
        data_layout: &DataLayout,
        params: &[ParamSpec],
    ) -> Result<DivergenceInfo, ShapeError> {
        let control_dependence = ControlDependence::compute(func, cfg, postdom);
        let block_index = BlockIndex::compute(func, cfg, domtree, loops);
        let mut solver = ShapeSolver::new(func, data_layout, params)?;
        solver.solve();

        let mut is_divergent_branch: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut divergent_branches = Vec::new();
        let mut join_blocks: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        let mut is_join_block: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut divergent_loops = Vec::new();
        let mut is_divergent_loop: SecondaryMap<Loop, bool> = SecondaryMap::new();
        let mut divergent_exits: SecondaryMap<Loop, Vec<Block>> = SecondaryMap::new();
        let mut temporally_divergent_uses: Vec<(Inst, Value)> = Vec::new();
        let mut temporal_set: HashSet<(Inst, Value)> = HashSet::new();

        loop {
            let mut changed = false;
            let mut new_divergent_loops = Vec::new();
            for &block in block_index.order() {
                if is_divergent_branch[block] {
                    continue;
                }
                let Some((terminator, condition)) = deciding_condition(func, cfg, block) else {
                    continue;
                };
                let condition_uniform = solver.shape(condition).shape == Shape::Uniform
                    && !temporal_set.contains(&(terminator, condition));
                if condition_uniform {
                    continue;
                }
                changed = true;
                is_divergent_branch[block] = true;
                divergent_branches.push(block);
                let sync = sync_dependence(cfg, postdom, loops, &block_index, block);
                for &join in &sync.joins {
                    is_join_block[join] = true;
                    force_join_phis_varying(func, &mut solver, cfg, join, &sync.reached);
                }
                for &(lp, exit) in &sync.divergent_exits {
                    force_phis_varying(func, &mut solver, exit, false);
                    if !divergent_exits[lp].contains(&exit) {
                        divergent_exits[lp].push(exit);
                    }
                    if !is_divergent_loop[lp] {
                        is_divergent_loop[lp] = true;
                        divergent_loops.push(lp);
                        new_divergent_loops.push(lp);
                    }
                }
                join_blocks[block] = sync.joins;
            }
            for lp in new_divergent_loops {
                // Phis of every exit of a divergent loop (see the module docs).
                for &exit in loops.exit_blocks(lp) {
                    force_phis_varying(func, &mut solver, exit, false);
                }
                for (user, value) in temporal_uses_of_loop(func, cfg, loops, &solver, lp) {
                    if temporal_set.insert((user, value)) {
                        temporally_divergent_uses.push((user, value));
                        if let Some(result) = func.dfg.result(user) {
                            solver.force_varying(result);
                        }
                    }
                }
            }
            if !changed {
                break;
            }
            solver.solve();
        }
        divergent_loops.sort();
        for lp in loops.loops() {
            divergent_exits[lp].sort_by_key(|block| block_index.index(*block));
        }

        let uniform_predicate =
            uniform_predicates(&block_index, &control_dependence, &is_divergent_branch);
        let shapes = solver.into_info();
        let alloca_reports = alloca_reports(func, cfg, &shapes, &uniform_predicate);
        Ok(DivergenceInfo {
            shapes,
            control_dependence,
            block_index,
            divergent_branches,
            is_divergent_branch,
            join_blocks,
            is_join_block,
            divergent_loops,
            is_divergent_loop,
            divergent_exits,
            temporally_divergent_uses,
            uniform_predicate,
            alloca_reports,
        })
    }

    /// Whether `block` ends in a branch or switch with at least two distinct
    /// successors whose decision may differ between lanes.
    pub fn is_divergent_branch(&self, block: Block) -> bool {
        self.is_divergent_branch[block]
    }

    /// The blocks ending in a divergent branch, in block index order.
    pub fn divergent_branches(&self) -> Vec<Block> {
        let mut blocks = self.divergent_branches.clone();
        blocks.sort_by_key(|block| self.block_index.index(*block));
        blocks
    }

    /// The join blocks of the divergent branch ending `branch_block` (empty
    /// if the branch is not divergent), in block index order. Divergent
    /// loop exits are reported by [`DivergenceInfo::divergent_exits`].
    pub fn join_blocks(&self, branch_block: Block) -> &[Block] {
        &self.join_blocks[branch_block]
    }

    /// Whether `block` is a join block of some divergent branch.
    pub fn is_join_block(&self, block: Block) -> bool {
        self.is_join_block[block]
    }

    /// The divergent loops, in the order of [`LoopInfo::loops`].
    pub fn divergent_loops(&self) -> &[Loop] {
        &self.divergent_loops
    }

    pub fn is_divergent_loop(&self, lp: Loop) -> bool {
        self.is_divergent_loop[lp]
    }

    /// The exit blocks of `lp` where lanes may arrive in different
    /// iterations, in block index order (empty unless `lp` is divergent).
    pub fn divergent_exits(&self, lp: Loop) -> &[Block] {
        &self.divergent_exits[lp]
    }

    /// Uses outside a divergent loop of values defined inside it (other
    /// than LCSSA phis at exits that are not divergent): `(user, value)`.
    pub fn temporally_divergent_uses(&self) -> &[(Inst, Value)] {
        &self.temporally_divergent_uses
    }

    /// PLDI'18 `uni(block)`: all of `block`'s control dependences are
    /// uniform edges. False for unreachable blocks.
    pub fn uniform_predicate(&self, block: Block) -> bool {
        self.uniform_predicate[block]
    }

    /// Thesis `by_all`: every lane is active whenever `block` runs (for the
    /// unmasked variant; see the module docs).
    pub fn by_all(&self, block: Block) -> bool {
        self.uniform_predicate[block]
    }

    /// One report per alloca in a reachable block, in layout order.
    pub fn alloca_reports(&self) -> &[AllocaReport] {
        &self.alloca_reports
    }

    /// The report of the alloca whose result is `alloca`.
    pub fn alloca_report(&self, alloca: Value) -> Option<&AllocaReport> {
        self.alloca_reports.iter().find(|report| report.alloca == alloca)
    }

    /// The control dependences the predicates were computed from.
    pub fn control_dependence(&self) -> &ControlDependence {
        &self.control_dependence
    }

    /// The block index the propagation ran in.
    pub fn block_index(&self) -> &BlockIndex {
        &self.block_index
    }
}

/// The terminator of `block` and the value it decides on, if it is a
/// branch or switch with at least two distinct successors.
fn deciding_condition(
    func: &Function,
    cfg: &ControlFlowGraph,
    block: Block,
) -> Option<(Inst, Value)> {
    let terminator = func.terminator(block)?;
    let condition = match func.dfg.inst(terminator) {
        InstData::Branch { cond, .. } => *cond,
        InstData::Switch { value, .. } => *value,
        _ => return None,
    };
    (cfg.succs(block).len() >= 2).then_some((terminator, condition))
}

/// Forces to Varying the phis of the join block `join` of one divergent
/// branch that may blend different values: those whose incoming values on
/// the edges from `reached` blocks (the paths the branch's lanes can take)
/// are not all one value. Lanes of the branch only arrive over those edges;
/// when none of them passes the branch (an earlier uniform decision went
/// around it), they all arrive together over the other edges and the
/// ordinary shape of the phi holds. A stack pointer passed unchanged around
/// a divergent leaf test (`top` in a lock-step traversal) stays uniform.
fn force_join_phis_varying(
    func: &Function,
    solver: &mut ShapeSolver,
    cfg: &ControlFlowGraph,
    join: Block,
    reached: &HashSet<Block>,
) {
    for &inst in func.layout.block_insts(join) {
        let InstData::Phi { incoming, .. } = func.dfg.inst(inst) else { continue };
        // Poison may be taken for any value (BOSCC guards send it on edges
        // no lane takes).
        let mut from_branch = incoming
            .iter()
            .filter(|(pred, _)| reached.contains(pred) && cfg.succs(*pred).contains(&join))
            .map(|(_, value)| *value)
            .filter(|value| !matches!(func.dfg.constant(*value), Some(Constant::Poison)));
        let first = from_branch.next();
        if first.is_some() && from_branch.all(|value| Some(value) == first) {
            continue;
        }
        if let Some(result) = func.dfg.result(inst) {
            solver.force_varying(result);
        }
    }
}

/// Forces the phis of `block` to Varying; with `skip_identical`, a phi whose
/// incoming values are all the same value is left alone (blending a value
/// with itself is that value).
fn force_phis_varying(
    func: &Function,
    solver: &mut ShapeSolver,
    block: Block,
    skip_identical: bool,
) {
    for &inst in func.layout.block_insts(block) {
        let InstData::Phi { incoming, .. } = func.dfg.inst(inst) else { continue };
        let identical = incoming.windows(2).all(|pair| pair[0].1 == pair[1].1);
        if skip_identical && identical {
            continue;
        }
        if let Some(result) = func.dfg.result(inst) {
            solver.force_varying(result);
        }
    }
}

/// The reaching-label propagation of the module docs for the divergent
/// branch at the end of `branch`.
fn sync_dependence(
    cfg: &ControlFlowGraph,
    postdom: &PostDominatorTree,
    loops: &LoopInfo,
    index: &BlockIndex,
    branch: Block,
) -> SyncDependence {
    let Some(start) = index.index(branch) else { return SyncDependence::default() };
    // The loops containing the branch, innermost first.
    let mut chain: Vec<Loop> = Vec::new();
    let mut current = loops.innermost_loop(branch);
    while let Some(lp) = current {
        chain.push(lp);
        current = loops.parent(lp);
    }
    // The index of each chain loop's last block.
    let chain_ends: Vec<u32> = chain
        .iter()
        .map(|&lp| {
            loops.blocks(lp).iter().filter_map(|block| index.index(*block)).max().unwrap_or(0)
        })
        .collect();
    let stop_after = postdom.ipdom(branch).and_then(|ipdom| index.index(ipdom));

    let mut propagation = Propagation {
        loops,
        chain: &chain,
        label: HashMap::new(),
        header_labels: HashMap::new(),
        pending_exits: Vec::new(),
        result: SyncDependence::default(),
    };
    for &successor in cfg.succs(branch) {
        propagation.push(branch, successor, successor);
    }
    let order = index.order();
    let mut next_to_finalize = 0;
    let mut position = start;
    loop {
        while next_to_finalize < chain.len() && chain_ends[next_to_finalize] <= position {
            propagation.finalize(chain[next_to_finalize]);
            next_to_finalize += 1;
        }
        position += 1;
        let Some(&block) = order.get(position as usize) else { break };
        if next_to_finalize == chain.len() && stop_after.is_some_and(|stop| position > stop) {
            break;
        }
        let Some(&label) = propagation.label.get(&block) else { continue };
        match loops.loop_of_header(block) {
            Some(lp) if !chain.contains(&lp) => {
                for &exit in loops.exit_blocks(lp) {
                    propagation.push(block, exit, label);
                }
            }
            _ => {
                for &successor in cfg.succs(block) {
                    propagation.push(block, successor, label);
                }
            }
        }
    }
    let mut result = propagation.result;
    result.reached.insert(branch);
    for &block in propagation.label.keys() {
        result.reached.insert(block);
        if let Some(lp) = loops.loop_of_header(block) {
            if !chain.contains(&lp) {
                result.reached.extend(loops.blocks(lp).iter().copied());
            }
        }
    }
    result.joins.sort_by_key(|block| index.index(*block));
    result.divergent_exits.sort_by_key(|(lp, block)| (*lp, index.index(*block)));
    result.divergent_exits.dedup();
    result
}

/// State of one reaching-label propagation.
struct Propagation<'a> {
    loops: &'a LoopInfo,
    /// The loops containing the divergent branch, innermost first.
    chain: &'a [Loop],
    /// The label that reached each block (maps, not dense tables: one
    /// propagation covers the region of one branch, and a function has a
    /// propagation per divergent branch).
    label: HashMap<Block, Block>,
    /// The labels that reached each chain loop's header over back edges.
    header_labels: HashMap<Loop, Vec<Block>>,
    /// Edges leaving chain loops that are not finalized yet: (source, target, label).
    pending_exits: Vec<(Block, Block, Block)>,
    result: SyncDependence,
}

impl Propagation<'_> {
    /// Sends `label` along the edge `source -> target`.
    fn push(&mut self, source: Block, target: Block, label: Block) {
        let leaves_chain_loop = self
            .chain
            .iter()
            .any(|lp| self.loops.contains(*lp, source) && !self.loops.contains(*lp, target));
        if leaves_chain_loop {
            self.pending_exits.push((source, target, label));
        } else {
            self.arrive(source, target, label);
        }
    }

    /// `label` arrives at `target` over an edge that leaves no loop still
    /// pending: a back edge records it at the loop header, any other edge
    /// labels the target.
    fn arrive(&mut self, source: Block, target: Block, label: Block) {
        if let Some(lp) = self.loops.loop_of_header(target) {
            if self.loops.contains(lp, source) {
                let labels = self.header_labels.entry(lp).or_default();
                if !labels.contains(&label) {
                    labels.push(label);
                }
                return;
            }
        }
        match self.label.get(&target) {
            None => {
                self.label.insert(target, label);
            }
            Some(&old) if old == label => {}
            Some(_) => {
                if !self.result.joins.contains(&target) {
                    self.result.joins.push(target);
                }
                self.label.insert(target, target);
            }
        }
    }

    /// All blocks of the chain loop `lp` have been processed: the lanes
    /// that went around the back edges (the header's label) may leave by
    /// any exit in a later iteration, so every exit also receives the
    /// header's label. An exit reached by any other label is divergent.
    fn finalize(&mut self, lp: Loop) {
        let header = self.loops.header(lp);
        let header_labels = self.header_labels.remove(&lp).unwrap_or_default();
        let header_label = match header_labels.as_slice() {
            [] => None,
            [single] => Some(*single),
            _ => {
                if !self.result.joins.contains(&header) {
                    self.result.joins.push(header);
                }
                Some(header)
            }
        };
        let pending = std::mem::take(&mut self.pending_exits);
        let mut exit_edges = Vec::new();
        for (source, target, label) in pending {
            if self.loops.contains(lp, source) && !self.loops.contains(lp, target) {
                exit_edges.push((target, label));
            } else {
                self.pending_exits.push((source, target, label));
            }
        }
        for &exit in self.loops.exit_blocks(lp) {
            let mut labels: Vec<Block> = exit_edges
                .iter()
                .filter(|(target, _)| *target == exit)
                .map(|(_, label)| *label)
                .chain(header_label)
                .collect();
            labels.sort();
            labels.dedup();
            let Some(&first) = labels.first() else { continue };
            // Without a header label (not expected: every block of a loop
            // reaches a latch) we cannot tell, so the exit counts as divergent.
            let divergent = labels.len() > 1 || header_label.is_none();
            let label = if divergent {
                self.result.divergent_exits.push((lp, exit));
                exit
            } else {
                first
            };
            // The whole loop lies in the same outer loops as its header.
            let leaves_parent =
                self.loops.parent(lp).is_some_and(|parent| !self.loops.contains(parent, exit));
            if leaves_parent {
                self.pending_exits.push((header, exit, label));
            } else {
                self.arrive(header, exit, label);
            }
        }
    }
}

/// The uses outside the divergent loop `lp` of values defined in it, as
/// described in the module docs.
fn temporal_uses_of_loop(
    func: &Function,
    cfg: &ControlFlowGraph,
    loops: &LoopInfo,
    solver: &ShapeSolver,
    lp: Loop,
) -> Vec<(Inst, Value)> {
    let mut uses = Vec::new();
    for &block in loops.blocks(lp) {
        for &inst in func.layout.block_insts(block) {
            let Some(value) = func.dfg.result(inst) else { continue };
            for &user in solver.users(value) {
                let Some(user_block) = func.layout.inst_block(user) else { continue };
                if !cfg.is_reachable(user_block) || loops.contains(lp, user_block) {
                    continue;
                }
                if let InstData::Phi { incoming, .. } = func.dfg.inst(user) {
                    let lcssa = incoming
                        .iter()
                        .filter(|(_, incoming_value)| *incoming_value == value)
                        .all(|(pred, _)| loops.contains(lp, *pred));
                    if lcssa {
                        continue;
                    }
                }
                if !uses.contains(&(user, value)) {
                    uses.push((user, value));
                }
            }
        }
    }
    uses
}

/// `uni(b)` as the greatest fixed point described in the module docs.
fn uniform_predicates(
    index: &BlockIndex,
    cdep: &ControlDependence,
    is_divergent_branch: &SecondaryMap<Block, bool>,
) -> SecondaryMap<Block, bool> {
    let mut uniform: SecondaryMap<Block, bool> = SecondaryMap::new();
    for &block in index.order() {
        uniform[block] = !cdep.reaches_no_exit(block);
    }
    loop {
        let mut changed = false;
        for &block in index.order() {
            if !uniform[block] {
                continue;
            }
            let non_uniform_edge = cdep
                .cdep_edges(block)
                .iter()
                .any(|edge| !uniform[edge.source] || is_divergent_branch[edge.source]);
            if non_uniform_edge {
                uniform[block] = false;
                changed = true;
            }
        }
        if !changed {
            return uniform;
        }
    }
}

/// The [`AllocaReport`]s of `func`.
fn alloca_reports(
    func: &Function,
    cfg: &ControlFlowGraph,
    shapes: &ShapeInfo,
    uniform_predicate: &SecondaryMap<Block, bool>,
) -> Vec<AllocaReport> {
    let mut users: SecondaryMap<Value, Vec<Inst>> = SecondaryMap::new();
    for inst in func.layout.insts() {
        func.dfg.inst(inst).for_each_operand(|operand| users[operand].push(inst));
    }
    let mut reports = Vec::new();
    for &block in func.layout.blocks() {
        if !cfg.is_reachable(block) {
            continue;
        }
        for &inst in func.layout.block_insts(block) {
            if !matches!(func.dfg.inst(inst), InstData::Alloca { .. }) {
                continue;
            }
            let Some(alloca) = func.dfg.result(inst) else { continue };
            let mut report = AllocaReport {
                alloca,
                varying_store: false,
                varying_store_address: false,
                store_under_varying_predicate: false,
                escapes: false,
            };
            let mut derived = vec![alloca];
            let mut seen: HashSet<Value> = HashSet::from([alloca]);
            while let Some(pointer) = derived.pop() {
                for &user in &users[pointer] {
                    let user_block = func.layout.inst_block(user);
                    let under_varying_predicate =
                        user_block.is_some_and(|block| !uniform_predicate[block]);
                    let mut derive = |value: Option<Value>| {
                        if let Some(value) = value {
                            if seen.insert(value) {
                                derived.push(value);
                            }
                        }
                    };
                    match func.dfg.inst(user) {
                        InstData::Load { .. } => {}
                        InstData::Store { value, addr, .. } => {
                            if *value == pointer {
                                report.escapes = true;
                            }
                            if *addr == pointer {
                                report.varying_store |= !shapes.is_uniform(*value);
                                report.varying_store_address |=
                                    shapes.shape(pointer).shape != shapes.shape(alloca).shape;
                                report.store_under_varying_predicate |= under_varying_predicate;
                            }
                        }
                        InstData::MaskedStore { addr, .. }
                        | InstData::Scatter { addrs: addr, .. }
                            if *addr == pointer =>
                        {
                            report.varying_store = true;
                            report.varying_store_address = true;
                            report.store_under_varying_predicate = true;
                        }
                        InstData::Call { callee: Callee::Direct(name), .. }
                            if name.starts_with("llvm.lifetime.") => {}
                        InstData::Gep { base, .. } if *base == pointer => {
                            derive(func.dfg.result(user));
                        }
                        InstData::Cast { op: CastOp::Bitcast | CastOp::AddrSpaceCast, .. }
                        | InstData::Phi { .. }
                        | InstData::Freeze { .. } => derive(func.dfg.result(user)),
                        InstData::Select { cond, .. } if *cond != pointer => {
                            derive(func.dfg.result(user));
                        }
                        InstData::Icmp { .. } => {}
                        _ => report.escapes = true,
                    }
                }
            }
            reports.push(report);
        }
    }
    reports
}

#[cfg(test)]
mod tests {
    use lanewise_ir::vfabi::parse_shapes;
    use lanewise_ir::{BinaryOp, FunctionBuilder, IntPredicate, Type};

    use super::*;
    use crate::testing::{cfg_function_with_varying, first_phi, uniform_and_varying_params};

    /// A function and everything the divergence analysis says about it.
    struct Analyzed {
        func: Function,
        loops: LoopInfo,
        info: DivergenceInfo,
    }

    impl Analyzed {
        fn new(func: Function, params: &[ParamSpec]) -> Self {
            let cfg = ControlFlowGraph::compute(&func);
            let domtree = DominatorTree::compute(&func, &cfg);
            let postdom = PostDominatorTree::compute(&func, &cfg);
            let loops = LoopInfo::compute(&func, &cfg, &domtree).expect("reducible");
            let info = DivergenceInfo::compute(
                &func,
                &cfg,
                &domtree,
                &postdom,
                &loops,
                &DataLayout::default(),
                params,
            )
            .expect("analysis succeeds");
            Analyzed { func, loops, info }
        }

        fn from_edges(names: &[&str], edges: &[(&str, &str)], varying: &[&str]) -> Self {
            let (func, _) = cfg_function_with_varying(names, edges, varying);
            Analyzed::new(func, &uniform_and_varying_params())
        }

        fn block(&self, name: &str) -> Block {
            *self
                .func
                .layout
                .blocks()
                .iter()
                .find(|block| self.func.block_name(**block) == name)
                .unwrap_or_else(|| panic!("no block {name}"))
        }

        fn names(&self, blocks: &[Block]) -> Vec<String> {
            blocks.iter().map(|block| self.func.block_name(*block)).collect()
        }

        fn joins(&self, branch: &str) -> Vec<String> {
            self.names(self.info.join_blocks(self.block(branch)))
        }

        fn divergent(&self) -> Vec<String> {
            self.names(&self.info.divergent_branches())
        }

        /// The blocks with a uniform predicate, in block index order.
        fn uniform_predicates(&self) -> Vec<String> {
            let blocks: Vec<Block> = self
                .info
                .block_index()
                .order()
                .iter()
                .copied()
                .filter(|block| self.info.uniform_predicate(*block))
                .collect();
            self.names(&blocks)
        }

        fn phi_is_varying(&self, block: &str) -> bool {
            let phi = first_phi(&self.func, self.block(block)).expect("block has a phi");
            self.info.shapes.is_varying(phi)
        }

        fn loop_of(&self, header: &str) -> Loop {
            self.loops.loop_of_header(self.block(header)).expect("a loop header")
        }

        fn order(&self) -> Vec<String> {
            self.names(self.info.block_index().order())
        }
    }

    /// PLDI'18 Fig. 3a, reconstructed as described in the block index
    /// tests (the figure did not survive text extraction): `a -> b | c`;
    /// `b -> d | e`, `d -> e | h`; `c -> f | g`, `f -> g | h`; `e, g -> h`.
    /// The caption only says the CFG has divergent branches; we make `b`
    /// and `c` divergent and `a`, `d`, `f` uniform.
    #[test]
    fn figure_3() {
        let figure = lanewise_ir::paper_figures::FIGURE_3;
        let (names, edges) = (figure.blocks, figure.edges);
        let a = Analyzed::from_edges(names, edges, figure.varying_branches);
        assert_eq!(a.order(), ["a", "b", "d", "e", "c", "f", "g", "h"]);
        assert_eq!(a.divergent(), ["b", "c"]);
        assert_eq!(a.joins("b"), ["e", "h"]);
        assert_eq!(a.joins("c"), ["g", "h"]);
        assert_eq!(a.joins("a"), Vec::<String>::new(), "a is uniform");
        assert_eq!(a.uniform_predicates(), ["a", "b", "c", "h"]);
        assert!(a.phi_is_varying("e") && a.phi_is_varying("g") && a.phi_is_varying("h"));
        assert!(a.info.by_all(a.block("h")), "all lanes reconverge at the exit");
        assert!(!a.info.by_all(a.block("f")));
        // With every branch uniform nothing diverges and every phi is uniform.
        let uniform = Analyzed::from_edges(names, edges, &[]);
        assert!(uniform.divergent().is_empty());
        assert_eq!(uniform.uniform_predicates().len(), names.len());
        assert!(!uniform.phi_is_varying("h"));
    }

    /// PLDI'18 Fig. 7, reconstructed from the prose: `b` ends in a uniform
    /// branch but is control dependent on the varying edge `a -> b`; `b`
    /// dominates `c`. `a -> b | e; b -> c | d; c -> d; d -> e`.
    #[test]
    fn figure_7() {
        let figure = lanewise_ir::paper_figures::FIGURE_7;
        let a = Analyzed::from_edges(figure.blocks, figure.edges, figure.varying_branches);
        assert_eq!(a.divergent(), ["a"]);
        assert!(!a.info.is_divergent_branch(a.block("b")), "b's branch itself is uniform");
        assert_eq!(a.joins("a"), ["e"]);
        assert_eq!(a.uniform_predicates(), ["a", "e"], "b's predicate is varying");
        assert!(!a.phi_is_varying("d"), "d joins b's uniform branch only");
        assert!(a.phi_is_varying("e"));
        let cdep = a.info.control_dependence();
        assert_eq!(cdep.cdep_blocks(a.block("b")), [a.block("a")]);
        assert_eq!(cdep.cdep_blocks(a.block("c")), [a.block("b")]);
        assert_eq!(a.order(), ["a", "b", "c", "d", "e"]);
    }

    /// PLDI'18 Fig. 10 (left) / thesis Fig. 5.7, the Mandelbrot loop: `b`
    /// is the header with the uniform trip-count exit to `e`, `c` the
    /// varying escape test exiting to `f`, `d` the latch, `g` the join of
    /// both exits ("disjoint paths c -> f -> g and c -> d -> b -> e -> g").
    #[test]
    fn figure_10_mandelbrot_cfg() {
        let figure = lanewise_ir::paper_figures::FIGURE_10;
        let (names, edges) = (figure.blocks, figure.edges);
        let a = Analyzed::from_edges(names, edges, figure.varying_branches);
        // The loop first (header first, latch last), then its exits.
        assert_eq!(a.order(), ["a", "b", "c", "d", "f", "e", "g"]);
        assert_eq!(a.divergent(), ["c"]);
        let lp = a.loop_of("b");
        assert_eq!(a.info.divergent_loops(), [lp]);
        assert_eq!(a.names(a.info.divergent_exits(lp)), ["f"]);
        assert_eq!(a.joins("c"), ["g"]);
        assert!(a.phi_is_varying("g"));
        assert!(!a.phi_is_varying("b"), "header phis keep their shape");
        assert_eq!(a.uniform_predicates(), ["a", "g"]);
        // A uniform escape test: nothing diverges.
        let uniform = Analyzed::from_edges(names, edges, &[]);
        assert!(uniform.info.divergent_loops().is_empty());
        assert_eq!(uniform.uniform_predicates().len(), names.len());
    }

    /// Mandelbrot with data: `for (i = 0; i < limit; i++) { z = z*z + c;
    /// if (z > escape) break; } return i;` with `z`, `c` varying.
    fn mandelbrot(lcssa: bool) -> Function {
        let params = vec![Type::I32, Type::I32, Type::I32, Type::I32];
        let mut func = Function::new("mandelbrot", params, Type::I32);
        let (z0, c, limit, escape) =
            (func.param_value(0), func.param_value(1), func.param_value(2), func.param_value(3));
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let header = b.create_block(Some("header"));
        let body = b.create_block(Some("body"));
        let latch = b.create_block(Some("latch"));
        let at_limit = b.create_block(Some("at_limit"));
        let escaped = b.create_block(Some("escaped"));
        let end = b.create_block(Some("end"));
        b.switch_to_block(entry);
        let zero = b.iconst(Type::I32, 0);
        b.jump(header);
        b.switch_to_block(header);
        let i = b.phi(Type::I32, vec![(entry, zero)]);
        let z = b.phi(Type::I32, vec![(entry, z0)]);
        let in_range = b.icmp(IntPredicate::Slt, i, limit);
        b.branch(in_range, body, at_limit);
        b.switch_to_block(body);
        let square = b.binary(BinaryOp::Mul, z, z);
        let next_z = b.binary(BinaryOp::Add, square, c);
        let is_escaped = b.icmp(IntPredicate::Sgt, next_z, escape);
        b.branch(is_escaped, escaped, latch);
        b.switch_to_block(latch);
        let one = b.iconst(Type::I32, 1);
        let next_i = b.binary(BinaryOp::Add, i, one);
        b.jump(header);
        let result = if lcssa {
            b.switch_to_block(at_limit);
            let i_at_limit = b.phi(Type::I32, vec![(header, i)]);
            b.jump(end);
            b.switch_to_block(escaped);
            let i_escaped = b.phi(Type::I32, vec![(body, i)]);
            b.jump(end);
            b.switch_to_block(end);
            b.phi(Type::I32, vec![(at_limit, i_at_limit), (escaped, i_escaped)])
        } else {
            b.switch_to_block(at_limit);
            b.jump(end);
            b.switch_to_block(escaped);
            b.jump(end);
            b.switch_to_block(end);
            b.binary(BinaryOp::Add, i, zero)
        };
        b.ret(Some(result));
        for (phi, latch_value) in [(i, next_i), (z, next_z)] {
            let inst = func.dfg.defining_inst(phi).unwrap();
            if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(inst) {
                incoming.push((latch, latch_value));
            }
        }
        func.dfg.value_names[i] = Some("i".to_owned());
        func.dfg.value_names[result] = Some("result".to_owned());
        func
    }

    fn value_named(func: &Function, name: &str) -> Value {
        func.dfg
            .values
            .keys()
            .find(|value| func.dfg.value_names[*value].as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no value {name}"))
    }

    #[test]
    fn mandelbrot_loop_is_divergent_and_its_live_out_varying() {
        let a = Analyzed::new(mandelbrot(true), &parse_shapes("vvuu").unwrap());
        let i = value_named(&a.func, "i");
        assert!(a.info.shapes.is_uniform(i), "inside the loop i is uniform");
        assert_eq!(a.divergent(), ["body"]);
        assert!(!a.info.is_divergent_branch(a.block("header")), "the trip-count test is uniform");
        let lp = a.loop_of("header");
        assert!(a.info.is_divergent_loop(lp));
        assert_eq!(a.names(a.info.divergent_exits(lp)), ["escaped"]);
        assert!(a.phi_is_varying("escaped"), "lanes escape in different iterations");
        // The remaining lanes leave together, but lanes that escaped earlier
        // hold other values in the same vector.
        assert!(a.phi_is_varying("at_limit"));
        assert!(a.info.shapes.is_varying(value_named(&a.func, "result")));
        assert_eq!(a.joins("body"), ["end"]);
        for block in ["header", "body", "latch", "at_limit", "escaped"] {
            assert!(!a.info.by_all(a.block(block)), "{block}");
        }
        assert!(a.info.by_all(a.block("entry")) && a.info.by_all(a.block("end")));
        assert!(a.info.temporally_divergent_uses().is_empty(), "LCSSA form");
    }

    #[test]
    fn uses_outside_a_divergent_loop_without_lcssa_are_varying() {
        let a = Analyzed::new(mandelbrot(false), &parse_shapes("vvuu").unwrap());
        let (i, result) = (value_named(&a.func, "i"), value_named(&a.func, "result"));
        assert!(a.info.shapes.is_uniform(i));
        assert!(a.info.shapes.is_varying(result));
        let user = a.func.dfg.defining_inst(result).unwrap();
        assert_eq!(a.info.temporally_divergent_uses(), [(user, i)]);
    }

    /// `if (v) { while (u) {...} }`: the loop itself is uniform (all lanes
    /// that enter it leave together), but only some lanes run it.
    #[test]
    fn uniform_loop_inside_a_divergent_branch() {
        let names = ["entry", "then", "h", "body", "exit", "join"];
        let edges = [
            ("entry", "then"),
            ("entry", "join"),
            ("then", "h"),
            ("h", "body"),
            ("h", "exit"),
            ("body", "h"),
            ("exit", "join"),
        ];
        let a = Analyzed::from_edges(&names, &edges, &["entry"]);
        assert!(a.info.divergent_loops().is_empty());
        assert_eq!(a.divergent(), ["entry"]);
        assert_eq!(a.joins("entry"), ["join"]);
        assert!(!a.phi_is_varying("h"), "the loop header is not a join");
        assert!(a.phi_is_varying("join"));
        assert_eq!(a.uniform_predicates(), ["entry", "join"]);
    }

    /// An inner loop with a varying exit that leaves both loops: both are
    /// divergent. With the varying exit staying in the outer loop, only the
    /// inner one is, and the outer loop's blocks stay `by_all`.
    #[test]
    fn divergent_inner_loop_exiting_two_levels() {
        let names = ["entry", "oh", "ih", "ib", "ilatch", "olatch", "done", "far", "end"];
        let edges = [
            ("entry", "oh"),
            ("oh", "ih"),
            ("ih", "ib"),
            ("ib", "far"),
            ("ib", "ilatch"),
            ("ilatch", "ih"),
            ("ilatch", "olatch"),
            ("olatch", "oh"),
            ("olatch", "done"),
            ("far", "end"),
            ("done", "end"),
        ];
        let a = Analyzed::from_edges(&names, &edges, &["ib"]);
        let (outer, inner) = (a.loop_of("oh"), a.loop_of("ih"));
        assert!(a.info.is_divergent_loop(inner) && a.info.is_divergent_loop(outer));
        assert_eq!(a.names(a.info.divergent_exits(inner)), ["far"]);
        assert_eq!(a.names(a.info.divergent_exits(outer)), ["far"]);
        assert_eq!(a.joins("ib"), ["end"]);
        assert!(a.phi_is_varying("end"));
        assert!(!a.phi_is_varying("oh"), "header phis keep their shape");
        assert_eq!(a.uniform_predicates(), ["entry", "end"]);

        let names = ["entry", "oh", "ih", "ib", "ilatch", "after", "olatch", "done"];
        let edges = [
            ("entry", "oh"),
            ("oh", "ih"),
            ("ih", "ib"),
            ("ib", "ilatch"),
            ("ib", "after"),
            ("ilatch", "ih"),
            ("ilatch", "after"),
            ("after", "olatch"),
            ("olatch", "oh"),
            ("olatch", "done"),
        ];
        let a = Analyzed::from_edges(&names, &edges, &["ib"]);
        let (outer, inner) = (a.loop_of("oh"), a.loop_of("ih"));
        assert!(a.info.is_divergent_loop(inner));
        assert!(!a.info.is_divergent_loop(outer), "lanes regroup in `after`");
        assert_eq!(a.names(a.info.divergent_exits(inner)), ["after"]);
        assert!(a.phi_is_varying("after"));
        assert!(a.joins("ib").is_empty());
        assert_eq!(a.uniform_predicates(), ["entry", "oh", "after", "olatch", "done"]);
    }

    #[test]
    fn switch_on_a_varying_value() {
        let names = ["entry", "default", "case0", "case1", "join"];
        let edges = [
            ("entry", "default"),
            ("entry", "case0"),
            ("entry", "case1"),
            ("default", "join"),
            ("case0", "join"),
            ("case1", "join"),
        ];
        let a = Analyzed::from_edges(&names, &edges, &["entry"]);
        assert_eq!(a.divergent(), ["entry"]);
        assert_eq!(a.joins("entry"), ["join"]);
        assert!(a.phi_is_varying("join"));
        assert_eq!(a.uniform_predicates(), ["entry", "join"]);
        let uniform = Analyzed::from_edges(&names, &edges, &[]);
        assert!(uniform.divergent().is_empty());
        assert!(!uniform.phi_is_varying("join"));
    }

    /// A varying branch makes a join phi varying, and a branch on that phi
    /// becomes divergent in the next round of the fixed point.
    #[test]
    fn divergence_spreads_through_join_phis() {
        let mut func = Function::new("spread", vec![Type::I32], Type::I32);
        let v = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let names = ["entry", "left", "right", "join", "x", "y", "end"];
        let blocks: Vec<Block> = names.iter().map(|name| b.create_block(Some(name))).collect();
        let [entry, left, right, join, x, y, end] = blocks[..] else { unreachable!() };
        b.switch_to_block(entry);
        let zero = b.iconst(Type::I32, 0);
        let one = b.iconst(Type::I32, 1);
        let cond = b.icmp(IntPredicate::Eq, v, zero);
        b.branch(cond, left, right);
        b.switch_to_block(left);
        b.jump(join);
        b.switch_to_block(right);
        b.jump(join);
        b.switch_to_block(join);
        let phi = b.phi(Type::I32, vec![(left, zero), (right, one)]);
        let same = b.phi(Type::I32, vec![(left, one), (right, one)]);
        let test = b.icmp(IntPredicate::Eq, phi, zero);
        b.branch(test, x, y);
        b.switch_to_block(x);
        b.jump(end);
        b.switch_to_block(y);
        b.jump(end);
        b.switch_to_block(end);
        let result = b.phi(Type::I32, vec![(x, zero), (y, one)]);
        b.ret(Some(result));
        let a = Analyzed::new(func, &parse_shapes("v").unwrap());
        assert_eq!(a.divergent(), ["entry", "join"]);
        assert!(a.info.shapes.is_varying(phi) && a.info.shapes.is_varying(result));
        assert!(a.info.shapes.is_uniform(same), "blending a value with itself");
        // The same function with a uniform parameter has no divergence.
        let a = Analyzed::new(a.func, &parse_shapes("u").unwrap());
        assert!(a.divergent().is_empty());
        assert!(a.info.shapes.is_uniform(result));
    }

    #[test]
    fn alloca_reports_say_how_stores_vary() {
        let mut func = Function::new("private", vec![Type::I32, Type::I32], Type::Void);
        let (u, v) = (func.param_value(0), func.param_value(1));
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let then = b.create_block(Some("then"));
        let join = b.create_block(Some("join"));
        b.switch_to_block(entry);
        let one = b.iconst(Type::I32, 1);
        let uniform_only =
            b.ins_value(InstData::Alloca { ty: Type::I32, count: one, align: 4 }, Type::PTR);
        let varying_value =
            b.ins_value(InstData::Alloca { ty: Type::I32, count: one, align: 4 }, Type::PTR);
        let guarded =
            b.ins_value(InstData::Alloca { ty: Type::I32, count: one, align: 4 }, Type::PTR);
        let escaping =
            b.ins_value(InstData::Alloca { ty: Type::I32, count: one, align: 4 }, Type::PTR);
        b.store(u, uniform_only, 4);
        let element = b.gep(Type::I32, varying_value, vec![one]);
        b.store(v, element, 4);
        let call = lanewise_ir::Callee::Direct("sink".into());
        b.call(call, vec![escaping], Type::Void, lanewise_ir::CallEffects::SideEffects);
        let zero = b.iconst(Type::I32, 0);
        let cond = b.icmp(IntPredicate::Eq, v, zero);
        b.branch(cond, then, join);
        b.switch_to_block(then);
        b.store(u, guarded, 4);
        b.jump(join);
        b.switch_to_block(join);
        b.ret(None);
        let a = Analyzed::new(func, &uniform_and_varying_params());
        let report = |alloca| a.info.alloca_report(alloca).unwrap().clone();
        assert_eq!(
            report(uniform_only),
            AllocaReport {
                alloca: uniform_only,
                varying_store: false,
                varying_store_address: false,
                store_under_varying_predicate: false,
                escapes: false
            }
        );
        assert!(report(varying_value).varying_store);
        assert!(!report(varying_value).store_under_varying_predicate);
        assert!(report(guarded).store_under_varying_predicate);
        assert!(!report(guarded).varying_store);
        assert!(report(escaping).escapes);
        assert_eq!(a.info.alloca_reports().len(), 4);
        let shape = a.info.shapes.shape(uniform_only).shape;
        assert_eq!(shape, Shape::Strided(4), "the alloca rule itself is unchanged");
    }
}

/// Properties on random reducible CFGs, against an independent oracle.
#[cfg(test)]
mod properties {
    use std::collections::{HashMap, VecDeque};

    use lanewise_ir::vfabi::parse_shapes;
    use proptest::prelude::*;

    use super::*;
    use crate::testing::random_structured_function;

    struct Analyses {
        cfg: ControlFlowGraph,
        domtree: DominatorTree,
        loops: LoopInfo,
        info: DivergenceInfo,
    }

    fn analyze(func: &Function, shapes: &str) -> Analyses {
        let cfg = ControlFlowGraph::compute(func);
        let domtree = DominatorTree::compute(func, &cfg);
        let postdom = PostDominatorTree::compute(func, &cfg);
        let loops = LoopInfo::compute(func, &cfg, &domtree).expect("reducible");
        let params = parse_shapes(shapes).unwrap();
        let layout = DataLayout::default();
        let info =
            DivergenceInfo::compute(func, &cfg, &domtree, &postdom, &loops, &layout, &params)
                .expect("analysis succeeds");
        Analyses { cfg, domtree, loops, info }
    }

    /// Whether two paths of forward edges (back edges removed), starting at
    /// two different successors of `branch` and disjoint but for `target`,
    /// reach `target` over two different incoming edges (thesis Def. 11;
    /// Cytron et al.'s join). Unit-capacity max flow with split vertices.
    fn has_disjoint_paths(a: &Analyses, branch: Block, target: Block) -> bool {
        let blocks = a.cfg.reverse_post_order();
        let position: HashMap<Block, usize> =
            blocks.iter().enumerate().map(|(i, block)| (*block, i)).collect();
        let (source, sink) = (2 * blocks.len(), 2 * blocks.len() + 1);
        let inner = |block: Block| 2 * position[&block];
        let outer = |block: Block| 2 * position[&block] + 1;
        let forward = |from: Block, to: Block| !a.domtree.dominates(to, from);
        let mut capacity: HashMap<(usize, usize), i32> = HashMap::new();
        let mut neighbours: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut add = |from: usize, to: usize| {
            *capacity.entry((from, to)).or_insert(0) += 1;
            capacity.entry((to, from)).or_insert(0);
            neighbours.entry(from).or_default().push(to);
            neighbours.entry(to).or_default().push(from);
        };
        for &block in blocks {
            if block == branch || block == target {
                continue;
            }
            add(inner(block), outer(block));
            for &successor in a.cfg.succs(block) {
                if !forward(block, successor) || successor == branch {
                    continue;
                }
                if successor == target {
                    add(outer(block), sink);
                } else {
                    add(outer(block), inner(successor));
                }
            }
        }
        for &successor in a.cfg.succs(branch) {
            if successor == target {
                add(source, sink);
            } else if forward(branch, successor) {
                add(source, inner(successor));
            }
        }
        let mut flow = 0;
        while flow < 2 {
            let mut previous: HashMap<usize, usize> = HashMap::new();
            let mut queue = VecDeque::from([source]);
            while let Some(node) = queue.pop_front() {
                for &next in neighbours.get(&node).map_or(&[][..], Vec::as_slice) {
                    if next != source
                        && !previous.contains_key(&next)
                        && capacity[&(node, next)] > 0
                    {
                        previous.insert(next, node);
                        queue.push_back(next);
                    }
                }
            }
            if !previous.contains_key(&sink) {
                break;
            }
            let mut node = sink;
            while node != source {
                let before = previous[&node];
                *capacity.get_mut(&(before, node)).unwrap() -= 1;
                *capacity.get_mut(&(node, before)).unwrap() += 1;
                node = before;
            }
            flow += 1;
        }
        flow >= 2
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Join blocks are exactly the blocks with disjoint paths from two
        /// successors (inside the branch's innermost loop, where temporal
        /// divergence plays no part); their phis are varying; no block of a
        /// divergent loop is `by_all`.
        #[test]
        fn join_blocks_are_the_disjoint_path_joins(seed in any::<u64>(), budget in 4usize..36) {
            let func = random_structured_function(seed, budget, 40);
            let a = analyze(&func, "uv");
            for branch in a.info.divergent_branches() {
                let innermost = a.loops.innermost_loop(branch);
                let in_scope = |block: Block| innermost.is_none_or(|lp| a.loops.contains(lp, block));
                let expected: Vec<Block> = a
                    .info
                    .block_index()
                    .order()
                    .iter()
                    .copied()
                    .filter(|block| *block != branch && in_scope(*block))
                    .filter(|block| has_disjoint_paths(&a, branch, *block))
                    .collect();
                let actual: Vec<Block> =
                    a.info.join_blocks(branch).iter().copied().filter(|block| in_scope(*block)).collect();
                prop_assert_eq!(actual, expected, "joins of {}", branch);
                for &join in a.info.join_blocks(branch) {
                    for &inst in func.layout.block_insts(join) {
                        if let InstData::Phi { incoming, .. } = func.dfg.inst(inst) {
                            let identical = incoming.windows(2).all(|pair| pair[0].1 == pair[1].1);
                            let result = func.dfg.result(inst).unwrap();
                            prop_assert!(identical || a.info.shapes.is_varying(result));
                        }
                    }
                }
            }
            for &lp in a.info.divergent_loops() {
                for &block in a.loops.blocks(lp) {
                    prop_assert!(!a.info.by_all(block), "{} in a divergent loop", block);
                }
            }
        }

        /// Making the uniform parameter varying never removes divergence.
        #[test]
        fn more_varying_inputs_never_remove_divergence(seed in any::<u64>(), budget in 4usize..36) {
            let func = random_structured_function(seed, budget, 40);
            let (less, more) = (analyze(&func, "uv"), analyze(&func, "vv"));
            for &block in less.info.block_index().order() {
                prop_assert!(!less.info.is_divergent_branch(block) || more.info.is_divergent_branch(block));
                prop_assert!(!more.info.by_all(block) || less.info.by_all(block));
                for join in less.info.join_blocks(block) {
                    prop_assert!(more.info.is_join_block(*join));
                }
            }
            for lp in less.info.divergent_loops() {
                prop_assert!(more.info.is_divergent_loop(*lp));
            }
            for inst in func.layout.insts() {
                if let Some(result) = func.dfg.result(inst) {
                    let (before, after) = (less.info.shapes.shape(result).shape, more.info.shapes.shape(result).shape);
                    prop_assert_eq!(before.join(after), after, "{} went down", result);
                }
            }
        }
    }
}
