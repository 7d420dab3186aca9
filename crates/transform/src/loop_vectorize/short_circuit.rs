//! `reduction(&&: b)` and `reduction(||: b)` as clang-22 lowers them with
//! their short circuit kept: a branch on the truth of the accumulator
//! around the code that computes the condition, and a phi where the two
//! paths meet ([`short_circuit_reduction`]; [`super::reduction`]
//! recognizes the forms without a branch). Each lane then branches on its
//! own partial result: it evaluates the condition while its own iterations
//! all passed, where the serial loop stops at the first failure of any
//! iteration. The result is the same, as long as the skipped code has no
//! effect besides its value: it may load and call libm (whose only side
//! effect is `errno`, which the vector math does not keep either), but not
//! store or call anything else.

use std::collections::{HashMap, HashSet};

use lanewise_ir::{BinaryOp, Block, Constant, Function, Inst, InstData, IntPredicate, Type, Value};

use super::reduction::{loop_predecessors, Reduction, ReductionKind};

/// `b = b && c` (or `b || c`) as clang lowers it: a branch on the truth of
/// the accumulator `phi` (an `i1`, or an integer read as `phi != 0` or
/// `phi == 0`) around the condition:
///
/// ```text
/// decide:   br truth(phi), evaluate, join     ; `||`: br truth(phi), join, evaluate
/// evaluate: ... c ...                         ; a region entered from `decide`
/// join:     update = phi [0, decide], [c, ...], [phi, ...]   ; `||`: 1 from `decide`
/// ```
///
/// The region may branch and merge (`b && x && y` gives more incoming
/// values), load and call libm functions (whose only side effect is
/// `errno`), but not store or call anything else with side effects. Other
/// edges into `join` pass the accumulator on (an update under a condition:
/// `if (x) b = b || c`). The other phis of `join` take the same value on
/// the edges from `decide` and the region (the branch decides the update
/// alone), the update feeds only the header phi and the exit's phis, and
/// an integer accumulator starts at 0 or 1 (the lanes combine with `&` or
/// `|`, and one without iterations keeps the initial value). Returns the
/// `and` (`or`) reduction, or `None` when `phi` does not have that shape.
pub(super) fn short_circuit_reduction(
    func: &Function,
    users: &HashMap<Value, Vec<Inst>>,
    in_loop: &HashSet<Block>,
    exit: Block,
    phi: Value,
    init: Value,
    update: Value,
) -> Option<Reduction> {
    let ty = func.dfg.value_type(phi).clone();
    if ty != Type::BOOL
        && !matches!(func.dfg.constant(init), Some(Constant::Int(0)) | Some(Constant::Int(1)))
    {
        return None;
    }
    // One short circuit after another (the copies of an unrolled body),
    // each reading the previous one's result, up to the update.
    let mut members = vec![phi];
    let mut current = phi;
    let mut kind = None;
    while current != update {
        let (op, join_value) = short_circuit_link(func, users, in_loop, current, &ty)?;
        if kind.is_some_and(|kind| kind != op) {
            return None;
        }
        kind = Some(op);
        members.push(join_value);
        current = join_value;
    }
    // The update feeds the header phi and the exit's phis only.
    let phi_inst = func.dfg.defining_inst(phi)?;
    let update_only_carried = users.get(&update).into_iter().flatten().all(|&user| {
        let block = func.layout.inst_block(user);
        user == phi_inst
            || (block == Some(exit) && matches!(func.dfg.inst(user), InstData::Phi { .. }))
    });
    if !update_only_carried {
        return None;
    }
    Some(Reduction {
        phi,
        init,
        update,
        ty,
        kind: ReductionKind::Binary(kind?),
        members,
        scan: false,
    })
}

