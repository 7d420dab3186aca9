//! Branch on superword condition code (BOSCC) around loops: skip a loop
//! when no lane is active at its entry.
//!
//! Partial linearization (PLDI'18) keeps a uniform loop as a loop even where
//! its block predicate is varying: the loop then runs all its iterations
//! under a mask, also when the mask is all false (AO bench: a pixel group
//! whose primary rays all miss still runs every hemisphere sample, masked
//! off). Shin's BOSCC (branch on superword condition codes, and the nested
//! BOSCC of the seeds) guards such regions with a test of "any lane active"
//! and jumps around them when none is. Full linearization gets part of this
//! for free: it turns the loop into a divergent loop whose live mask empties
//! at once.
//!
//! This pass applies BOSCC at loop granularity, to the linearized scalar
//! function, before shapes and widening. For a loop with a dedicated
//! preheader `P` (ending in `jump header`), a varying predicate `m` at `P`
//! and at the header, one exit block `E` and one exiting block `X`:
//!
//! ```text
//! P:    ...; any = rv_any(m); br any, header, skip
//! skip: <the live-outs, recomputed>; jump E
//! ```
//!
//! What the skipped loop would have left in its live-outs matters: the
//! linearized loop also carries values of lanes outside `m` (the masks and
//! results of lanes that left earlier, passed through its header phis or
//! kept by blends `select(mask, new, old)` whose masks are within `m`), and
//! lanes outside `m` read them after the loop. With no lane active, one
//! pass through the loop body leaves every such value as it found it, and
//! everything else only matters to inactive lanes. So the skip block
//! recomputes each live-out (the exit phis' values from `X`, and every loop
//! value used after the loop, block predicates included) from its backward
//! slice in the loop, with the header phis replaced by their values on
//! entry. The slice must be pure arithmetic (no memory, no calls, no phis
//! other than the loop's header phis), otherwise the loop is not guarded.
//! Values of the loop used after it get a phi in `E` merging the loop's
//! value and the recomputed one. In the scalar function `rv_any(m) == m`,
//! so the rewrite keeps its scalar meaning as well.
//!
//! Outermost loops are guarded first; a loop inside a guarded loop is not
//! guarded again (its entry mask is usually the same).

use std::collections::{HashMap, HashSet};

use lanewise_analysis::{LoopUses, UseSite};
use lanewise_ir::{
    BinaryOp, Block, CallEffects, Callee, FastMathFlags, Function, Inst, InstData, Type, Value,
    ValueDef,
};

use crate::cfg_canon::{
    block_phis, insert_before_terminator, insert_phi, is_bool_const, new_block_after,
    rename_phi_predecessor, CfgSnapshot,
};
use crate::predicates::BlockPredicates;

/// Guards every eligible loop of `func` (see the module docs) with an
/// "any lane active" test; the new skip blocks get their preheader's
/// predicate. Returns the number of loops guarded.
pub fn skip_loops_without_active_lanes(
    func: &mut Function,
    predicates: &mut BlockPredicates,
) -> usize {
    let mut guarded_headers: HashSet<Block> = HashSet::new();
    // A guard changes the function around its loop only (the preheader's
    // branch, a skip block, phis in the exit, the uses of the live-outs),
    // so one snapshot serves every loop of a round that shares no block
    // and no value with the guards placed in that round; the others wait
    // for the next round's snapshot. (A snapshot per guard made the pass
    // quadratic in the function's size: scripts/scaling.sh.) Dominance
    // among the other blocks stays: a skip path bypasses only the loop.
    // The round's [`LoopUses`] stay true for those loops as well: a
    // guard adds uses only of its own loop's values and of values its new
    // code reads, and a loop with a live-out among the latter waits.
    loop {
        let Ok(snapshot) = CfgSnapshot::compute(func) else { return guarded_headers.len() };
        let mut loops: Vec<_> = snapshot.loops.loops().collect();
        loops.sort_by_key(|lp| snapshot.loops.depth(*lp));
        let index = LoopUses::compute(func, &snapshot.loops, |block| predicates.get(block));
        let mut touched_blocks: HashSet<Block> = HashSet::new();
        let mut replaced_values: HashSet<Value> = HashSet::new();
        let mut read_by_new_code: HashSet<Value> = HashSet::new();
        let mut guarded_this_round = 0;
        for lp in loops {
            let header = snapshot.loops.header(lp);
            let mut ancestor = Some(lp);
            let mut inside_guarded = false;
            while let Some(current) = ancestor {
                inside_guarded |= guarded_headers.contains(&snapshot.loops.header(current));
                ancestor = snapshot.loops.parent(current);
            }
            if inside_guarded {
                continue;
            }
            let Some(plan) = plan_guard(func, &snapshot, &index, lp, predicates) else { continue };
            if plan.conflicts_with(&touched_blocks, &replaced_values, &read_by_new_code) {
                continue;
            }
            let changes = apply_guard(func, predicates, &index, header, &plan);
            touched_blocks.extend([plan.preheader, plan.exit, changes.skip]);
            replaced_values.extend(changes.replaced);
            read_by_new_code.extend(changes.new_reads);
            guarded_headers.insert(header);
            guarded_this_round += 1;
        }
        if guarded_this_round == 0 {
            return guarded_headers.len();
        }
    }
}

