//! Unit tests of [`make_reducible`]: the rewritten functions verify, have
//! natural loops only, and compute what the originals compute (run in the
//! interpreter).

use lanewise_analysis::{DominatorTree, LoopInfo};
use lanewise_ir::{verify_function, BinaryOp, Block, FunctionBuilder};

use super::*;
use crate::interp::{Interpreter, Memory, Val};

fn run(func: &Function, x: i32) -> u128 {
    let mut interpreter = Interpreter::new(Memory::new(0x1000, 64), |name, _| {
        Err(crate::interp::InterpError(format!("no external `{name}`")))
    });
    let value = Val::Int { bits: 32, value: u128::from(x as u32) };
    match interpreter.run(func, &[value]).unwrap() {
        Some(Val::Int { value, .. }) => value,
        other => panic!("`f` returned {other:?}"),
    }
}

fn is_reducible(func: &Function) -> bool {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    LoopInfo::compute(func, &cfg, &domtree).is_ok()
}

fn constant(b: &mut FunctionBuilder<'_>, value: i128) -> Value {
    b.iconst(Type::I32, value)
}

/// A tangled loop: `if (x > 5) goto second; first: x += 3; if (x & 1)
/// return x; second: x -= 2; if (x > 0) goto first; return x;` (entries
/// `first` and `second`).
fn tangled_loop() -> Function {
    let mut func = Function::new("f", vec![Type::I32], Type::I32);
    let x = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let first = b.create_block(Some("first"));
    let second = b.create_block(Some("second"));
    let done = b.create_block(Some("done"));
    b.switch_to_block(entry);
    let five = constant(&mut b, 5);
    let big = b.icmp(IntPredicate::Sgt, x, five);
    b.branch(big, second, first);
    b.switch_to_block(first);
    let first_x = b.phi(Type::I32, vec![(entry, x)]);
    let three = constant(&mut b, 3);
    let added = b.binary(BinaryOp::Add, first_x, three);
    let one = constant(&mut b, 1);
    let low_bit = b.binary(BinaryOp::And, added, one);
    let zero = constant(&mut b, 0);
    let odd = b.icmp(IntPredicate::Ne, low_bit, zero);
    b.branch(odd, done, second);
    b.switch_to_block(second);
    let second_x = b.phi(Type::I32, vec![(entry, x), (first, added)]);
    let two = constant(&mut b, 2);
    let subtracted = b.binary(BinaryOp::Sub, second_x, two);
    let positive = b.icmp(IntPredicate::Sgt, subtracted, zero);
    b.branch(positive, first, done);
    b.switch_to_block(done);
    let result = b.phi(Type::I32, vec![(first, added), (second, subtracted)]);
    b.ret(Some(result));
    let first_phi = func.dfg.defining_inst(first_x).unwrap();
    if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(first_phi) {
        incoming.push((second, subtracted));
    }
    verify_function(&func).unwrap();
    func
}

#[test]
fn a_cycle_with_two_entries_gets_one_header() {
    let original = tangled_loop();
    assert!(!is_reducible(&original));
    let mut func = original.clone();
    let reduced = make_reducible(&mut func).unwrap();
    assert_eq!(
        reduced,
        vec![ReducedCycle {
            entries: vec!["first".to_owned(), "second".to_owned()],
            dispatch: "first.irreducible.dispatch".to_owned(),
            blocks: 2,
        }]
    );
    verify_function(&func).unwrap();
    assert!(is_reducible(&func));
    for x in -20..40 {
        assert_eq!(run(&func, x), run(&original, x), "x = {x}");
    }
    // Nothing is left to do.
    assert_eq!(make_reducible(&mut func.clone()).unwrap(), Vec::new());
}

#[test]
fn reducible_functions_are_left_alone() {
    let mut func = Function::new("f", vec![Type::I32], Type::I32);
    let x = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("header"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    b.jump(header);
    b.switch_to_block(header);
    let counter = b.phi(Type::I32, vec![(entry, x)]);
    let one = constant(&mut b, 1);
    let next = b.binary(BinaryOp::Sub, counter, one);
    let zero = constant(&mut b, 0);
    let again = b.icmp(IntPredicate::Sgt, next, zero);
    b.branch(again, header, exit);
    b.switch_to_block(exit);
    b.ret(Some(next));
    let phi = func.dfg.defining_inst(counter).unwrap();
    if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
        incoming.push((header, next));
    }
    let before = func.clone();
    assert_eq!(make_reducible(&mut func).unwrap(), Vec::new());
    assert_eq!(format!("{func}"), format!("{before}"));
}

