//! Tests of loop-nest flattening: ragged sums (bench/kernels/ragged.c) and
//! variants with a store in the outer loop and a break out of both loops,
//! run in the reference interpreter before and after flattening on random
//! tables, whose counts give empty, short and long loops.

use lanewise_ir::{verify_function, BinaryOp, CastOp, FunctionBuilder, IntPredicate};

use super::*;
use crate::interp::{Interpreter, Memory, Val};
use crate::test_support::Rng;

const MEMORY_BASE: u64 = 0x1000;
/// Entries (`i32`) of each table: `counts`, then `data`.
const ENTRIES: u64 = 64;

#[derive(Copy, Clone, Default)]
struct Extras {
    /// The outer loop stores its running sum to `data[j]` after the inner
    /// loop (a side effect between inner loops).
    store_in_outer: bool,
    /// An element equal to 7 leaves both loops at once, returning `-sum`.
    break_out_of_both: bool,
    /// The entry branches straight into the outer loop (no preheader of
    /// its own: flattening makes one).
    no_preheader: bool,
}

/// `ragged(ptr counts, ptr data, i32 item) -> i32`: `counts[item & 63] &
/// 15` segments, segment `j` with `(counts[(item + j) & 63] >> 4) & 15`
/// elements, summing `data[(7 item + 5 j + k) & 63] ^ k` (clang -O2's
/// rotated form: a guarded outer loop, a guarded single-block inner loop,
/// LCSSA phis at the outer latch and the return). Returns the function and
/// the headers of its two loops.
fn ragged(extras: Extras) -> (Function, [Block; 2]) {
    let mut func = Function::new("ragged", vec![Type::PTR, Type::PTR, Type::I32], Type::I32);
    let (counts, data, item) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let c0 = func.dfg.int_const(Type::I32, 0);
    let c1 = func.dfg.int_const(Type::I32, 1);
    let c4 = func.dfg.int_const(Type::I32, 4);
    let c5 = func.dfg.int_const(Type::I32, 5);
    let c7 = func.dfg.int_const(Type::I32, 7);
    let c15 = func.dfg.int_const(Type::I32, 15);
    let c63 = func.dfg.int_const(Type::I32, 63);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let preheader = b.create_block(Some("outer.pre"));
    let outer = b.create_block(Some("outer"));
    let inner_pre = b.create_block(Some("inner.pre"));
    let inner = b.create_block(Some("inner"));
    let inner_next = b.create_block(Some("inner.next"));
    let latch = b.create_block(Some("outer.latch"));
    let broke = b.create_block(Some("broke"));
    let done = b.create_block(Some("done"));
    let element = |b: &mut FunctionBuilder, table: Value, index: Value| {
        let masked = b.binary(BinaryOp::And, index, c63);
        let wide = b.cast(CastOp::ZExt, masked, Type::I64);
        let address = b.gep(Type::I32, table, vec![wide]);
        (address, b.load(Type::I32, address, 4))
    };

    b.switch_to_block(entry);
    let (_, first) = element(&mut b, counts, item);
    let segments = b.binary(BinaryOp::And, first, c15);
    let none = b.icmp(IntPredicate::Eq, segments, c0);
    let item7 = b.binary(BinaryOp::Mul, item, c7);
    // The block the outer loop is entered from.
    let outer_pre = if extras.no_preheader {
        b.branch(none, done, outer);
        entry
    } else {
        b.branch(none, done, preheader);
        b.switch_to_block(preheader);
        b.jump(outer);
        preheader
    };

    b.switch_to_block(outer);
    let j = b.phi(Type::I32, vec![(outer_pre, c0)]);
    let sum = b.phi(Type::I32, vec![(outer_pre, c0)]);
    let at = b.binary(BinaryOp::Add, item, j);
    let (_, count) = element(&mut b, counts, at);
    let shifted = b.binary(BinaryOp::LShr, count, c4);
    let elements = b.binary(BinaryOp::And, shifted, c15);
    let empty = b.icmp(IntPredicate::Eq, elements, c0);
    b.branch(empty, latch, inner_pre);

    b.switch_to_block(inner_pre);
    let j5 = b.binary(BinaryOp::Mul, j, c5);
    let base = b.binary(BinaryOp::Add, j5, item7);
    b.jump(inner);

    b.switch_to_block(inner);
    let k = b.phi(Type::I32, vec![(inner_pre, c0)]);
    let partial = b.phi(Type::I32, vec![(inner_pre, sum)]);
    let index = b.binary(BinaryOp::Add, base, k);
    let (_, value) = element(&mut b, data, index);
    let term = b.binary(BinaryOp::Xor, value, k);
    let next_partial = b.binary(BinaryOp::Add, partial, term);
    let next_k = b.binary(BinaryOp::Add, k, c1);
    if extras.break_out_of_both {
        let seven = b.icmp(IntPredicate::Eq, value, c7);
        b.branch(seven, broke, inner_next);
    } else {
        b.jump(inner_next);
    }

    b.switch_to_block(inner_next);
    let inner_done = b.icmp(IntPredicate::Eq, next_k, elements);
    b.branch(inner_done, latch, inner);
    b.add_phi_incoming(k, inner_next, next_k);
    b.add_phi_incoming(partial, inner_next, next_partial);

    b.switch_to_block(latch);
    let new_sum = b.phi(Type::I32, vec![(outer, sum), (inner_next, next_partial)]);
    if extras.store_in_outer {
        let (address, _) = element(&mut b, data, j);
        b.store(new_sum, address, 4);
    }
    let next_j = b.binary(BinaryOp::Add, j, c1);
    let outer_done = b.icmp(IntPredicate::Eq, next_j, segments);
    b.branch(outer_done, done, outer);
    b.add_phi_incoming(j, latch, next_j);
    b.add_phi_incoming(sum, latch, new_sum);

    b.switch_to_block(broke);
    let negated = b.binary(BinaryOp::Sub, c0, next_partial);
    b.jump(done);

    b.switch_to_block(done);
    let mut results = vec![(entry, c0), (latch, new_sum)];
    if extras.break_out_of_both {
        results.push((broke, negated));
    }
    let result = b.phi(Type::I32, results);
    b.ret(Some(result));
    if !extras.break_out_of_both {
        func.layout.remove_block(broke);
    }
    if extras.no_preheader {
        func.layout.remove_block(preheader);
    }
    (func, [outer, inner])
}

