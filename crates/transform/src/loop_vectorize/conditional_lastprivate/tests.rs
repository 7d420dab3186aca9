//! The iteration number of an assignment in an inner loop, as clang's
//! `-O3` leaves it: a copy in the inner loop's header phi.

use std::collections::HashSet;

use lanewise_analysis::loops::LoopInfo;
use lanewise_analysis::{ControlFlowGraph, DominatorTree};
use lanewise_ir::{
    verify_function, BinaryOp, CallEffects, Callee, CastOp, Constant, Function, FunctionBuilder,
    InstData, IntPredicate, LoopHints, Type, Value,
};

use super::simplify_conditional_lastprivate;
use crate::loop_vectorize::{find_simd_loops, LoopRefusal};

const GLOBAL: &str = ".pl_cond.x_7.iv";

/// ```text
/// for (i = 0; i < n; i++)        // marked
///   for (k = 0; k < m; k++)
///     [call effect();]           // with `call_in_inner`
///     if (!(i < p)) { p = i; store i, @.pl_cond.x_7.iv }
/// ```
/// with `p` loaded before the outer loop and carried in the inner header
/// phi `%p` only (the outer body reloads it, as clang leaves it).
fn inner_loop_assignment(call_in_inner: bool) -> Function {
    let mut func = Function::new("f", vec![Type::I32, Type::I32], Type::Void);
    let (n, m) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("header"));
    let inner = b.create_block(Some("inner"));
    let assign = b.create_block(Some("assign"));
    let inner_latch = b.create_block(Some("inner.latch"));
    let latch = b.create_block(Some("latch"));
    let exit = b.create_block(Some("exit"));
    let global = b.func.dfg.make_const(Type::PTR, Constant::Symbol(GLOBAL.to_owned()));
    let zero = b.iconst(Type::I32, 0);
    let one = b.iconst(Type::I32, 1);

    b.switch_to_block(entry);
    b.jump(header);
    b.switch_to_block(header);
    let i = b.phi(Type::I32, vec![(entry, zero)]);
    let p0 = b.load(Type::I32, global, 4);
    b.jump(inner);

    b.switch_to_block(inner);
    let k = b.phi(Type::I32, vec![(header, zero)]);
    let p = b.phi(Type::I32, vec![(header, p0)]);
    if call_in_inner {
        b.call(Callee::Direct("effect".into()), vec![], Type::Void, CallEffects::SideEffects);
    }
    let wide_i = b.cast(CastOp::SExt, i, Type::I64);
    let wide_p = b.cast(CastOp::SExt, p, Type::I64);
    let older = b.icmp(IntPredicate::Slt, wide_i, wide_p);
    b.branch(older, inner_latch, assign);

    b.switch_to_block(assign);
    b.store(i, global, 4);
    b.jump(inner_latch);

    b.switch_to_block(inner_latch);
    let u = b.phi(Type::I32, vec![(inner, p), (assign, i)]);
    b.add_phi_incoming(p, inner_latch, u);
    let k_next = b.binary(BinaryOp::Add, k, one);
    b.add_phi_incoming(k, inner_latch, k_next);
    let inner_continues = b.icmp(IntPredicate::Slt, k_next, m);
    b.branch(inner_continues, inner, latch);

    b.switch_to_block(latch);
    let i_next = b.binary(BinaryOp::Add, i, one);
    b.add_phi_incoming(i, latch, i_next);
    let continues = b.icmp(IntPredicate::Slt, i_next, n);
    let latch_branch = b.branch(continues, header, exit);
    b.switch_to_block(exit);
    b.ret(None);
    func.loop_hints.insert(latch_branch, LoopHints::simd_loop());
    verify_function(&func).unwrap();
    func
}

fn simplify(func: &mut Function) -> Result<usize, LoopRefusal> {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let loops = LoopInfo::compute(func, &cfg, &domtree).unwrap();
    let candidate = find_simd_loops(func, &loops, &HashSet::new()).remove(0);
    let result = simplify_conditional_lastprivate(func, &loops, &candidate);
    verify_function(func).unwrap();
    result
}

fn phis(func: &Function) -> usize {
    func.layout.insts().filter(|inst| matches!(func.dfg.inst(*inst), InstData::Phi { .. })).count()
}

fn is_load_of_global(func: &Function, value: Value) -> bool {
    is_load_of(func, value, GLOBAL)
}

/// Whether `value` is a load of the global `global`.
fn is_load_of(func: &Function, value: Value, global: &str) -> bool {
    let Some(inst) = func.dfg.defining_inst(value) else { return false };
    matches!(
        func.dfg.inst(inst),
        InstData::Load { addr, .. }
            if matches!(func.dfg.constant(*addr), Some(Constant::Symbol(name)) if name == global)
    )
}

