//! Partial control-flow linearization (Moll & Hack, PLDI'18, Figure 5), the
//! driver of the divergent-control-flow rewrite of a scalar function.
//!
//! [`linearize_function`] rewrites a reducible scalar function so that every
//! branch left in it is uniform, and returns the [`BlockPredicates`] that
//! masked widening needs. The steps, each a module of this crate:
//!
//! 1. Canonicalization ([`crate::cfg_canon`]): unreachable blocks removed, one
//!    return block, a dedicated preheader for every loop.
//! 2. The divergent-loop transform ([`crate::divergent_loops`], PLDI'18
//!    section 5), innermost loop first, after the exits of each divergent
//!    loop that only forward to one block after it were merged into one
//!    ([`crate::divergent_loops::merge_forwarding_exits`]). Afterwards every loop is uniform; the
//!    remaining (uniform) loops get a single latch ending in a jump.
//! 3. Masks ([`crate::masks`]): block and edge predicates as `i1` values.
//! 4. The block index (section 3.1): a topological order of the CFG without
//!    back edges that is compact for every loop (each loop's blocks form one
//!    range, header first, latch last), built region by region with inner
//!    loops collapsed to one node, preferring blocks whose immediate
//!    dominator was placed last (which keeps dominance regions together,
//!    the condition of Theorem 4.5).
//! 5. Figure 5 over the index with the deferral relation `D`: a uniform
//!    branch keeps one edge per successor (retargeted to the smallest
//!    deferred block if that comes first), a divergent branch gets the single
//!    successor `min(T ∪ S)`. Back edges are not part of the acyclic graph;
//!    they are kept as they are, at the loop's unique latch (section 3.3).
//! 6. Phis: a phi whose block kept exactly its incoming edges stays; others
//!    become blends, `select` chains on the edge predicates of their original
//!    incoming edges (thesis 6.2); header phis keep their latch entry and take
//!    their preheader value from every new entry edge.
//! 7. SSA repair ([`crate::ssa_repair`], thesis 6.3.6).
//!
//! [`LinearizeMode::Full`] is the baseline of the paper's evaluation: every
//! loop goes through the divergent-loop transform and every branch except
//! the pure latches is folded.
//!
//! # Input: which branches diverge
//! [`DivergenceFacts`] is a plain description filled by the pipeline (from
//! the divergence analysis with sync dependence, or from the shape analysis
//! when control flow is known not to need it): the blocks ending in a
//! divergent branch or switch, and loops known to be divergent. Loops are
//! additionally classified by [`crate::divergent_loops::loop_is_divergent`],
//! so an analysis that only reports branches is enough.

use std::collections::{BTreeSet, HashMap, HashSet};

use lanewise_analysis::{DivergenceInfo, IrreducibleError, Loop, LoopInfo, LoopUses, ShapeInfo};
use lanewise_ir::{
    Block, CallEffects, Callee, Constant, EntityRef, FastMathFlags, Function, Inst, InstData,
    SecondaryMap, Type, Value, ValueDef,
};

use crate::cfg_canon::{
    block_phis, ensure_jump_latch, ensure_preheader, is_bool_const, phi_incoming,
    remove_unreachable_blocks, replace_uses, result_of, set_phi_incoming, unify_exits, CfgSnapshot,
};
use crate::divergent_loops::{
    divergent_loop_live_outs, loop_is_divergent, merge_forwarding_exits, transform_divergent_loop,
    DivergentLoop,
};
use crate::masks::{generate_masks, MaskInput, Masks};
use crate::predicates::BlockPredicates;
use crate::ssa_repair::repair_ssa;

pub mod empty_mask_loops;

/// Which branches and loops of the input function diverge.
#[derive(Clone, Debug, Default)]
pub struct DivergenceFacts {
    /// Blocks whose terminator (branch or switch) may decide differently in
    /// different lanes.
    pub divergent_branches: HashSet<Block>,
    /// Headers of loops known to be divergent (others are classified from
    /// the divergent branches).
    pub divergent_loop_headers: HashSet<Block>,
    /// Phis the divergence analysis found uniform: every lane reaching the
    /// phi's block came through the same edge. When such a phi becomes a
    /// blend, the blend chooses by `rv_any(edge predicate)` and stays
    /// uniform (so a branch on it, which partial linearization keeps, is
    /// still uniform in the linearized function).
    pub uniform_phis: HashSet<Value>,
}

impl DivergenceFacts {
    /// Branches and switches whose condition is not uniform according to
    /// `shapes`. Sound when the shapes already account for sync dependence
    /// (or the conditions do not depend on phis at join points).
    pub fn from_shapes(func: &Function, shapes: &ShapeInfo) -> DivergenceFacts {
        let mut facts = DivergenceFacts::default();
        for &block in func.layout.blocks() {
            let Some(terminator) = func.terminator(block) else { continue };
            let condition = match func.dfg.inst(terminator) {
                InstData::Branch { cond, .. } => *cond,
                InstData::Switch { value, .. } => *value,
                _ => continue,
            };
            if func.successors(block).len() > 1 && !shapes.is_uniform(condition) {
                facts.divergent_branches.insert(block);
            }
        }
        facts
    }

