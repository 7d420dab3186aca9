//! Loops that may run with no active lane leave after one pass.
//!
//! Partial linearization (PLDI'18, section 3) keeps a loop whose exits are
//! uniform as a loop, also where its block predicate is varying: the loop
//! then runs in lock step for the lanes of its entry mask `m`. When `m` is
//! all false (a region that no lane entered, linearized), nothing bounds the
//! loop any more: its uniform exit conditions are computed from data that no
//! scalar lane would have seen, a load skipped because no lane needs it (a
//! masked load reads zero), a counter compared with `==` against a bound the
//! scalar code had tested before entering the loop. The loop may then spin
//! for 2^64 iterations (the fuzzer's seed 2600: `for (k = 0; k != n; k++)
//! if (g[k]) return k;` behind `n != 0 && c`, with `c` varying: the guard
//! is linearized, the loop entered with `n == 0` and an empty mask, and
//! every `g[k]` reads as zero).
//!
//! BOSCC's loop skip ([`crate::boscc::skip_loops_without_active_lanes`])
//! jumps over such loops when it can recompute their live-outs; this pass
//! bounds the rest (and every loop when BOSCC is off). For each loop whose
//! header may run with no active lane and that does not already leave on a
//! mask test (a divergent loop's latch leaves when its live mask empties),
//! with `m` the mask it is entered with (the preheader's value of the mask
//! phi linearization gives its header), an exiting block `X` that runs on
//! every iteration (it dominates every latch) gets
//!
//! ```text
//! X: ...; any = rv_any(m); c' = freeze(c) | !any; br c', exit, body
//! ```
//!
//! (`freeze(c) & any` when the branch stays in the loop on `c`). With an
//! active lane nothing changes: `m` is loop-invariant in a loop with uniform
//! exits, so LLVM hoists the test. With none, the loop leaves after one pass
//! through its body, and that pass leaves every value that a lane outside
//! `m` reads as it found it (the blends of the body select the old value
//! under an empty mask; see the BOSCC module docs), the same argument that
//! makes BOSCC's skip correct. `c` is frozen because it may be poison here
//! (a value that no lane computed); the `or`/`and` of a frozen value and a
//! mask query is never poison, so the widener does not freeze the branch
//! condition again ([`crate::widen`]'s mask-query test), which would make
//! LLVM push the freeze into the `<W x i1>` mask.
//!
//! A loop with no exiting block that dominates its latches, or whose
//! exiting branch is a `switch`, is left alone and counted in the report:
//! [`bound_loops_without_active_lanes`] returns both numbers.

use lanewise_analysis::Loop;
use lanewise_ir::{
    ArithFlags, BinaryOp, Block, CallEffects, Callee, FastMathFlags, Function, InstData, Type,
    Value, ValueDef,
};

use crate::cfg_canon::{bool_const, insert_before_terminator, result_of, CfgSnapshot};
use crate::predicates::BlockPredicates;

/// What [`bound_loops_without_active_lanes`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmptyMaskLoops {
    /// Loops that now leave after one pass when no lane is active.
    pub bounded: usize,
    /// Loops that may run with no active lane but have no exiting branch
    /// on every iteration (their termination then rests on their own exit
    /// conditions).
    pub unbounded: usize,
}

/// Bounds every loop of the linearized `func` that may run with no active
/// lane (see the module docs). Reads the block predicates and which blocks
/// run only with an active lane (run
/// [`crate::boscc::mark_blocks_with_an_active_lane`] first); rewrites exiting
/// branches. Predicates are unchanged.
pub fn bound_loops_without_active_lanes(
    func: &mut Function,
    predicates: &BlockPredicates,
) -> EmptyMaskLoops {
    let mut report = EmptyMaskLoops::default();
    let Ok(snapshot) = CfgSnapshot::compute(func) else { return report };
    // (exiting block, mask, whether the branch leaves the loop on `true`)
    let mut rewrites: Vec<(Block, Value, bool)> = Vec::new();
    for lp in snapshot.loops.loops() {
        let header = snapshot.loops.header(lp);
        let Some(header_mask) = predicates.get(header) else { continue };
        if predicates.some_lane_active(header) || exits_on_a_mask_test(func, &snapshot, lp) {
            continue;
        }
        let mask = entry_mask(func, &snapshot, lp, header_mask);
        let Some(exiting) = bounding_exit(func, &snapshot, lp, mask) else {
            report.unbounded += 1;
            continue;
        };
        if rewrites.iter().any(|(block, ..)| *block == exiting) {
            // Also the exit of an enclosing loop with the same mask: bounded.
            report.bounded += 1;
            continue;
        }
        let terminator = func.terminator(exiting).expect("an exiting block has a terminator");
        let InstData::Branch { then_dest, .. } = func.dfg.inst(terminator) else {
            unreachable!("bounding_exit picks two-way branches")
        };
        rewrites.push((exiting, mask, !snapshot.loops.contains(lp, *then_dest)));
    }
    for (exiting, mask, leaves_when_true) in rewrites {
        leave_when_no_lane_is_active(func, exiting, mask, leaves_when_true);
        report.bounded += 1;
    }
    report
}