/// What [`apply_guard`] changed beyond its loop.
struct GuardChanges {
    skip: Block,
    /// The live-outs that exit phis replaced after the loop.
    replaced: Vec<Value>,
    /// The values the new instructions (and the skip block's predicate)
    /// read: uses the round's [`LoopUses`] do not know.
    new_reads: Vec<Value>,
}

impl GuardPlan {
    /// Whether the plan, made from a snapshot taken before other guards
    /// were placed, may be stale: its blocks include one those guards
    /// changed, or it names a value they replaced.
    fn conflicts_with(
        &self,
        touched: &HashSet<Block>,
        replaced: &HashSet<Value>,
        read_by_new_code: &HashSet<Value>,
    ) -> bool {
        let blocks_touched = [self.preheader, self.exit, self.exiting]
            .iter()
            .chain(&self.in_loop)
            .any(|block| touched.contains(block));
        let values_replaced = std::iter::once(&self.predicate)
            .chain(self.entry_values.values())
            .chain(&self.live_outs)
            .any(|value| replaced.contains(value));
        let live_out_read_anew =
            self.live_outs.iter().any(|value| read_by_new_code.contains(value));
        blocks_touched || values_replaced || live_out_read_anew
    }
}

struct GuardPlan {
    preheader: Block,
    exit: Block,
    exiting: Block,
    predicate: Value,
    /// Values of the loop used after it, other than by the exit's phis.
    live_outs: Vec<Value>,
    /// The loop's header phis and their values on entry.
    entry_values: HashMap<Value, Value>,
    in_loop: HashSet<Block>,
}

fn plan_guard(
    func: &Function,
    snapshot: &CfgSnapshot,
    index: &LoopUses,
    lp: lanewise_analysis::Loop,
    predicates: &BlockPredicates,
) -> Option<GuardPlan> {
    let loops = &snapshot.loops;
    let header = loops.header(lp);
    let outside_preds: Vec<Block> = snapshot
        .cfg
        .preds(header)
        .iter()
        .copied()
        .filter(|pred| !loops.contains(lp, *pred))
        .collect();
    let [preheader] = outside_preds[..] else { return None };
    let terminator = func.terminator(preheader)?;
    if !matches!(func.dfg.inst(terminator), InstData::Jump { dest } if *dest == header) {
        return None;
    }
    let predicate = predicates.get(preheader)?;
    predicates.get(header)?;
    // The predicate must be available at the end of the preheader.
    match func.dfg.value_def(predicate) {
        ValueDef::Param(_) => {}
        ValueDef::Result(inst) => {
            let block = func.layout.inst_block(*inst)?;
            if !snapshot.domtree.dominates(block, preheader) {
                return None;
            }
        }
        _ => return None,
    }
    let [exit] = loops.exit_blocks(lp)[..] else { return None };
    let [exiting] = snapshot.cfg.preds(exit)[..] else { return None };
    if !loops.contains(lp, exiting) {
        return None;
    }
    let in_loop: HashSet<Block> = loops.blocks(lp).iter().copied().collect();
    let mut entry_values = HashMap::new();
    for phi in block_phis(func, header) {
        let InstData::Phi { incoming, .. } = func.dfg.inst(phi) else { continue };
        let entry = incoming.iter().find(|(block, _)| *block == preheader)?.1;
        entry_values.insert(func.dfg.result(phi)?, entry);
    }
    let exit_phis: HashSet<Inst> = block_phis(func, exit).into_iter().collect();
    // Every use outside the loop but by the exit's phis.
    let live_outs = index.live_outs(lp, |site| match site {
        UseSite::Operand { block, inst, .. } => !(block == exit && exit_phis.contains(&inst)),
        UseSite::Predicate(_) => true,
    });
    let plan = GuardPlan { preheader, exit, exiting, predicate, live_outs, entry_values, in_loop };
    // Every value the skip block recomputes must have a pure slice.
    let mut checked = HashSet::new();
    for phi in &exit_phis {
        let InstData::Phi { incoming, .. } = func.dfg.inst(*phi) else { return None };
        let value = incoming.iter().find(|(block, _)| *block == exiting)?.1;
        if !slice_is_pure(func, &plan, value, &mut checked) {
            return None;
        }
    }
    for value in &plan.live_outs {
        if !slice_is_pure(func, &plan, *value, &mut checked) {
            return None;
        }
    }
    Some(plan)
}