    /// The divergent branches and loops found by the divergence analysis
    /// (with sync dependence) of the same function; `loops` is the loop
    /// forest it was computed with.
    pub fn from_divergence_info(
        func: &Function,
        info: &DivergenceInfo,
        loops: &LoopInfo,
    ) -> DivergenceFacts {
        let uniform_phis = func
            .layout
            .insts()
            .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Phi { .. }))
            .filter_map(|inst| func.dfg.result(inst))
            .filter(|phi| info.shapes.is_uniform(*phi))
            .collect();
        DivergenceFacts {
            divergent_branches: info.divergent_branches().into_iter().collect(),
            divergent_loop_headers: info
                .divergent_loops()
                .iter()
                .map(|lp| loops.header(*lp))
                .collect(),
            uniform_phis,
        }
    }
}

/// Partial (the paper's algorithm) or full linearization (the baseline).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum LinearizeMode {
    #[default]
    Partial,
    Full,
}

/// What linearization did, for the report, and the predicates for widening.
#[derive(Clone, Debug, Default)]
pub struct LinearizeReport {
    /// The active-lane predicate of every block of the rewritten function.
    pub predicates: BlockPredicates,
    /// Conditional branches and switches of the input that diverge (folded).
    pub branches_divergent: usize,
    /// Uniform conditional branches kept as branches.
    pub uniform_kept: usize,
    /// Uniform conditional branches folded anyway.
    pub uniform_folded: usize,
    /// Uniform branches that lost, in partial mode, an original edge PLDI'18
    /// Theorem 4.5 promises to keep: any edge of a block with a uniform
    /// predicate (`uni(b)`), and an edge `b -> y` where `b` strictly
    /// dominates `y` (the theorem's second case with `d = b`: the edge is
    /// uniform in `b`'s dominance region). 0 unless the implementation is
    /// wrong; the random-CFG and corpus tests assert it.
    pub uniform_lost: usize,
    /// Loops left as they were (uniform).
    pub loops_uniform: usize,
    /// Loops rewritten by the divergent-loop transform.
    pub loops_divergent: usize,
    /// Divergent loops whose live-outs needed no tracker (exit-stable).
    pub loops_exit_stable: usize,
    /// What the divergent-loop transform made of each divergent loop.
    pub divergent_loops: Vec<DivergentLoop>,
    /// Phis turned into blends.
    pub blends: usize,
    /// Phis inserted by SSA repair.
    pub repair_phis: usize,
}

/// Why a function cannot be linearized.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinearizeError {
    #[error("function `{function}` has no blocks")]
    NoEntry { function: String },
    #[error(transparent)]
    Irreducible(#[from] IrreducibleError),
    #[error("function `{function}` never returns (no `ret` or `unreachable`); linearization needs an exit")]
    NoExit { function: String },
    #[error("function `{function}`: the loop headed by `{header}` has no exit")]
    LoopWithoutExit { function: String, header: String },
    #[error(
        "function `{function}`: block `{block}` ends in a divergent branch that is a back edge; \
         this should have been removed by the divergent-loop transform"
    )]
    DivergentBackEdge { function: String, block: String },
}