/// Whether some exit of `lp` tests a mask (`rv_any`/`rv_all`): the latch of
/// a divergent loop leaves when its live mask empties, so the loop bounds
/// itself.
fn exits_on_a_mask_test(func: &Function, snapshot: &CfgSnapshot, lp: Loop) -> bool {
    snapshot.loops.exiting_blocks(lp).iter().any(|block| {
        func.terminator(*block).is_some_and(|terminator| match func.dfg.inst(terminator) {
            InstData::Branch { cond, .. } => tests_a_mask(func, *cond),
            _ => false,
        })
    })
}

/// Whether `value` is an `rv_any`/`rv_all` call or a logical combination
/// that holds one.
fn tests_a_mask(func: &Function, value: Value) -> bool {
    let mut pending = vec![value];
    let mut visited = 0;
    while let Some(value) = pending.pop() {
        visited += 1;
        if visited > 16 {
            return false;
        }
        let Some(inst) = func.dfg.defining_inst(value) else { continue };
        match func.dfg.inst(inst) {
            InstData::Call { callee: Callee::Direct(name), .. }
                if name == "rv_any" || name == "rv_all" =>
            {
                return true;
            }
            InstData::Binary {
                op: BinaryOp::And | BinaryOp::Or | BinaryOp::Xor, lhs, rhs, ..
            } => {
                pending.extend([*lhs, *rhs]);
            }
            _ => {}
        }
    }
    false
}

/// The mask `lp` is entered with: linearization gives a loop under a
/// varying predicate a mask phi in its header (entry mask, then the lanes
/// that stayed); its value from the preheader, which a loop with uniform
/// exits keeps on every iteration and LLVM can test once before the loop.
/// `header_mask` itself when it is not such a phi.
fn entry_mask(func: &Function, snapshot: &CfgSnapshot, lp: Loop, header_mask: Value) -> Value {
    let header = snapshot.loops.header(lp);
    let Some(inst) = func.dfg.defining_inst(header_mask) else { return header_mask };
    if func.layout.inst_block(inst) != Some(header) {
        return header_mask;
    }
    let InstData::Phi { incoming, .. } = func.dfg.inst(inst) else { return header_mask };
    let mut from_outside =
        incoming.iter().filter(|(block, _)| !snapshot.loops.contains(lp, *block));
    match (from_outside.next(), from_outside.next()) {
        (Some((_, value)), None) => *value,
        _ => header_mask,
    }
}

/// An exiting block of `lp` that ends in a two-way branch, dominates every
/// latch, and sees `mask` (defined before the loop): the first in layout.
fn bounding_exit(func: &Function, snapshot: &CfgSnapshot, lp: Loop, mask: Value) -> Option<Block> {
    let loops = &snapshot.loops;
    let mask_block = match func.dfg.value_def(mask) {
        ValueDef::Result(inst) => Some(func.layout.inst_block(*inst)?),
        _ => None,
    };
    func.layout.blocks().iter().copied().find(|block| {
        if !loops.exiting_blocks(lp).contains(block) {
            return false;
        }
        let on_every_iteration =
            loops.latches(lp).iter().all(|latch| snapshot.domtree.dominates(*block, *latch));
        let sees_mask = mask_block.is_none_or(|def| snapshot.domtree.dominates(def, *block));
        let two_way = func.terminator(*block).is_some_and(|terminator| {
            matches!(func.dfg.inst(terminator), InstData::Branch { then_dest, else_dest, .. }
                if loops.contains(lp, *then_dest) != loops.contains(lp, *else_dest))
        });
        on_every_iteration && sees_mask && two_way
    })
}

/// Rewrites the branch of `exiting` to leave the loop when no lane of
/// `mask` is active.
fn leave_when_no_lane_is_active(
    func: &mut Function,
    exiting: Block,
    mask: Value,
    leaves_when_true: bool,
) {
    let terminator = func.terminator(exiting).expect("an exiting block has a terminator");
    let InstData::Branch { cond, .. } = *func.dfg.inst(terminator) else {
        unreachable!("bounding_exit picks two-way branches")
    };
    let any = InstData::Call {
        callee: Callee::Direct("rv_any".into()),
        args: vec![mask],
        ret_ty: Type::BOOL,
        effects: CallEffects::Pure,
        flags: FastMathFlags::default(),
    };
    let any = append(func, exiting, any);
    let frozen = append(func, exiting, InstData::Freeze { arg: cond });
    let bounded = if leaves_when_true {
        let all_true = bool_const(func, true);
        let none = binary(func, exiting, BinaryOp::Xor, any, all_true);
        binary(func, exiting, BinaryOp::Or, frozen, none)
    } else {
        binary(func, exiting, BinaryOp::And, frozen, any)
    };
    if let InstData::Branch { cond, .. } = func.dfg.inst_mut(terminator) {
        *cond = bounded;
    }
}