/// Whether `value` can be recomputed outside the loop (see the module docs).
fn slice_is_pure(
    func: &Function,
    plan: &GuardPlan,
    value: Value,
    checked: &mut HashSet<Value>,
) -> bool {
    if plan.entry_values.contains_key(&value) || !checked.insert(value) {
        return true;
    }
    let ValueDef::Result(inst) = func.dfg.value_def(value) else { return true };
    let Some(block) = func.layout.inst_block(*inst) else { return false };
    if !plan.in_loop.contains(&block) {
        return true;
    }
    let data = func.dfg.inst(*inst);
    let pure = matches!(
        data,
        InstData::Binary { .. }
            | InstData::Icmp { .. }
            | InstData::Fcmp { .. }
            | InstData::Select { .. }
            | InstData::Cast { .. }
            | InstData::Unary { .. }
            | InstData::Freeze { .. }
            | InstData::Gep { .. }
    );
    pure && data.operands().into_iter().all(|operand| slice_is_pure(func, plan, operand, checked))
}

/// Recomputes `value` at the end of `block` (before its terminator), with the
/// header phis at their entry values.
fn clone_slice(
    func: &mut Function,
    plan: &GuardPlan,
    block: Block,
    value: Value,
    clones: &mut HashMap<Value, Value>,
) -> Value {
    if let Some(entry) = plan.entry_values.get(&value) {
        return *entry;
    }
    if let Some(clone) = clones.get(&value) {
        return *clone;
    }
    let ValueDef::Result(inst) = func.dfg.value_def(value).clone() else { return value };
    let in_loop = func.layout.inst_block(inst).is_some_and(|def| plan.in_loop.contains(&def));
    if !in_loop {
        return value;
    }
    let mut data = func.dfg.inst(inst).clone();
    let mut operands = Vec::new();
    for operand in data.operands() {
        operands.push((operand, clone_slice(func, plan, block, operand, clones)));
    }
    data.map_operands(|operand| {
        operands.iter().find(|(old, _)| *old == operand).map_or(operand, |(_, new)| *new)
    });
    let ty = func.dfg.value_type(value).clone();
    let clone = insert_before_terminator(func, block, data, ty);
    let clone = func.dfg.result(clone).expect("a pure instruction has a result");
    clones.insert(value, clone);
    clone
}