/// Rewrites `func` so that every remaining branch is uniform (see the
/// module docs). `entry_predicate` is the mask parameter of a masked variant.
pub fn linearize_function(
    func: &mut Function,
    divergence: &DivergenceFacts,
    mode: LinearizeMode,
    entry_predicate: Option<Value>,
) -> Result<LinearizeReport, LinearizeError> {
    let function = func.name.clone();
    if func.entry_block().is_none() {
        return Err(LinearizeError::NoEntry { function });
    }
    let mut report = LinearizeReport::default();

    // 1. Canonical form.
    remove_unreachable_blocks(func);
    unify_exits(func).ok_or_else(|| LinearizeError::NoExit { function: function.clone() })?;
    let snapshot = CfgSnapshot::compute(func)?;
    for lp in snapshot.loops.loops() {
        if snapshot.loops.exit_blocks(lp).is_empty() {
            let header = func.block_name(snapshot.loops.header(lp));
            return Err(LinearizeError::LoopWithoutExit { function, header });
        }
    }
    let headers: Vec<Block> =
        snapshot.loops_innermost_first().iter().map(|lp| snapshot.loops.header(*lp)).collect();
    visit_loops_in_rounds(
        func,
        &headers,
        |_, _| (),
        |func, snapshot, (), lp| {
            let blocks_before = func.dfg.blocks.len();
            ensure_preheader(func, snapshot, lp);
            Visit::changed_if(func.dfg.blocks.len() != blocks_before)
        },
    )?;

    // Which terminators diverge (the input's, or all in full mode), and
    // which conditional terminators of the input we count.
    let conditional: Vec<Block> = func
        .layout
        .blocks()
        .iter()
        .copied()
        .filter(|block| func.successors(*block).len() > 1)
        .collect();
    let mut truly_divergent: HashSet<Block> = conditional
        .iter()
        .copied()
        .filter(|block| divergence.divergent_branches.contains(block))
        .collect();

    // 1b. Divergent loops exit through fewer targets: forwarding exit
    // blocks merged into the exit they jump to.
    visit_loops_in_rounds(
        func,
        &headers,
        |_, _| (),
        |func, snapshot, (), lp| {
            let header = snapshot.loops.header(lp);
            let divergent = mode == LinearizeMode::Full
                || divergence.divergent_loop_headers.contains(&header)
                || loop_is_divergent(func, snapshot, lp, &truly_divergent);
            Visit::changed_if(divergent && merge_forwarding_exits(func, snapshot, lp))
        },
    )?;

    // 2. Divergent loops, innermost first. The uses of each loop's values
    // outside it come from one scan per round; a loop whose live-out a
    // transform of the round read in new code waits for the next round.
    struct RoundUses {
        uses: LoopUses,
        read_by_new_code: HashSet<Value>,
    }
    let begin_round = |func: &Function, snapshot: &CfgSnapshot| RoundUses {
        uses: LoopUses::compute(func, &snapshot.loops, |_| None),
        read_by_new_code: HashSet::new(),
    };
    visit_loops_in_rounds(func, &headers, begin_round, |func, snapshot, round, lp| {
        let header = snapshot.loops.header(lp);
        let divergent = mode == LinearizeMode::Full
            || divergence.divergent_loop_headers.contains(&header)
            || loop_is_divergent(func, snapshot, lp, &truly_divergent);
        if !divergent {
            report.loops_uniform += 1;
            return Visit::Unchanged;
        }
        let loop_blocks: HashSet<Block> = snapshot.loops.blocks(lp).iter().copied().collect();
        let live_outs = divergent_loop_live_outs(&round.uses, lp, &loop_blocks);
        if live_outs.iter().any(|value| round.read_by_new_code.contains(value)) {
            return Visit::Wait;
        }
        let blocks_before = func.dfg.blocks.len();
        let exit_targets: Vec<Block> = snapshot.loops.exit_blocks(lp).to_vec();
        let record = transform_divergent_loop(func, snapshot, &round.uses, lp);
        // What the new code reads: the new blocks, the header's phis and
        // the exit targets' phis.
        let new_blocks = (blocks_before..func.dfg.blocks.len()).map(Block::new);
        for block in new_blocks.chain([header]).chain(exit_targets) {
            for &inst in func.layout.block_insts(block) {
                func.dfg.inst(inst).for_each_operand(|value| {
                    round.read_by_new_code.insert(value);
                });
            }
        }
        truly_divergent.extend(record.dispatch_blocks.iter().copied());
        report.loops_divergent += 1;
        report.loops_exit_stable += usize::from(record.exit_stable);
        report.divergent_loops.push(record);
        Visit::Changed
    })?;
    let transformed: HashSet<Block> =
        report.divergent_loops.iter().map(|record| record.header).collect();
    let uniform_headers: Vec<Block> =
        headers.iter().copied().filter(|header| !transformed.contains(header)).collect();
    visit_loops_in_rounds(
        func,
        &uniform_headers,
        |_, _| (),
        |func, snapshot, (), lp| {
            let blocks_before = func.dfg.blocks.len();
            ensure_jump_latch(func, snapshot, lp);
            Visit::changed_if(func.dfg.blocks.len() != blocks_before)
        },
    )?;
    let pure_latches: HashSet<Block> =
        report.divergent_loops.iter().map(|record| record.pure_latch).collect();
    let mut folded = truly_divergent.clone();
    if mode == LinearizeMode::Full {
        folded.extend(
            func.layout
                .blocks()
                .iter()
                .copied()
                .filter(|block| func.successors(*block).len() > 1 && !pure_latches.contains(block)),
        );
    }

    // 3. Masks.
    let snapshot = CfgSnapshot::compute(func)?;
    let mask_input = MaskInput {
        divergent_branches: &folded,
        divergent_loops: &report.divergent_loops,
        entry_predicate,
    };
    let mut masks = generate_masks(func, &snapshot, &mask_input);

    // 4. + 5. Block index and Figure 5.
    let index = block_index(&snapshot);
    let new_successors = partial_linearization(func, &snapshot, &index, &folded)?;
    for &block in &conditional {
        if truly_divergent.contains(&block) {
            report.branches_divergent += 1;
        } else if folded.contains(&block) {
            report.uniform_folded += 1;
        } else {
            let targets: HashSet<Block> = new_successors
                .get(&block)
                .map(|map| map.values().copied().collect())
                .unwrap_or_default();
            if targets.len() > 1 {
                report.uniform_kept += 1;
            } else {
                report.uniform_folded += 1;
            }
            let original_targets: HashSet<Block> = func.successors(block).into_iter().collect();
            // Theorem 4.5 keeps every edge `b -> y` with uni(b), and every
            // edge `b -> y` that a block `d` dominates (here `d = b`, which
            // strictly dominates `y`) and that is uniform in `d`'s
            // dominance region (a uniform branch at the region's entry is).
            let lost = original_targets.iter().any(|target| {
                let promised = masks.is_block_uniform(block)
                    || (*target != block && snapshot.domtree.dominates(block, *target));
                promised && !targets.contains(target)
            });
            if mode == LinearizeMode::Partial && lost {
                report.uniform_lost += 1;
            }
        }
    }
    rewrite_terminators(func, &new_successors, &folded);

    // 6. Phis.
    let linearized = CfgSnapshot::compute(func)?;
    report.blends = fix_phis(func, &snapshot, &linearized, &mut masks, &divergence.uniform_phis);

    // 6b. Predicates whose extra conditions kept uniform branches enforce.
    if mode == LinearizeMode::Partial {
        let divergent_loop_exits: HashSet<Block> =
            report.divergent_loops.iter().map(|record| record.exit_block).collect();
        anchor_predicates(func, &snapshot, &linearized, &folded, &divergent_loop_exits, &mut masks);
    }

    // 7. SSA repair, including the block predicates widening will read.
    let mut needed: Vec<(Value, Block)> = Vec::new();
    let mut needed_blocks = Vec::new();
    for &block in func.layout.blocks() {
        let Some(predicate) = masks.block_predicate(block) else { continue };
        // Theorem 4.1: a block with a uniform predicate runs only when it is
        // true, as long as every uniform branch guarding it was kept
        // (partial mode). Full mode folds those branches too.
        let uniform_and_kept = mode == LinearizeMode::Partial && masks.is_block_uniform(block);
        let all_lanes =
            entry_predicate.is_none() && (uniform_and_kept || is_bool_const(func, predicate, true));
        if !all_lanes {
            needed.push((predicate, block));
            needed_blocks.push(block);
        }
    }
    let mask_values = masks.mask_values.clone();
    let is_mask = move |value: Value| mask_values.contains(&value);
    report.repair_phis = repair_ssa(func, &linearized, &is_mask, &mut needed);
    let mut predicates = BlockPredicates::all_active();
    for (predicate, block) in needed {
        predicates.set(block, Some(predicate));
    }
    if mode == LinearizeMode::Full {
        predicates.set_uniform_predicates_inexact();
    }
    report.predicates = predicates;
    Ok(report)
}