fn binary(func: &mut Function, block: Block, op: BinaryOp, lhs: Value, rhs: Value) -> Value {
    append(func, block, InstData::Binary { op, lhs, rhs, flags: ArithFlags::default() })
}

/// Inserts the `i1`-valued `data` before the terminator of `block`.
fn append(func: &mut Function, block: Block, data: InstData) -> Value {
    let inst = insert_before_terminator(func, block, data, Type::BOOL);
    result_of(func, inst)
}

#[cfg(test)]
mod tests {
    use lanewise_ir::*;

    use super::*;

    /// `if (v < 0) for (i = 0; i + 1 != u; i++) if (out[i]) break;` as a
    /// linearized function has it: the loop's blocks carry the varying
    /// predicate `v < 0` and its exits are uniform, one in the header (the
    /// `break`, on every iteration) and one in the latch.
    fn uniform_loop_under_a_varying_predicate() -> (Function, BlockPredicates, Block, Value) {
        let mut func = Function::new("f", vec![Type::I32, Type::I32, Type::PTR], Type::Void);
        let (u, v, out) = (func.param_value(0), func.param_value(1), func.param_value(2));
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let header = b.create_block(Some("header"));
        let latch = b.create_block(Some("latch"));
        let exit = b.create_block(Some("exit"));
        b.switch_to_block(entry);
        let zero = b.iconst(Type::I32, 0);
        let negative = b.icmp(IntPredicate::Slt, v, zero);
        b.jump(header);
        b.switch_to_block(header);
        let placeholder = b.iconst(Type::I32, 0);
        let i = b.phi(Type::I32, vec![(entry, zero), (latch, placeholder)]);
        let slot = b.gep(Type::I32, out, vec![i]);
        let value = b.load(Type::I32, slot, 4);
        let found = b.icmp(IntPredicate::Ne, value, zero);
        b.branch(found, exit, latch);
        b.switch_to_block(latch);
        let one = b.iconst(Type::I32, 1);
        let next = b.binary(BinaryOp::Add, i, one);
        let more = b.icmp(IntPredicate::Ne, next, u);
        b.branch(more, header, exit);
        b.switch_to_block(exit);
        b.ret(None);
        let phi = func.dfg.defining_inst(i).unwrap();
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
            incoming[1].1 = next;
        }
        let mut predicates = BlockPredicates::all_active();
        for block in [header, latch] {
            predicates.set(block, Some(negative));
        }
        (func, predicates, header, negative)
    }

    #[test]
    fn the_exit_on_every_iteration_also_leaves_when_no_lane_is_active() {
        let (mut func, predicates, header, mask) = uniform_loop_under_a_varying_predicate();
        let report = bound_loops_without_active_lanes(&mut func, &predicates);
        assert_eq!(report, EmptyMaskLoops { bounded: 1, unbounded: 0 });
        verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));
        // The header's `br found, exit, latch` became
        // `br (freeze(found) | !rv_any(mask)), exit, latch`.
        let terminator = func.terminator(header).unwrap();
        let InstData::Branch { cond, .. } = *func.dfg.inst(terminator) else { panic!("{func}") };
        let InstData::Binary { op: BinaryOp::Or, lhs, rhs, .. } =
            *func.dfg.inst(func.dfg.defining_inst(cond).unwrap())
        else {
            panic!("{func}")
        };
        assert!(matches!(
            func.dfg.inst(func.dfg.defining_inst(lhs).unwrap()),
            InstData::Freeze { .. }
        ));
        let InstData::Binary { op: BinaryOp::Xor, lhs: any, .. } =
            *func.dfg.inst(func.dfg.defining_inst(rhs).unwrap())
        else {
            panic!("{func}")
        };
        let any_call = func.dfg.inst(func.dfg.defining_inst(any).unwrap());
        assert_eq!(any_call.operands(), vec![mask], "{func}");
        assert!(tests_a_mask(&func, cond));
        // A second run sees the mask test and leaves the loop alone.
        let again = bound_loops_without_active_lanes(&mut func, &predicates);
        assert_eq!(again, EmptyMaskLoops::default());
    }

    #[test]
    fn loops_known_to_run_with_an_active_lane_are_left_alone() {
        let (mut func, mut predicates, header, _) = uniform_loop_under_a_varying_predicate();
        let before = func.to_string();
        predicates.set_some_lane_active(header);
        let report = bound_loops_without_active_lanes(&mut func, &predicates);
        assert_eq!(report, EmptyMaskLoops::default());
        assert_eq!(func.to_string(), before);
    }
}
