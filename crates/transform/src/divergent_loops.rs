//! The divergent-loop transform (Moll & Hack, PLDI'18, section 5; Karrenberg
//! 2014, 6.1.1 loop exit masks and 6.2.1 loop blending).
//!
//! A loop is *divergent* when lanes that enter it together may leave it in
//! different iterations or through different exits. This pass rewrites such
//! a loop, still in the scalar function, into a loop whose only exit is a
//! uniform branch:
//!
//! ```text
//!   preheader -> header ... exiting block x --(was: -> y)--> x.exit.y -> pure latch
//!                      ... old latches  --(was: -> header)-----------> pure latch
//!   pure latch:  live.next = select(live, continued, false)
//!                br rv_any(live.next), header, loop.exit
//!   loop.exit:   br exit.mask(y1), y1, dispatch2;  dispatch2: br exit.mask(y2), y2, y3 ...
//! ```
//!
//! - **Live mask**: a header phi `live` (`[preheader: entry mask]`,
//!   `[pure latch: live.next]`), true in the lanes still iterating. The entry
//!   mask is the constant `true` here; mask generation
//!   ([`crate::masks`]) replaces it by the predicate of the preheader and
//!   makes `live` the header's block predicate.
//! - **Pure latch**: a new block, the only latch. Every old back edge and
//!   every exit edge (through a new block `x.exit.y` per exit edge, like block
//!   `c` of Figure 10) now lead to it. A phi `continued` there is true on the
//!   edges from the old latches, false on the edges from exits. Its branch is
//!   `br rv_any(live.next)`: `rv_any` is a pure call whose shape is uniform
//!   (widening maps it to an or-reduction; with one lane it is the identity).
//! - **Exit masks** (only with more than one exit target): a header phi per
//!   target `y` accumulating the lanes that left towards `y`
//!   (`or(mask, select(live, took_y, false))`).
//! - **Trackers** for values leaving the loop: a header phi per live-out
//!   value, updated in the pure latch with `select(live, update, tracker)`
//!   where `update` is a phi that takes the value on the exit edges and keeps
//!   the tracker on the old latch edges. Each lane so keeps the value of the
//!   iteration in which it left. Phis of exit blocks become trackers too.
//!   Most live-outs are one value `v` computed in every iteration (a rotated
//!   loop's result): then the tracker simply follows it while the lane is
//!   live, `select(live, v, tracker)`, one blend per iteration instead of two
//!   and no mask operation (on AVX-512, W=32: trip_counts 1.21x,
//!   early_exit_search 1.14x, stencil_conditional 1.13x, masked_inbranch
//!   1.13x, collatz_declare_simd 1.11x, reduce_float 1.29x faster). In an
//!   exit-stable loop ([`crate::exit_stable`]: a lane that left computes the
//!   values it left with) such a value needs no tracker at all; the header
//!   phis then take their back-edge values on the exit edges too (not
//!   poison), so the lanes that left keep iterating from their exit state
//!   (tests/programs/reduce_int_bitwise 1.12x faster).
//! - **Dispatch**: after the loop, a chain of branches on the final exit
//!   masks sends each lane to its original exit. These branches are divergent
//!   and belong to the parent loop, which is why loops are processed
//!   innermost first: a parent whose exit a dispatch leaves becomes divergent.
//!
//! The per-lane meaning of the rewritten scalar function is unchanged
//! (checked by running it in the reference interpreter); every phi the pass
//! creates in the pure latch is an ordinary phi that partial linearization
//! later turns into a blend, and the `select(live, ...)` around each update
//! keeps lanes that are no longer live (and read garbage there) unchanged.
//!
//! Which loops are divergent: [`loop_is_divergent`] decides it from the set
//! of blocks ending in a divergent branch (thesis 5.6.12: "a varying branch
//! with an escape path to an exit"): in the loop body with back edges and
//! exits redirected to one virtual sink, a divergent branch whose immediate
//! post-dominator is that sink lets lanes reach different exits or the next
//! iteration; a divergent branch that reconverges inside the iteration does
//! not.