/// One short circuit of [`short_circuit_reduction`] on `value` (the
/// accumulator, or the result of the previous short circuit): its operator
/// and the phi at its `join`, the only other reader of `value`.
fn short_circuit_link(
    func: &Function,
    users: &HashMap<Value, Vec<Inst>>,
    in_loop: &HashSet<Block>,
    value: Value,
    ty: &Type,
) -> Option<(BinaryOp, Value)> {
    // The truth test: `value` itself, or one `icmp ne/eq value, 0`; and the
    // join's phi, which passes `value` on where the test is not reached.
    let mut truth = None;
    let mut join_phi = None;
    for &user in users.get(&value)? {
        let data = func.dfg.inst(user);
        match data {
            InstData::Branch { .. } if *ty == Type::BOOL && truth.is_none() => {
                truth = Some((user, true));
            }
            InstData::Icmp { pred, lhs, rhs } if *ty != Type::BOOL && truth.is_none() => {
                let zero = |operand: &Value| func.dfg.constant(*operand) == Some(&Constant::Int(0));
                if !((*lhs == value && zero(rhs)) || (*rhs == value && zero(lhs))) {
                    return None;
                }
                let result = func.dfg.result(user)?;
                let [branch] = users.get(&result)?.as_slice() else { return None };
                truth = match pred {
                    IntPredicate::Ne => Some((*branch, true)),
                    IntPredicate::Eq => Some((*branch, false)),
                    _ => return None,
                };
            }
            InstData::Phi { .. } if join_phi.is_none() => join_phi = Some(user),
            _ => return None,
        }
    }
    let (branch, then_if_true) = truth?;
    let InstData::Branch { then_dest, else_dest, .. } = func.dfg.inst(branch) else {
        return None;
    };
    let decide = func.layout.inst_block(branch)?;
    let (when_true, when_false) =
        if then_if_true { (*then_dest, *else_dest) } else { (*else_dest, *then_dest) };
    // `&&` skips to `join` when the value is false, `||` when true. The
    // join's phi is the one that reads `value` (passing it on where the
    // test is not reached), or else the one that takes the skipped
    // constant from `decide`.
    let takes_skipped = |inst: Inst, skipped: u128| match func.dfg.inst(inst) {
        InstData::Phi { incoming, .. } => incoming.iter().any(|&(block, incoming)| {
            block == decide
                && func.dfg.constant(incoming) == Some(&Constant::Int(skipped))
                && func.dfg.value_type(incoming) == ty
        }),
        _ => false,
    };
    let join_phi_in = |block: Block, skipped: u128| -> Option<Inst> {
        match join_phi {
            Some(inst) => (func.layout.inst_block(inst) == Some(block)).then_some(inst),
            None => {
                let found: Vec<Inst> = func
                    .layout
                    .block_insts(block)
                    .iter()
                    .copied()
                    .filter(|&inst| takes_skipped(inst, skipped))
                    .collect();
                match found[..] {
                    [inst] => Some(inst),
                    _ => None,
                }
            }
        }
    };
    let (op, skipped, evaluate, join, join_inst) =
        match (join_phi_in(when_false, 0), join_phi_in(when_true, 1)) {
            (Some(inst), None) => (BinaryOp::And, 0, when_true, when_false, inst),
            (None, Some(inst)) => (BinaryOp::Or, 1, when_false, when_true, inst),
            _ => return None,
        };
    if evaluate == join || !in_loop.contains(&join) {
        return None;
    }
    let InstData::Phi { incoming, .. } = func.dfg.inst(join_inst) else { return None };
    if loop_predecessors(func, in_loop, evaluate) != [decide] {
        return None;
    }
    // The region: the blocks reached from `evaluate` before `join`, entered
    // only through `evaluate` and left only to `join`.
    let mut region = HashSet::from([evaluate]);
    let mut worklist = vec![evaluate];
    while let Some(block) = worklist.pop() {
        let terminator = func.terminator(block)?;
        for successor in func.dfg.inst(terminator).successors() {
            if successor == join {
                continue;
            }
            if successor == decide || !in_loop.contains(&successor) {
                return None;
            }
            if region.insert(successor) {
                worklist.push(successor);
            }
        }
    }
    let writes = |inst: &Inst| match func.dfg.inst(*inst) {
        // libm's `errno`, which the vector math does not keep either.
        InstData::Call { callee, ret_ty, .. } => {
            !crate::widen::calls::may_run_speculatively(callee, ret_ty)
                && func.dfg.inst(*inst).has_side_effects()
        }
        data => data.has_side_effects(),
    };
    for &block in &region {
        let entered_elsewhere = block != evaluate
            && loop_predecessors(func, in_loop, block).iter().any(|pred| !region.contains(pred));
        if entered_elsewhere || func.layout.block_insts(block).iter().any(writes) {
            return None;
        }
    }
    // The join's phi: the skipped value from `decide`, anything from the
    // region, `value` itself from elsewhere.
    let mut from_decide = false;
    for &(block, incoming_value) in incoming {
        if block == decide {
            from_decide = func.dfg.constant(incoming_value) == Some(&Constant::Int(skipped));
            if !from_decide {
                return None;
            }
        } else if !region.contains(&block) && incoming_value != value {
            return None;
        }
    }
    if !from_decide {
        return None;
    }
    // Every other phi of `join` agrees on the edges the branch decides.
    let decided = |block: &Block| *block == decide || region.contains(block);
    let decides_only_this =
        func.layout.block_insts(join).iter().all(|&inst| match func.dfg.inst(inst) {
            InstData::Phi { incoming, .. } if inst != join_inst => {
                let mut values = incoming.iter().filter(|(block, _)| decided(block));
                let first = values.next().map(|&(_, value)| value);
                values.all(|&(_, value)| Some(value) == first)
            }
            _ => true,
        });
    if !decides_only_this {
        return None;
    }
    Some((op, func.dfg.result(join_inst)?))
}