/// What [`visit_loops_in_rounds`]'s visitor did with a loop.
enum Visit {
    Unchanged,
    Changed,
    /// Nothing yet: the loop needs the next round's snapshot.
    Wait,
}

impl Visit {
    fn changed_if(changed: bool) -> Visit {
        if changed {
            Visit::Changed
        } else {
            Visit::Unchanged
        }
    }
}

/// Runs `visit` on each loop headed by `headers` (innermost first), with a
/// snapshot that is current for the loop and the round's state that
/// `begin_round` made from the snapshot; `visit` says whether it changed
/// the function or needs the next round. A snapshot per loop made linearization quadratic
/// in the function's size (scripts/scaling.sh), so one snapshot serves a
/// round of loops: a loop is visited in a round when no loop inside it
/// changed or waits in that round and its region (its blocks, its exit
/// blocks, its header's other predecessors) shares no block with the
/// regions, old and new blocks, changed in the round; the others wait for
/// the next round. What the snapshot says about such a loop is still true:
/// the changes were elsewhere, and dominance among a loop's blocks depends
/// on the loop alone (control enters it only through its header).
fn visit_loops_in_rounds<Round>(
    func: &mut Function,
    headers: &[Block],
    begin_round: impl Fn(&Function, &CfgSnapshot) -> Round,
    mut visit: impl FnMut(&mut Function, &CfgSnapshot, &mut Round, Loop) -> Visit,
) -> Result<(), IrreducibleError> {
    let mut pending: Vec<Block> = headers.to_vec();
    while !pending.is_empty() {
        let snapshot = CfgSnapshot::compute(func)?;
        let mut round = begin_round(func, &snapshot);
        let mut touched: HashSet<Block> = HashSet::new();
        // Headers of loops around a loop that changed or waits this round.
        let mut must_wait: HashSet<Block> = HashSet::new();
        let mut waiting = Vec::new();
        for header in pending {
            let lp = loop_of(&snapshot, header);
            let region = loop_region(&snapshot, lp);
            let mark_enclosing = |must_wait: &mut HashSet<Block>| {
                let mut parent = snapshot.loops.parent(lp);
                while let Some(outer) = parent {
                    must_wait.insert(snapshot.loops.header(outer));
                    parent = snapshot.loops.parent(outer);
                }
            };
            if must_wait.contains(&header) || region.iter().any(|block| touched.contains(block)) {
                mark_enclosing(&mut must_wait);
                waiting.push(header);
                continue;
            }
            let blocks_before = func.dfg.blocks.len();
            match visit(func, &snapshot, &mut round, lp) {
                Visit::Unchanged => {}
                Visit::Changed => {
                    mark_enclosing(&mut must_wait);
                    touched.extend(region);
                    touched.extend((blocks_before..func.dfg.blocks.len()).map(Block::new));
                }
                Visit::Wait => {
                    mark_enclosing(&mut must_wait);
                    waiting.push(header);
                }
            }
        }
        pending = waiting;
    }
    Ok(())
}

