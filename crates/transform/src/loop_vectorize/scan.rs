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
//!                                        // replaced by the identity (or x)
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
//! iteration. Integer operators give the scalar loop's values exactly;
//! floating-point ones reassociate, as every `omp simd` reduction may.
//!
//! [`check_update_precedes_reads`] is the planning condition: the update
//! runs on every iteration and before every other read of the phi.

use std::collections::{HashMap, HashSet};

use lanewise_analysis::{ControlFlowGraph, DominatorTree};
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
        if user_block == update_block {
            position(update_inst, update_block) < position(user, user_block)
        } else {
            domtree.dominates(update_block, user_block)
        }
    };
    if !domtree.dominates(update_block, latch) {
        return Err(LoopRefusal::new(format!(
            "the running value {} is read in the body (a prefix scan), but its update {} does \
             not run on every iteration",
            func.dfg.display_value(scan.phi),
            func.dfg.display_value(scan.update)
        )));
    }
    let phi_inst = func.dfg.defining_inst(scan.phi).expect("a phi is an instruction");
    // The comparison of a min/max select is part of the update, unless
    // something else reads it too (the index of a minloc). Anything else
    // that reads the accumulator to compute the update (`s + (s >> 1)`) is
    // not a contribution the lanes can add up.
    let select_condition = match func.dfg.inst(update_inst) {
        InstData::Select { cond, .. } if matches!(scan.kind, ReductionKind::SelectCompare(_)) => {
            Some(*cond)
        }
        _ => None,
    };
    // Members on the way to the update (`smax(s, x)` of `c ? s : smax(s,
    // x)`) are recomputed from the neutral element (`emit_prefix`).
    let part_of_update = |user: Inst| {
        user == update_inst
            || func.dfg.result(user).is_some_and(|result| {
                scan.members.contains(&result)
                    || (select_condition == Some(result)
                        && users.get(&result).into_iter().flatten().all(|i| *i == update_inst))
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

/// Whether a reduction whose running value the body reads (`reads`: the
/// value read and why it is no reduction operator) can be a scan
/// (`recognize_reduction`): one operator applied once (any kind), or a
/// straight-line update (selects of members, as `if (c) s += x`
/// if-converted) whose contribution the neutral element gives
/// ([`emit_prefix`]). Otherwise the first read is the refusal.
pub(super) fn check_scan_shape(
    func: &Function,
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
    let update_block = func.dfg.defining_inst(update).and_then(|inst| func.layout.inst_block(inst));
    let position = |value: Value| {
        let inst = func.dfg.defining_inst(value)?;
        func.layout.block_insts(update_block?).iter().position(|i| *i == inst)
    };
    // Reads of a value on the way to the update (`t` of `t = s + x;
    // s = c ? t : s`) would need their own prefix.
    let reads_partial_value = reads.iter().any(|(value, _)| {
        *value != phi && *value != update && position(*value) <= position(update)
    });
    let straight_line = members.iter().filter(|member| **member != phi).all(|member| {
        func.dfg.defining_inst(*member).is_some_and(|inst| {
            !matches!(func.dfg.inst(inst), InstData::Phi { .. })
                && func.layout.inst_block(inst) == update_block
        })
    });
    let supported = !reads_partial_value
        && (members.len() == 2 || (straight_line && kind.neutral(ty).is_some()));
    if supported {
        return Ok(());
    }
    Err(format!(
        "{first_read}: the running value is read in the body, which is vectorized as a prefix \
         scan only when `{kind}` updates it in straight-line code (here {} values derived \
         from it{})",
        members.len() - 1,
        if straight_line { "" } else { ", across blocks" }
    ))
}

/// The copies in the outlined body (`map`) of `scan`'s members up to its
/// update, in block order (one block, [`check_scan_shape`]), the update
/// last: what [`emit_prefix`] recomputes from the neutral element. Members
/// after the update (`s + 5` of the updated `s`) are reads of the
/// inclusive value.
pub(super) fn update_chain(
    func: &Function,
    scan: &Reduction,
    map: &HashMap<Value, Value>,
) -> Vec<Value> {
    let update_inst = func.dfg.defining_inst(scan.update).expect("the update is an instruction");
    let update_block = func.layout.inst_block(update_inst).expect("the update is in the layout");
    let insts = func.layout.block_insts(update_block);
    let update_position =
        insts.iter().position(|inst| *inst == update_inst).expect("the update is in its block");
    insts[..=update_position]
        .iter()
        .filter_map(|inst| func.dfg.result(*inst))
        .filter(|value| *value != scan.phi && scan.members.contains(value))
        .map(|value| map[&value])
        .collect()
}

/// In the outlined `body`, where `carried` (the uniform `slot[0]`) stands
/// for the accumulator and `chain` are the copies of the scan's members
/// after the phi, in order, the last one its update: emits the prefix
/// right after the update and makes every other read of `carried` read the
/// exclusive value, every read of the update the inclusive one, which it
/// returns. `lane` is the body's `rv_lane_id()`.
pub(super) fn emit_prefix(
    body: &mut Function,
    scan: &Reduction,
    carried: Value,
    chain: &[Value],
    lane: Value,
) -> Value {
    let update = *chain.last().expect("the chain ends in the update");
    let ty = scan.ty.clone();
    let update_inst = body.dfg.defining_inst(update).expect("the update is an instruction");
    let update_block = body.layout.inst_block(update_inst).expect("the update is in the layout");

    // Built in a scratch block, then moved behind the update.
    let mut b = FunctionBuilder::new(body);
    let scratch = b.create_block(Some("scan.scratch"));
    b.switch_to_block(scratch);
    let mut prefix = match scan.kind.neutral(&ty) {
        // The update's chain (`update` and the selects before it) again,
        // with the neutral element for the accumulator.
        Some(constant) => {
            let neutral = b.func.dfg.make_const(ty.clone(), constant);
            let mut copies: HashMap<Value, Value> = HashMap::from([(carried, neutral)]);
            for &member in chain {
                let inst = b.func.dfg.defining_inst(member).expect("a member is an instruction");
                let mut data = b.func.dfg.inst(inst).clone();
                data.map_operands(|operand| copies.get(&operand).copied().unwrap_or(operand));
                let member_ty = b.func.dfg.value_type(member).clone();
                let copy = b.ins_value(data, member_ty);
                copies.insert(member, copy);
            }
            copies[&update]
        }
        // Idempotent operators: `x OP x = x` (a min/max select of `x` and
        // `x` too, whatever its comparison says); the update is one
        // instruction (`recognize_reduction`).
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

    let emitted: Vec<Inst> = body.layout.block_insts(scratch).to_vec();
    let update_position = body
        .layout
        .block_insts(update_block)
        .iter()
        .position(|inst| *inst == update_inst)
        .expect("the update is in its block");
    for (offset, &inst) in emitted.iter().enumerate() {
        body.layout.remove_inst(inst);
        body.layout.insert_inst_at(inst, update_block, update_position + 1 + offset);
    }
    body.layout.remove_block(scratch);

    // The chain's copies keep reading `carried`, and so does the comparison
    // of a min/max select update (only the update reads it,
    // `check_update_precedes_reads`): only the update is read
    // (`recognize_reduction`), and its reads take the inclusive value.
    let chain_insts: Vec<Inst> =
        chain.iter().filter_map(|member| body.dfg.defining_inst(*member)).collect();
    let mut comparisons = Vec::new();
    for &inst in &chain_insts {
        body.dfg.inst(inst).for_each_operand(|operand| {
            let Some(def) = body.dfg.defining_inst(operand) else { return };
            let mut reads_carried = false;
            body.dfg.inst(def).for_each_operand(|inner| reads_carried |= inner == carried);
            if reads_carried && !chain.contains(&operand) {
                comparisons.push(def);
            }
        });
    }
    let own: HashSet<Inst> = emitted.into_iter().chain(chain_insts).chain(comparisons).collect();
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
