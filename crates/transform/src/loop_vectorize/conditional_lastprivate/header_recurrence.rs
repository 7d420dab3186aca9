//! The iteration number carried in a header phi of the SIMD loop itself.
//!
//! When the assignment is in the loop's body (no inner loop around it),
//! GVN's load PRE carries the number in a header phi `P`, loaded from the
//! `.iv` global before the loop:
//!
//! ```text
//! pre:    %p0 = load i32, ptr @.pl_cond.x.iv
//! header: %iv = phi i64 [0, %pre], [%iv.next, %latch]
//!         %p  = phi i32 [%p0, %pre], [%u, %latch]
//!         %older = icmp slt i64 %iv, (sext i32 %p)
//!         %skip = select i1 %not_assigned, i1 true, i1 %older
//!         br i1 %skip, label %latch, label %assign
//! assign: %t = trunc nsw i64 %iv to i32
//!         store i32 %t, ptr @.pl_cond.x.iv ; store %value, ptr @pl_cond.x
//! latch:  %u = phi i32 [%t, %assign], [%p, %header]
//! ```
//!
//! `%p` is a recurrence through a comparison, which the plan refuses. But
//! the comparison does not depend on it: the induction grows, and an
//! iteration assigns only when it is not older than `%p`, so every
//! assigned number is at least `%p0` and below any later iteration; thus
//! `iv < %p` holds exactly when `iv < %p0` (by induction over the
//! assignments: before the first one `%p = %p0`; after one at iteration
//! `k`, `%p = k < iv` and `%p0 <= k < iv`). [`rewrite_header_recurrences`]
//! compares with `%p0` instead and deletes `%p` and `%u`, which nothing
//! else reads. The argument is about registers only, so it holds whatever
//! else the body does (calls with side effects included). What remains are
//! conditional stores to uniform addresses, which the vectorized body makes
//! once per chunk with the highest active lane's value, the last assignment
//! of the chunk's iterations in order: the globals end as the scalar loop
//! leaves them, and `x` is loaded from them after the loop as before.
//!
//! Required, or the loop is left to [`super::reload`]: `%p` an integer
//! header phi read only by `%u` and by comparisons `iv < ext(%p)` with an
//! induction `iv` of positive step (`slt` with `sext` and a `trunc nsw`,
//! `ult` with `zext` and a `trunc nuw`, or no casts), `%u` a phi of exactly
//! `%p` and `%t` (`iv`, truncated), `%t`'s block entered only by the false
//! edge of a branch on the comparison or on `c | comparison`, and `%u` read
//! only by `%p`.

use std::collections::HashSet;

use lanewise_analysis::loops::LoopInfo;
use lanewise_ir::{BinaryOp, Block, CastOp, Function, Inst, InstData, IntPredicate, Type, Value};

use crate::loop_vectorize::{induction_step, SimdLoopCandidate};

/// Rewrites the header recurrences of the candidate loop that carry an
/// iteration number (see the module docs); returns how many it removed.
pub(super) fn rewrite_header_recurrences(
    func: &mut Function,
    loops: &LoopInfo,
    candidate: &SimdLoopCandidate,
) -> usize {
    let header = candidate.header;
    let in_loop: HashSet<Block> = loops.blocks(candidate.lp).iter().copied().collect();
    let [latch] = loops.latches(candidate.lp) else { return 0 };
    let latch = *latch;
    let phis: Vec<Inst> = func
        .layout
        .block_insts(header)
        .iter()
        .copied()
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Phi { .. }))
        .collect();
    let mut removed = 0;
    for &phi in &phis {
        if let Some(rewrite) = match_recurrence(func, &in_loop, latch, &phis, phi) {
            apply(func, rewrite);
            removed += 1;
        }
    }
    removed
}

/// What [`apply`] changes.
struct Rewrite {
    phi: Inst,
    merge: Inst,
    preheader_value: Value,
    preheader: Block,
    /// The comparisons and the operand index of `ext(%p)` in each.
    comparisons: Vec<(Inst, usize)>,
    /// The extension of `%p` the comparisons read, if any.
    extension: Option<CastOp>,
}

