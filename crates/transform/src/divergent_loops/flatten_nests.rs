//! Flattening of divergent loop nests, still in the scalar function.
//!
//! A divergent loop inside a divergent loop runs, in vector form, as many
//! outer iterations as the slowest lane needs, and in each of them as many
//! inner iterations as the slowest lane *still in the outer loop* needs: a
//! lane whose inner loop is short idles until the longest inner loop of its
//! group ends, and again until the group's last outer iteration. With
//! segment and element counts uniform in 0..15, eight lanes use about 30%
//! of the lane slots that way (bench/kernels/ragged.c).
//!
//! Flattening makes the nest one loop whose iterations each lane spends on
//! its own sequence of steps: an iteration of the flat loop is either the
//! next inner iteration of a lane that is in its inner loop, or, for a lane
//! that is not, the outer loop's code up to the inner loop, the inner
//! loop's first iteration if it has one, and the outer loop's code after
//! it. A lane waits only for the lane with the most steps, not for the
//! longest inner loop of every outer iteration:
//!
//! ```text
//!   preheader -> flat:  in_inner = phi [preheader: false], [outer latches: false],
//!                                      [inner latches: true]
//!                       outer phis   = phi [preheader: init], [outer latches: next],
//!                                      [inner latches: themselves]
//!                       inner carries = phi [inner latches: next], [others: poison]
//!                       br in_inner, inner header, outer header
//!   outer header (phis gone) ... -> inner header (entry phis kept; back-edge
//!   entries now come from `flat` as the carries) ... inner latch -> flat
//!   ... outer latch -> flat
//! ```
//!
//! The back edges then meet in one new latch (`ensure_jump_latch`), whose
//! phis join the inner and the outer paths: the divergence analysis finds
//! `in_inner` varying by the join of divergent paths there; at a header
//! with several back edges it took it for uniform (an irreducible loop
//! around another, random CFG seed 2964).
//!
//! Each lane executes the same instructions in the same order as before, so
//! the function's per-lane meaning is unchanged (checked in the reference
//! interpreter); values that crossed from the outer loop's body into the
//! inner loop (an inner loop's bound) reach it through phis at `flat` that
//! SSA repair inserts ([`repair_ssa_along_paths`]). Only the order of steps
//! *between* lanes changes, which `declare simd` and `omp simd` leave
//! unspecified; nests that call an SPMD builtin or a group function (whose
//! lanes see each other) stay nested.
//!
//! Which nests: a divergent loop whose only child loop is an innermost
//! divergent loop, where no block is a latch of both (a branch whose two
//! edges would both become edges to `flat` with different values), and
//! where it pays. A flat iteration costs more than an inner one: it holds
//! the outer loop's code (masked, for the lanes between inner loops) and
//! blends for every phi of the two headers; it pays when the inner body
//! outweighs them: [`is_worth_flattening`], `inner >= outer + 3 * phis`
//! in instructions (a gather or scatter counts W). Measured on AMD Zen 5
//! with the safety net off (ragged sums: segment and element counts
//! uniform in 0..15, some 110 flat iterations per group of 8 against 175
//! nested ones): bench/kernels/ragged_hash.c (an inner body of about 65
//! instructions: six xorshift rounds and a float update; the outer loop
//! gathers its counts) ran 112 -> 81 ms at W=8 and 65 -> 46 ms at W=16
//! flat; the same nest with an inner body of about 12 instructions ran
//! 16.2 -> 23.6 ms, and bench/kernels/ragged.c (a gather in each loop)
//! 51 -> 74 ms at W=8: the model flattens the first only.
//!
//! Deeper nests flatten from the inside out: once its child is flat, a
//! divergent loop with that one child is a candidate again.
//! `--flatten-nests off` keeps every nest.

use std::collections::{HashMap, HashSet};

use lanewise_analysis::{IrreducibleError, Loop};
use lanewise_ir::{Block, Callee, Function, Inst, InstData, Type, Value};

use crate::cfg_canon::{
    block_phis, bool_const, ensure_jump_latch, ensure_preheader, insert_phi, new_block_after,
    phi_incoming, poison, replace_uses, result_of, set_phi_incoming, CfgSnapshot,
};
use crate::one_lane_builtins::SPMD_BUILTINS;
use crate::ssa_repair::repair_ssa_along_paths;

#[cfg(test)]
mod tests;