pub mod flatten_nests;

use std::collections::{HashMap, HashSet};

use lanewise_analysis::{Loop, LoopUses, UseSite};
use lanewise_ir::dominators::GenericDominatorTree;
use lanewise_ir::{
    Block, CallEffects, Callee, EntityRef, FastMathFlags, Function, Inst, InstData, Type, Value,
    ValueDef,
};

use crate::cfg_canon::{
    block_phis, bool_const, insert_phi, new_block_after, phi_incoming, poison, result_of,
    set_phi_incoming, CfgSnapshot,
};
use crate::exit_stable::exit_stable_values;

/// What the divergent-loop transform made of one loop; mask generation and
/// linearization need it.
#[derive(Clone, Debug)]
pub struct DivergentLoop {
    pub header: Block,
    pub preheader: Block,
    /// The only latch; ends in `br rv_any(continue_mask), header, exit_block`.
    pub pure_latch: Block,
    /// The only exit block; the first block of the dispatch chain.
    pub exit_block: Block,
    /// Blocks ending in a dispatch branch on an exit mask (divergent).
    pub dispatch_blocks: Vec<Block>,
    /// The live-mask phi in the header.
    pub live_mask: Value,
    /// `live.next` in the pure latch: the lanes continuing with the next iteration.
    pub continue_mask: Value,
    /// Every `i1` value the transform created that is a mask (SSA repair
    /// completes them with `false`).
    pub mask_values: Vec<Value>,
    /// Whether the loop is exit-stable (`exit_stable`) and some of its
    /// live-outs so need no tracker.
    pub exit_stable: bool,
}

/// The values defined in loop `lp` (blocks `loop_blocks`) that something
/// outside it reads, other than exit phi entries coming from the loop, in
/// the order of their first such use.
pub fn divergent_loop_live_outs(
    uses: &LoopUses,
    lp: Loop,
    loop_blocks: &HashSet<Block>,
) -> Vec<Value> {
    uses.live_outs(lp, |site| match site {
        UseSite::Operand { from: Some(from), .. } => !loop_blocks.contains(&from),
        _ => true,
    })
}

/// Whether loop `lp` is divergent given the blocks that end in a divergent
/// branch (see the module docs).
pub fn loop_is_divergent(
    func: &Function,
    snapshot: &CfgSnapshot,
    lp: Loop,
    divergent_branches: &HashSet<Block>,
) -> bool {
    let loops = &snapshot.loops;
    let header = loops.header(lp);
    let sink = Block::new(func.dfg.blocks.len());
    let in_loop = |block: Block| loops.contains(lp, block);
    // Predecessors in the region graph: loop blocks, edges to the header and
    // out of the loop redirected to the sink.
    let mut region_preds: HashMap<Block, Vec<Block>> = HashMap::new();
    for &block in loops.blocks(lp) {
        for &succ in snapshot.cfg.succs(block) {
            let target = if succ == header || !in_loop(succ) { sink } else { succ };
            region_preds.entry(target).or_default().push(block);
        }
    }
    let postdom = GenericDominatorTree::compute(sink, |node: Block| {
        region_preds.get(&node).cloned().unwrap_or_default()
    });
    loops.blocks(lp).iter().any(|block| {
        divergent_branches.contains(block)
            && func.successors(*block).len() > 1
            && postdom.idom(*block) == Some(sink)
    })
}

