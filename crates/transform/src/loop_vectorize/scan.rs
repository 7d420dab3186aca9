//! Prefix scans in SIMD loops: reductions whose running value the body
//! reads ([`Reduction::scan`]), as clang-22 lowers `#pragma omp scan` in a
//! `reduction(inscan, op: s)` loop: `s = s OP x; b[i] = s` (inclusive) or
//! `b[i] = s; s = s OP x` (exclusive, the store reading the phi).
//!
//! Lane `j` of a chunk must see the running value after (inclusive) or
//! before (exclusive) iteration `first + j`, so the chunk computes, in the
//! outlined body `B` (scalar code with SPMD builtins, widened later):
//!
//! ```text
//! carried = slot[0]                      // uniform: init OP all earlier chunks
//! p = contribution(x)                    // the update with the accumulator
//!                                        // replaced by the neutral element
//!                                        // (or, for one idempotent op, x)
//! for s in 1, 2, 4, .., 32:              // Hillis-Steele, log2(W) steps
//!     p = lane >= s ? rv_shuffle(p, -s) OP p : p
//! inclusive = carried OP p
//! exclusive = lane == 0 ? carried : rv_shuffle(inclusive, -1)
//! slot[0] = rv_extract(inclusive, rv_popcount(true) - 1)   // at the latch
//! ```
//!
//! The steps with `s >= W` fold away once W is known (`lane >= s` is false
//! in every lane). The masked tail's active lanes are `0..remaining`, so
//! the last active lane holds the chunk's total; inactive lanes only feed
//! lanes above them. Reads of the phi take `exclusive`, reads of the update
//! `inclusive`. Every lane but 0 of the slot keeps the identity (or `init`
//! for idempotent operators), so `rewrite_loop`'s horizontal reduction of
//! the slot gives `slot[0]`, and the scalar remainder, which sees one lane
//! (`rv_num_lanes() = 1`, no step runs), is passed `&slot[0]` for every
//! iteration. Integer operators and min/max give the scalar loop's values
//! exactly; floating-point sums and products reassociate, as every `omp
//! simd` reduction may.
//!
//! The contribution of a conditional update (`if (c) s += x` as a select,
//! or kept as branches whose phi is the update) is its instructions copied
//! in place, each right after itself and so under the same control flow,
//! reading the neutral element for the accumulator ([`emit_prefix`]). For
//! a select-compare min (`x < m ? x : m`) the neutral element is +inf: a
//! NaN `x` contributes +inf, nothing, as it changes nothing in the scalar
//! loop (contributing `x` itself would hide the minima of later lanes).
//!
//! [`check_update_precedes_reads`] is the planning condition: the update
//! runs on every iteration, outside inner loops, and before every other
//! read of the phi.

use std::collections::{HashMap, HashSet};

use lanewise_analysis::{ControlFlowGraph, DominatorTree, LoopInfo};
use lanewise_ir::{
    Block, CallEffects, Callee, Function, FunctionBuilder, Inst, InstData, IntPredicate, Type,
    Value,
};

use super::reduction::{Reduction, ReductionKind};
use super::LoopRefusal;

/// The widest vector a SIMD loop gets (lanes); the prefix takes log2 of it
/// steps before widening folds the surplus ones.
const MAX_LANES: u32 = 64;