/// A state machine: `state` picks one of three blocks `s0`, `s1`, `s2`
/// entered from the entry's switch, each moving to another state until a
/// step budget runs out; all three are entries of one cycle, which sits
/// inside a natural loop over `round`.
fn state_machine() -> Function {
    let mut func = Function::new("f", vec![Type::I32], Type::I32);
    let x = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let outer = b.create_block(Some("outer"));
    let s0 = b.create_block(Some("s0"));
    let s1 = b.create_block(Some("s1"));
    let s2 = b.create_block(Some("s2"));
    let latch = b.create_block(Some("latch"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    b.jump(outer);
    // outer: round = phi [0, entry], [round + 1, latch]; acc = phi [x, entry], [acc', latch]
    b.switch_to_block(outer);
    let round_start = constant(&mut b, 0);
    let round = b.phi(Type::I32, vec![(entry, round_start)]);
    let acc = b.phi(Type::I32, vec![(entry, x)]);
    let three = constant(&mut b, 3);
    let picked = b.binary(BinaryOp::URem, acc, three);
    let zero = constant(&mut b, 0);
    let one = constant(&mut b, 1);
    let is0 = b.icmp(IntPredicate::Eq, picked, zero);
    let is1 = b.icmp(IntPredicate::Eq, picked, one);
    let pick12 = b.create_block(Some("pick12"));
    b.branch(is0, s0, pick12);
    b.switch_to_block(pick12);
    b.branch(is1, s1, s2);
    // Each state adds to `value` and moves on while `steps` lasts.
    let states = [s0, s1, s2];
    let mut values = Vec::new();
    let mut steps = Vec::new();
    let mut nexts = Vec::new();
    for (index, &state) in states.iter().enumerate() {
        b.switch_to_block(state);
        let from_outside = if index == 0 { outer } else { pick12 };
        let value = b.phi(Type::I32, vec![(from_outside, acc)]);
        let budget = constant(&mut b, 4);
        let step = b.phi(Type::I32, vec![(from_outside, budget)]);
        let scale = constant(&mut b, index as i128 * 2 + 3);
        let scaled = b.binary(BinaryOp::Mul, value, scale);
        let seven = constant(&mut b, 7);
        let next_value = b.binary(BinaryOp::Add, scaled, seven);
        let masked = constant(&mut b, 0xffff);
        let next_value = b.binary(BinaryOp::And, next_value, masked);
        let next_step = b.binary(BinaryOp::Sub, step, one);
        let more = b.icmp(IntPredicate::Sgt, next_step, zero);
        let go_on = b.create_block(Some(&format!("s{index}.more")));
        b.branch(more, go_on, latch);
        b.switch_to_block(go_on);
        let low = b.binary(BinaryOp::And, next_value, one);
        let odd = b.icmp(IntPredicate::Ne, low, zero);
        let (odd_target, even_target) = (states[(index + 1) % 3], states[(index + 2) % 3]);
        b.branch(odd, odd_target, even_target);
        values.push((value, go_on, next_value));
        steps.push((step, go_on, next_step));
        nexts.push((state, next_value));
    }
    // Fill the states' phis from the two predecessors inside the cycle.
    for (index, &state) in states.iter().enumerate() {
        for (from_index, &(_, go_on, next_value)) in values.iter().enumerate() {
            let targets = [states[(from_index + 1) % 3], states[(from_index + 2) % 3]];
            if !targets.contains(&state) {
                continue;
            }
            let next_step = steps[from_index].2;
            for (phi_value, incoming_value) in
                [(values[index].0, next_value), (steps[index].0, next_step)]
            {
                let phi = b.func.dfg.defining_inst(phi_value).unwrap();
                if let InstData::Phi { incoming, .. } = b.func.dfg.inst_mut(phi) {
                    incoming.push((go_on, incoming_value));
                }
            }
        }
    }
    b.switch_to_block(latch);
    let finished: Vec<(Block, Value)> =
        nexts.iter().map(|&(state, next_value)| (state, next_value)).collect();
    let finished = b.phi(Type::I32, finished);
    let next_round = b.binary(BinaryOp::Add, round, one);
    let rounds = constant(&mut b, 3);
    let again = b.icmp(IntPredicate::Slt, next_round, rounds);
    b.branch(again, outer, exit);
    b.switch_to_block(exit);
    b.ret(Some(finished));
    for (phi_value, value) in [(round, next_round), (acc, finished)] {
        let phi = func.dfg.defining_inst(phi_value).unwrap();
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
            incoming.push((latch, value));
        }
    }
    verify_function(&func).unwrap();
    func
}

#[test]
fn a_three_entry_cycle_inside_a_natural_loop_gets_one_header() {
    let original = state_machine();
    assert!(!is_reducible(&original));
    let mut func = original.clone();
    let reduced = make_reducible(&mut func).unwrap();
    assert_eq!(reduced.len(), 1, "{reduced:?}");
    assert_eq!(reduced[0].entries, vec!["s0", "s1", "s2"]);
    verify_function(&func).unwrap();
    assert!(is_reducible(&func));
    for x in [-7, 0, 1, 2, 3, 10, 99, 1000, 65535, -65536] {
        assert_eq!(run(&func, x), run(&original, x), "x = {x}");
    }
}