/// Merges the exit blocks of loop `lp` that only forward to one block
/// after the loop into one exit block. A rotated `while (a && b)` leaves
/// through two exits, each a dedicated exit block of LCSSA phis and a jump
/// to the block where they meet (which the code before the loop also
/// reaches). Two exit targets cost the divergent-loop transform exit masks,
/// a dispatch after the loop, and a tracker per live-out value and target;
/// one costs a tracker per value (rising_run at W=8, `--safety-net off`: 7
/// blends per iteration -> 5, 17.3 ms -> 15.8 ms).
///
/// The blocks merged (`E1 .. Ek`, all jumping to `D`) hold only phis and
/// the jump, have only predecessors in the loop and share none, and their
/// phis are used by `D`'s phis only. `E1` stays: for each phi of `D`, a new
/// phi in `E1` takes, from each predecessor of each `Ei`, the value that
/// `D`'s phi got through `Ei` (looking through `Ei`'s own phis), and `D`'s
/// phi gets it from `E1`. Returns whether anything changed; the caller
/// recomputes its snapshot.
pub fn merge_forwarding_exits(func: &mut Function, snapshot: &CfgSnapshot, lp: Loop) -> bool {
    let loops = &snapshot.loops;
    let cfg = &snapshot.cfg;
    // The forwarding exits, by the block they jump to.
    let mut by_destination: Vec<(Block, Vec<Block>)> = Vec::new();
    for &exit in loops.exit_blocks(lp) {
        let insts = func.layout.block_insts(exit);
        let Some((&last, phis)) = insts.split_last() else { continue };
        let InstData::Jump { dest } = *func.dfg.inst(last) else { continue };
        let forwarding = !loops.contains(lp, dest)
            && dest != exit
            && func.layout.entry_block() != Some(exit)
            && !cfg.preds(exit).is_empty()
            && cfg.preds(exit).iter().all(|pred| loops.contains(lp, *pred))
            && phis.iter().all(|inst| matches!(func.dfg.inst(*inst), InstData::Phi { .. }));
        if !forwarding {
            continue;
        }
        match by_destination.iter_mut().find(|(known, _)| *known == dest) {
            Some((_, exits)) => exits.push(exit),
            None => by_destination.push((dest, vec![exit])),
        }
    }
    let mut changed = false;
    for (dest, exits) in by_destination {
        if exits.len() < 2 || !exits_mergeable(cfg, dest, &exits) {
            continue;
        }
        let merged = exits[0];
        let old_phis: Vec<Inst> = exits.iter().flat_map(|exit| block_phis(func, *exit)).collect();
        for phi in block_phis(func, dest) {
            let incoming = phi_incoming(func, phi);
            let ty = func.dfg.value_type(result_of(func, phi)).clone();
            let mut entries: Vec<(Block, Value)> = Vec::new();
            for &exit in &exits {
                let through = incoming
                    .iter()
                    .find(|(block, _)| *block == exit)
                    .map(|(_, value)| *value)
                    .expect("a phi has an entry per predecessor");
                let exit_phi = func
                    .dfg
                    .defining_inst(through)
                    .filter(|inst| func.layout.inst_block(*inst) == Some(exit));
                for &pred in cfg.preds(exit) {
                    let value = match exit_phi {
                        Some(exit_phi) => phi_incoming(func, exit_phi)
                            .into_iter()
                            .find(|(block, _)| *block == pred)
                            .map(|(_, value)| value)
                            .expect("a phi has an entry per predecessor"),
                        None => through,
                    };
                    entries.push((pred, value));
                }
            }
            let new_phi = insert_phi(func, merged, ty, entries);
            let kept: Vec<(Block, Value)> = incoming
                .into_iter()
                .filter(|(block, _)| !exits[1..].contains(block))
                .map(
                    |(block, value)| {
                        if block == merged {
                            (block, new_phi)
                        } else {
                            (block, value)
                        }
                    },
                )
                .collect();
            set_phi_incoming(func, phi, kept);
        }
        for inst in old_phis {
            func.layout.remove_inst(inst);
        }
        for &exit in &exits[1..] {
            for &pred in cfg.preds(exit) {
                let terminator = func.terminator(pred).expect("a predecessor ends in a terminator");
                func.dfg.inst_mut(terminator).replace_successor(exit, merged);
            }
            func.layout.remove_block(exit);
        }
        changed = true;
    }
    changed
}