/// The planning condition of a scan (see the module docs): the update must
/// dominate the latch and every other read of the accumulator, or the loop
/// is refused naming the read.
pub(super) fn check_update_precedes_reads(
    func: &Function,
    users: &HashMap<Value, Vec<Inst>>,
    latch: Block,
    scan: &Reduction,
) -> Result<(), LoopRefusal> {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let update_inst = func.dfg.defining_inst(scan.update).expect("the update is an instruction");
    let update_block = func.layout.inst_block(update_inst).expect("the update is in the layout");
    let position = |inst: Inst, block: Block| {
        func.layout.block_insts(block).iter().position(|candidate| *candidate == inst)
    };
    let precedes = |user: Inst| -> bool {
        let Some(user_block) = func.layout.inst_block(user) else { return false };
        // A phi reads at the end of the incoming blocks.
        if let InstData::Phi { incoming, .. } = func.dfg.inst(user) {
            return incoming.iter().all(|(block, value)| {
                *value != scan.phi || domtree.dominates(update_block, *block)
            });
        }
        if user_block == update_block {
            position(update_inst, update_block) < position(user, user_block)
        } else {
            domtree.dominates(update_block, user_block)
        }
    };
    // An update inside an inner loop runs more than once per iteration,
    // at different times in different lanes.
    let simd_loop_header = func.layout.inst_block(phi_of(func, scan)).expect("in the layout");
    if let Ok(loops) = LoopInfo::compute(func, &cfg, &domtree) {
        let simd_loop = loops.loop_of_header(simd_loop_header);
        let inner = scan.members.iter().find(|member| {
            func.dfg
                .defining_inst(**member)
                .and_then(|inst| func.layout.inst_block(inst))
                .is_some_and(|block| loops.innermost_loop(block) != simd_loop)
        });
        if let Some(member) = inner {
            return Err(LoopRefusal::new(format!(
                "the running value {} is read in the body (a prefix scan), but it is updated in \
                 an inner loop ({})",
                func.dfg.display_value(scan.phi),
                func.dfg.display_value(*member)
            )));
        }
    }
    if !domtree.dominates(update_block, latch) {
        return Err(LoopRefusal::new(format!(
            "the running value {} is read in the body (a prefix scan), but its update {} does \
             not run on every iteration",
            func.dfg.display_value(scan.phi),
            func.dfg.display_value(scan.update)
        )));
    }
    let phi_inst = phi_of(func, scan);
    // Members on the way to the update (`smax(s, x)` of `c ? s : smax(s,
    // x)`) are recomputed from the neutral element (`emit_prefix`), and so
    // is the comparison of a min/max select, unless something else reads
    // it too (the index of a minloc). Anything else that reads the
    // accumulator to compute the update (`s + (s >> 1)`) is no contribution
    // the lanes can add up (`recognize_reduction` refuses it).
    let is_member =
        |inst: &Inst| func.dfg.result(*inst).is_some_and(|result| scan.members.contains(&result));
    let part_of_update = |user: Inst| {
        user == update_inst
            || func.dfg.result(user).is_some_and(|result| {
                scan.members.contains(&result)
                    || (matches!(
                        func.dfg.inst(user),
                        InstData::Icmp { .. } | InstData::Fcmp { .. }
                    ) && users.get(&result).into_iter().flatten().all(is_member))
            })
    };
    for &user in users.get(&scan.phi).into_iter().flatten() {
        if !part_of_update(user) && user != phi_inst && !precedes(user) {
            let data = func.dfg.inst(user);
            let why = if matches!(data, InstData::Icmp { .. } | InstData::Fcmp { .. }) {
                "a recurrence across iterations (as `if (a[i] < m) { m = a[i]; k = i; }`), \
                 not a scan"
            } else {
                "an exclusive prefix scan needs every lane's contribution first"
            };
            return Err(LoopRefusal::new(format!(
                "the running value {} is read by `{}` before the iteration's update {}: {why}",
                func.dfg.display_value(scan.phi),
                data.opcode_name(),
                func.dfg.display_value(scan.update)
            )));
        }
    }
    Ok(())
}

fn phi_of(func: &Function, scan: &Reduction) -> Inst {
    func.dfg.defining_inst(scan.phi).expect("a phi is an instruction")
}

/// Whether a reduction whose running value the body reads (`reads`: the
/// value read and why it is no reduction operator) can be a scan
/// (`recognize_reduction`): one operator applied once (any kind), or an
/// update of any shape (selects and phis of members, as `if (c) s += x`
/// gives) whose contribution the neutral element gives ([`emit_prefix`]).
/// Only the running value and the update may be read. Otherwise the first
/// read is the refusal.
pub(super) fn check_scan_shape(
    phi: Value,
    update: Value,
    kind: &ReductionKind,
    ty: &Type,
    members: &[Value],
    reads: &[(Value, String)],
) -> Result<(), String> {
    let first_read = &reads[0].1;
    if *kind == ReductionKind::LastAssigned {
        return Err(first_read.clone());
    }
    // Reads of a value on the way to the update (`t` of `t = s + x;
    // s = c ? t : s`) would need their own prefix.
    if let Some((_, why)) = reads.iter().find(|(value, _)| *value != phi && *value != update) {
        return Err(format!(
            "{why}: a partial update of the running value is read in the body, which no prefix \
             scan gives"
        ));
    }
    if members.len() == 2 || kind.neutral(ty).is_some() {
        return Ok(());
    }
    Err(format!(
        "{first_read}: the running value is read in the body, which is vectorized as a prefix \
         scan only when `{kind}` updates it in one instruction or has a neutral element (here \
         {} values derived from it)",
        members.len() - 1
    ))
}