#[test]
fn inner_loop_copy_becomes_a_load_at_the_comparison() {
    let mut func = inner_loop_assignment(false);
    assert_eq!(phis(&func), 4);
    assert_eq!(simplify(&mut func), Ok(1));
    // `%p` and `%u` are gone; the inductions stay.
    assert_eq!(phis(&func), 2);
    let extension_of_load = func.layout.insts().any(|inst| {
        matches!(func.dfg.inst(inst), InstData::Cast { op: CastOp::SExt, arg, .. }
            if is_load_of_global(&func, *arg))
    });
    assert!(extension_of_load, "the comparison reads the global: {func:?}");
}

#[test]
fn copy_across_a_call_with_side_effects_refuses_the_loop() {
    let mut func = inner_loop_assignment(true);
    let refusal = simplify(&mut func).unwrap_err();
    assert!(refusal.message.contains(GLOBAL), "{refusal}");
    assert!(refusal.message.contains("which the lanes cannot share"), "{refusal}");
    assert!(refusal.message.contains("block %inner"), "{refusal}");
}

const VALUE_GLOBAL: &str = "pl_cond.x_7";

/// ```text
/// for (i = 0; i < n; i++)        // marked
///   if (!(i < load @.pl_cond.x_7.iv)) {
///     store i, @.pl_cond.x_7.iv; store 0, @pl_cond.x_7   // x = 0
///     if (i & 1) store i, @pl_cond.x_7                  // if (c) x = i
///   }
/// ```
/// The second assignment stores only the value (fuzz seed 28203).
fn late_assignment() -> Function {
    conditional_assignments(false)
}

/// ```text
/// for (i = 0; i < n; i++)        // marked
///   if (!(i < load @.pl_cond.x_7.iv)) {
///     store i, @.pl_cond.x_7.iv; store 1, @pl_cond.x_7     // x = 1
///     if (i & 1) {
///       store i, @.pl_cond.x_7.iv; store 0, @pl_cond.x_7   // if (c) x = 0
///     }
///   }
/// ```
/// The second assignment stores the number again, under the first one's
/// check, as clang leaves `x = 1; if (c) x = 0;` (fuzz seed 68099).
fn renumbered_assignment() -> Function {
    conditional_assignments(true)
}

/// The loop of [`late_assignment`] (block `late` for the second
/// assignment) or, `renumbered`, of [`renumbered_assignment`] (block
/// `second`).
fn conditional_assignments(renumbered: bool) -> Function {
    let mut func = Function::new("f", vec![Type::I32], Type::Void);
    let n = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("header"));
    let assign = b.create_block(Some("assign"));
    let second = b.create_block(Some(if renumbered { "second" } else { "late" }));
    let latch = b.create_block(Some("latch"));
    let exit = b.create_block(Some("exit"));
    let number = b.func.dfg.make_const(Type::PTR, Constant::Symbol(GLOBAL.to_owned()));
    let value = b.func.dfg.make_const(Type::PTR, Constant::Symbol(VALUE_GLOBAL.to_owned()));
    let zero = b.iconst(Type::I32, 0);
    let one = b.iconst(Type::I32, 1);

    b.switch_to_block(entry);
    b.jump(header);
    b.switch_to_block(header);
    let i = b.phi(Type::I32, vec![(entry, zero)]);
    let p = b.load(Type::I32, number, 4);
    let older = b.icmp(IntPredicate::Sgt, p, i);
    b.branch(older, latch, assign);

    b.switch_to_block(assign);
    b.store(i, number, 4);
    b.store(if renumbered { one } else { zero }, value, 4);
    let odd = b.binary(BinaryOp::And, i, one);
    let is_odd = b.icmp(IntPredicate::Ne, odd, zero);
    b.branch(is_odd, second, latch);

    b.switch_to_block(second);
    if renumbered {
        b.store(i, number, 4);
        b.store(zero, value, 4);
    } else {
        b.store(i, value, 4);
    }
    b.jump(latch);

    b.switch_to_block(latch);
    let i_next = b.binary(BinaryOp::Add, i, one);
    b.add_phi_incoming(i, latch, i_next);
    let continues = b.icmp(IntPredicate::Slt, i_next, n);
    let latch_branch = b.branch(continues, header, exit);
    b.switch_to_block(exit);
    b.ret(None);
    func.loop_hints.insert(latch_branch, LoopHints::simd_loop());
    verify_function(&func).unwrap();
    func
}

