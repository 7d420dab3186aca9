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
    func.loop_hints
        .insert(latch_branch, LoopHints { vectorize_enable: Some(true), ..LoopHints::default() });
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
    let Some(inst) = func.dfg.defining_inst(value) else { return false };
    matches!(
        func.dfg.inst(inst),
        InstData::Load { addr, .. }
            if matches!(func.dfg.constant(*addr), Some(Constant::Symbol(name)) if name == GLOBAL)
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