/// In the outlined `body`, where `carried` (the uniform `slot[0]`) stands
/// for the accumulator and `update` for the iteration's update: emits the
/// prefix right after the update and makes every other read of `carried`
/// read the exclusive value, every read of the update the inclusive one,
/// which it returns. `lane` is the body's `rv_lane_id()`.
///
/// With a neutral element, a lane's contribution is the update again with
/// the neutral element for the accumulator: every instruction between the
/// two (derived from `carried`, feeding `update`: operators, comparisons,
/// selects and phis of a conditional update) is copied in place, right
/// after itself, so the copies run under the same control flow.
pub(super) fn emit_prefix(
    body: &mut Function,
    scan: &Reduction,
    carried: Value,
    update: Value,
    lane: Value,
) -> Value {
    let ty = scan.ty.clone();
    let update_inst = body.dfg.defining_inst(update).expect("the update is an instruction");
    let update_block = body.layout.inst_block(update_inst).expect("the update is in the layout");
    let between = insts_between(body, carried, update);

    // A lane's contribution (its update from the neutral element), then
    // the prefix, built in a scratch block and moved behind the update.
    let neutral = scan.kind.neutral(&ty).map(|constant| body.dfg.make_const(ty.clone(), constant));
    let copied_update = neutral.map(|neutral| copy_in_place(body, &between, carried, neutral));
    let mut b = FunctionBuilder::new(body);
    let scratch = b.create_block(Some("scan.scratch"));
    b.switch_to_block(scratch);
    let mut prefix = match copied_update {
        Some(contribution) => contribution,
        // Idempotent operators: `x OP x = x` (a min/max select of `x` and
        // `x` too, whatever its comparison says); the update is one
        // instruction (`check_scan_shape`).
        None => {
            let mut contribution = b.func.dfg.inst(update_inst).clone();
            let other = match &contribution {
                InstData::Select { if_true, if_false, .. } => {
                    if *if_true == carried {
                        *if_false
                    } else {
                        *if_true
                    }
                }
                data => {
                    let mut operands = Vec::new();
                    data.for_each_operand(|operand| operands.push(operand));
                    *operands
                        .iter()
                        .find(|operand| **operand != carried)
                        .expect("the update combines the accumulator with another value")
                }
            };
            contribution.map_operands(|operand| if operand == carried { other } else { operand });
            b.ins_value(contribution, ty.clone())
        }
    };
    let mut step = 1;
    while step < MAX_LANES {
        let earlier = shuffle(&mut b, prefix, -i128::from(step), &ty);
        let distance = b.iconst(Type::I64, i128::from(step));
        let has_earlier = b.icmp(IntPredicate::Uge, lane, distance);
        let combined = scan.kind.combine(&mut b, earlier, prefix);
        prefix = b.select(has_earlier, combined, prefix);
        step *= 2;
    }
    let inclusive = scan.kind.combine(&mut b, carried, prefix);
    let previous = shuffle(&mut b, inclusive, -1, &ty);
    let zero = b.iconst(Type::I64, 0);
    let first_lane = b.icmp(IntPredicate::Eq, lane, zero);
    let exclusive = b.select(first_lane, carried, previous);
    b.func.dfg.value_names[inclusive] = Some("scan.inclusive".to_owned());
    b.func.dfg.value_names[exclusive] = Some("scan.exclusive".to_owned());

    // Behind the update and its copy, and behind the block's phis when the
    // update is one (a conditional update that kept its branch).
    let emitted: Vec<Inst> = body.layout.block_insts(scratch).to_vec();
    let last_of_update = copied_update
        .and_then(|copy| body.dfg.defining_inst(copy))
        .filter(|copy| body.layout.inst_block(*copy) == Some(update_block))
        .unwrap_or(update_inst);
    let insts = body.layout.block_insts(update_block);
    let after_update = insts.iter().position(|inst| *inst == last_of_update).expect("in its block");
    let after_phis = insts
        .iter()
        .position(|inst| !matches!(body.dfg.inst(*inst), InstData::Phi { .. }))
        .unwrap_or(insts.len());
    let insert_at = (after_update + 1).max(after_phis);
    for (offset, &inst) in emitted.iter().enumerate() {
        body.layout.remove_inst(inst);
        body.layout.insert_inst_at(inst, update_block, insert_at + offset);
    }
    body.layout.remove_block(scratch);

    // The instructions between the accumulator and the update keep reading
    // `carried` (only the update is read, `check_scan_shape`), and reads of
    // the update take the inclusive value.
    let own: HashSet<Inst> = emitted.into_iter().chain(between).collect();
    let readers: Vec<Inst> = body.layout.insts().filter(|inst| !own.contains(inst)).collect();
    for inst in readers {
        body.dfg.inst_mut(inst).map_operands(|operand| {
            if operand == carried {
                exclusive
            } else if operand == update {
                inclusive
            } else {
                operand
            }
        });
    }
    inclusive
}