fn apply_guard(
    func: &mut Function,
    predicates: &mut BlockPredicates,
    index: &LoopUses,
    header: Block,
    plan: &GuardPlan,
) -> GuardChanges {
    let skip_name = format!("{}.boscc.skip", func.block_name(plan.preheader));
    let skip = new_block_after(func, plan.preheader, skip_name);
    func.append(skip, InstData::Jump { dest: plan.exit }, Type::Void);
    predicates.set(skip, predicates.get(plan.preheader));

    let any_call = InstData::Call {
        callee: Callee::Direct("rv_any".into()),
        args: vec![plan.predicate],
        ret_ty: Type::BOOL,
        effects: CallEffects::Pure,
        flags: FastMathFlags::default(),
    };
    let any_inst = insert_before_terminator(func, plan.preheader, any_call, Type::BOOL);
    let any = func.dfg.result(any_inst).expect("rv_any has a result");
    let terminator = func.terminator(plan.preheader).expect("the preheader ends in a jump");
    *func.dfg.inst_mut(terminator) =
        InstData::Branch { cond: any, then_dest: header, else_dest: skip };

    let mut clones = HashMap::new();
    let mut recomputed_values = Vec::new();
    let exit_phis: HashSet<Inst> = block_phis(func, plan.exit).into_iter().collect();
    for phi in block_phis(func, plan.exit) {
        let InstData::Phi { incoming, .. } = func.dfg.inst(phi) else { continue };
        let from_loop = incoming
            .iter()
            .find(|(block, _)| *block == plan.exiting)
            .expect("checked by plan_guard")
            .1;
        let recomputed = clone_slice(func, plan, skip, from_loop, &mut clones);
        recomputed_values.push(recomputed);
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
            incoming.push((skip, recomputed));
        }
    }

    // Other live-outs: a new exit phi replaces them after the loop.
    let mut replacements: HashMap<Value, Value> = HashMap::new();
    for value in &plan.live_outs {
        let ty = func.dfg.value_type(*value).clone();
        let recomputed = clone_slice(func, plan, skip, *value, &mut clones);
        recomputed_values.push(recomputed);
        let phi = insert_phi(func, plan.exit, ty, vec![(plan.exiting, *value), (skip, recomputed)]);
        replacements.insert(*value, phi);
    }
    // The values the new code reads: the guard's predicate (`rv_any` and
    // the skip block's), the clones' operands, the exit phis' new incoming
    // values and the live-outs the new phis merge.
    let mut new_reads: Vec<Value> = vec![plan.predicate];
    new_reads.extend(predicates.get(skip));
    for &inst in func.layout.block_insts(skip) {
        func.dfg.inst(inst).for_each_operand(|value| new_reads.push(value));
    }
    new_reads.extend(recomputed_values);
    new_reads.extend(replacements.keys().copied());
    // Every use outside the loop (but in the exit's phis) reads the new phi.
    for value in &plan.live_outs {
        let replacement = replacements[value];
        for site in index.sites(*value) {
            let is_exit_phi =
                |block: Block, inst: Inst| block == plan.exit && exit_phis.contains(&inst);
            match *site {
                UseSite::Predicate(block)
                    if !plan.in_loop.contains(&block) && predicates.get(block) == Some(*value) =>
                {
                    predicates.set(block, Some(replacement));
                }
                UseSite::Operand { block, inst, .. }
                    if !(plan.in_loop.contains(&block) || is_exit_phi(block, inst)) =>
                {
                    func.dfg.inst_mut(inst).map_operands(|operand| {
                        if operand == *value {
                            replacement
                        } else {
                            operand
                        }
                    });
                }
                _ => {}
            }
        }
    }
    GuardChanges { skip, replaced: replacements.into_keys().collect(), new_reads }
}