/// The blocks whose edges a change to loop `lp` may touch: its own, its
/// exit blocks and its header's predecessors outside it.
fn loop_region(snapshot: &CfgSnapshot, lp: Loop) -> Vec<Block> {
    let loops = &snapshot.loops;
    let header = loops.header(lp);
    let entries =
        snapshot.cfg.preds(header).iter().copied().filter(|pred| !loops.contains(lp, *pred));
    loops
        .blocks(lp)
        .iter()
        .copied()
        .chain(loops.exit_blocks(lp).iter().copied())
        .chain(entries)
        .collect()
}

fn loop_of(snapshot: &CfgSnapshot, header: Block) -> Loop {
    snapshot.loops.loop_of_header(header).expect("loop headers survive canonicalization")
}

/// The block index of PLDI'18 section 3.1 (see the module docs).
///
/// Each region (the function, then each loop inside its parent's order) is
/// ordered over its own blocks only, so the whole index takes time
/// proportional to the blocks times the loop depth, not to the blocks times
/// the loops (a function of 2,000 loops in a row took seconds).
pub fn block_index(snapshot: &CfgSnapshot) -> Vec<Block> {
    let mut rpo_number: SecondaryMap<Block, usize> = SecondaryMap::new();
    for (number, &block) in snapshot.cfg.reverse_post_order().iter().enumerate() {
        rpo_number[block] = number;
    }
    let mut order = Vec::new();
    let mut position: SecondaryMap<Block, Option<usize>> = SecondaryMap::new();
    order_region(snapshot, &rpo_number, None, &mut order, &mut position);
    order
}

/// The node standing for `block` in the region of loop `region` (`None`:
/// the whole function): the block itself, the header of the outermost loop
/// inside the region that contains it, or `None` if it is outside the region.
fn region_node(snapshot: &CfgSnapshot, region: Option<Loop>, block: Block) -> Option<Block> {
    let loops = &snapshot.loops;
    let mut current = loops.innermost_loop(block);
    if current == region {
        return Some(block);
    }
    while let Some(lp) = current {
        let parent = loops.parent(lp);
        if parent == region {
            return Some(loops.header(lp));
        }
        current = parent;
    }
    None
}

