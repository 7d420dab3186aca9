//! Assignments after the first in an iteration re-check the number.
//!
//! clang stores the iteration number once per iteration, with the value of
//! the first assignment; a later assignment in the same iteration stores
//! only the value (`x = 0; if (c) x = y;`, fuzz seed 28203):
//!
//! ```text
//!         %p = load i32, ptr @.pl_cond.x.iv
//!         %older = icmp sgt i32 %p, %t
//!         br i1 %older, label %skip, label %assign
//! assign: store i32 %t, ptr @.pl_cond.x.iv ; store i16 0, ptr @pl_cond.x
//!         br i1 %c, label %late, label %skip
//! late:   store i16 %y, ptr @pl_cond.x
//! ```
//!
//! In the vector loop every lane passes the first check before any stores
//! (the number is that of an earlier chunk), so at `late` a lane whose
//! iteration is older than the one another lane stored at `assign`
//! overwrites that lane's value: lane 5's `y` won over lane 7's `0`. The
//! parent module's argument needs every value store checked against the
//! number at its own point. So each value store not right after a store of
//! the number becomes
//!
//! ```text
//! late:   %now = load i32, ptr @.pl_cond.x.iv
//!         %older = icmp sgt i32 %now, %t
//!         %kept = load i16, ptr @pl_cond.x
//!         %value = select i1 %older, i16 %kept, i16 %y
//!         store i16 %value, ptr @pl_cond.x
//! ```
//!
//! where `%t` is the number a store dominating it wrote. In the scalar loop
//! `%now` is `%t` there, so nothing changes; in the vector loop the
//! highest active lane's value is stored, which is the old one only when
//! every active lane is older than the number stored (a lane not older
//! than it has no higher lane that is).

use std::collections::HashSet;

use lanewise_ir::cfg::ControlFlowGraph;
use lanewise_ir::dominators::DominatorTree;
use lanewise_ir::{
    Block, Constant, FastMathFlags, Function, Inst, InstData, IntPredicate, Type, Value,
};

use super::iteration_number_global;
use crate::loop_vectorize::LoopRefusal;

/// Re-checks the value stores of `lastprivate(conditional:)` variables in
/// the loop that do not follow a store of the iteration number (see the
/// module docs). Returns how many it rewrote, or a refusal when no store
/// of the number dominates one. Adds instructions only.
pub(super) fn recheck_late_assignments(
    func: &mut Function,
    in_loop: &HashSet<Block>,
) -> Result<usize, LoopRefusal> {
    let late = late_value_stores(func, in_loop);
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let renumbered = later_numbered_assignments(func, in_loop);
    if late.is_empty() && renumbered.is_empty() {
        return Ok(0);
    }
    for &(number_store, value_store) in &renumbered {
        recheck_numbered(func, number_store, value_store);
    }
    for &(store, ref number_global) in &late {
        let number_store = dominating_number_store(func, in_loop, &domtree, store, number_global)
            .ok_or_else(|| {
            let block = func.layout.inst_block(store).expect("the store is in the layout");
            LoopRefusal::new(format!(
                "a `lastprivate(conditional:)` assignment in block %{} follows no store of \
                     its iteration number (@{number_global})",
                func.block_name(block)
            ))
        })?;
        recheck(func, store, number_store);
    }
    Ok(late.len() + renumbered.len())
}

/// The value global of `.pl_cond.x.iv` is `pl_cond.x`.
fn value_global_of(number_global: &str) -> Option<String> {
    let inner = number_global.strip_prefix('.')?.strip_suffix(".iv")?;
    Some(inner.to_owned())
}

/// The name of the symbol `value` is the address of.
fn symbol(func: &Function, value: Value) -> Option<&str> {
    match func.dfg.constant(value) {
        Some(Constant::Symbol(name)) => Some(name),
        _ => None,
    }
}

/// The stores in the loop to the value global of an iteration-number
/// global the loop stores to, each with that number global, that are not
/// right after a store of the number.
fn late_value_stores(func: &Function, in_loop: &HashSet<Block>) -> Vec<(Inst, String)> {
    let loop_insts: Vec<Inst> = func
        .layout
        .blocks()
        .iter()
        .filter(|block| in_loop.contains(block))
        .flat_map(|block| func.layout.block_insts(*block).iter().copied())
        .collect();
    let number_globals: HashSet<String> = loop_insts
        .iter()
        .filter_map(|inst| match func.dfg.inst(*inst) {
            InstData::Store { addr, .. } => iteration_number_global(func, *addr).map(str::to_owned),
            _ => None,
        })
        .collect();
    let mut late = Vec::new();
    for number_global in number_globals {
        let Some(value_global) = value_global_of(&number_global) else { continue };
        for &inst in &loop_insts {
            let InstData::Store { addr, .. } = func.dfg.inst(inst) else { continue };
            if symbol(func, *addr) != Some(value_global.as_str()) {
                continue;
            }
            let block = func.layout.inst_block(inst).expect("in the layout");
            let insts = func.layout.block_insts(block);
            let index = insts.iter().position(|candidate| *candidate == inst).expect("in block");
            let after_number_store = index.checked_sub(1).is_some_and(|previous| {
                matches!(func.dfg.inst(insts[previous]), InstData::Store { addr, .. }
                    if iteration_number_global(func, *addr) == Some(number_global.as_str()))
            });
            if !after_number_store {
                late.push((inst, number_global.clone()));
            }
        }
    }
    late
}

