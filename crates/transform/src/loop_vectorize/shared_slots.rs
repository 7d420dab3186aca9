//! Stack slots of the function that the iterations of a SIMD loop share
//! and update at addresses the lanes may have in common.
//!
//! The W lanes of a chunk run one iteration each at the same time, so a
//! slot that iteration `i` writes and iteration `j` reads (or writes) at
//! the same address gives a different result than the scalar loop. In user
//! memory such a dependence is excluded by the `simd` construct; but clang
//! itself makes one: under `-fopenmp-simd` the private copy of a reduction
//! variable that lives in memory (an array, `reduction(+: a[:4])`, or a
//! struct with an array under a user-defined `declare reduction`) is one
//! stack slot for the whole loop, initialized before it, updated in every
//! iteration (`v.a[i & 3] += x`) and combined into the original variable
//! after it. The pragma asks for one copy per lane, combined with the
//! reduction's combiner; clang has inlined that combiner, so it cannot be
//! called for the lanes' copies.
//!
//! [`conflicting_slot_access`] finds such a slot: an `alloca` of the
//! function outside the loop's private slots that the loop both reads and
//! writes (a load, a store, or a call given its address, which may do
//! both) where some access's address is not distinct per iteration. An
//! address is distinct per iteration when it is a `getelementptr` whose
//! indices are loop-invariant except one that is an affine function of an
//! induction (`iv`, `iv * c`, `iv + k`, `iv << c`, extensions of those).
//! The loop is then refused; a slot accessed only at such addresses (`t[i]
//! = ...; ... = t[i]`), or only read, is fine.

use std::collections::HashSet;

use lanewise_ir::{BinaryOp, Block, Function, Inst, InstData, Value, ValueDef};

use super::LoopRefusal;

/// How the loop accesses memory derived from one slot.
#[derive(Default)]
struct SlotAccesses {
    reads: bool,
    writes: bool,
    /// The first access whose address may be the same in two iterations.
    shared_address: Option<Inst>,
}

/// A refusal naming the first slot (an `alloca` outside `private_slots`)
/// that the loop (`in_loop`, inductions `induction_phis`) both reads and
/// writes at an address two iterations may share; see the module docs.
pub fn conflicting_slot_access(
    func: &Function,
    in_loop: &HashSet<Block>,
    induction_phis: &[Value],
    private_slots: &[Value],
) -> Result<(), LoopRefusal> {
    let defined_in_loop = |value: Value| -> bool {
        func.dfg
            .defining_inst(value)
            .and_then(|inst| func.layout.inst_block(inst))
            .is_some_and(|block| in_loop.contains(&block))
    };
    let slots: Vec<Value> = func
        .layout
        .blocks()
        .iter()
        .filter(|block| !in_loop.contains(block))
        .flat_map(|block| func.layout.block_insts(*block).iter().copied())
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Alloca { .. }))
        .filter_map(|inst| func.dfg.result(inst))
        .filter(|slot| !private_slots.contains(slot))
        .collect();
    if slots.is_empty() {
        return Ok(());
    }
    let loop_insts: Vec<Inst> = func
        .layout
        .blocks()
        .iter()
        .filter(|block| in_loop.contains(block))
        .flat_map(|block| func.layout.block_insts(*block).iter().copied())
        .collect();
    for slot in slots {
        let mut accesses = SlotAccesses::default();
        for &inst in &loop_insts {
            let data = func.dfg.inst(inst);
            let derived = |value: Value| slot_of(func, value) == Some(slot);
            match data {
                InstData::Load { addr, .. } if derived(*addr) => {
                    accesses.reads = true;
                    if !distinct_per_iteration(func, *addr, &defined_in_loop, induction_phis) {
                        accesses.shared_address.get_or_insert(inst);
                    }
                }
                InstData::Store { addr, value, .. } if derived(*addr) && !derived(*value) => {
                    accesses.writes = true;
                    if !distinct_per_iteration(func, *addr, &defined_in_loop, induction_phis) {
                        accesses.shared_address.get_or_insert(inst);
                    }
                }
                // Addresses are computed, not accesses.
                InstData::Gep { .. } | InstData::Cast { .. } => {}
                _ => {
                    let mut passes_address = false;
                    data.for_each_operand(|operand| passes_address |= derived(operand));
                    if passes_address && !is_lifetime_marker(data) {
                        accesses.reads = true;
                        accesses.writes = true;
                        accesses.shared_address.get_or_insert(inst);
                    }
                }
            }
        }
        if let (true, true, Some(access)) =
            (accesses.reads, accesses.writes, accesses.shared_address)
        {
            let block = func.layout.inst_block(access).expect("a loop instruction");
            return Err(LoopRefusal::new(format!(
                "the loop reads and writes the stack slot {} at addresses two iterations may \
                 share (`{}` in block %{}): the lanes would conflict (clang's single private \
                 copy of a reduction variable in memory, an array or a struct under `declare \
                 reduction`, whose combiner it inlined)",
                func.dfg.display_value(slot),
                func.dfg.inst(access).opcode_name(),
                func.block_name(block)
            )));
        }
    }
    Ok(())
}