/// Runs `func` on `item` over tables drawn from `seed`; returns the result
/// and the memory afterwards.
fn run(func: &Function, seed: u64, item: u32) -> (Val, Vec<u8>) {
    let mut rng = Rng::new(seed);
    let mut memory = Memory::new(MEMORY_BASE, (2 * ENTRIES * 4) as usize);
    for entry in 0..2 * ENTRIES {
        // Counts: segments and elements in 0..15, small ones often; data
        // in 0..15, so that 7 (the early exit) comes up.
        let value = if entry < ENTRIES {
            let small = |rng: &mut Rng| if rng.chance(50) { rng.below(3) } else { rng.below(16) };
            small(&mut rng) | small(&mut rng) << 4
        } else {
            rng.below(16)
        };
        memory.write(MEMORY_BASE + entry * 4, &(value as u32).to_le_bytes()).unwrap();
    }
    let mut interpreter =
        Interpreter::new(memory, |name: &str, _: &[Val]| panic!("unexpected call of {name}"));
    let counts = Val::Ptr(MEMORY_BASE);
    let data = Val::Ptr(MEMORY_BASE + ENTRIES * 4);
    let result = interpreter
        .run(func, &[counts, data, Val::int(32, u128::from(item))])
        .unwrap_or_else(|error| panic!("{}: {error:?}", func.name))
        .expect("a result");
    let bytes = interpreter.memory.read(MEMORY_BASE, 2 * ENTRIES * 4).unwrap().to_vec();
    (result, bytes)
}

/// Costs that make the inner loop's body (the blocks `inner` and
/// `inner.next`) worth flattening: 10 per instruction.
fn heavy_inner_body(func: &Function) -> HashMap<Inst, usize> {
    func.layout
        .blocks()
        .iter()
        .filter(|block| ["inner", "inner.next"].contains(&func.block_name(**block).as_str()))
        .flat_map(|block| func.layout.block_insts(*block).iter().map(|inst| (*inst, 10)))
        .collect()
}

fn flatten(func: &mut Function, headers: [Block; 2]) -> usize {
    let divergent: HashSet<Block> = headers.into_iter().collect();
    let costs = heavy_inner_body(func);
    let profit = NestProfit::Costs(costs);
    let flattened = flatten_divergent_nests(func, &divergent, &[], &profit).expect("reducible");
    if let Err(errors) = verify_function(func) {
        panic!("{errors:?}\n{func}");
    }
    flattened
}