/// Simplifies the predicates around BOSCC guards of a linearized function
/// and marks the blocks that run only while some lane is active
/// ([`BlockPredicates::set_some_lane_active`]).
///
/// A guard `c = rv_any(true)` in a block `G` with predicate `p` is, widened,
/// "some lane of `p` is active". Linearization gives the guarded edge the
/// predicate `e = select p, c, false` (`p & any(p)`), which is `p` itself:
/// when no lane of `p` is active, both are all false. Every use of such an
/// `e` (block predicates, blends at the join after the region, masks derived
/// from it) reads `p` instead, which saves the `any` reduction, its splat
/// and an `and` per use, and leaves `c` only in the branch.
///
/// Then a block `B` whose only predecessor `P` ends in `br c, B, _` with
/// `c = rv_any(x)` computed in `P`, and whose predicate is `pred(P)`, runs
/// only when `c` holds, i.e. when `pred(P) & x` has an active lane, so
/// `pred(B)` has one: `B` and the blocks it dominates with the same
/// predicate are marked. The region entries of [`guard_divergent_regions`]
/// are such blocks, and so are the headers of divergent loops (see
/// `loop_header_entered_with_an_active_lane`; early_exit_search of the
/// program corpus, whose loop loads `table[j]`, ran 1.27x faster without
/// the per-iteration `any` test of that load). Returns the number of
/// blocks marked.
pub fn mark_blocks_with_an_active_lane(
    func: &mut Function,
    predicates: &mut BlockPredicates,
) -> usize {
    simplify_guard_edge_predicates(func, predicates);
    let Ok(snapshot) = CfgSnapshot::compute(func) else { return 0 };
    simplify_predicates_under_kept_branches(func, predicates, &snapshot);
    let mut marked = 0;
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    let mut blocks_by_predicate: HashMap<Value, Vec<Block>> = HashMap::new();
    for &block in &blocks {
        if let Some(predicate) = predicates.get(block) {
            blocks_by_predicate.entry(predicate).or_default().push(block);
        }
    }
    for &block in &blocks {
        let Some(predicate) = predicates.get(block) else { continue };
        let entered_with_an_active_lane = match snapshot.cfg.preds(block) {
            [from] => {
                predicates.get(*from) == Some(predicate)
                    && any_guard_into(func, *from, block).is_some()
            }
            _ => loop_header_entered_with_an_active_lane(func, predicates, block, predicate),
        };
        if !entered_with_an_active_lane {
            continue;
        }
        for &dominated in &blocks_by_predicate[&predicate] {
            if snapshot.domtree.dominates(block, dominated)
                && !predicates.some_lane_active(dominated)
            {
                predicates.set_some_lane_active(dominated);
                marked += 1;
            }
        }
    }
    marked
}

/// If `from` ends in `br rv_any(x), to, _` with the `rv_any` computed in
/// `from` (`to` is entered only when some lane of `x` is active): `x`.
fn any_guard_into(func: &Function, from: Block, to: Block) -> Option<Value> {
    let terminator = func.terminator(from)?;
    let InstData::Branch { cond, then_dest, .. } = func.dfg.inst(terminator) else {
        return None;
    };
    let inst = func.dfg.defining_inst(*cond)?;
    let guard = *then_dest == to
        && func.dfg.callee_name(inst) == Some("rv_any")
        && func.layout.inst_block(inst) == Some(from);
    guard.then(|| func.dfg.inst(inst).operands().first().copied()).flatten()
}

/// A divergent loop's header whose predicate is its live-mask phi runs with
/// an active lane when every entry brings one: the back edge leaves the
/// pure latch on `rv_any(live.next)`, and the entry edge is guarded the same
/// way (BOSCC's loop skip), or brings the all-true mask, or comes from a
/// block already marked whose predicate is the entering mask. Uniform loads
/// in such a loop then need no `any` test per iteration.
fn loop_header_entered_with_an_active_lane(
    func: &Function,
    predicates: &BlockPredicates,
    header: Block,
    predicate: Value,
) -> bool {
    let Some(phi) = func.dfg.defining_inst(predicate) else { return false };
    if func.layout.inst_block(phi) != Some(header) {
        return false;
    }
    let InstData::Phi { incoming, .. } = func.dfg.inst(phi) else { return false };
    !incoming.is_empty()
        && incoming.iter().all(|(from, mask)| {
            is_bool_const(func, *mask, true)
                || any_guard_into(func, *from, header) == Some(*mask)
                || (predicates.some_lane_active(*from)
                    && predicates.get(*from) == Some(*mask)
                    && func.successors(*from) == [header])
        })
}