/// Whether the forwarding exits `exits` (all jumping to `dest`) can be
/// merged: no block reaches two of them or `dest` itself. Their phis are
/// used by `dest`'s phis only, which SSA already guarantees, so nothing
/// scans for other uses: an exit holds only phis and its jump, and no
/// block but itself is dominated by it (its one successor `dest` has
/// another exit among its predecessors), so a use elsewhere would not be
/// dominated by the definition.
fn exits_mergeable(cfg: &lanewise_ir::cfg::ControlFlowGraph, dest: Block, exits: &[Block]) -> bool {
    let mut preds_seen: HashSet<Block> = cfg.preds(dest).iter().copied().collect();
    for &exit in exits {
        preds_seen.remove(&exit);
    }
    exits.iter().all(|&exit| cfg.preds(exit).iter().all(|&pred| preds_seen.insert(pred)))
}

/// Rewrites divergent loop `lp` (which must have a dedicated preheader) as
/// described in the module docs. `snapshot` must be current for the loop
/// and `uses` for its values' uses outside it (see
/// [`divergent_loop_live_outs`]).
pub fn transform_divergent_loop(
    func: &mut Function,
    snapshot: &CfgSnapshot,
    uses: &LoopUses,
    lp: Loop,
) -> DivergentLoop {
    let loops = &snapshot.loops;
    let header = loops.header(lp);
    let loop_blocks: HashSet<Block> = loops.blocks(lp).iter().copied().collect();
    let preheader = snapshot
        .cfg
        .preds(header)
        .iter()
        .copied()
        .find(|pred| !loop_blocks.contains(pred))
        .expect("a loop has a preheader");
    let latches = loops.latches(lp).to_vec();
    let header_name = func.block_name(header);
    // Back-edge values that keep, after a lane leaves, the value it left
    // with (`exit_stable`): they need no tracker, and the lanes that left
    // keep iterating from their exit state (not from poison).
    let exit_stable = exit_stable_values(func, snapshot, lp);

    // Exit edges, in loop order, and the distinct exit targets.
    let mut exit_edges: Vec<(Block, Block)> = Vec::new();
    for &block in loops.blocks(lp) {
        for succ in func.successors(block) {
            if !loop_blocks.contains(&succ) {
                exit_edges.push((block, succ));
            }
        }
    }
    let mut exit_targets: Vec<Block> = Vec::new();
    for (_, target) in &exit_edges {
        if !exit_targets.contains(target) {
            exit_targets.push(*target);
        }
    }

    // Phis of exit targets: their entries from exiting blocks, per target.
    let exit_phis: Vec<(Block, lanewise_ir::Inst)> = exit_targets
        .iter()
        .flat_map(|target| block_phis(func, *target).into_iter().map(move |phi| (*target, phi)))
        .collect();

    let live_outs = divergent_loop_live_outs(uses, lp, &loop_blocks);

    // New blocks.
    let last_loop_block = *loops
        .blocks(lp)
        .iter()
        .max_by_key(|block| {
            func.layout.blocks().iter().position(|candidate| candidate == *block).unwrap_or(0)
        })
        .expect("loop has blocks");
    let pure_latch = new_block_after(func, last_loop_block, format!("{header_name}.latch.pure"));
    let exit_block = new_block_after(func, pure_latch, format!("{header_name}.exit"));
    let mut edge_blocks: Vec<Block> = Vec::new();
    for (exiting, target) in &exit_edges {
        let name = format!("{}.exit.{}", func.block_name(*exiting), func.block_name(*target));
        let block = new_block_after(func, *exiting, name);
        func.append(block, InstData::Jump { dest: pure_latch }, Type::Void);
        let terminator = func.terminator(*exiting).expect("exiting block ends in a terminator");
        func.dfg.inst_mut(terminator).replace_successor(*target, block);
        edge_blocks.push(block);
    }
    for latch in &latches {
        let terminator = func.terminator(*latch).expect("latch ends in a terminator");
        func.dfg.inst_mut(terminator).replace_successor(header, pure_latch);
    }
    let continuing_preds: Vec<Block> = latches.clone();

    let true_value = bool_const(func, true);
    let false_value = bool_const(func, false);
    let mut mask_values = Vec::new();

    // Header phis: the latch entries now arrive through the pure latch.
    for phi in block_phis(func, header) {
        let ty = func.dfg.value_type(result_of(func, phi)).clone();
        let incoming = phi_incoming(func, phi);
        let mut latch_entries: Vec<(Block, Value)> =
            incoming.iter().filter(|(from, _)| latches.contains(from)).copied().collect();
        let on_exit = match latch_entries.as_slice() {
            // Exit-stable loops leave from their only latch: its back-edge
            // value is there on the exit edge too.
            [(_, value)] if !exit_stable.is_empty() => *value,
            _ => poison(func, ty.clone()),
        };
        latch_entries.extend(edge_blocks.iter().map(|block| (*block, on_exit)));
        let next = insert_phi(func, pure_latch, ty, latch_entries);
        let mut entries: Vec<(Block, Value)> =
            incoming.into_iter().filter(|(from, _)| !latches.contains(from)).collect();
        entries.push((pure_latch, next));
        set_phi_incoming(func, phi, entries);
    }

    // Live mask and the `continued` phi.
    let live_inst = func.dfg.make_inst(
        InstData::Phi { ty: Type::BOOL, incoming: vec![(preheader, true_value)] },
        Type::BOOL,
    );
    func.layout.insert_inst_at(live_inst, header, 0);
    let live_mask = result_of(func, live_inst);
    let mut continued_entries: Vec<(Block, Value)> =
        continuing_preds.iter().map(|block| (*block, true_value)).collect();
    continued_entries.extend(edge_blocks.iter().map(|block| (*block, false_value)));
    let continued = insert_phi(func, pure_latch, Type::BOOL, continued_entries);
    mask_values.extend([live_mask, continued]);

    // The pure latch's non-phi code is appended in order below.
    let select =
        |func: &mut Function, block: Block, cond: Value, if_true: Value, if_false: Value| {
            let ty = func.dfg.value_type(if_true).clone();
            let inst = func.dfg.make_inst(
                InstData::Select { cond, if_true, if_false, flags: FastMathFlags::default() },
                ty,
            );
            func.layout.append_inst(inst, block);
            result_of(func, inst)
        };
    let continue_mask = select(func, pure_latch, live_mask, continued, false_value);
    mask_values.push(continue_mask);

    // Exit masks, one per target when there are several.
    let mut final_exit_masks: Vec<Value> = Vec::new();
    if exit_targets.len() > 1 {
        for target in &exit_targets {
            let took_entries: Vec<(Block, Value)> = continuing_preds
                .iter()
                .map(|block| (*block, false_value))
                .chain(exit_edges.iter().zip(&edge_blocks).map(|((_, edge_target), block)| {
                    (*block, if edge_target == target { true_value } else { false_value })
                }))
                .collect();
            let took = insert_phi(func, pure_latch, Type::BOOL, took_entries);
            let mask_inst = func.dfg.make_inst(
                InstData::Phi { ty: Type::BOOL, incoming: vec![(preheader, false_value)] },
                Type::BOOL,
            );
            let position = block_phis(func, header).len();
            func.layout.insert_inst_at(mask_inst, header, position);
            let mask = result_of(func, mask_inst);
            let took_live = select(func, pure_latch, live_mask, took, false_value);
            let or_inst = func.dfg.make_inst(
                InstData::Binary {
                    op: lanewise_ir::BinaryOp::Or,
                    lhs: mask,
                    rhs: took_live,
                    flags: Default::default(),
                },
                Type::BOOL,
            );
            func.layout.append_inst(or_inst, pure_latch);
            let next = result_of(func, or_inst);
            let mut entries = phi_incoming(func, mask_inst);
            entries.push((pure_latch, next));
            set_phi_incoming(func, mask_inst, entries);
            mask_values.extend([took, mask, took_live, next]);
            final_exit_masks.push(next);
        }
    }

    // Whether `value` is computed in every iteration before it ends, on the
    // back edges and on the exits (then it dominates the pure latch).
    let domtree = &snapshot.domtree;
    let computed_every_iteration = |func: &Function, value: Value| -> bool {
        let def_block = match func.dfg.value_def(value) {
            ValueDef::Result(inst) => func.layout.inst_block(*inst),
            _ => None,
        };
        match def_block {
            Some(block) if loop_blocks.contains(&block) => {
                latches.iter().all(|latch| domtree.dominates(block, *latch))
                    && exit_edges.iter().all(|(exiting, _)| domtree.dominates(block, *exiting))
            }
            _ => true,
        }
    };

    // A tracker: a header phi updated in the pure latch. `exit_values[i]` is
    // the value a lane leaving on exit edge i keeps. When that is one value
    // `v` computed in every iteration, the tracker follows it while the lane
    // is live, `select(live, v, tracker)`, and so holds the `v` of the lane's
    // last iteration. Otherwise an update phi takes the exit value on the
    // exit edges and the tracker on the old latch edges, and the tracker
    // becomes `select(live, update, tracker)`: two blends per iteration.
    let mut untracked_live_outs = 0;
    let mut make_tracker = |func: &mut Function, ty: Type, exit_values: Vec<Value>| {
        let followed = exit_values
            .first()
            .copied()
            .filter(|first| exit_values.iter().all(|value| value == first))
            .filter(|value| computed_every_iteration(func, *value));
        if let Some(stable) = followed.filter(|value| exit_stable.contains(value)) {
            untracked_live_outs += 1;
            return stable;
        }
        let undefined = poison(func, ty.clone());
        let tracker_inst = func.dfg.make_inst(
            InstData::Phi { ty: ty.clone(), incoming: vec![(preheader, undefined)] },
            ty.clone(),
        );
        let position = block_phis(func, header).len();
        func.layout.insert_inst_at(tracker_inst, header, position);
        let tracker = result_of(func, tracker_inst);
        let next = match followed {
            Some(value) => select(func, pure_latch, live_mask, value, tracker),
            None => {
                let mut update_entries: Vec<(Block, Value)> =
                    continuing_preds.iter().map(|block| (*block, tracker)).collect();
                update_entries.extend(edge_blocks.iter().copied().zip(exit_values));
                let update = insert_phi(func, pure_latch, ty, update_entries);
                select(func, pure_latch, live_mask, update, tracker)
            }
        };
        let mut entries = phi_incoming(func, tracker_inst);
        entries.push((pure_latch, next));
        set_phi_incoming(func, tracker_inst, entries);
        next
    };

    // Exit phis become trackers; their entries from the loop are replaced by
    // one entry from the dispatch block that reaches the target.
    let mut exit_phi_trackers: Vec<(Block, lanewise_ir::Inst, Value)> = Vec::new();
    for (target, phi) in &exit_phis {
        let ty = func.dfg.value_type(result_of(func, *phi)).clone();
        let incoming = phi_incoming(func, *phi);
        let exit_values = exit_edges
            .iter()
            .map(|(exiting, edge_target)| match incoming.iter().find(|(from, _)| from == exiting) {
                Some((_, value)) if edge_target == target => *value,
                _ => poison(func, ty.clone()),
            })
            .collect();
        let next = make_tracker(func, ty, exit_values);
        exit_phi_trackers.push((*target, *phi, next));
    }

    // Other live-outs: trackers, and their outside uses rewritten.
    let mut live_out_replacements: HashMap<Value, Value> = HashMap::new();
    for value in &live_outs {
        let ty = func.dfg.value_type(*value).clone();
        let def_block = match func.dfg.value_def(*value) {
            ValueDef::Result(inst) => func.layout.inst_block(*inst),
            _ => None,
        }
        .expect("live-out defined in the loop");
        let exit_values = exit_edges
            .iter()
            .map(|(exiting, _)| {
                if snapshot.domtree.dominates(def_block, *exiting) {
                    *value
                } else {
                    poison(func, ty.clone())
                }
            })
            .collect();
        let next = make_tracker(func, ty, exit_values);
        live_out_replacements.insert(*value, next);
    }

    // The latch branch on rv_any(live.next).
    let any_inst = func.dfg.make_inst(
        InstData::Call {
            callee: Callee::Direct("rv_any".to_owned()),
            args: vec![continue_mask],
            ret_ty: Type::BOOL,
            effects: CallEffects::Pure,
            flags: FastMathFlags::default(),
        },
        Type::BOOL,
    );
    func.layout.append_inst(any_inst, pure_latch);
    let any_live = result_of(func, any_inst);
    func.append(
        pure_latch,
        InstData::Branch { cond: any_live, then_dest: header, else_dest: exit_block },
        Type::Void,
    );
    let live_entries = vec![(preheader, true_value), (pure_latch, continue_mask)];
    set_phi_incoming(func, live_inst, live_entries);

    // Dispatch chain.
    let mut dispatch_blocks = Vec::new();
    let mut reaching_block: HashMap<Block, Block> = HashMap::new();
    let mut current = exit_block;
    let count = exit_targets.len();
    for (index, target) in exit_targets.iter().enumerate() {
        if index + 1 == count {
            func.append(current, InstData::Jump { dest: *target }, Type::Void);
            reaching_block.insert(*target, current);
        } else if index + 2 == count {
            let last = exit_targets[index + 1];
            func.append(
                current,
                InstData::Branch {
                    cond: final_exit_masks[index],
                    then_dest: *target,
                    else_dest: last,
                },
                Type::Void,
            );
            dispatch_blocks.push(current);
            reaching_block.insert(*target, current);
            reaching_block.insert(last, current);
            break;
        } else {
            let next =
                new_block_after(func, current, format!("{header_name}.dispatch{}", index + 1));
            func.append(
                current,
                InstData::Branch {
                    cond: final_exit_masks[index],
                    then_dest: *target,
                    else_dest: next,
                },
                Type::Void,
            );
            dispatch_blocks.push(current);
            reaching_block.insert(*target, current);
            current = next;
        }
    }

    // Exit phis: drop the entries from exiting blocks, add the tracker.
    let exiting_blocks: HashSet<Block> = exit_edges.iter().map(|(exiting, _)| *exiting).collect();
    for (target, phi, next) in exit_phi_trackers {
        let mut entries: Vec<(Block, Value)> = phi_incoming(func, phi)
            .into_iter()
            .filter(|(from, _)| !exiting_blocks.contains(from))
            .collect();
        entries.push((reaching_block[&target], next));
        set_phi_incoming(func, phi, entries);
    }

    // Outside uses of live-outs read the trackers: the uses `uses` knows
    // outside the loop, and the exit phis, whose new entries may read an
    // exit-stable value (the new blocks read the loop's own values).
    if !live_out_replacements.is_empty() {
        let replace = |func: &mut Function, inst: Inst| {
            func.dfg
                .inst_mut(inst)
                .map_operands(|value| live_out_replacements.get(&value).copied().unwrap_or(value));
        };
        for value in &live_outs {
            for site in uses.sites(*value) {
                if let UseSite::Operand { block, inst, .. } = *site {
                    if !loop_blocks.contains(&block) {
                        replace(func, inst);
                    }
                }
            }
        }
        for (_, phi) in &exit_phis {
            replace(func, *phi);
        }
    }
    DivergentLoop {
        header,
        preheader,
        pure_latch,
        exit_block,
        dispatch_blocks,
        live_mask,
        continue_mask,
        mask_values,
        exit_stable: untracked_live_outs > 0,
    }
}