fn assert_same_meaning(extras: Extras) {
    let (scalar, headers) = ragged(extras);
    let mut flat = scalar.clone();
    assert_eq!(flatten(&mut flat, headers), 1);
    let snapshot = CfgSnapshot::compute(&flat).unwrap();
    assert_eq!(snapshot.loops.len(), 1, "one loop is left:\n{flat}");
    for seed in 0..200 {
        for item in [0, 5, 17, 63] {
            let (expected, expected_memory) = run(&scalar, seed, item);
            let (actual, actual_memory) = run(&flat, seed, item);
            assert!(
                actual.same_as(&expected),
                "seed {seed}, item {item}: {actual:?} != {expected:?}"
            );
            assert_eq!(actual_memory, expected_memory, "seed {seed}, item {item}: memory");
        }
    }
}

#[test]
fn a_flat_ragged_sum_computes_the_nested_one() {
    assert_same_meaning(Extras::default());
}

#[test]
fn stores_between_inner_loops_happen_in_the_same_order() {
    assert_same_meaning(Extras { store_in_outer: true, ..Extras::default() });
}

#[test]
fn a_break_out_of_both_loops_leaves_the_flat_loop() {
    assert_same_meaning(Extras {
        break_out_of_both: true,
        store_in_outer: true,
        ..Extras::default()
    });
}

#[test]
fn an_outer_loop_entered_from_a_branch_gets_a_preheader() {
    assert_same_meaning(Extras { no_preheader: true, ..Extras::default() });
}

/// Only nests of two divergent loops become flat.
#[test]
fn nests_with_a_uniform_loop_stay() {
    for divergent in [0, 1] {
        let (mut func, headers) = ragged(Extras::default());
        let only: HashSet<Block> = [headers[divergent]].into_iter().collect();
        assert_eq!(flatten_divergent_nests(&mut func, &only, &[], &NestProfit::Always).unwrap(), 0);
        assert_eq!(CfgSnapshot::compute(&func).unwrap().loops.len(), 2);
    }
}

/// A nest whose lanes meet in an SPMD builtin or a group function stays:
/// which lanes take part would change.
#[test]
fn nests_calling_lanes_together_stay() {
    for callee in ["rv_any", "my_group_function"] {
        let (mut func, headers) = ragged(Extras::default());
        let inner = headers[1];
        let call = func.dfg.make_inst(
            InstData::Call {
                callee: Callee::Direct(callee.to_owned()),
                args: Vec::new(),
                ret_ty: Type::Void,
                effects: lanewise_ir::CallEffects::default(),
                flags: lanewise_ir::FastMathFlags::default(),
            },
            Type::Void,
        );
        let position = block_phis(&func, inner).len();
        func.layout.insert_inst_at(call, inner, position);
        let divergent: HashSet<Block> = headers.into_iter().collect();
        let group = ["my_group_function".to_owned()];
        let flattened =
            flatten_divergent_nests(&mut func, &divergent, &group, &NestProfit::Always).unwrap();
        assert_eq!(flattened, 0, "{callee}");
    }
}

/// The profitability test: ragged sums as written (an inner body of ten
/// instructions, a gather among them counting W = 8) stay nested, as
/// measured on the bench kernel; with an inner body ten times as costly
/// they become flat.
#[test]
fn only_nests_with_a_costly_inner_body_become_flat() {
    let (func, headers) = ragged(Extras::default());
    let snapshot = CfgSnapshot::compute(&func).unwrap();
    let outer = snapshot.loops.loop_of_header(headers[0]).unwrap();
    let inner = snapshot.loops.loop_of_header(headers[1]).unwrap();
    let gathers: HashMap<Inst, usize> = func
        .layout
        .insts()
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Load { .. }))
        .map(|inst| (inst, 8))
        .collect();
    assert!(!is_worth_flattening(&func, &snapshot, outer, inner, &gathers));
    assert!(is_worth_flattening(&func, &snapshot, outer, inner, &heavy_inner_body(&func)));
    let mut nested = func.clone();
    let divergent: HashSet<Block> = headers.into_iter().collect();
    let profit = NestProfit::Costs(gathers);
    assert_eq!(flatten_divergent_nests(&mut nested, &divergent, &[], &profit).unwrap(), 0);
    let profit = NestProfit::Always;
    assert_eq!(flatten_divergent_nests(&mut nested, &divergent, &[], &profit).unwrap(), 1);
}
