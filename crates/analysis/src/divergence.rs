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
//!   same value) and every phi of a divergent exit block.
//! - For every divergent loop, every use *outside* the loop of a value
//!   defined inside it, except phis in exit blocks whose incoming edges
//!   with that value all come from inside the loop (LCSSA phis: at a
//!   divergent exit they are forced above; at an exit that is not divergent
//!   all arriving lanes left in the same iteration, so they keep the value's
//!   shape). The user's result is forced Varying, and the (user, value)
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
//! The shape rule for allocas is unchanged (one copy per lane, `Strided`).
//! For each alloca we report whether some store into it (through GEPs,
//! casts, phis and selects of its address) stores a non-uniform value or
//! runs under a non-uniform predicate, and whether its address escapes
//! (passed to a call, stored, converted to an integer). A later widening
//! can keep an alloca scalar when none of this holds.
//!
//! What invalidates the result: any change to the function.

use std::collections::HashSet;

use lanewise_ir::cfg::ControlFlowGraph;
use lanewise_ir::dominators::{DominatorTree, PostDominatorTree};
use lanewise_ir::vfabi::ParamSpec;
use lanewise_ir::{Block, CastOp, DataLayout, Function, Inst, InstData, SecondaryMap, Value};

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
                    force_phis_varying(func, &mut solver, join, true);
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
    let loop_end = |lp: Loop| -> u32 {
        loops.blocks(lp).iter().filter_map(|block| index.index(*block)).max().unwrap_or(0)
    };
    let stop_after = postdom.ipdom(branch).and_then(|ipdom| index.index(ipdom));

    let mut propagation = Propagation {
        loops,
        chain: &chain,
        label: SecondaryMap::new(),
        header_labels: SecondaryMap::new(),
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
        while next_to_finalize < chain.len() && loop_end(chain[next_to_finalize]) <= position {
            propagation.finalize(chain[next_to_finalize]);
            next_to_finalize += 1;
        }
        position += 1;
        let Some(&block) = order.get(position as usize) else { break };
        if next_to_finalize == chain.len() && stop_after.is_some_and(|stop| position > stop) {
            break;
        }
        let Some(label) = propagation.label[block] else { continue };
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
    /// The label that reached each block.
    label: SecondaryMap<Block, Option<Block>>,
    /// The labels that reached each chain loop's header over back edges.
    header_labels: SecondaryMap<Loop, Vec<Block>>,
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
                if !self.header_labels[lp].contains(&label) {
                    self.header_labels[lp].push(label);
                }
                return;
            }
        }
        match self.label[target] {
            None => self.label[target] = Some(label),
            Some(old) if old == label => {}
            Some(_) => {
                if !self.result.joins.contains(&target) {
                    self.result.joins.push(target);
                }
                self.label[target] = Some(target);
            }
        }
    }

    /// All blocks of the chain loop `lp` have been processed: the lanes
    /// that went around the back edges (the header's label) may leave by
    /// any exit in a later iteration, so every exit also receives the
    /// header's label. An exit reached by any other label is divergent.
    fn finalize(&mut self, lp: Loop) {
        let header = self.loops.header(lp);
        let header_labels = std::mem::take(&mut self.header_labels[lp]);
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
                                report.store_under_varying_predicate |= under_varying_predicate;
                            }
                        }
                        InstData::MaskedStore { addr, .. }
                        | InstData::Scatter { addrs: addr, .. }
                            if *addr == pointer =>
                        {
                            report.varying_store = true;
                            report.store_under_varying_predicate = true;
                        }
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