/// Fuzz seed 28203: the value store after the first assignment keeps the
/// global's value unless its iteration is not older than the number the
/// global holds at that point; the first assignment's store stays as it is.
#[test]
fn a_late_assignment_rechecks_the_iteration_number() {
    let mut func = late_assignment();
    assert_eq!(simplify(&mut func), Ok(1));
    let late = func.layout.blocks().iter().copied().find(|block| func.block_name(*block) == "late");
    let late = late.expect("the late block");
    let insts = func.layout.block_insts(late).to_vec();
    let store = insts.iter().rev().find_map(|inst| match func.dfg.inst(*inst) {
        InstData::Store { value, .. } => Some(*value),
        _ => None,
    });
    let stored = func.dfg.defining_inst(store.expect("the store")).expect("a select");
    let InstData::Select { cond, if_true, .. } = func.dfg.inst(stored).clone() else {
        panic!("the late store stores a select: {func:?}")
    };
    assert!(
        is_load_of_global(
            &func,
            func.dfg.inst(func.dfg.defining_inst(cond).unwrap()).operands()[0]
        ),
        "the condition compares the number loaded there: {func:?}"
    );
    let kept = func.dfg.defining_inst(if_true).expect("a load");
    assert!(matches!(func.dfg.inst(kept), InstData::Load { addr, .. }
        if matches!(func.dfg.constant(*addr), Some(Constant::Symbol(name)) if name == VALUE_GLOBAL)));
    // The store right after the number's keeps its value.
    let assign =
        func.layout.blocks().iter().copied().find(|block| func.block_name(*block) == "assign");
    let first = func.layout.block_insts(assign.unwrap()).iter().find_map(|inst| {
        match func.dfg.inst(*inst) {
            InstData::Store { value, addr, .. }
                if matches!(func.dfg.constant(*addr), Some(Constant::Symbol(name)) if name == VALUE_GLOBAL) =>
            {
                Some(*value)
            }
            _ => None,
        }
    });
    assert_eq!(first.and_then(|value| func.dfg.int_constant(value)), Some(0));
}

/// The select a store of `global` in `block` stores: its condition and
/// the two values it chooses between.
fn stored_select(func: &Function, block_name: &str, global: &str) -> (Value, Value, Value) {
    let block =
        func.layout.blocks().iter().copied().find(|block| func.block_name(*block) == block_name);
    let block = block.unwrap_or_else(|| panic!("block %{block_name}"));
    let stored = func.layout.block_insts(block).iter().find_map(|inst| match func.dfg.inst(*inst) {
        InstData::Store { value, addr, .. }
            if matches!(func.dfg.constant(*addr), Some(Constant::Symbol(name)) if name == global) =>
        {
            Some(*value)
        }
        _ => None,
    });
    let stored = stored.unwrap_or_else(|| panic!("a store of @{global} in %{block_name}"));
    match func.dfg.defining_inst(stored).map(|inst| func.dfg.inst(inst).clone()) {
        Some(InstData::Select { cond, if_true, if_false, .. }) => (cond, if_true, if_false),
        other => panic!("%{block_name} stores a select in @{global}, not {other:?}: {func:?}"),
    }
}

/// Fuzz seed 68099: both assignments of a variable assigned at two points
/// re-check the number at their own point, the number store and the value
/// store alike, so a lane with an older iteration keeps what a newer lane
/// stored in both globals.
#[test]
fn every_numbered_assignment_of_a_variable_assigned_twice_rechecks_the_number() {
    let mut func = renumbered_assignment();
    assert_eq!(simplify(&mut func), Ok(2));
    for (block, stored_value) in [("assign", 1), ("second", 0)] {
        let (newer, now, iteration) = stored_select(&func, block, GLOBAL);
        assert!(is_load_of(&func, now, GLOBAL), "%{block} keeps the number it loaded: {func:?}");
        let iteration_def = func.dfg.defining_inst(iteration).map(|inst| func.dfg.inst(inst));
        assert!(
            matches!(iteration_def, Some(InstData::Phi { .. })),
            "%{block} stores the iteration's number otherwise: {func:?}"
        );
        let InstData::Icmp { pred: IntPredicate::Sgt, lhs, rhs } =
            func.dfg.inst(func.dfg.defining_inst(newer).unwrap()).clone()
        else {
            panic!("%{block} compares the numbers: {func:?}")
        };
        assert_eq!((lhs, rhs), (now, iteration));
        let (value_newer, kept, value) = stored_select(&func, block, VALUE_GLOBAL);
        assert_eq!(value_newer, newer, "%{block}: one check for both stores");
        assert!(is_load_of(&func, kept, VALUE_GLOBAL), "%{block} keeps the value: {func:?}");
        assert_eq!(func.dfg.int_constant(value), Some(stored_value));
    }
}