/// Appends the blocks of `region` to `order` in index order: a topological
/// order of the region's acyclic graph (inner loops as single nodes,
/// expanded in place), preferring the node whose immediate dominator was
/// placed last.
fn order_region(
    snapshot: &CfgSnapshot,
    rpo_number: &SecondaryMap<Block, usize>,
    region: Option<Loop>,
    order: &mut Vec<Block>,
    position: &mut SecondaryMap<Block, Option<usize>>,
) {
    let cfg = &snapshot.cfg;
    let region_blocks: Vec<Block> = match region {
        None => cfg.reverse_post_order().to_vec(),
        Some(lp) => {
            let mut blocks: Vec<Block> = snapshot.loops.blocks(lp).to_vec();
            blocks.sort_by_key(|block| rpo_number[*block]);
            blocks
        }
    };
    let mut nodes: Vec<Block> = Vec::new();
    let mut is_node: HashSet<Block> = HashSet::new();
    let mut successors: HashMap<Block, BTreeSet<Block>> = HashMap::new();
    for &block in &region_blocks {
        let Some(node) = region_node(snapshot, region, block) else { continue };
        if is_node.insert(node) {
            nodes.push(node);
        }
        for &succ in cfg.succs(block) {
            // The region's own back edges are not part of its acyclic graph;
            // inner loops' back edges stay inside their node.
            if region.is_some_and(|lp| snapshot.loops.header(lp) == succ) {
                continue;
            }
            let Some(target) = region_node(snapshot, region, succ) else { continue };
            if target != node {
                successors.entry(node).or_default().insert(target);
            }
        }
    }
    let mut in_degree: HashMap<Block, usize> = nodes.iter().map(|node| (*node, 0)).collect();
    for targets in successors.values() {
        for target in targets {
            *in_degree.get_mut(target).expect("target is a node") += 1;
        }
    }
    let mut ready: Vec<Block> = nodes.iter().copied().filter(|node| in_degree[node] == 0).collect();
    while !ready.is_empty() {
        // Prefer the node whose immediate dominator was placed last.
        let best = (0..ready.len())
            .max_by_key(|slot| {
                let node = ready[*slot];
                let idom_position = snapshot
                    .domtree
                    .idom(node)
                    .and_then(|idom| position[idom])
                    .map_or(-1, |position| position as i64);
                (idom_position, std::cmp::Reverse(rpo_number[node]))
            })
            .expect("ready is not empty");
        let node = ready.swap_remove(best);
        let child_loop = snapshot.loops.loop_of_header(node).filter(|lp| Some(*lp) != region);
        match child_loop {
            Some(lp) => order_region(snapshot, rpo_number, Some(lp), order, position),
            None => {
                position[node] = Some(order.len());
                order.push(node);
            }
        }
        if let Some(targets) = successors.get(&node) {
            for target in targets {
                let degree = in_degree.get_mut(target).expect("target is a node");
                *degree -= 1;
                if *degree == 0 {
                    ready.push(*target);
                }
            }
        }
    }
}

/// Figure 5 of PLDI'18: for every block, the new target of each of its
/// successors. A folded block maps every successor to the same block.
fn partial_linearization(
    func: &Function,
    snapshot: &CfgSnapshot,
    index: &[Block],
    folded: &HashSet<Block>,
) -> Result<HashMap<Block, HashMap<Block, Block>>, LinearizeError> {
    let number: HashMap<Block, usize> =
        index.iter().enumerate().map(|(n, block)| (*block, n)).collect();
    let mut deferred: HashMap<Block, BTreeSet<usize>> = HashMap::new();
    let mut result: HashMap<Block, HashMap<Block, Block>> = HashMap::new();
    let defer =
        |deferred: &mut HashMap<Block, BTreeSet<usize>>, candidates: &BTreeSet<usize>| -> Block {
            let next = *candidates.iter().next().expect("a successor");
            let rest: Vec<usize> = candidates.iter().copied().filter(|n| *n != next).collect();
            deferred.entry(index[next]).or_default().extend(rest);
            index[next]
        };
    for &block in index {
        let pending = deferred.remove(&block).unwrap_or_default();
        let successors = snapshot.cfg.succs(block).to_vec();
        let mut targets = HashMap::new();
        if folded.contains(&block) && successors.len() > 1 {
            if successors.iter().any(|succ| snapshot.is_back_edge(block, *succ)) {
                return Err(LinearizeError::DivergentBackEdge {
                    function: func.name.clone(),
                    block: func.block_name(block),
                });
            }
            let mut candidates = pending.clone();
            candidates.extend(successors.iter().map(|succ| number[succ]));
            let next = defer(&mut deferred, &candidates);
            for succ in successors {
                targets.insert(succ, next);
            }
        } else {
            for succ in successors {
                if snapshot.is_back_edge(block, succ) {
                    targets.insert(succ, succ);
                    continue;
                }
                let mut candidates = pending.clone();
                candidates.insert(number[&succ]);
                let next = defer(&mut deferred, &candidates);
                targets.insert(succ, next);
            }
        }
        result.insert(block, targets);
    }
    Ok(result)
}

/// Applies the new successors: a folded block (or a kept branch whose
/// targets all coincide) ends in a jump, a kept branch or switch is
/// retargeted slot by slot.
fn rewrite_terminators(
    func: &mut Function,
    new_successors: &HashMap<Block, HashMap<Block, Block>>,
    folded: &HashSet<Block>,
) {
    for (&block, targets) in new_successors {
        let Some(terminator) = func.terminator(block) else { continue };
        let map = |target: Block| targets.get(&target).copied().unwrap_or(target);
        let data = func.dfg.inst(terminator).clone();
        let distinct: HashSet<Block> = data.successors().into_iter().map(map).collect();
        let new_data = if distinct.len() == 1 {
            let dest = *distinct.iter().next().expect("one target");
            InstData::Jump { dest }
        } else if folded.contains(&block) {
            unreachable!("a folded terminator has one target")
        } else {
            match data {
                InstData::Jump { dest } => InstData::Jump { dest: map(dest) },
                InstData::Branch { cond, then_dest, else_dest } => {
                    InstData::Branch { cond, then_dest: map(then_dest), else_dest: map(else_dest) }
                }
                InstData::Switch { value, default, cases } => InstData::Switch {
                    value,
                    default: map(default),
                    cases: cases.into_iter().map(|(case, target)| (case, map(target))).collect(),
                },
                other => other,
            }
        };
        *func.dfg.inst_mut(terminator) = new_data;
    }
}