fn loop_insts(func: &Function, in_loop: &HashSet<Block>) -> Vec<Inst> {
    func.layout
        .blocks()
        .iter()
        .filter(|block| in_loop.contains(block))
        .flat_map(|block| func.layout.block_insts(*block).iter().copied())
        .collect()
}

fn users_in(func: &Function, insts: &[Inst], value: Value) -> Vec<Inst> {
    insts
        .iter()
        .copied()
        .filter(|inst| {
            let mut uses = false;
            func.dfg.inst(*inst).for_each_operand(|operand| uses |= operand == value);
            uses
        })
        .collect()
}

fn match_recurrence(
    func: &Function,
    in_loop: &HashSet<Block>,
    latch: Block,
    header_phis: &[Inst],
    phi: Inst,
) -> Option<Rewrite> {
    let p = func.dfg.result(phi)?;
    let p_ty = func.dfg.value_type(p).clone();
    let p_bits = p_ty.int_bits()?;
    let InstData::Phi { incoming, .. } = func.dfg.inst(phi) else { return None };
    let [(first_block, first), (second_block, second)] = incoming[..] else { return None };
    let ((preheader, p0), u) = if first_block == latch && !in_loop.contains(&second_block) {
        ((second_block, second), first)
    } else if second_block == latch && !in_loop.contains(&first_block) {
        ((first_block, first), second)
    } else {
        return None;
    };
    // The inductions of positive step.
    let inductions: Vec<Value> = header_phis
        .iter()
        .filter_map(|inst| {
            let value = func.dfg.result(*inst)?;
            let InstData::Phi { incoming, .. } = func.dfg.inst(*inst) else { return None };
            let (_, next) = incoming.iter().find(|(block, _)| *block == latch)?;
            (induction_step(func, value, *next)? > 0).then_some(value)
        })
        .collect();
    let insts = loop_insts(func, in_loop);

    // `%u = phi [%t, %assign], [%p, ...]`, read only by `%p`.
    let merge = func.dfg.defining_inst(u)?;
    let InstData::Phi { incoming: merged, .. } = func.dfg.inst(merge) else { return None };
    let [(block_a, a), (block_b, b)] = merged[..] else { return None };
    let (assign_block, assigned) = match (a == p, b == p) {
        (false, true) => (block_a, a),
        (true, false) => (block_b, b),
        _ => return None,
    };
    if users_in(func, &insts, u) != [phi] || !in_loop.contains(&assign_block) {
        return None;
    }
    // `%t`: the induction, truncated without wrapping.
    let (induction, truncation) = match func.dfg.defining_inst(assigned).map(|i| func.dfg.inst(i)) {
        Some(InstData::Cast { op: CastOp::Trunc, arg, flags, .. }) => (*arg, Some(*flags)),
        _ => (assigned, None),
    };
    if !inductions.contains(&induction) {
        return None;
    }

    // `%p`'s other readers: comparisons `iv < ext(%p)`.
    let mut comparisons = Vec::new();
    let mut extension = None;
    for user in users_in(func, &insts, p) {
        if user == merge {
            continue;
        }
        let (compared, cast) = match func.dfg.inst(user) {
            InstData::Cast { op: op @ (CastOp::SExt | CastOp::ZExt), .. } => {
                (func.dfg.result(user)?, Some(*op))
            }
            InstData::Icmp { .. } => (p, None),
            _ => return None,
        };
        if extension.is_some() && extension != cast {
            return None;
        }
        extension = cast;
        let readers = if cast.is_some() { users_in(func, &insts, compared) } else { vec![user] };
        for reader in readers {
            let InstData::Icmp { pred, lhs, rhs } = func.dfg.inst(reader) else { return None };
            // `iv < %p` as `lhs pred rhs`.
            let (index, pred) = if *rhs == compared && *lhs == induction {
                (1, *pred)
            } else if *lhs == compared && *rhs == induction {
                (0, pred.swapped())
            } else {
                return None;
            };
            // The sign of the comparison matches the extension and the
            // truncation keeps the iteration number.
            let truncated_exactly = |signed: bool| match truncation {
                None => func.dfg.value_type(induction).int_bits() == Some(p_bits),
                Some(flags) => {
                    if signed {
                        flags.nsw
                    } else {
                        flags.nuw
                    }
                }
            };
            let consistent = match (pred, cast) {
                (IntPredicate::Slt, Some(CastOp::SExt) | None) => truncated_exactly(true),
                (IntPredicate::Ult, Some(CastOp::ZExt) | None) => truncated_exactly(false),
                _ => false,
            };
            if !consistent || !guards(func, assign_block, reader) {
                return None;
            }
            comparisons.push((reader, index));
        }
    }
    if comparisons.is_empty() {
        return None;
    }
    Some(Rewrite { phi, merge, preheader_value: p0, preheader, comparisons, extension })
}