/// Flattens the divergent loop nests of `func` (see the module docs).
/// `divergent_headers` holds the headers of the divergent loops; the header
/// of each flat loop joins it. `group_functions` are functions whose lanes
/// see each other (a nest that calls one stays nested). `profit` decides
/// which eligible nests are worth it. Returns how many nests became flat.
pub fn flatten_divergent_nests(
    func: &mut Function,
    divergent_headers: &HashSet<Block>,
    group_functions: &[String],
    profit: &NestProfit,
) -> Result<usize, IrreducibleError> {
    let mut divergent_headers = divergent_headers.clone();
    let mut flattened = 0;
    loop {
        let snapshot = CfgSnapshot::compute(func)?;
        let Some((outer, inner)) =
            find_nest(func, &snapshot, &divergent_headers, group_functions, profit)
        else {
            return Ok(flattened);
        };
        let (outer_header, inner_header) =
            (snapshot.loops.header(outer), snapshot.loops.header(inner));
        let preheader = ensure_preheader(func, &snapshot, outer);
        // A new preheader changes the CFG: take the nest again, by its
        // headers, from a fresh snapshot.
        let snapshot = CfgSnapshot::compute(func)?;
        let outer = snapshot.loops.loop_of_header(outer_header).expect("the outer loop stays");
        let inner = snapshot.loops.loop_of_header(inner_header).expect("the inner loop stays");
        let flat = flatten_nest(func, &snapshot, preheader, outer, inner);
        divergent_headers.insert(flat);
        // One latch, where the paths from the inner and the outer loop's
        // back edges meet in ordinary phis (the divergence analysis sees
        // a join of divergent paths there; at a header with several back
        // edges it would not, and `in_inner` would pass for uniform).
        let snapshot = CfgSnapshot::compute(func)?;
        let flat_loop = snapshot.loops.loop_of_header(flat).expect("flat heads a loop");
        ensure_jump_latch(func, &snapshot, flat_loop);
        let snapshot = CfgSnapshot::compute(func)?;
        repair_ssa_along_paths(func, &snapshot);
        flattened += 1;
    }
}

/// The first nest `(outer, inner)` that can become flat, innermost first.
fn find_nest(
    func: &Function,
    snapshot: &CfgSnapshot,
    divergent_headers: &HashSet<Block>,
    group_functions: &[String],
    profit: &NestProfit,
) -> Option<(Loop, Loop)> {
    let loops = &snapshot.loops;
    let is_divergent = |lp: Loop| divergent_headers.contains(&loops.header(lp));
    snapshot.loops_innermost_first().into_iter().find_map(|outer| {
        let [inner] = loops.children(outer) else { return None };
        let inner = *inner;
        let flattenable = is_divergent(outer)
            && is_divergent(inner)
            && loops.children(inner).is_empty()
            && !loops.latches(outer).iter().any(|latch| loops.latches(inner).contains(latch))
            && !loops
                .blocks(outer)
                .iter()
                .any(|block| calls_lanes_together(func, *block, group_functions))
            && match profit {
                NestProfit::Always => true,
                NestProfit::Costs(expensive) => {
                    is_worth_flattening(func, snapshot, outer, inner, expensive)
                }
            };
        flattenable.then_some((outer, inner))
    })
}

/// Which eligible nests become flat.
pub enum NestProfit {
    /// Those [`is_worth_flattening`] accepts, where every instruction costs
    /// 1 unless the map says more (as for BOSCC: W for a gather, scatter or
    /// per-lane call).
    Costs(HashMap<Inst, usize>),
    /// All of them (for tests: `--flatten-nests always`).
    Always,
}

/// Blends a phi of the nest's headers costs in a flat iteration (about
/// one for the path it came along, one for the lanes that left, one for
/// the mask of the path).
const BLENDS_PER_PHI: usize = 3;

/// The profitability test of the module docs: the inner loop's body
/// (phis and terminators aside) costs at least as much as the outer
/// loop's code outside it plus [`BLENDS_PER_PHI`] per phi of the two
/// headers.
pub fn is_worth_flattening(
    func: &Function,
    snapshot: &CfgSnapshot,
    outer: Loop,
    inner: Loop,
    expensive: &HashMap<Inst, usize>,
) -> bool {
    let loops = &snapshot.loops;
    let cost = |blocks: &mut dyn Iterator<Item = Block>| -> usize {
        blocks
            .flat_map(|block| func.layout.block_insts(block).iter().copied())
            .filter(|inst| {
                let data = func.dfg.inst(*inst);
                !matches!(data, InstData::Phi { .. }) && !data.is_terminator()
            })
            .map(|inst| expensive.get(&inst).copied().unwrap_or(1))
            .sum()
    };
    let inner_cost = cost(&mut loops.blocks(inner).iter().copied());
    let outer_cost = cost(
        &mut loops.blocks(outer).iter().copied().filter(|block| !loops.contains(inner, *block)),
    );
    let phis =
        block_phis(func, loops.header(outer)).len() + block_phis(func, loops.header(inner)).len();
    inner_cost >= outer_cost + BLENDS_PER_PHI * phis
}

