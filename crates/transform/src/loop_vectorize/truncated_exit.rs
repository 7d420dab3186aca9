//! An exit test on the truncated induction variable, made a test on the
//! variable itself.
//!
//! clang's `-fopenmp` outlines a `parallel for simd` loop with a 64-bit
//! induction variable that starts at the thread's lower bound (`sext` of an
//! `i32`) and leaves when its low 32 bits reach the upper bound plus one:
//!
//! ```text
//! next = add nsw i64 iv, 1
//! t    = trunc i64 next to i32
//! exit = icmp eq i32 ub1, t
//! ```
//!
//! [`super::plan_simd_loop`] wants the variable compared with the bound. The
//! truncated test leaves after `k = ((ub1 - trunc start - 1) mod 2^32) + 1`
//! iterations (the first `k >= 1` with `trunc start + k = ub1` modulo
//! `2^32`), which is when `next = start + zext(ub1 - trunc start - 1) + 1`,
//! computed once in the preheader; wrapping arithmetic throughout, so the
//! two tests agree for every value, the wrapping ones included.

use lanewise_analysis::loops::LoopInfo;
use lanewise_ir::{
    ArithFlags, BinaryOp, Block, CastFlags, CastOp, Function, InstData, IntPredicate, Type, Value,
};

use super::{induction_step, SimdLoopCandidate};

/// Rewrites the latch's `icmp eq/ne (trunc next), bound` of the loop of
/// `candidate` into `icmp eq/ne next, end` (see the module docs) when
/// `next` is a header phi plus one and `bound` is defined outside the loop.
/// Changes no block. Returns whether it rewrote the test.
pub fn widen_truncated_exit_test(
    func: &mut Function,
    loops: &LoopInfo,
    candidate: &SimdLoopCandidate,
) -> bool {
    let lp = candidate.lp;
    let header = candidate.header;
    let [latch] = loops.latches(lp) else { return false };
    let latch = *latch;
    let in_loop = |func: &Function, value: Value| {
        func.dfg
            .defining_inst(value)
            .and_then(|inst| func.layout.inst_block(inst))
            .is_some_and(|block| loops.contains(lp, block))
    };
    let Some(terminator) = func.terminator(latch) else { return false };
    let InstData::Branch { cond, .. } = func.dfg.inst(terminator).clone() else { return false };
    let Some(compare) = func.dfg.defining_inst(cond) else { return false };
    let InstData::Icmp { pred, lhs, rhs } = func.dfg.inst(compare).clone() else { return false };
    if !matches!(pred, IntPredicate::Eq | IntPredicate::Ne) {
        return false;
    }
    let truncated_next = |value: Value| -> Option<Value> {
        let inst = func.dfg.defining_inst(value)?;
        match func.dfg.inst(inst) {
            InstData::Cast { op: CastOp::Trunc, arg, .. } => Some(*arg),
            _ => None,
        }
    };
    let (next, bound) = match (truncated_next(lhs), truncated_next(rhs)) {
        (Some(next), _) if !in_loop(func, rhs) => (next, rhs),
        (_, Some(next)) if !in_loop(func, lhs) => (next, lhs),
        _ => return false,
    };
    // `next` is a header phi plus one; the phi's other incoming value is
    // its start.
    let Some((phi, start)) = func.layout.block_insts(header).iter().find_map(|&inst| {
        let InstData::Phi { incoming, .. } = func.dfg.inst(inst) else { return None };
        let phi = func.dfg.result(inst)?;
        let from_latch = incoming.iter().find(|(block, _)| *block == latch)?.1;
        let from_outside: Vec<(Block, Value)> =
            incoming.iter().copied().filter(|(block, _)| *block != latch).collect();
        let [(_, start)] = from_outside[..] else { return None };
        (from_latch == next).then_some((phi, start))
    }) else {
        return false;
    };
    if induction_step(func, phi, next) != Some(1) {
        return false;
    }
    let wide = func.dfg.value_type(next).clone();
    let narrow = func.dfg.value_type(bound).clone();
    if !wide.is_int() || !narrow.is_int() || wide.scalar_bits() <= narrow.scalar_bits() {
        return false;
    }
    // The preheader: the header's one predecessor outside the loop.
    let outside: Vec<Block> = func
        .layout
        .blocks()
        .iter()
        .copied()
        .filter(|block| !loops.contains(lp, *block) && func.successors(*block).contains(&header))
        .collect();
    let [preheader] = outside[..] else { return false };
    let Some(preheader_end) = func.terminator(preheader) else { return false };

    let wrapping = ArithFlags::default();
    let insert = |func: &mut Function, data: InstData, ty: Type| -> Value {
        let inst = func.dfg.make_inst(data, ty);
        func.layout.insert_inst_before(inst, preheader_end);
        func.dfg.result(inst).expect("arithmetic has a result")
    };
    let start_low = insert(
        func,
        InstData::Cast {
            op: CastOp::Trunc,
            arg: start,
            to: narrow.clone(),
            flags: CastFlags::default(),
        },
        narrow.clone(),
    );
    let distance = insert(
        func,
        InstData::Binary { op: BinaryOp::Sub, lhs: bound, rhs: start_low, flags: wrapping },
        narrow.clone(),
    );
    let one_narrow = func.dfg.int_const(narrow.clone(), 1);
    let before_last = insert(
        func,
        InstData::Binary { op: BinaryOp::Sub, lhs: distance, rhs: one_narrow, flags: wrapping },
        narrow.clone(),
    );
    let widened = insert(
        func,
        InstData::Cast {
            op: CastOp::ZExt,
            arg: before_last,
            to: wide.clone(),
            flags: CastFlags::default(),
        },
        wide.clone(),
    );
    let last = insert(
        func,
        InstData::Binary { op: BinaryOp::Add, lhs: start, rhs: widened, flags: wrapping },
        wide.clone(),
    );
    let one_wide = func.dfg.int_const(wide.clone(), 1);
    let end = insert(
        func,
        InstData::Binary { op: BinaryOp::Add, lhs: last, rhs: one_wide, flags: wrapping },
        wide.clone(),
    );
    let test = func.dfg.make_inst(InstData::Icmp { pred, lhs: next, rhs: end }, Type::BOOL);
    func.layout.insert_inst_before(test, terminator);
    let test = func.dfg.result(test).expect("a comparison has a result");
    if let InstData::Branch { cond, .. } = func.dfg.inst_mut(terminator) {
        *cond = test;
    }
    true
}