/// Whether `value` is the constant `poison` or `undef`.
fn is_undefined(func: &Function, value: Value) -> bool {
    matches!(func.dfg.constant(value), Some(Constant::Poison | Constant::Undef))
}

/// `rv_any(cond)`, placed right after the definition of `cond` (whose block
/// predicate contains it, so the widened `any` needs no other mask); a
/// constant is already uniform.
fn any_lane(func: &mut Function, cond: Value) -> Value {
    let any = InstData::Call {
        callee: Callee::Direct("rv_any".into()),
        args: vec![cond],
        ret_ty: Type::BOOL,
        effects: CallEffects::Pure,
        flags: FastMathFlags::default(),
    };
    let inst = match func.dfg.value_def(cond).clone() {
        ValueDef::Const(_) => return cond,
        ValueDef::Result(definition) => {
            let Some(block) = func.layout.inst_block(definition) else { return cond };
            let phis = block_phis(func, block).len();
            let at = func.layout.block_insts(block).iter().position(|i| *i == definition);
            let inst = func.dfg.make_inst(any, Type::BOOL);
            // After the definition, and after the block's phis.
            let position = at.map_or(phis, |at| (at + 1).max(phis));
            func.layout.insert_inst_at(inst, block, position);
            inst
        }
        ValueDef::Param(_) => {
            let Some(entry) = func.entry_block() else { return cond };
            let inst = func.dfg.make_inst(any, Type::BOOL);
            func.layout.insert_inst_at(inst, entry, 0);
            inst
        }
    };
    result_of(func, inst)
}

/// Step 6b: a block entered only over edges that kept uniform branches
/// decide (or jumps) from blocks that all share one predicate `p(x)` needs no
/// predicate of its own: its predicate is `p(x)` and kept uniform conditions,
/// and those conditions hold whenever the block runs (the branches that
/// test them are real branches of the linearized function). This is PLDI'18
/// Theorem 4.1 relative to `x` instead of the entry: a chain of uniform tests
/// inside a divergent region (`leaf = child[0] < 0 && child[1] < 0 && ...`
/// under a varying predicate), and the join after it, run under `p(x)`
/// instead of one more mask per test and an `or` of them at the join.
///
/// The anchor `x` of a block `b` (the block whose predicate `b` may use) is
/// `b` itself, except when `b` has the same predecessors in the input and in
/// the linearized function, each of them ends in a terminator that
/// linearization left as it was (not folded, no edge re-routed), and all
/// have the same anchor; then that anchor (which dominates `b`).
/// Loop headers anchor themselves, and so do the exit blocks of divergent
/// loops (their predicate is the preheader's, not derived from their
/// incoming edge: the pure latch's lanes have all left there). `p(b)` is
/// then replaced by `p(x)` as
/// `b`'s predicate and in every instruction `b` dominates in the linearized
/// function, where the replaced value equals `p(x)` (other uses keep it, and
/// SSA repair gives it `false` on paths that skip `b`).
fn anchor_predicates(
    func: &mut Function,
    original: &CfgSnapshot,
    linearized: &CfgSnapshot,
    folded: &HashSet<Block>,
    divergent_loop_exits: &HashSet<Block>,
    masks: &mut Masks,
) {
    let unchanged_terminator = |block: Block| {
        !folded.contains(&block) && original.cfg.succs(block) == linearized.cfg.succs(block)
    };
    let mut anchor: HashMap<Block, Block> = HashMap::new();
    let mut replacements: Vec<(Block, Value, Value)> = Vec::new();
    for &block in linearized.cfg.reverse_post_order() {
        let preds = linearized.cfg.preds(block);
        let anchors_itself = linearized.loops.loop_of_header(block).is_some()
            || divergent_loop_exits.contains(&block);
        // Every edge of the input into `block` must still be there: a path
        // whose edge into `block` linearization re-routed brings lanes that
        // no edge of the linearized function accounts for.
        let same_preds = {
            let mut before: Vec<Block> = original.cfg.preds(block).to_vec();
            let mut after: Vec<Block> = preds.to_vec();
            before.sort();
            before.dedup();
            after.sort();
            after.dedup();
            before == after
        };
        let shared = (!preds.is_empty() && !anchors_itself && same_preds)
            .then(|| {
                let mut anchors = preds.iter().map(|pred| {
                    let kept_edge =
                        original.cfg.succs(*pred).contains(&block) && unchanged_terminator(*pred);
                    if kept_edge {
                        anchor.get(pred).copied()
                    } else {
                        None
                    }
                });
                let first = anchors.next().flatten()?;
                anchors.all(|other| other == Some(first)).then_some(first)
            })
            .flatten();
        let own = shared.unwrap_or(block);
        anchor.insert(block, own);
        if own == block {
            continue;
        }
        let (Some(predicate), Some(anchored)) =
            (masks.block_predicate(block), masks.block_predicate(own))
        else {
            continue;
        };
        if predicate != anchored {
            masks.set_block_predicate(block, anchored);
            replacements.push((block, predicate, anchored));
        }
    }
    for (block, predicate, anchored) in replacements {
        let dominated: Vec<Block> = func
            .layout
            .blocks()
            .iter()
            .copied()
            .filter(|other| linearized.domtree.dominates(block, *other))
            .collect();
        for other in dominated {
            let insts: Vec<Inst> = func.layout.block_insts(other).to_vec();
            for inst in insts {
                if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(inst) {
                    for (from, value) in incoming.iter_mut() {
                        if *value == predicate && linearized.domtree.dominates(block, *from) {
                            *value = anchored;
                        }
                    }
                    continue;
                }
                func.dfg.inst_mut(inst).map_operands(|value| {
                    if value == predicate {
                        anchored
                    } else {
                        value
                    }
                });
            }
        }
    }
}