/// The `alloca` that `value` is an address into, through `getelementptr`s
/// and pointer casts.
fn slot_of(func: &Function, value: Value) -> Option<Value> {
    let mut current = value;
    loop {
        let def = func.dfg.defining_inst(current)?;
        match func.dfg.inst(def) {
            InstData::Alloca { .. } => return Some(current),
            InstData::Gep { base, .. } => current = *base,
            InstData::Cast { arg, .. } if func.dfg.value_type(*arg).is_ptr() => current = *arg,
            _ => return None,
        }
    }
}

/// Whether `address` differs from one iteration to the next: a
/// `getelementptr` chain with one index affine in an induction and every
/// other part loop-invariant.
fn distinct_per_iteration(
    func: &Function,
    address: Value,
    defined_in_loop: &dyn Fn(Value) -> bool,
    induction_phis: &[Value],
) -> bool {
    let Some(def) = func.dfg.defining_inst(address) else { return false };
    match func.dfg.inst(def) {
        InstData::Gep { base, indices, .. } => {
            let invariant = |value: Value| !defined_in_loop(value);
            let affine: Vec<&Value> = indices.iter().filter(|index| !invariant(**index)).collect();
            let base_invariant = invariant(*base);
            let [index] = affine[..] else {
                // No varying index: distinct only through a distinct base.
                return affine.is_empty()
                    && !base_invariant
                    && distinct_per_iteration(func, *base, defined_in_loop, induction_phis);
            };
            base_invariant && affine_in_induction(func, *index, defined_in_loop, induction_phis)
        }
        InstData::Cast { arg, .. } if func.dfg.value_type(*arg).is_ptr() => {
            distinct_per_iteration(func, *arg, defined_in_loop, induction_phis)
        }
        _ => false,
    }
}

/// Whether `value` is `iv`, or `iv` under adds and subtractions of
/// loop-invariant values, multiplications and left shifts by non-zero
/// constants and integer extensions.
fn affine_in_induction(
    func: &Function,
    value: Value,
    defined_in_loop: &dyn Fn(Value) -> bool,
    induction_phis: &[Value],
) -> bool {
    if induction_phis.contains(&value) {
        return true;
    }
    let invariant = |value: Value| !defined_in_loop(value);
    let recurse = |value: Value| affine_in_induction(func, value, defined_in_loop, induction_phis);
    let Some(def) = func.dfg.defining_inst(value) else { return false };
    match func.dfg.inst(def) {
        InstData::Binary { op: BinaryOp::Add, lhs, rhs, .. } => {
            (recurse(*lhs) && invariant(*rhs)) || (invariant(*lhs) && recurse(*rhs))
        }
        InstData::Binary { op: BinaryOp::Sub, lhs, rhs, .. } => recurse(*lhs) && invariant(*rhs),
        InstData::Binary { op: BinaryOp::Mul | BinaryOp::Shl, lhs, rhs, .. } => {
            let non_zero_constant = |value: Value| {
                matches!(func.dfg.value_def(value), ValueDef::Const(_))
                    && func.dfg.signed_int_constant(value).is_some_and(|c| c != 0)
            };
            (recurse(*lhs) && non_zero_constant(*rhs))
                || (matches!(func.dfg.inst(def), InstData::Binary { op: BinaryOp::Mul, .. })
                    && non_zero_constant(*lhs)
                    && recurse(*rhs))
        }
        InstData::Cast {
            op: lanewise_ir::CastOp::ZExt | lanewise_ir::CastOp::SExt, arg, ..
        } => recurse(*arg),
        _ => false,
    }
}

/// `llvm.lifetime.start/end` (lifted as calls when not kept as markers).
fn is_lifetime_marker(data: &InstData) -> bool {
    matches!(data, InstData::Call { callee: lanewise_ir::Callee::Direct(name), .. }
        if name.starts_with("llvm.lifetime."))
}