/// Uses what the branches of the linearized function decide. Every branch
/// left after linearization is uniform; if `P` ends in `br u, T, F` and `T`
/// has no other predecessor, `u` is true in every block `T` dominates (false
/// under `F` likewise). There, an edge predicate `select u, x, false` (or
/// `select u, false, x` under `F`) is `x`: blocks whose predicate is such a
/// value get `x` instead, and so do the instructions of those blocks that
/// use it. A chain of uniform tests inside a divergent region (a leaf test
/// `child[0] < 0 && child[1] < 0 && ...` under a varying predicate) then
/// keeps the region's predicate instead of one more mask per test.
fn simplify_predicates_under_kept_branches(
    func: &mut Function,
    predicates: &mut BlockPredicates,
    snapshot: &CfgSnapshot,
) {
    // (region entry, condition, its value there)
    let mut facts: Vec<(Block, Value, bool)> = Vec::new();
    for &block in func.layout.blocks() {
        let Some(terminator) = func.terminator(block) else { continue };
        let InstData::Branch { cond, then_dest, else_dest } = func.dfg.inst(terminator) else {
            continue;
        };
        if then_dest == else_dest {
            continue;
        }
        for (target, value) in [(*then_dest, true), (*else_dest, false)] {
            if let [only] = snapshot.cfg.preds(target) {
                if *only == block {
                    facts.push((target, *cond, value));
                }
            }
        }
    }
    if facts.is_empty() {
        return;
    }
    // The value an edge predicate reduces to where `cond == value` holds.
    let reduce = |func: &Function, predicate: Value, cond: Value, value: bool| -> Option<Value> {
        let inst = func.dfg.defining_inst(predicate)?;
        let InstData::Select { cond: select_cond, if_true, if_false, .. } = func.dfg.inst(inst)
        else {
            return None;
        };
        if *select_cond != cond || *func.dfg.value_type(predicate) != Type::BOOL {
            return None;
        }
        match value {
            true if func.dfg.int_constant(*if_false) == Some(0) => Some(*if_true),
            false if func.dfg.int_constant(*if_true) == Some(0) => Some(*if_false),
            _ => None,
        }
    };
    let facts_in_force = facts_in_force(snapshot, &facts);
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    for &block in &blocks {
        let Some(known) = facts_in_force.get(&block) else { continue };
        let simplify = |func: &Function, mut predicate: Value| -> Value {
            loop {
                let reduced =
                    known.iter().find_map(|(cond, value)| reduce(func, predicate, *cond, *value));
                match reduced {
                    Some(reduced) => predicate = reduced,
                    None => return predicate,
                }
            }
        };
        if let Some(predicate) = predicates.get(block) {
            let simplified = simplify(func, predicate);
            if simplified != predicate {
                predicates.set(block, Some(simplified));
            }
        }
        let insts: Vec<Inst> = func.layout.block_insts(block).to_vec();
        for inst in insts {
            if matches!(func.dfg.inst(inst), InstData::Phi { .. }) {
                continue;
            }
            let mut operands = Vec::new();
            func.dfg.inst(inst).for_each_operand(|operand| operands.push(operand));
            let replacements: HashMap<Value, Value> = operands
                .into_iter()
                .filter(|operand| *func.dfg.value_type(*operand) == Type::BOOL)
                .filter_map(|operand| {
                    let simplified = simplify(func, operand);
                    (simplified != operand).then_some((operand, simplified))
                })
                .collect();
            if !replacements.is_empty() {
                func.dfg
                    .inst_mut(inst)
                    .map_operands(|value| replacements.get(&value).copied().unwrap_or(value));
            }
        }
    }
}

/// For every block under at least one fact (a condition known inside the
/// region a branch enters: `(region entry, condition, its value there)`),
/// those facts in the order of `facts`: a walk of the dominator tree in
/// pre-order keeps the facts of the entries on the path from the root, so
/// the whole takes time proportional to the blocks, not to the blocks
/// times the facts.
fn facts_in_force(
    snapshot: &CfgSnapshot,
    facts: &[(Block, Value, bool)],
) -> HashMap<Block, Vec<(Value, bool)>> {
    let mut at_entry: HashMap<Block, Vec<usize>> = HashMap::new();
    for (number, (entry, _, _)) in facts.iter().enumerate() {
        at_entry.entry(*entry).or_default().push(number);
    }
    let domtree = &snapshot.domtree;
    let mut in_force = HashMap::new();
    // The blocks of the path from the root, each with the length of `open`
    // before its own facts.
    let mut path: Vec<(Block, usize)> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for &block in domtree.preorder() {
        while let Some(&(top, length)) = path.last() {
            if domtree.dominates(top, block) {
                break;
            }
            path.pop();
            open.truncate(length);
        }
        path.push((block, open.len()));
        open.extend(at_entry.get(&block).into_iter().flatten());
        if !open.is_empty() {
            let mut numbers = open.clone();
            numbers.sort_unstable();
            in_force.insert(block, numbers.iter().map(|&n| (facts[n].1, facts[n].2)).collect());
        }
    }
    in_force
}