/// Keeps, re-routes or blends the phis after the CFG changed (step 6 of
/// the module docs). Returns the number of blends.
fn fix_phis(
    func: &mut Function,
    original: &CfgSnapshot,
    linearized: &CfgSnapshot,
    masks: &mut Masks,
    uniform_phis: &HashSet<Value>,
) -> usize {
    let mut replacements: HashMap<Value, Value> = HashMap::new();
    let mut blends = 0;
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    for block in blocks {
        let phis = block_phis(func, block);
        if phis.is_empty() {
            continue;
        }
        let new_preds = linearized.cfg.preds(block).to_vec();
        if let Some(lp) = original.loops.loop_of_header(block) {
            for phi in phis {
                let incoming = phi_incoming(func, phi);
                let entry_value = incoming
                    .iter()
                    .find(|(from, _)| !original.loops.contains(lp, *from))
                    .map(|(_, value)| *value)
                    .expect("header phi has a preheader entry");
                let entries = new_preds
                    .iter()
                    .map(|pred| {
                        let from_latch = original.loops.contains(lp, *pred);
                        let value = if from_latch {
                            incoming.iter().find(|(from, _)| from == pred).map(|(_, value)| *value)
                        } else {
                            None
                        };
                        (*pred, value.unwrap_or(entry_value))
                    })
                    .collect();
                set_phi_incoming(func, phi, entries);
            }
            continue;
        }
        let original_preds = original.cfg.preds(block);
        let keep = original_preds.iter().all(|pred| linearized.cfg.succs(*pred).contains(&block))
            && new_preds.iter().all(|pred| original_preds.contains(pred));
        if keep {
            continue;
        }
        let mut position = 0;
        for phi in phis {
            let phi_value = result_of(func, phi);
            let ty = func.dfg.value_type(phi_value).clone();
            // Poison entries are "no lane needs a value here" (the
            // divergent-loop transform creates them for lanes that left):
            // they need no select arm, and a phi whose other entries agree
            // becomes that value (a loop counter stays uniform).
            let defined: Vec<(Block, Value)> = phi_incoming(func, phi)
                .into_iter()
                .filter(|(_, value)| !is_undefined(func, *value))
                .collect();
            let incoming = if defined.is_empty() { phi_incoming(func, phi) } else { defined };
            func.layout.remove_inst(phi);
            let Some(((_, last), rest)) = incoming.split_last() else {
                continue;
            };
            let mut blend = *last;
            if !incoming.iter().all(|(_, value)| *value == blend) {
                for (from, value) in rest.iter().rev() {
                    let mut cond = masks
                        .edge_predicate(*from, block)
                        .expect("every original edge has a predicate");
                    if uniform_phis.contains(&phi_value) {
                        cond = any_lane(func, cond);
                        // A mask: SSA repair gives it `false` on other paths.
                        masks.mask_values.insert(cond);
                    }
                    let data = InstData::Select {
                        cond,
                        if_true: *value,
                        if_false: blend,
                        flags: FastMathFlags::default(),
                    };
                    let inst = func.dfg.make_inst(data, ty.clone());
                    func.layout.insert_inst_at(inst, block, position);
                    position += 1;
                    blend = result_of(func, inst);
                    if masks.mask_values.contains(&phi_value) {
                        masks.mask_values.insert(blend);
                    }
                }
                blends += 1;
            }
            replacements.insert(phi_value, blend);
        }
    }
    replace_uses(func, &replacements);
    masks.rename(&replacements);
    blends
}

#[cfg(test)]
mod tests;
