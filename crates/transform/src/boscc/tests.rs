//! Structure of the guard. That guarded functions keep their meaning is
//! checked on every random function of the linearization tests (their
//! `check_widened` runs this pass before widening, scalar lanes against the
//! widened function in the interpreter).

use lanewise_ir::*;

use super::*;

/// `if (v < 0) { for (i = 0; i < u; i++) out[i] += v; r = i } else r = 7;
/// return r` as a linearized function would have it: the loop's preheader
/// and header carry the varying predicate `v < 0`.
fn masked_loop() -> (Function, BlockPredicates, [Block; 4]) {
    let mut func = Function::new("f", vec![Type::I32, Type::I32, Type::PTR], Type::I32);
    let (u, v, out) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let preheader = b.create_block(Some("preheader"));
    let header = b.create_block(Some("header"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    let zero = b.iconst(Type::I32, 0);
    let negative = b.icmp(IntPredicate::Slt, v, zero);
    b.jump(preheader);
    b.switch_to_block(preheader);
    b.jump(header);
    b.switch_to_block(header);
    let zero_again = b.iconst(Type::I32, 0);
    let placeholder = b.iconst(Type::I32, 0);
    let i = b.phi(Type::I32, vec![(preheader, zero_again), (header, placeholder)]);
    let slot = b.gep(Type::I32, out, vec![i]);
    let old = b.load(Type::I32, slot, 4);
    let new = b.binary(BinaryOp::Add, old, v);
    b.store(new, slot, 4);
    let one = b.iconst(Type::I32, 1);
    let next = b.binary(BinaryOp::Add, i, one);
    let more = b.icmp(IntPredicate::Slt, next, u);
    b.branch(more, header, exit);
    b.switch_to_block(exit);
    let live_out = b.phi(Type::I32, vec![(header, next)]);
    let seven = b.iconst(Type::I32, 7);
    let result = b.select(negative, live_out, seven);
    b.ret(Some(result));
    let phi_inst = func.dfg.defining_inst(i).unwrap();
    if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi_inst) {
        incoming[1].1 = next;
    }
    let mut predicates = BlockPredicates::all_active();
    for block in [preheader, header] {
        predicates.set(block, Some(negative));
    }
    (func, predicates, [entry, preheader, header, exit])
}

#[test]
fn a_loop_under_a_varying_predicate_is_skipped_when_no_lane_is_active() {
    let (mut func, mut predicates, [_, preheader, header, exit]) = masked_loop();
    verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));
    assert_eq!(skip_loops_without_active_lanes(&mut func, &mut predicates), 1);
    verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));
    // preheader: any = rv_any(v < 0); br any, header, skip
    let terminator = func.terminator(preheader).unwrap();
    let InstData::Branch { cond, then_dest, else_dest } = func.dfg.inst(terminator).clone() else {
        panic!("{func}")
    };
    assert_eq!(then_dest, header);
    assert_eq!(func.dfg.callee_name(func.dfg.defining_inst(cond).unwrap()), Some("rv_any"));
    assert_eq!(func.successors(else_dest), vec![exit]);
    assert!(predicates.get(else_dest).is_some());
    // The exit phi takes `i + 1` recomputed in the skip block from the
    // entry value of `i`.
    let phi = block_phis(&func, exit)[0];
    let InstData::Phi { incoming, .. } = func.dfg.inst(phi) else { unreachable!() };
    let from_skip = incoming.iter().find(|(block, _)| *block == else_dest).unwrap().1;
    let recomputed = func.dfg.defining_inst(from_skip).unwrap();
    assert_eq!(func.layout.inst_block(recomputed), Some(else_dest));
    let InstData::Binary { op: BinaryOp::Add, lhs, .. } = func.dfg.inst(recomputed) else {
        panic!("{func}")
    };
    assert_eq!(func.dfg.int_constant(*lhs), Some(0));
    // Guarding twice changes nothing more.
    assert_eq!(skip_loops_without_active_lanes(&mut func, &mut predicates), 0);
}

#[test]
fn all_active_loops_are_left_alone_and_live_outs_get_exit_phis() {
    // All lanes active at the loop: nothing to skip.
    let (mut func, _, _) = masked_loop();
    let mut all_active = BlockPredicates::all_active();
    assert_eq!(skip_loops_without_active_lanes(&mut func, &mut all_active), 0);
    // A loop value used after the loop directly (not through the exit phi)
    // gets its own exit phi, recomputed in the skip block.
    let (mut func, mut predicates, [_, _, header, exit]) = masked_loop();
    let next = func
        .layout
        .block_insts(header)
        .iter()
        .rev()
        .find_map(|inst| match func.dfg.inst(*inst) {
            InstData::Binary { op: BinaryOp::Add, .. } => func.dfg.result(*inst),
            _ => None,
        })
        .unwrap();
    let ret = func.terminator(exit).unwrap();
    let leak = func.dfg.make_inst(
        InstData::Binary { op: BinaryOp::Mul, lhs: next, rhs: next, flags: ArithFlags::default() },
        Type::I32,
    );
    func.layout.insert_inst_before(leak, ret);
    assert_eq!(skip_loops_without_active_lanes(&mut func, &mut predicates), 1);
    verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));
    let InstData::Binary { lhs, .. } = func.dfg.inst(leak).clone() else { unreachable!() };
    assert_ne!(lhs, next);
    let new_phi = func.dfg.defining_inst(lhs).unwrap();
    assert_eq!(func.layout.inst_block(new_phi), Some(exit));
    let InstData::Phi { incoming, .. } = func.dfg.inst(new_phi) else { panic!("{func}") };
    assert_eq!(incoming.len(), 2);
    assert!(incoming.iter().any(|(_, value)| *value == next));
    assert!(incoming.iter().any(|(_, value)| *value != next));
}

#[test]
fn loops_whose_live_outs_depend_on_memory_are_left_alone() {
    // `r = out[0]` loaded in the loop and used after it: it cannot be
    // recomputed without the loop's memory.
    let (mut func, mut predicates, [_, _, header, exit]) = masked_loop();
    let out = func.param_value(2);
    let branch = func.terminator(header).unwrap();
    let load = func.dfg.make_inst(
        InstData::Load { ty: Type::I32, addr: out, align: 4, volatile: false },
        Type::I32,
    );
    func.layout.insert_inst_before(load, branch);
    let loaded = func.dfg.result(load).unwrap();
    let ret = func.terminator(exit).unwrap();
    let use_after = func.dfg.make_inst(
        InstData::Binary {
            op: BinaryOp::Add,
            lhs: loaded,
            rhs: loaded,
            flags: ArithFlags::default(),
        },
        Type::I32,
    );
    func.layout.insert_inst_before(use_after, ret);
    assert_eq!(skip_loops_without_active_lanes(&mut func, &mut predicates), 0);
}