/// Whether `block` calls an SPMD builtin or a group function: calls whose
/// lanes see each other, so that the lanes taking part must not change.
fn calls_lanes_together(func: &Function, block: Block, group_functions: &[String]) -> bool {
    func.layout.block_insts(block).iter().any(|inst| match func.dfg.inst(*inst) {
        InstData::Call { callee: Callee::Direct(name), .. }
        | InstData::Invoke { callee: Callee::Direct(name), .. } => {
            SPMD_BUILTINS.contains(&name.as_str()) || group_functions.contains(name)
        }
        InstData::Call { callee: Callee::Indirect(_), .. }
        | InstData::Invoke { callee: Callee::Indirect(_), .. } => true,
        _ => false,
    })
}

/// Rewrites the nest into one loop headed by a new block `flat` (see the
/// module docs) and returns `flat`. Leaves uses that the new paths no
/// longer dominate to SSA repair.
fn flatten_nest(
    func: &mut Function,
    snapshot: &CfgSnapshot,
    preheader: Block,
    outer: Loop,
    inner: Loop,
) -> Block {
    let loops = &snapshot.loops;
    let (outer_header, inner_header) = (loops.header(outer), loops.header(inner));
    let outer_latches = loops.latches(outer).to_vec();
    let inner_latches = loops.latches(inner).to_vec();
    let before_header = {
        let blocks = func.layout.blocks();
        let position = blocks.iter().position(|block| *block == outer_header).unwrap_or(1);
        blocks[position.saturating_sub(1)]
    };
    let flat =
        new_block_after(func, before_header, format!("{}.flat", func.block_name(outer_header)));

    // Which lanes continue their inner loop.
    let (no, yes) = (bool_const(func, false), bool_const(func, true));
    let mut entries = vec![(preheader, no)];
    entries.extend(outer_latches.iter().map(|latch| (*latch, no)));
    entries.extend(inner_latches.iter().map(|latch| (*latch, yes)));
    let in_inner = insert_phi(func, flat, Type::BOOL, entries);

    // The outer header's phis move to `flat`; an inner iteration keeps them.
    let mut moved: HashMap<Value, Value> = HashMap::new();
    for phi in block_phis(func, outer_header) {
        let ty = func.dfg.value_type(result_of(func, phi)).clone();
        let flat_phi = insert_phi(func, flat, ty, Vec::new());
        let mut entries = phi_incoming(func, phi);
        entries.extend(inner_latches.iter().map(|latch| (*latch, flat_phi)));
        set_phi_incoming(func, func.dfg.defining_inst(flat_phi).expect("phi"), entries);
        moved.insert(result_of(func, phi), flat_phi);
        func.layout.remove_inst(phi);
    }
    replace_uses(func, &moved);

    // The inner header's back-edge entries arrive through `flat`.
    for phi in block_phis(func, inner_header) {
        let ty = func.dfg.value_type(result_of(func, phi)).clone();
        let (carried, entering): (Vec<_>, Vec<_>) =
            phi_incoming(func, phi).into_iter().partition(|(pred, _)| inner_latches.contains(pred));
        let undefined = poison(func, ty.clone());
        let mut entries = vec![(preheader, undefined)];
        entries.extend(outer_latches.iter().map(|latch| (*latch, undefined)));
        entries.extend(carried);
        let carry = insert_phi(func, flat, ty, entries);
        let mut kept = entering;
        kept.push((flat, carry));
        set_phi_incoming(func, phi, kept);
    }

    redirect(func, preheader, outer_header, flat);
    for latch in &outer_latches {
        redirect(func, *latch, outer_header, flat);
    }
    for latch in &inner_latches {
        redirect(func, *latch, inner_header, flat);
    }
    func.append(
        flat,
        InstData::Branch { cond: in_inner, then_dest: inner_header, else_dest: outer_header },
        Type::Void,
    );
    flat
}

/// Makes `block`'s edges to `from` go to `to`.
fn redirect(func: &mut Function, block: Block, from: Block, to: Block) {
    let terminator: Inst = func.terminator(block).expect("a block ends in a terminator");
    func.dfg.inst_mut(terminator).replace_successor(from, to);
}