/// Replaces every `select p, c, false` (and `and p, c`) where `c =
/// rv_any(true)` is computed in a block whose predicate is `p` by `p` (see
/// [`mark_blocks_with_an_active_lane`]).
fn simplify_guard_edge_predicates(func: &mut Function, predicates: &mut BlockPredicates) {
    // (c, p) for every guard: rv_any(true) in a block with predicate p.
    let mut guards: HashMap<Value, Value> = HashMap::new();
    for &block in func.layout.blocks() {
        let Some(predicate) = predicates.get(block) else { continue };
        for &inst in func.layout.block_insts(block) {
            let InstData::Call { callee: Callee::Direct(name), args, .. } = func.dfg.inst(inst)
            else {
                continue;
            };
            if name == "rv_any" && args.len() == 1 && func.dfg.int_constant(args[0]) == Some(1) {
                if let Some(any) = func.dfg.result(inst) {
                    guards.insert(any, predicate);
                }
            }
        }
    }
    if guards.is_empty() {
        return;
    }
    let mut replaced: HashMap<Value, Value> = HashMap::new();
    for inst in func.layout.insts() {
        let simplified = match func.dfg.inst(inst) {
            InstData::Select { cond, if_true, if_false, .. }
                if func.dfg.int_constant(*if_false) == Some(0)
                    && guards.get(if_true) == Some(cond) =>
            {
                Some(*cond)
            }
            InstData::Binary { op: BinaryOp::And, lhs, rhs, .. } => {
                if guards.get(rhs) == Some(lhs) {
                    Some(*lhs)
                } else if guards.get(lhs) == Some(rhs) {
                    Some(*rhs)
                } else {
                    None
                }
            }
            _ => None,
        };
        if let (Some(simplified), Some(result)) = (simplified, func.dfg.result(inst)) {
            if *func.dfg.value_type(result) == Type::BOOL {
                replaced.insert(result, simplified);
            }
        }
    }
    if replaced.is_empty() {
        return;
    }
    let insts: Vec<Inst> = func.layout.insts().collect();
    for inst in insts {
        func.dfg
            .inst_mut(inst)
            .map_operands(|value| replaced.get(&value).copied().unwrap_or(value));
    }
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    for block in blocks {
        if let Some(predicate) = predicates.get(block) {
            if let Some(simplified) = replaced.get(&predicate) {
                predicates.set(block, Some(*simplified));
            }
        }
    }
}

/// What skipping a region saves, in the spirit of Shin's profitability
/// model without branch probabilities: every instruction costs 1 unless
/// `expensive` says more (the pipeline gives a gather, scatter or per-lane
/// call the width W: it does W element accesses, masked or not), and a region
/// is guarded when its cost reaches `min_region`.
#[derive(Clone, Debug, Default)]
pub struct RegionCosts {
    pub min_region: usize,
    pub expensive: HashMap<Inst, usize>,
}

impl RegionCosts {
    /// Every instruction costs 1.
    pub fn counting_instructions(min_region: usize) -> Self {
        RegionCosts { min_region, expensive: HashMap::new() }
    }

    fn cost(&self, inst: Inst) -> usize {
        self.expensive.get(&inst).copied().unwrap_or(1)
    }
}