/// The pairs (store of the number, store of the value right after it) in
/// the loop, of every number global the loop stores at more than one
/// point: a later assignment that clang guarded with the first one's check
/// or with the iteration's own number (fuzz seed 68099: `x = 1; if (c) x =
/// 0;` under a uniform `rv_any` branch). In the vector loop the number
/// there may be a higher lane's, so every such pair is re-checked against
/// the number at its own point ([`recheck_numbered`]); in the scalar loop
/// the number there is never newer than the iteration's, and nothing
/// changes.
fn later_numbered_assignments(func: &Function, in_loop: &HashSet<Block>) -> Vec<(Inst, Inst)> {
    let mut pairs: Vec<(Inst, Inst, &str)> = Vec::new();
    for &block in func.layout.blocks().iter().filter(|block| in_loop.contains(block)) {
        let insts = func.layout.block_insts(block);
        for window in insts.windows(2) {
            let (number_store, value_store) = (window[0], window[1]);
            let InstData::Store { addr: number_addr, .. } = func.dfg.inst(number_store) else {
                continue;
            };
            let Some(number_global) = iteration_number_global(func, *number_addr) else {
                continue;
            };
            let InstData::Store { addr, .. } = func.dfg.inst(value_store) else { continue };
            if symbol(func, *addr) == value_global_of(number_global).as_deref() {
                pairs.push((number_store, value_store, number_global));
            }
        }
    }
    let stored_twice =
        |global: &str| pairs.iter().filter(|(_, _, other)| *other == global).count() > 1;
    pairs
        .iter()
        .filter(|(_, _, global)| stored_twice(global))
        .map(|&(number_store, value_store, _)| (number_store, value_store))
        .collect()
}

/// Makes the pair `number_store`, `value_store` keep both globals when the
/// number global already holds a newer iteration than the one stored here.
fn recheck_numbered(func: &mut Function, number_store: Inst, value_store: Inst) {
    recheck_against(func, number_store, value_store, Recheck::NumberAndValue);
}

/// A store of the number to `number_global` in the loop that dominates
/// `store` (so it ran earlier in the same iteration).
fn dominating_number_store(
    func: &Function,
    in_loop: &HashSet<Block>,
    domtree: &DominatorTree,
    store: Inst,
    number_global: &str,
) -> Option<Inst> {
    let block = func.layout.inst_block(store)?;
    let position = |inst: Inst, block: Block| {
        func.layout.block_insts(block).iter().position(|candidate| *candidate == inst)
    };
    func.layout
        .blocks()
        .iter()
        .filter(|candidate| in_loop.contains(candidate) && domtree.dominates(**candidate, block))
        .flat_map(|candidate| func.layout.block_insts(*candidate).iter().copied())
        .filter(|inst| {
            matches!(func.dfg.inst(*inst), InstData::Store { addr, .. }
                if iteration_number_global(func, *addr) == Some(number_global))
        })
        .find(|inst| {
            let number_block = func.layout.inst_block(*inst).expect("in the layout");
            number_block != block || position(*inst, block) < position(store, block)
        })
}

/// Makes `store` keep the global's value when the number global holds a
/// newer iteration than the one `number_store` wrote.
fn recheck(func: &mut Function, store: Inst, number_store: Inst) {
    recheck_against(func, number_store, store, Recheck::Value);
}

/// What [`recheck_against`] rewrites.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Recheck {
    /// `value_store` only, at its own point (a late value store).
    Value,
    /// `number_store` and the `value_store` right after it, at the number
    /// store's point (a later assignment that stores the number again).
    NumberAndValue,
}

/// Before `value_store` (or `number_store`, as `what` says): loads the
/// number global's current value `now` and the value global's `kept`, and
/// stores `kept` (and `now`) instead when `now` is newer than the number
/// `number_store` wrote.
fn recheck_against(func: &mut Function, number_store: Inst, value_store: Inst, what: Recheck) {
    let InstData::Store { value: number, addr: number_address, align: number_align, .. } =
        func.dfg.inst(number_store).clone()
    else {
        unreachable!("a store of the iteration number")
    };
    let InstData::Store { value, addr, align, .. } = func.dfg.inst(value_store).clone() else {
        unreachable!("a store of the value")
    };
    let at = match what {
        Recheck::Value => value_store,
        Recheck::NumberAndValue => number_store,
    };
    let number_ty = func.dfg.value_type(number).clone();
    let value_ty = func.dfg.value_type(value).clone();
    let insert = |func: &mut Function, data: InstData, ty: Type| -> Value {
        let inst = func.dfg.make_inst(data, ty);
        func.layout.insert_inst_before(inst, at);
        func.dfg.result(inst).expect("the instruction has a result")
    };
    let select = |cond: Value, if_true: Value, if_false: Value| InstData::Select {
        cond,
        if_true,
        if_false,
        flags: FastMathFlags::default(),
    };
    let now = insert(
        func,
        InstData::Load {
            ty: number_ty.clone(),
            addr: number_address,
            align: number_align,
            volatile: false,
        },
        number_ty.clone(),
    );
    let older =
        insert(func, InstData::Icmp { pred: IntPredicate::Sgt, lhs: now, rhs: number }, Type::BOOL);
    let kept = insert(
        func,
        InstData::Load { ty: value_ty.clone(), addr, align, volatile: false },
        value_ty.clone(),
    );
    if what == Recheck::NumberAndValue {
        let newest = insert(func, select(older, now, number), number_ty);
        if let InstData::Store { value, .. } = func.dfg.inst_mut(number_store) {
            *value = newest;
        }
    }
    let chosen = insert(func, select(older, kept, value), value_ty);
    if let InstData::Store { value, .. } = func.dfg.inst_mut(value_store) {
        *value = chosen;
    }
}