/// Whether `block` is entered only by the false edge of a branch on
/// `comparison` or on `c | comparison` (`or`, or `select c, true, cmp`).
fn guards(func: &Function, block: Block, comparison: Inst) -> bool {
    let Some(comparison) = func.dfg.result(comparison) else { return false };
    let preds: Vec<Block> = func
        .layout
        .blocks()
        .iter()
        .copied()
        .filter(|pred| func.successors(*pred).contains(&block))
        .collect();
    let [pred] = preds[..] else { return false };
    let Some(term) = func.terminator(pred) else { return false };
    let InstData::Branch { cond, then_dest, else_dest } = func.dfg.inst(term) else {
        return false;
    };
    if *else_dest != block || *then_dest == block {
        return false;
    }
    if *cond == comparison {
        return true;
    }
    let Some(def) = func.dfg.defining_inst(*cond) else { return false };
    match func.dfg.inst(def) {
        InstData::Binary { op: BinaryOp::Or, lhs, rhs, .. } => {
            *lhs == comparison || *rhs == comparison
        }
        InstData::Select { cond: first, if_true, if_false, .. } => {
            let always = func.dfg.int_constant(*if_true) == Some(1);
            always && (*first == comparison || *if_false == comparison)
        }
        _ => false,
    }
}

fn apply(func: &mut Function, rewrite: Rewrite) {
    let Rewrite { phi, merge, preheader_value, preheader, comparisons, extension } = rewrite;
    // `ext(%p0)` at the end of the preheader.
    let replacement = match extension {
        Some(op) => {
            let (_, index) = comparisons[0];
            let InstData::Icmp { lhs, rhs, .. } = func.dfg.inst(comparisons[0].0) else {
                unreachable!("matched comparisons")
            };
            let to: Type = func.dfg.value_type(if index == 0 { *lhs } else { *rhs }).clone();
            let cast = func.dfg.make_inst(
                InstData::Cast {
                    op,
                    arg: preheader_value,
                    to: to.clone(),
                    flags: Default::default(),
                },
                to,
            );
            let term = func.terminator(preheader).expect("the preheader ends in a jump");
            func.layout.insert_inst_before(cast, term);
            func.dfg.result(cast).expect("a cast has a result")
        }
        None => preheader_value,
    };
    for (comparison, index) in comparisons {
        if let InstData::Icmp { lhs, rhs, .. } = func.dfg.inst_mut(comparison) {
            if index == 0 {
                *lhs = replacement;
            } else {
                *rhs = replacement;
            }
        }
    }
    // `%p` and `%u` now only read each other; the extensions of `%p`
    // have no readers left.
    let p = func.dfg.result(phi).expect("a phi has a result");
    let dead_extensions: Vec<Inst> = func
        .layout
        .insts()
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Cast { arg, .. } if *arg == p))
        .collect();
    for inst in dead_extensions.into_iter().chain([merge, phi]) {
        func.layout.remove_inst(inst);
    }
}