/// BOSCC before linearization (PLDI'18 section 4, after Theorem 4.5: "we
/// can insert tests for all-false masks in the CFG even before
/// if-conversion"): on an edge `A -> B` of a divergent branch, where `B` has
/// no other predecessor and the blocks `B` dominates (its region) leave only
/// towards one block `X`, a new block `G` takes the edge and branches
/// `br rv_any(true), B, X`. In the scalar function `rv_any(true)` is true, so
/// nothing changes; in the vector function it is "some lane reached `G`", a
/// uniform condition that partial linearization keeps (Theorem 4.5: `G`
/// dominates `B`), so the region is jumped over when no lane takes the edge.
/// `X`'s phis get `poison` from `G` (no lane arrives on that edge; the blend
/// linearization makes selects by its all-false mask). Regions whose cost is
/// below `costs.min_region` (the guard's `any` and branch would cost more
/// than skipping saves), containing a return, or leaving through a loop's
/// back edge are left alone. Returns the number of regions guarded.
pub fn guard_divergent_regions(
    func: &mut Function,
    divergent_branches: &HashSet<Block>,
    costs: &RegionCosts,
) -> usize {
    let mut guarded: HashSet<Block> = HashSet::new();
    loop {
        let Ok(snapshot) = CfgSnapshot::compute(func) else { return guarded.len() };
        let mut branches: Vec<Block> = divergent_branches.iter().copied().collect();
        branches.sort();
        let candidate = branches.into_iter().find_map(|branching| {
            if !func.layout.is_block_inserted(branching) {
                return None;
            }
            let successors = snapshot.cfg.succs(branching).to_vec();
            successors.iter().copied().find_map(|entry| {
                if guarded.contains(&entry)
                    || successors.iter().filter(|s| **s == entry).count() != 1
                {
                    return None;
                }
                region_exit(func, &snapshot, branching, entry, costs)
                    .map(|exit| (branching, entry, exit))
            })
        });
        let Some((branching, entry, exit)) = candidate else { return guarded.len() };
        let name = format!("{}.boscc", func.block_name(entry));
        let guard = new_block_after(func, branching, name);
        let terminator = func.terminator(branching).expect("a branching block has a terminator");
        func.dfg.inst_mut(terminator).replace_successor(entry, guard);
        rename_phi_predecessor(func, entry, branching, guard);
        let always = func.dfg.int_const(Type::BOOL, 1);
        let any_call = InstData::Call {
            callee: Callee::Direct("rv_any".into()),
            args: vec![always],
            ret_ty: Type::BOOL,
            effects: CallEffects::Pure,
            flags: FastMathFlags::default(),
        };
        let any = func.append(guard, any_call, Type::BOOL);
        let any = func.dfg.result(any).expect("rv_any has a result");
        func.append(
            guard,
            InstData::Branch { cond: any, then_dest: entry, else_dest: exit },
            Type::Void,
        );
        // No lane takes the skip edge, so its incoming value is poison:
        // linearization leaves undefined incoming values out of the blends
        // (no select for them). This is safe because `exit` joins a
        // divergent branch, so its phis are varying (sync dependence) and
        // only reach uniform code through blends, which select per lane;
        // a uniform condition that could still be poison is frozen where a
        // branch uses it (`widen::Widener::uniform_condition`).
        for phi in block_phis(func, exit) {
            let result = func.dfg.result(phi).expect("a phi has a result");
            let ty = func.dfg.value_type(result).clone();
            let poison = func.dfg.make_const(ty, lanewise_ir::Constant::Poison);
            if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
                incoming.push((guard, poison));
            }
        }
        // Neither the region nor its new guard is guarded again.
        guarded.insert(entry);
        guarded.insert(guard);
    }
}

/// The single block the region of `entry` (the blocks it dominates) leaves
/// to, if the region qualifies (see [`guard_divergent_regions`]).
fn region_exit(
    func: &Function,
    snapshot: &CfgSnapshot,
    branching: Block,
    entry: Block,
    costs: &RegionCosts,
) -> Option<Block> {
    if snapshot.cfg.preds(entry) != [branching] {
        return None;
    }
    // The region: the subtree of `entry` in the dominator tree.
    let mut region: HashSet<Block> = HashSet::new();
    let mut to_visit = vec![entry];
    while let Some(block) = to_visit.pop() {
        region.insert(block);
        to_visit.extend(snapshot.domtree.children(block));
    }
    let mut exit = None;
    let mut size = 0;
    for &block in &region {
        size += func.layout.block_insts(block).iter().map(|inst| costs.cost(*inst)).sum::<usize>();
        let successors = snapshot.cfg.succs(block);
        if successors.is_empty() {
            return None; // a return inside the region
        }
        for &successor in successors {
            if region.contains(&successor) {
                continue;
            }
            if exit.is_some_and(|known| known != successor) {
                return None;
            }
            exit = Some(successor);
        }
    }
    let exit = exit?;
    // Not a back edge (a `continue` out of the region) and not a loop exit.
    if snapshot.loops.is_header(exit)
        || snapshot.loops.innermost_loop(exit) != snapshot.loops.innermost_loop(branching)
    {
        return None;
    }
    (size >= costs.min_region).then_some(exit)
}

#[cfg(test)]
mod tests;