/// The instructions of `func` derived from `from` (through operands) that
/// `to` depends on, `to`'s own included, in layout order.
fn insts_between(func: &Function, from: Value, to: Value) -> Vec<Inst> {
    let mut feeding: HashSet<Value> = HashSet::from([to]);
    let mut worklist = vec![to];
    while let Some(value) = worklist.pop() {
        if value == from {
            continue;
        }
        let Some(inst) = func.dfg.defining_inst(value) else { continue };
        func.dfg.inst(inst).for_each_operand(|operand| {
            if feeding.insert(operand) {
                worklist.push(operand);
            }
        });
    }
    // To a fixed point: a phi may come before the value it merges in the
    // layout.
    let mut derived: HashSet<Value> = HashSet::from([from]);
    let mut between = Vec::new();
    let mut changed = true;
    while changed {
        changed = false;
        for inst in func.layout.insts() {
            let Some(result) = func.dfg.result(inst) else { continue };
            if derived.contains(&result) || !feeding.contains(&result) {
                continue;
            }
            let mut reads_derived = false;
            func.dfg
                .inst(inst)
                .for_each_operand(|operand| reads_derived |= derived.contains(&operand));
            if reads_derived {
                derived.insert(result);
                between.push(inst);
                changed = true;
            }
        }
    }
    let order: HashMap<Inst, usize> =
        func.layout.insts().enumerate().map(|(index, inst)| (inst, index)).collect();
    between.sort_by_key(|inst| order[inst]);
    between
}

/// Copies `insts` (in layout order, the last one `to`), each right after
/// itself (a phi among the phis), the copies reading `replacement` for
/// `original` and each other for the copied: returns the copy of the last.
fn copy_in_place(
    func: &mut Function,
    insts: &[Inst],
    original: Value,
    replacement: Value,
) -> Value {
    let mut copies: HashMap<Value, Value> = HashMap::from([(original, replacement)]);
    let mut made = Vec::new();
    for &inst in insts {
        let result = func.dfg.result(inst).expect("values between two values have results");
        let ty = func.dfg.value_type(result).clone();
        let copy = func.dfg.make_inst(func.dfg.inst(inst).clone(), ty);
        let block = func.layout.inst_block(inst).expect("in the layout");
        let position =
            func.layout.block_insts(block).iter().position(|i| *i == inst).expect("in its block");
        func.layout.insert_inst_at(copy, block, position + 1);
        copies.insert(result, func.dfg.result(copy).expect("a copy has a result"));
        made.push(copy);
    }
    for copy in made {
        func.dfg
            .inst_mut(copy)
            .map_operands(|operand| copies.get(&operand).copied().unwrap_or(operand));
    }
    let last = func.dfg.result(*insts.last().expect("the update is between")).expect("a result");
    copies[&last]
}

/// At the builder's position: the running value after the chunk's last
/// active lane (the lanes of a SIMD loop body are active from lane 0 on).
pub(super) fn chunk_total(b: &mut FunctionBuilder<'_>, inclusive: Value, ty: &Type) -> Value {
    let all = b.func.dfg.int_const(Type::BOOL, 1);
    let active = builtin(b, "rv_popcount", vec![all], Type::I64);
    let one = b.iconst(Type::I64, 1);
    let last = b.binary(lanewise_ir::BinaryOp::Sub, active, one);
    builtin(b, "rv_extract", vec![inclusive, last], ty.clone())
}

/// `rv_shuffle(value, shift)`: lane i gets lane `(i + shift) mod W`.
fn shuffle(b: &mut FunctionBuilder<'_>, value: Value, shift: i128, ty: &Type) -> Value {
    let shift = b.iconst(Type::I32, shift);
    builtin(b, "rv_shuffle", vec![value, shift], ty.clone())
}

fn builtin(b: &mut FunctionBuilder<'_>, name: &str, args: Vec<Value>, ret: Type) -> Value {
    let call = b.call(Callee::Direct(name.to_owned()), args, ret, CallEffects::Pure);
    b.func.dfg.result(call).expect("the builtin returns a value")
}
