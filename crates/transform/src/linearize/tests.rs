//! Tests of the divergent-loop transform, masks and partial linearization:
//! structure (which branches are kept, PLDI'18 Figures 3, 7 and 10), the
//! verifier and the uniform control-flow check after every run, and the
//! per-lane meaning of the rewritten scalar function in the reference
//! interpreter (with one lane `rv_any(x)` is `x`; operations that must not
//! run for inactive lanes are guarded by their block predicate, which is
//! what masked widening does), on hand-written kernels and random CFGs.

use std::collections::HashMap;

use lanewise_analysis::{
    check_uniform_control_flow, ControlFlowGraph, DivergenceInfo, DominatorTree, LoopInfo,
    PostDominatorTree, ShapeInfo,
};
use lanewise_ir::printer::display_function_with_errors;
use lanewise_ir::vfabi::parse_shapes;
use lanewise_ir::*;

use super::*;
use crate::cfg_canon::{block_phis, phi_incoming, rename_phi_predecessor, replace_uses, result_of};
use crate::interp::{InterpError, Interpreter, Memory, Val};
use crate::test_support::Rng;

// ----- Helpers -----

const MEMORY_BASE: u64 = 0x1000;
const SLOTS: u64 = 4;

/// The divergence facts of `func` from the divergence analysis.
fn analyze(func: &Function, shapes: &str) -> DivergenceFacts {
    let specs = parse_shapes(shapes).expect("valid shapes");
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let postdom = PostDominatorTree::compute(func, &cfg);
    let loops = LoopInfo::compute(func, &cfg, &domtree).expect("reducible");
    let info = DivergenceInfo::compute(
        func,
        &cfg,
        &domtree,
        &postdom,
        &loops,
        &DataLayout::default(),
        &specs,
    )
    .expect("divergence analysis");
    DivergenceFacts::from_divergence_info(func, &info, &loops)
}

fn verify(func: &Function) {
    if let Err(errors) = verify_function(func) {
        panic!("verifier failed:\n{}", display_function_with_errors(func, &errors));
    }
}

/// Linearizes a copy of `func` and checks the verifier and that every
/// remaining branch is uniform under the plain shape analysis.
fn linearize(func: &Function, shapes: &str, mode: LinearizeMode) -> (Function, LinearizeReport) {
    verify(func);
    let facts = analyze(func, shapes);
    let mut result = func.clone();
    let report = linearize_function(&mut result, &facts, mode, None)
        .unwrap_or_else(|error| panic!("linearization failed: {error}"));
    verify(&result);
    let specs = parse_shapes(shapes).expect("valid shapes");
    let info = ShapeInfo::compute(&result, &DataLayout::default(), &specs).expect("shapes");
    if let Err(error) = check_uniform_control_flow(&result, &info) {
        panic!("{error}\n{result}");
    }
    (result, report)
}

fn block_named(func: &Function, name: &str) -> Block {
    *func
        .layout
        .blocks()
        .iter()
        .find(|block| func.block_name(**block) == name)
        .unwrap_or_else(|| panic!("no block {name} in\n{func}"))
}

fn successor_names(func: &Function, name: &str) -> Vec<String> {
    let block = block_named(func, name);
    let term = func.terminator(block).expect("terminator");
    func.dfg.inst(term).successors().iter().map(|succ| func.block_name(*succ)).collect()
}

fn is_conditional(func: &Function, name: &str) -> bool {
    func.successors(block_named(func, name)).len() > 1
}

/// Splits every block with a predicate before each operation that must not
/// run in an inactive lane (memory access, side-effect call, trapping
/// division) and runs it only if the predicate holds: the one-lane meaning
/// of masked widening.
fn guard_for_scalar_run(func: &Function, predicates: &BlockPredicates) -> Function {
    let mut func = func.clone();
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    for block in blocks {
        let Some(predicate) = predicates.get(block) else { continue };
        let mut current = block;
        loop {
            let insts = func.layout.block_insts(current).to_vec();
            let Some(position) = insts.iter().position(|inst| needs_guard(func.dfg.inst(*inst)))
            else {
                break;
            };
            let guarded = insts[position];
            let guard = func.dfg.make_block(Some(format!("{}.guard", func.block_name(current))));
            func.layout.insert_block_after(guard, current);
            let rest = func.dfg.make_block(Some(format!("{}.rest", func.block_name(current))));
            func.layout.insert_block_after(rest, guard);
            for inst in &insts[position..] {
                func.layout.remove_inst(*inst);
            }
            func.layout.append_inst(guarded, guard);
            func.append(guard, InstData::Jump { dest: rest }, Type::Void);
            for inst in &insts[position + 1..] {
                func.layout.append_inst(*inst, rest);
            }
            func.append(
                current,
                InstData::Branch { cond: predicate, then_dest: guard, else_dest: rest },
                Type::Void,
            );
            for succ in func.successors(rest) {
                rename_phi_predecessor(&mut func, succ, current, rest);
            }
            if let Some(result) = func.dfg.result(guarded) {
                let ty = func.dfg.value_type(result).clone();
                let undefined = func.dfg.make_const(ty.clone(), Constant::Poison);
                let phi_inst =
                    func.dfg.make_inst(InstData::Phi { ty: ty.clone(), incoming: vec![] }, ty);
                func.layout.insert_inst_at(phi_inst, rest, 0);
                let phi = func.dfg.result(phi_inst).expect("phi result");
                replace_uses(&mut func, &HashMap::from([(result, phi)]));
                *func.dfg.inst_mut(phi_inst) = InstData::Phi {
                    ty: func.dfg.value_type(phi).clone(),
                    incoming: vec![(guard, result), (current, undefined)],
                };
            }
            current = rest;
        }
    }
    verify(&func);
    func
}

fn needs_guard(data: &InstData) -> bool {
    match data {
        InstData::Load { .. } | InstData::Store { .. } => true,
        InstData::Binary { op, .. } => op.can_trap(),
        InstData::Call { callee: Callee::Direct(name), .. } if name.starts_with("rv_") => false,
        InstData::Call { effects, .. } => *effects != CallEffects::Pure,
        _ => false,
    }
}

fn one_lane_externals(name: &str, args: &[Val]) -> Result<Option<Val>, InterpError> {
    match name {
        "rv_any" | "rv_all" => Ok(Some(args[0].clone())),
        other => Err(InterpError(format!("unknown external {other}"))),
    }
}

/// Runs `func` on `args` with a fresh memory of `SLOTS` i32 slots per
/// pointer argument (the last argument is the pointer).
fn run(
    func: &Function,
    args: &[Val],
    initial: &[u8],
) -> (Result<Option<Val>, InterpError>, Vec<u8>) {
    let mut memory = Memory::new(MEMORY_BASE, initial.len());
    memory.bytes.copy_from_slice(initial);
    let mut interpreter = Interpreter::new(memory, one_lane_externals);
    let result = interpreter.run(func, args);
    (result, interpreter.memory.bytes.clone())
}

/// Checks on random inputs that the linearized function (guarded for one
/// lane) computes what the original does.
fn check_same_meaning(
    original: &Function,
    linearized: &Function,
    report: &LinearizeReport,
    seed: u64,
    runs: usize,
) {
    let guarded = guard_for_scalar_run(linearized, &report.predicates);
    let mut rng = Rng::new(seed);
    for _ in 0..runs {
        let mut args = Vec::new();
        for param in &original.params {
            args.push(match param.ty {
                Type::Ptr(_) => Val::Ptr(MEMORY_BASE),
                Type::Int(bits) => Val::int(bits, u128::from(rng.below(16))),
                _ => panic!("unsupported parameter type"),
            });
        }
        let initial: Vec<u8> = (0..SLOTS * 4).map(|_| rng.below(8) as u8).collect();
        let (expected, expected_memory) = run(original, &args, &initial);
        let (actual, actual_memory) = run(&guarded, &args, &initial);
        let expected =
            expected.unwrap_or_else(|error| panic!("original failed: {error}\n{original}"));
        let actual = actual.unwrap_or_else(|error| {
            panic!("linearized failed on {args:?}: {error}\n{original}\n{linearized}\n{guarded}")
        });
        let same = match (&expected, &actual) {
            (Some(a), Some(b)) => a.same_as(b),
            (None, None) => true,
            _ => false,
        };
        assert!(
            same && expected_memory == actual_memory,
            "different meaning on {args:?}: {expected:?} {expected_memory:?} vs {actual:?} {actual_memory:?}\n\
             {original}\n{linearized}"
        );
    }
}

// ----- Functions from edge lists -----

/// `i32 f(i32 u, i32 v, ptr out)` with blocks `names` (the first is the
/// entry) and the given edges (acyclic): no successor returns, one jumps,
/// two branch, more switch (first successor is the default). Blocks named
/// in `varying` decide on `v`, the others on `u`. Every block adds its
/// number to a running hash in `out[0]`; a block with several predecessors
/// starts with a phi of distinct constants that is hashed too, so the
/// result tells which path was taken and which phi entry was chosen.
fn edge_function(names: &[&str], edges: &[(&str, &str)], varying: &[&str]) -> Function {
    let mut func = Function::new("f", vec![Type::I32, Type::I32, Type::PTR], Type::I32);
    let (u, v, out) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let blocks: Vec<Block> = names.iter().map(|name| b.create_block(Some(name))).collect();
    let find = |name: &str| blocks[names.iter().position(|n| *n == name).expect("block name")];
    for (number, name) in names.iter().enumerate() {
        let block = blocks[number];
        b.switch_to_block(block);
        let preds: Vec<Block> =
            edges.iter().filter(|(_, to)| to == name).map(|(from, _)| find(from)).collect();
        let mut contribution = b.iconst(Type::I32, number as i128 + 1);
        if preds.len() > 1 {
            let incoming = preds
                .iter()
                .enumerate()
                .map(|(k, pred)| (*pred, b.iconst(Type::I32, 100 * (k as i128 + 1))))
                .collect();
            let phi = b.phi(Type::I32, incoming);
            contribution = b.binary(BinaryOp::Add, contribution, phi);
        }
        let hash = b.load(Type::I32, out, 4);
        let seven = b.iconst(Type::I32, 7);
        let scaled = b.binary(BinaryOp::Mul, hash, seven);
        let updated = b.binary(BinaryOp::Add, scaled, contribution);
        b.store(updated, out, 4);
        let targets: Vec<Block> =
            edges.iter().filter(|(from, _)| from == name).map(|(_, to)| find(to)).collect();
        let decider = if varying.contains(name) { v } else { u };
        let salted = {
            let salt = b.iconst(Type::I32, number as i128);
            b.binary(BinaryOp::Add, decider, salt)
        };
        match targets.as_slice() {
            [] => {
                let result = b.load(Type::I32, out, 4);
                b.ret(Some(result));
            }
            [single] => {
                b.jump(*single);
            }
            [then_dest, else_dest] => {
                let three = b.iconst(Type::I32, 3);
                let masked = b.binary(BinaryOp::And, salted, three);
                let one = b.iconst(Type::I32, 1);
                let cond = b.icmp(IntPredicate::Slt, masked, one);
                b.branch(cond, *then_dest, *else_dest);
            }
            [default, cases @ ..] => {
                let three = b.iconst(Type::I32, 3);
                let masked = b.binary(BinaryOp::And, salted, three);
                let cases =
                    cases.iter().enumerate().map(|(k, target)| (k as u128, *target)).collect();
                b.ins(InstData::Switch { value: masked, default: *default, cases }, Type::Void);
            }
        }
    }
    func
}

/// PLDI'18 Fig. 3a (`lanewise_ir::paper_figures`): b and c diverge.
fn figure_3() -> Function {
    let figure = lanewise_ir::paper_figures::FIGURE_3;
    edge_function(figure.blocks, figure.edges, figure.varying_branches)
}

#[test]
fn figure_3_keeps_the_uniform_entry_branch_and_folds_the_rest() {
    let func = figure_3();
    let (result, report) = linearize(&func, "uvu", LinearizeMode::Partial);
    // Walkthrough of Figure 3: a's uniform branch is kept; b and c are
    // folded; d and f are uniform, but every successor of theirs is
    // preceded by a deferred block (e resp. g), so they fold too.
    assert!(is_conditional(&result, "a"), "{result}");
    assert_eq!(successor_names(&result, "b"), ["d"]);
    assert_eq!(successor_names(&result, "d"), ["e"]);
    assert_eq!(successor_names(&result, "e"), ["h"]);
    assert_eq!(successor_names(&result, "c"), ["f"]);
    assert_eq!(successor_names(&result, "f"), ["g"]);
    assert_eq!(successor_names(&result, "g"), ["h"]);
    assert_eq!((report.branches_divergent, report.uniform_kept, report.uniform_folded), (2, 1, 2));
    assert_eq!(report.uniform_lost, 0, "a's uniform branch keeps both targets (Theorem 4.5)");
    // Uniform predicates need no mask (Theorem 4.1): a, b, c and the exit h.
    for name in ["a", "b", "c", "h"] {
        assert_eq!(report.predicates.get(block_named(&result, name)), None, "{name}");
    }
    for name in ["d", "e", "f", "g"] {
        assert!(report.predicates.get(block_named(&result, name)).is_some(), "{name}");
    }
    check_same_meaning(&func, &result, &report, 3, 200);
}

#[test]
fn figure_3_full_linearization_folds_every_branch() {
    let func = figure_3();
    let (result, report) = linearize(&func, "uvu", LinearizeMode::Full);
    for block in result.layout.blocks() {
        assert!(result.successors(*block).len() <= 1, "{result}");
    }
    assert_eq!((report.branches_divergent, report.uniform_kept, report.uniform_folded), (2, 0, 3));
    check_same_meaning(&func, &result, &report, 4, 200);
}

#[test]
fn figure_7_keeps_a_uniform_branch_under_a_varying_predicate() {
    // PLDI'18 Fig. 7 (`lanewise_ir::paper_figures`): a diverges; b's branch
    // is uniform and dominates its targets, so it is kept (Theorem 4.5)
    // although b's predicate is varying.
    let figure = lanewise_ir::paper_figures::FIGURE_7;
    let func = edge_function(figure.blocks, figure.edges, figure.varying_branches);
    let (result, report) = linearize(&func, "uvu", LinearizeMode::Partial);
    assert_eq!(successor_names(&result, "a"), ["b"]);
    assert_eq!(successor_names(&result, "b"), ["c", "d"]);
    assert_eq!(successor_names(&result, "d"), ["e"]);
    assert_eq!((report.branches_divergent, report.uniform_kept), (1, 1));
    assert!(report.predicates.get(block_named(&result, "b")).is_some());
    assert_eq!(report.predicates.get(block_named(&result, "e")), None);
    check_same_meaning(&func, &result, &report, 7, 200);
    // Fully linearized, b is folded as well.
    let (full, full_report) = linearize(&func, "uvu", LinearizeMode::Full);
    assert_eq!(successor_names(&full, "b"), ["c"]);
    check_same_meaning(&func, &full, &full_report, 8, 200);
}

#[test]
fn uniform_tests_inside_a_divergent_region_share_its_predicate() {
    // a diverges into the region b..e; inside it only uniform branches
    // decide (b -> c | d, c -> d | e), as in a leaf test `x[0] < 0 && x[1] <
    // 0` under a varying predicate. Step 6b gives c and the join d the
    // predicate of b: the uniform conditions hold whenever they run.
    let names = ["a", "b", "c", "d", "e", "f"];
    let edges = [
        ("a", "b"),
        ("a", "f"),
        ("b", "c"),
        ("b", "d"),
        ("c", "d"),
        ("c", "e"),
        ("d", "f"),
        ("e", "f"),
    ];
    let func = edge_function(&names, &edges, &["a"]);
    let (result, report) = linearize(&func, "uvu", LinearizeMode::Partial);
    assert!(is_conditional(&result, "b"), "{result}");
    assert!(is_conditional(&result, "c"), "{result}");
    let predicate = |name: &str| report.predicates.get(block_named(&result, name));
    let region = predicate("b").expect("b runs under a's varying condition");
    assert_eq!(predicate("c"), Some(region), "{result}");
    assert_eq!(predicate("d"), Some(region), "{result}");
    assert_eq!(predicate("e"), Some(region), "{result}");
    check_same_meaning(&func, &result, &report, 11, 300);
}

#[test]
fn varying_switch_is_folded_into_case_predicates() {
    let names = ["a", "b", "c", "d", "e"];
    let edges = [("a", "b"), ("a", "c"), ("a", "d"), ("b", "e"), ("c", "e"), ("d", "e")];
    let func = edge_function(&names, &edges, &["a"]);
    let (result, report) = linearize(&func, "uvu", LinearizeMode::Partial);
    assert_eq!(result.successors(block_named(&result, "a")).len(), 1);
    assert_eq!(report.branches_divergent, 1);
    check_same_meaning(&func, &result, &report, 11, 200);
    // A uniform switch stays.
    let func = edge_function(&names, &edges, &[]);
    let (result, report) = linearize(&func, "uvu", LinearizeMode::Partial);
    assert_eq!(result.successors(block_named(&result, "a")).len(), 3);
    assert_eq!(report.uniform_kept, 1);
    check_same_meaning(&func, &result, &report, 12, 200);
}

// ----- Mandelbrot (PLDI'18 Figures 9-11) -----

/// `for (i = 0; i < limit; i++) { z = z*z + c; if (z > escape) break; }
/// return i;` on i32 values; `z` and `c` varying. The CFG of Figure 10
/// (left): `header` tests the uniform trip count (exit to `at_limit`),
/// `body` the varying escape (exit to `escaped`), `latch` increments, and
/// `end` joins both exits.
fn mandelbrot() -> Function {
    let params = vec![Type::I32, Type::I32, Type::I32, Type::I32];
    let mut func = Function::new("mandelbrot", params, Type::I32);
    let (z0, c, limit, escape) =
        (func.param_value(0), func.param_value(1), func.param_value(2), func.param_value(3));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("header"));
    let body = b.create_block(Some("body"));
    let latch = b.create_block(Some("latch"));
    let at_limit = b.create_block(Some("at_limit"));
    let escaped = b.create_block(Some("escaped"));
    let end = b.create_block(Some("end"));
    b.switch_to_block(entry);
    let zero = b.iconst(Type::I32, 0);
    b.jump(header);
    b.switch_to_block(header);
    let i = b.phi(Type::I32, vec![(entry, zero)]);
    let z = b.phi(Type::I32, vec![(entry, z0)]);
    let in_range = b.icmp(IntPredicate::Slt, i, limit);
    b.branch(in_range, body, at_limit);
    b.switch_to_block(body);
    let square = b.binary(BinaryOp::Mul, z, z);
    let z_next = b.binary(BinaryOp::Add, square, c);
    let out = b.icmp(IntPredicate::Sgt, z_next, escape);
    b.branch(out, escaped, latch);
    b.switch_to_block(latch);
    let one = b.iconst(Type::I32, 1);
    let i_next = b.binary(BinaryOp::Add, i, one);
    b.jump(header);
    b.switch_to_block(at_limit);
    b.jump(end);
    b.switch_to_block(escaped);
    let hundred = b.iconst(Type::I32, 100);
    let marked = b.binary(BinaryOp::Add, i, hundred);
    b.jump(end);
    b.switch_to_block(end);
    let result = b.phi(Type::I32, vec![(at_limit, i), (escaped, marked)]);
    b.ret(Some(result));
    for (phi, from, value) in [(i, latch, i_next), (z, latch, z_next)] {
        b.add_phi_incoming(phi, from, value);
    }
    func
}

#[test]
fn mandelbrot_escape_loop_becomes_a_uniform_loop() {
    let func = mandelbrot();
    let (result, report) = linearize(&func, "vvuu", LinearizeMode::Partial);
    assert_eq!((report.loops_divergent, report.loops_uniform), (1, 0));
    let record = &report.divergent_loops[0];
    // The only latch is the pure latch, branching on rv_any(live.next).
    let term = result.terminator(record.pure_latch).unwrap();
    let InstData::Branch { cond, then_dest, else_dest } = result.dfg.inst(term).clone() else {
        panic!("pure latch ends in a branch");
    };
    assert_eq!(then_dest, record.header);
    assert_eq!(result.dfg.callee_name(result.dfg.defining_inst(cond).unwrap()), Some("rv_any"));
    assert!(!result.layout.block_insts(else_dest).is_empty());
    // The uniform trip-count test in the header is kept (Figure 10, right:
    // the uniform edge from the header to the pure latch is retained); the
    // escape test is folded.
    assert!(is_conditional(&result, "header"), "{result}");
    assert_eq!(result.successors(block_named(&result, "body")).len(), 1);
    assert_eq!((report.branches_divergent, report.uniform_kept), (1, 1));
    // The header runs under the live mask.
    assert_eq!(report.predicates.get(record.header), Some(record.live_mask));
    assert_eq!(report.predicates.get(block_named(&result, "entry")), None);
    // Semantics, lane by lane.
    let guarded = guard_for_scalar_run(&result, &report.predicates);
    let mut rng = Rng::new(5);
    for _ in 0..300 {
        let args: Vec<Val> = (0..4)
            .map(|k| Val::int(32, u128::from(rng.below(if k == 2 { 12 } else { 40 }))))
            .collect();
        let (expected, _) = run(&func, &args, &[]);
        let (actual, _) = run(&guarded, &args, &[]);
        assert!(
            expected.unwrap().unwrap().same_as(&actual.unwrap().unwrap()),
            "{args:?}\n{result}"
        );
    }
}

/// A rotated `while (i + 1 != n && (i * 7) & 3 != 0)` as LLVM leaves it:
/// the loop leaves from the header and from the latch, each exit a
/// dedicated block of LCSSA phis jumping to `end`, which the code before
/// the loop reaches too. `start` varies; `n` is uniform.
fn rotated_loop_with_two_exits() -> Function {
    let params = vec![Type::I32, Type::I32];
    let mut func = Function::new("rotated", params, Type::I32);
    let (start, n) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let names = ["entry", "check", "pre", "header", "latch", "exit_a", "exit_b", "end"];
    let [entry, check, pre, header, latch, exit_a, exit_b, end] =
        names.map(|name| b.create_block(Some(name)));
    b.switch_to_block(entry);
    let below = b.icmp(IntPredicate::Slt, start, n);
    b.branch(below, check, end);
    b.switch_to_block(check);
    let one = b.iconst(Type::I32, 1);
    let low_bit = b.binary(BinaryOp::And, start, one);
    let zero = b.iconst(Type::I32, 0);
    let odd = b.icmp(IntPredicate::Ne, low_bit, zero);
    b.branch(odd, pre, end);
    b.switch_to_block(pre);
    b.jump(header);
    b.switch_to_block(header);
    let i = b.phi(Type::I32, vec![(pre, start)]);
    let acc = b.phi(Type::I32, vec![(pre, zero)]);
    let acc_next = b.binary(BinaryOp::Add, acc, i);
    let i_next = b.binary(BinaryOp::Add, i, one);
    let at_end = b.icmp(IntPredicate::Eq, i_next, n);
    b.branch(at_end, exit_a, latch);
    b.switch_to_block(latch);
    let seven = b.iconst(Type::I32, 7);
    let times = b.binary(BinaryOp::Mul, i_next, seven);
    let three = b.iconst(Type::I32, 3);
    let t = b.binary(BinaryOp::And, times, three);
    let go_on = b.icmp(IntPredicate::Ne, t, zero);
    b.branch(go_on, header, exit_b);
    b.switch_to_block(exit_a);
    let a_acc = b.phi(Type::I32, vec![(header, acc_next)]);
    let a_i = b.phi(Type::I32, vec![(header, i_next)]);
    b.jump(end);
    b.switch_to_block(exit_b);
    let b_acc = b.phi(Type::I32, vec![(latch, acc_next)]);
    let b_t = b.phi(Type::I32, vec![(latch, t)]);
    b.jump(end);
    b.switch_to_block(end);
    let sum = b.phi(Type::I32, vec![(entry, zero), (check, one), (exit_a, a_acc), (exit_b, b_acc)]);
    let last = b.phi(Type::I32, vec![(entry, start), (check, start), (exit_a, a_i), (exit_b, b_t)]);
    let scaled = b.binary(BinaryOp::Mul, sum, three);
    let result = b.binary(BinaryOp::Add, scaled, last);
    b.ret(Some(result));
    for (phi, value) in [(i, i_next), (acc, acc_next)] {
        b.add_phi_incoming(phi, latch, value);
    }
    func
}

#[test]
fn forwarding_exits_of_a_divergent_loop_merge_into_one() {
    let func = rotated_loop_with_two_exits();
    verify(&func);
    let (result, report) = linearize(&func, "vu", LinearizeMode::Partial);
    assert_eq!(report.loops_divergent, 1);
    // One exit target: exit_b's edge goes to exit_a, no exit masks to
    // dispatch on after the loop.
    let names: Vec<String> =
        result.layout.blocks().iter().map(|block| result.block_name(*block)).collect();
    assert!(names.iter().all(|name| name != "exit_b"), "{result}");
    assert!(report.divergent_loops[0].dispatch_blocks.is_empty(), "{result}");
    check_same_meaning(&func, &result, &report, 7, 400);
}

#[test]
fn uniform_loop_stays_a_loop_with_its_branches() {
    // Mandelbrot with a uniform escape value *and* uniform z: nothing diverges.
    let func = mandelbrot();
    let (result, report) = linearize(&func, "uuuu", LinearizeMode::Partial);
    assert_eq!((report.loops_divergent, report.loops_uniform), (0, 1));
    assert_eq!((report.branches_divergent, report.uniform_kept, report.uniform_folded), (0, 2, 0));
    assert!(is_conditional(&result, "header") && is_conditional(&result, "body"));
    for block in result.layout.blocks() {
        assert_eq!(report.predicates.get(*block), None);
    }
}

// ----- Random structured programs -----

/// Lowers random structured programs into `i32 f(i32 u, i32 v, ptr out)`:
/// effects on `out[0..4]`, if/else and switches with join phis, counted
/// loops tested at the top or the bottom (bounds from `u` or `v`),
/// conditional `break` out of one or two loops, `continue` and early
/// `return`. Conditions read `u`, `v` or memory; every loop terminates.
struct Generator<'f> {
    b: FunctionBuilder<'f>,
    rng: Rng,
    blocks_left: usize,
    loops: Vec<(Block, Block)>,
    exit_blocks: Vec<Block>,
    u: Value,
    v: Value,
    out: Value,
    varying_percent: u64,
}

impl Generator<'_> {
    fn block(&mut self) -> Block {
        self.blocks_left = self.blocks_left.saturating_sub(1);
        self.b.create_block(None)
    }

    fn slot(&mut self, slot: u64) -> Value {
        let index = self.b.iconst(Type::I64, slot as i128);
        self.b.gep(Type::I32, self.out, vec![index])
    }

    fn effect(&mut self, extra: Option<Value>) {
        let slot = self.rng.below(SLOTS);
        let addr = self.slot(slot);
        let old = self.b.load(Type::I32, addr, 4);
        let factor = self.b.iconst(Type::I32, 3);
        let scaled = self.b.binary(BinaryOp::Mul, old, factor);
        let constant = self.b.iconst(Type::I32, self.rng.below(50) as i128);
        let mut new = self.b.binary(BinaryOp::Add, scaled, constant);
        if let Some(extra) = extra {
            new = self.b.binary(BinaryOp::Add, new, extra);
        }
        self.b.store(new, addr, 4);
    }

    fn condition(&mut self) -> Value {
        let source = if !self.rng.chance(self.varying_percent) {
            self.u
        } else if self.rng.chance(50) {
            self.v
        } else {
            let slot = self.rng.below(SLOTS);
            let addr = self.slot(slot);
            self.b.load(Type::I32, addr, 4)
        };
        let mask = self.b.iconst(Type::I32, 7);
        let low = self.b.binary(BinaryOp::And, source, mask);
        let bound = self.b.iconst(Type::I32, self.rng.below(8) as i128);
        self.b.icmp(IntPredicate::Ult, low, bound)
    }

    fn sequence(&mut self, depth: u32) {
        let count = 1 + self.rng.below(3);
        for _ in 0..count {
            self.statement(depth);
        }
    }

    fn statement(&mut self, depth: u32) {
        let choice = if self.blocks_left == 0 || depth > 3 { 0 } else { self.rng.below(9) };
        match choice {
            0 | 1 => self.effect(None),
            2 => self.if_else(depth),
            3 => self.switch(depth),
            4 | 5 => self.lower_loop(depth),
            8 => self.two_entry_loop(depth),
            _ => self.jump_out(),
        }
    }

    /// A cycle entered at two blocks `a` and `b` (irreducible): each runs
    /// a body and a latch that goes on in the other one while a visit
    /// counter stays below 3 and a condition holds.
    fn two_entry_loop(&mut self, depth: u32) {
        let enter_a = self.condition();
        let from = self.b.current_block().expect("current block");
        let entries = [self.block(), self.block()];
        let latches = [self.block(), self.block()];
        let exit = self.block();
        self.b.branch(enter_a, entries[0], entries[1]);
        let zero = self.b.iconst(Type::I32, 0);
        let mut counters = Vec::new();
        let mut nexts = Vec::new();
        for side in 0..2 {
            self.b.switch_to_block(entries[side]);
            let counter = self.b.phi(Type::I32, vec![(from, zero)]);
            self.loops.push((latches[side], exit));
            self.sequence(depth + 1);
            self.loops.pop();
            self.b.jump(latches[side]);
            self.b.switch_to_block(latches[side]);
            let one = self.b.iconst(Type::I32, 1);
            let next = self.b.binary(BinaryOp::Add, counter, one);
            self.effect(Some(next));
            let three = self.b.iconst(Type::I32, 3);
            let more = self.b.icmp(IntPredicate::Slt, next, three);
            let wanted = self.condition();
            let go_on = self.b.binary(BinaryOp::And, more, wanted);
            self.b.branch(go_on, entries[1 - side], exit);
            counters.push(counter);
            nexts.push(next);
        }
        for side in 0..2 {
            let phi = self.b.func.dfg.defining_inst(counters[side]).expect("phi");
            if let InstData::Phi { incoming, .. } = self.b.func.dfg.inst_mut(phi) {
                incoming.push((latches[1 - side], nexts[1 - side]));
            }
        }
        self.b.switch_to_block(exit);
    }

    fn join(&mut self, ends: Vec<Block>) {
        let join = self.block();
        for end in &ends {
            self.b.switch_to_block(*end);
            self.b.jump(join);
        }
        self.b.switch_to_block(join);
        let incoming: Vec<(Block, Value)> = ends
            .iter()
            .enumerate()
            .map(|(k, end)| (*end, self.b.iconst(Type::I32, 10 * (k as i128 + 1))))
            .collect();
        let phi = self.b.phi(Type::I32, incoming);
        self.effect(Some(phi));
    }

    fn if_else(&mut self, depth: u32) {
        let cond = self.condition();
        let (then_block, else_block) = (self.block(), self.block());
        self.b.branch(cond, then_block, else_block);
        let mut ends = Vec::new();
        for start in [then_block, else_block] {
            self.b.switch_to_block(start);
            if self.rng.chance(70) {
                self.sequence(depth + 1);
            }
            ends.push(self.b.current_block().expect("current block"));
        }
        self.join(ends);
    }

    fn switch(&mut self, depth: u32) {
        let source = if self.rng.chance(self.varying_percent) { self.v } else { self.u };
        let mask = self.b.iconst(Type::I32, 3);
        let selector = self.b.binary(BinaryOp::And, source, mask);
        let targets: Vec<Block> = (0..3).map(|_| self.block()).collect();
        let cases = vec![(0, targets[1]), (2, targets[2])];
        self.b.ins(InstData::Switch { value: selector, default: targets[0], cases }, Type::Void);
        let mut ends = Vec::new();
        for start in targets {
            self.b.switch_to_block(start);
            if self.rng.chance(50) {
                self.sequence(depth + 1);
            }
            ends.push(self.b.current_block().expect("current block"));
        }
        self.join(ends);
    }

    fn lower_loop(&mut self, depth: u32) {
        let source = if self.rng.chance(self.varying_percent) { self.v } else { self.u };
        let mask = self.b.iconst(Type::I32, 3);
        let low = self.b.binary(BinaryOp::And, source, mask);
        let one = self.b.iconst(Type::I32, 1);
        let bound = self.b.binary(BinaryOp::Add, low, one);
        let zero = self.b.iconst(Type::I32, 0);
        let preheader = self.b.current_block().expect("current block");
        let (header, latch, exit) = (self.block(), self.block(), self.block());
        self.b.jump(header);
        self.b.switch_to_block(header);
        let counter = self.b.phi(Type::I32, vec![(preheader, zero)]);
        let test_at_top = self.rng.chance(50);
        if test_at_top {
            let body = self.block();
            let cond = self.b.icmp(IntPredicate::Slt, counter, bound);
            self.b.branch(cond, body, exit);
            self.b.switch_to_block(body);
        }
        self.loops.push((latch, exit));
        self.sequence(depth + 1);
        self.loops.pop();
        self.b.jump(latch);
        self.b.switch_to_block(latch);
        let next = self.b.binary(BinaryOp::Add, counter, one);
        if test_at_top {
            self.b.jump(header);
        } else {
            let cond = self.b.icmp(IntPredicate::Slt, next, bound);
            self.b.branch(cond, header, exit);
        }
        let phi_inst = self.b.func.dfg.defining_inst(counter).expect("phi");
        if let InstData::Phi { incoming, .. } = self.b.func.dfg.inst_mut(phi_inst) {
            incoming.push((latch, next));
        }
        self.b.switch_to_block(exit);
    }

    /// A conditional break (one or two levels), continue or return.
    fn jump_out(&mut self) {
        let target = match (self.loops.len(), self.rng.below(4)) {
            (0, _) | (_, 3) => {
                let exit = self.exit_blocks[0];
                Some(exit)
            }
            (levels, 2) if levels >= 2 => Some(self.loops[levels - 2].1),
            (levels, 1) => Some(self.loops[levels - 1].0),
            (levels, _) => Some(self.loops[levels - 1].1),
        };
        let Some(target) = target else { return };
        let cond = self.condition();
        let rest = self.block();
        self.b.branch(cond, target, rest);
        self.b.switch_to_block(rest);
    }
}

fn random_function(seed: u64, block_budget: usize, varying_percent: u64) -> Function {
    let mut func = Function::new("random", vec![Type::I32, Type::I32, Type::PTR], Type::I32);
    let (u, v, out) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let early_return = b.create_block(Some("early_return"));
    b.switch_to_block(early_return);
    let minus_one = b.iconst(Type::I32, -1);
    b.ret(Some(minus_one));
    b.switch_to_block(entry);
    let mut generator = Generator {
        b,
        rng: Rng::new(seed),
        blocks_left: block_budget,
        loops: Vec::new(),
        exit_blocks: vec![early_return],
        u,
        v,
        out,
        varying_percent,
    };
    generator.sequence(0);
    while generator.blocks_left > 0 && generator.rng.chance(60) {
        generator.statement(0);
    }
    let zero = generator.b.iconst(Type::I64, 0);
    let addr = generator.b.gep(Type::I32, out, vec![zero]);
    let result = generator.b.load(Type::I32, addr, 4);
    generator.b.ret(Some(result));
    // The early return may be unused; drop it then.
    let cfg = ControlFlowGraph::compute(&func);
    if cfg.preds(early_return).is_empty() {
        func.layout.remove_block(early_return);
    }
    func
}

/// `func` with its cycles of several entries given one header each
/// ([`crate::canonicalize::make_reducible`], as the pipeline does right
/// after lifting): the random functions hold such cycles.
fn reducible(func: &Function) -> Function {
    let mut reducible = func.clone();
    crate::canonicalize::make_reducible(&mut reducible).expect("no unwinding in random functions");
    verify(&reducible);
    reducible
}

fn check_random(seed: u64, mode: LinearizeMode, varying_percent: u64) {
    let original = random_function(seed, 14, varying_percent);
    let func = reducible(&original);
    let (result, report) = linearize(&func, "uvv", mode);
    for block in result.layout.blocks() {
        assert!(block_phis(&result, *block).len() < 1000);
    }
    check_same_meaning(&original, &result, &report, seed, 40);
}

#[test]
fn random_functions_keep_their_meaning_partial() {
    for seed in 0..300 {
        check_random(seed, LinearizeMode::Partial, 50);
    }
}

#[test]
fn random_functions_keep_their_meaning_full() {
    for seed in 300..450 {
        check_random(seed, LinearizeMode::Full, 50);
    }
}

#[test]
fn random_functions_without_divergence_keep_every_branch() {
    for seed in 500..600 {
        let original = random_function(seed, 14, 0);
        let func = reducible(&original);
        let (result, report) = linearize(&func, "uvv", LinearizeMode::Partial);
        // The dispatch of a cycle entered on uniform conditions is uniform.
        assert_eq!(
            (report.branches_divergent, report.uniform_folded, report.loops_divergent),
            (0, 0, 0)
        );
        for block in result.layout.blocks() {
            assert_eq!(report.predicates.get(*block), None, "{result}");
        }
        check_same_meaning(&original, &result, &report, seed, 20);
    }
}

// ----- Linearized, then widened under the block predicates -----

/// Widens the linearized `i32 f(i32 u, i32 v, ptr out)` to `width` lanes
/// (`u` uniform, `v` and `out` varying) and compares it in the interpreter
/// with the original run lane by lane, each lane on its own `out` buffer.
fn check_widened(
    original: &Function,
    linearized: &Function,
    report: &LinearizeReport,
    width: u32,
    seed: u64,
    runs: usize,
) -> usize {
    use crate::widen::{widen_function_masked, WidenConfig};
    use lanewise_ir::vfabi::Isa;
    // Loops with no active lane at their entry are skipped (BOSCC), as in
    // the pipeline.
    let mut guarded = linearized.clone();
    let mut predicates = report.predicates.clone();
    let guarded_loops =
        crate::boscc::skip_loops_without_active_lanes(&mut guarded, &mut predicates);
    // Guard edges and kept uniform branches simplify predicates; blocks that
    // run only with an active lane skip the any-lane guards of uniform
    // accesses (as in the pipeline).
    crate::boscc::mark_blocks_with_an_active_lane(&mut guarded, &mut predicates);
    // Loops left that may run with no active lane leave after one pass.
    super::empty_mask_loops::bound_loops_without_active_lanes(&mut guarded, &predicates);
    if let Err(errors) = verify_function(&guarded) {
        panic!("{linearized}\nguarded:\n{}", display_function_with_errors(&guarded, &errors));
    }
    let linearized = &guarded;
    let specs = parse_shapes("uvv").expect("valid shapes");
    let isa = if width > 4 { Isa::Avx2 } else { Isa::Sse };
    let config = WidenConfig::new("vec", width, isa, specs.clone());
    let shapes = ShapeInfo::compute(linearized, &DataLayout::default(), &specs).expect("shapes");
    let widened =
        widen_function_masked(linearized, &shapes, &DataLayout::default(), &config, &predicates)
            .unwrap_or_else(|error| panic!("widening failed: {error}\n{linearized}"));
    if let Err(errors) = verify_function(&widened) {
        panic!("{linearized}\nwidened:\n{}", display_function_with_errors(&widened, &errors));
    }
    let mut rng = Rng::new(seed);
    let lane_bytes = SLOTS * 4;
    for _ in 0..runs {
        let u = Val::int(32, u128::from(rng.below(16)));
        let vs: Vec<Val> = (0..width).map(|_| Val::int(32, u128::from(rng.below(16)))).collect();
        let outs: Vec<Val> =
            (0..u64::from(width)).map(|lane| Val::Ptr(MEMORY_BASE + lane * lane_bytes)).collect();
        let initial: Vec<u8> =
            (0..lane_bytes * u64::from(width)).map(|_| rng.below(8) as u8).collect();
        let mut memory = Memory::new(MEMORY_BASE, initial.len());
        memory.bytes.copy_from_slice(&initial);
        let mut scalar = Interpreter::new(memory.clone(), one_lane_externals);
        let mut expected = Vec::new();
        for lane in 0..width as usize {
            let args = [u.clone(), vs[lane].clone(), outs[lane].clone()];
            expected.push(scalar.run(original, &args).expect("scalar run").expect("a result"));
        }
        let mut vector = Interpreter::new(memory, one_lane_externals);
        let args = [u.clone(), Val::Vector(vs.clone()), Val::Vector(outs.clone())];
        let actual = vector
            .run(&widened, &args)
            .unwrap_or_else(|error| panic!("vector run failed: {error}\n{linearized}\n{widened}"));
        let Some(Val::Vector(lanes)) = actual else { panic!("vector result expected") };
        for (lane, value) in lanes.iter().enumerate() {
            assert!(
                value.same_as(&expected[lane]),
                "lane {lane}: {value:?} vs {:?} (u {u:?}, v {vs:?})\n{original}\n{linearized}\n{widened}",
                expected[lane]
            );
        }
        // The observable memory; stack frames (allocas, scratch slots of
        // branch-free scatters) live after it and differ in layout.
        assert_eq!(
            vector.memory.bytes[..initial.len()],
            scalar.memory.bytes[..initial.len()],
            "memory differs (u {u:?}, v {vs:?})\n{linearized}"
        );
    }
    guarded_loops
}

/// Random functions, linearized and widened at W = 4 and 8, against the
/// scalar function lane by lane. (Blocks that linearization creates have ids
/// out of layout order; this test found widening's successor remapping
/// colliding on them, fixed by `InstData::map_successors`.)
#[test]
fn random_functions_widened_agree_with_the_scalar_lanes() {
    let mut guarded_loops = 0;
    for seed in 700..700 + random_case_count() {
        let original = random_function(seed, 14, 50);
        let func = reducible(&original);
        let (result, report) = linearize(&func, "uvv", LinearizeMode::Partial);
        assert_eq!(report.uniform_lost, 0, "seed {seed}: Theorem 4.5 broken\n{func}\n{result}");
        check_same_meaning(&original, &result, &report, seed, 20);
        guarded_loops += check_widened(&original, &result, &report, 4, seed, 10);
        check_widened(&original, &result, &report, 8, seed + 1, 5);
    }
    // The random functions exercise BOSCC too.
    assert!(guarded_loops > 10, "only {guarded_loops} loops guarded");
}

/// BOSCC before linearization (`boscc::guard_divergent_regions`, every
/// qualifying region guarded whatever its size): the guarded, linearized
/// and widened functions agree with the original scalar lanes.
#[test]
fn random_functions_with_guarded_regions_agree_with_the_scalar_lanes() {
    let mut guarded_regions = 0;
    for seed in 40_000..40_000 + random_case_count() / 2 {
        let original = random_function(seed, 14, 50);
        let func = reducible(&original);
        let facts = analyze(&func, "uvv");
        let mut guarded = func.clone();
        guarded_regions += crate::boscc::guard_divergent_regions(
            &mut guarded,
            &facts.divergent_branches,
            &crate::boscc::RegionCosts::counting_instructions(0),
        );
        verify(&guarded);
        let (result, report) = linearize(&guarded, "uvv", LinearizeMode::Partial);
        assert_eq!(report.uniform_lost, 0, "seed {seed}: Theorem 4.5 broken\n{guarded}\n{result}");
        check_same_meaning(&original, &result, &report, seed, 20);
        check_widened(&original, &result, &report, 4, seed, 10);
        check_widened(&original, &result, &report, 8, seed + 1, 5);
    }
    assert!(guarded_regions > 50, "only {guarded_regions} regions guarded");
}

/// How many random functions the widened property tests check: thousands in
/// release builds (the project's test command), fewer in debug builds.
fn random_case_count() -> u64 {
    if cfg!(debug_assertions) {
        100
    } else {
        1500
    }
}

/// Full linearization folds uniform branches too, so blocks under them run
/// with a uniform predicate that may be false: widening must mask by it
/// (binomial options computed wrong results before this was handled).
#[test]
fn random_functions_fully_linearized_and_widened_agree_with_the_scalar_lanes() {
    for seed in 100_000..100_000 + random_case_count() / 2 {
        let original = random_function(seed, 14, 50);
        let func = reducible(&original);
        let (result, report) = linearize(&func, "uvv", LinearizeMode::Full);
        assert!(!report.predicates.uniform_predicates_are_exact());
        check_widened(&original, &result, &report, 4, seed, 10);
        check_widened(&original, &result, &report, 8, seed + 1, 5);
    }
}

#[test]
fn figures_widened_agree_with_the_scalar_lanes() {
    let (result, report) = linearize(&figure_3(), "uvv", LinearizeMode::Partial);
    check_widened(&figure_3(), &result, &report, 8, 1, 30);
    // Full linearization is not widened here: blocks under a folded
    // uniform branch get a uniform predicate that may be false when they
    // run, and masked widening reads a uniform predicate as "all lanes"
    // (PLDI'18 Theorem 4.1 holds for partial linearization only).
    let figure = lanewise_ir::paper_figures::FIGURE_7;
    let figure_7 = edge_function(figure.blocks, figure.edges, figure.varying_branches);
    let (result, report) = linearize(&figure_7, "uvv", LinearizeMode::Partial);
    check_widened(&figure_7, &result, &report, 4, 2, 30);
    let (result, report) = linearize(&mandelbrot_with_memory(), "uvv", LinearizeMode::Partial);
    check_widened(&mandelbrot_with_memory(), &result, &report, 8, 3, 30);
}

/// Mandelbrot's escape loop with memory effects, as `i32 f(i32 limit, i32
/// c, ptr out)`: `z` starts in `out[0]`, every iteration stores it to
/// `out[1]`, the escape stores the iteration to `out[2]`.
fn mandelbrot_with_memory() -> Function {
    let mut func =
        Function::new("mandelbrot_memory", vec![Type::I32, Type::I32, Type::PTR], Type::I32);
    let (limit, c, out) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("header"));
    let body = b.create_block(Some("body"));
    let latch = b.create_block(Some("latch"));
    let at_limit = b.create_block(Some("at_limit"));
    let escaped = b.create_block(Some("escaped"));
    let end = b.create_block(Some("end"));
    b.switch_to_block(entry);
    let zero = b.iconst(Type::I32, 0);
    let z0 = b.load(Type::I32, out, 4);
    let seven = b.iconst(Type::I32, 7);
    let low = b.binary(BinaryOp::And, limit, seven);
    let bound = b.binary(BinaryOp::Add, low, seven);
    b.jump(header);
    b.switch_to_block(header);
    let i = b.phi(Type::I32, vec![(entry, zero)]);
    let z = b.phi(Type::I32, vec![(entry, z0)]);
    let in_range = b.icmp(IntPredicate::Slt, i, bound);
    b.branch(in_range, body, at_limit);
    b.switch_to_block(body);
    let square = b.binary(BinaryOp::Mul, z, z);
    let z_next = b.binary(BinaryOp::Add, square, c);
    let one64 = b.iconst(Type::I64, 1);
    let slot1 = b.gep(Type::I32, out, vec![one64]);
    b.store(z_next, slot1, 4);
    let fifteen = b.iconst(Type::I32, 15);
    let low_z = b.binary(BinaryOp::And, z_next, fifteen);
    let nine = b.iconst(Type::I32, 9);
    let escapes = b.icmp(IntPredicate::Sgt, low_z, nine);
    b.branch(escapes, escaped, latch);
    b.switch_to_block(latch);
    let one = b.iconst(Type::I32, 1);
    let i_next = b.binary(BinaryOp::Add, i, one);
    b.jump(header);
    b.switch_to_block(at_limit);
    b.jump(end);
    b.switch_to_block(escaped);
    let two64 = b.iconst(Type::I64, 2);
    let slot2 = b.gep(Type::I32, out, vec![two64]);
    b.store(i, slot2, 4);
    let hundred = b.iconst(Type::I32, 100);
    let marked = b.binary(BinaryOp::Add, i, hundred);
    b.jump(end);
    b.switch_to_block(end);
    let result = b.phi(Type::I32, vec![(at_limit, i), (escaped, marked)]);
    b.ret(Some(result));
    for (phi, value) in [(i, i_next), (z, z_next)] {
        b.add_phi_incoming(phi, latch, value);
    }
    func
}

#[test]
fn mandelbrot_with_memory_keeps_its_meaning() {
    let func = mandelbrot_with_memory();
    let (result, report) = linearize(&func, "uvv", LinearizeMode::Partial);
    assert_eq!(report.loops_divergent, 1);
    check_same_meaning(&func, &result, &report, 17, 200);
}

/// `i32 f(i32 u, i32 v, ptr out)`: a rotated loop over the set bits of `v`
/// (`low = x & -x; r |= low * u + offset; x ^= low` while `x != 0`),
/// returning `r`. With `offset` 0 a lane's state is a fixed point once it
/// leaves (`exit_stable`: `r | 0 = r`); with 1 it is not (`r | 1`).
fn set_bits_loop(offset: i128) -> Function {
    let params = vec![Type::I32, Type::I32, Type::PTR];
    let mut func = Function::new("set_bits", params, Type::I32);
    let (u, v) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let body = b.create_block(Some("body"));
    let end = b.create_block(Some("end"));
    b.switch_to_block(entry);
    let zero = b.iconst(Type::I32, 0);
    let any_bits = b.icmp(IntPredicate::Ne, v, zero);
    b.branch(any_bits, body, end);
    b.switch_to_block(body);
    let x = b.phi(Type::I32, vec![(entry, v)]);
    let r = b.phi(Type::I32, vec![(entry, zero)]);
    let negated = b.binary(BinaryOp::Sub, zero, x);
    let low = b.binary(BinaryOp::And, x, negated);
    let product = b.binary(BinaryOp::Mul, low, u);
    let offset = b.iconst(Type::I32, offset);
    let spread = b.binary(BinaryOp::Add, product, offset);
    let r_next = b.binary(BinaryOp::Or, r, spread);
    let x_next = b.binary(BinaryOp::Xor, x, low);
    let more = b.icmp(IntPredicate::Ne, x_next, zero);
    b.branch(more, body, end);
    b.switch_to_block(end);
    let result = b.phi(Type::I32, vec![(entry, zero), (body, r_next)]);
    b.ret(Some(result));
    b.add_phi_incoming(x, body, x_next);
    b.add_phi_incoming(r, body, r_next);
    func
}

/// `i32 f(i32 u, i32 v, ptr out)`: `x` counts up from `v`; an odd `x + u`
/// leaves with `3 * (x + u)` when that exceeds 40 (from a block that does
/// not dominate the latch), otherwise the loop ends with `x + 1` at 20.
fn two_exit_values_loop() -> Function {
    let params = vec![Type::I32, Type::I32, Type::PTR];
    let mut func = Function::new("two_exit_values", params, Type::I32);
    let (u, v) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let body = b.create_block(Some("body"));
    let side = b.create_block(Some("side"));
    let latch = b.create_block(Some("latch"));
    let end = b.create_block(Some("end"));
    b.switch_to_block(entry);
    b.jump(body);
    b.switch_to_block(body);
    let x = b.phi(Type::I32, vec![(entry, v)]);
    let t = b.binary(BinaryOp::Add, x, u);
    let one = b.iconst(Type::I32, 1);
    let low_bit = b.binary(BinaryOp::And, t, one);
    let zero = b.iconst(Type::I32, 0);
    let odd = b.icmp(IntPredicate::Ne, low_bit, zero);
    b.branch(odd, side, latch);
    b.switch_to_block(side);
    let three = b.iconst(Type::I32, 3);
    let y = b.binary(BinaryOp::Mul, t, three);
    let forty = b.iconst(Type::I32, 40);
    let big = b.icmp(IntPredicate::Ugt, y, forty);
    b.branch(big, end, latch);
    b.switch_to_block(latch);
    let x_next = b.binary(BinaryOp::Add, x, one);
    let twenty = b.iconst(Type::I32, 20);
    let more = b.icmp(IntPredicate::Ult, x_next, twenty);
    b.branch(more, body, end);
    b.switch_to_block(end);
    let result = b.phi(Type::I32, vec![(side, y), (latch, x_next)]);
    b.ret(Some(result));
    b.add_phi_incoming(x, latch, x_next);
    func
}

/// The value the single tracker of the loop headed by `body` takes from the
/// pure latch: `select(live, kept, tracker)`; returns `kept`.
fn tracker_update(func: &Function, report: &LinearizeReport) -> Value {
    let record = &report.divergent_loops[0];
    let header_phis = block_phis(func, block_named(func, "body"));
    let tracker = *header_phis.last().unwrap();
    let from_latch = phi_incoming(func, tracker)
        .into_iter()
        .find(|(from, _)| *from == record.pure_latch)
        .map(|(_, value)| value)
        .unwrap();
    let select = func.dfg.defining_inst(from_latch).unwrap();
    let InstData::Select { cond, if_true, if_false, .. } = func.dfg.inst(select).clone() else {
        panic!("the tracker is updated by a select\n{func}");
    };
    assert_eq!((cond, if_false), (record.live_mask, result_of(func, tracker)), "{func}");
    if_true
}

#[test]
fn a_live_out_computed_every_iteration_is_followed() {
    // `r | ...` is computed in every iteration and is what leaves: the
    // tracker follows it while the lane is live, without an update phi.
    let func = set_bits_loop(1);
    let (result, report) = linearize(&func, "uvv", LinearizeMode::Partial);
    assert_eq!(report.loops_divergent, 1);
    // The live mask, x, r and the tracker.
    assert_eq!(block_phis(&result, block_named(&result, "body")).len(), 4, "{result}");
    let kept = tracker_update(&result, &report);
    let kept_inst = result.dfg.defining_inst(kept).unwrap();
    assert!(matches!(result.dfg.inst(kept_inst), InstData::Binary { op: BinaryOp::Or, .. }));
    check_same_meaning(&func, &result, &report, 1, 40);
    check_widened(&func, &result, &report, 8, 2, 30);
}

#[test]
fn the_live_outs_of_an_exit_stable_loop_need_no_tracker() {
    // From `x = 0` the body computes `r | 0 = r` and `x = 0` again: a lane
    // that left keeps computing the `r` it left with.
    let func = set_bits_loop(0);
    let (result, report) = linearize(&func, "uvv", LinearizeMode::Partial);
    assert_eq!((report.loops_divergent, report.loops_exit_stable), (1, 1));
    // The live mask, x and r: no tracker.
    assert_eq!(block_phis(&result, block_named(&result, "body")).len(), 3, "{result}");
    check_same_meaning(&func, &result, &report, 1, 40);
    check_widened(&func, &result, &report, 8, 2, 30);
    // With `r | 1` the state moves on: a tracker again.
    let (_, report) = linearize(&set_bits_loop(1), "uvv", LinearizeMode::Partial);
    assert_eq!((report.loops_divergent, report.loops_exit_stable), (1, 0));
}

#[test]
fn live_outs_that_differ_between_exits_get_an_update_phi() {
    // The two exits leave with different values, one computed only on the
    // way to its exit: the tracker takes an update phi of the exit values
    // (a blend after linearization).
    let func = two_exit_values_loop();
    let (result, report) = linearize(&func, "uvv", LinearizeMode::Partial);
    assert_eq!(report.loops_divergent, 1);
    let kept = tracker_update(&result, &report);
    let kept_inst = result.dfg.defining_inst(kept).unwrap();
    // The update phi, a blend of the exit values after linearization.
    assert!(
        matches!(result.dfg.inst(kept_inst), InstData::Phi { .. } | InstData::Select { .. }),
        "{result}"
    );
    check_same_meaning(&func, &result, &report, 3, 40);
    check_widened(&func, &result, &report, 8, 4, 30);
}

/// `i32 f(ptr table, i32 key)`: `j = 0; while (table[j] < key) j++;
/// return j;` with a uniform table: the load address is uniform in the
/// divergent loop.
fn first_at_least() -> Function {
    let mut func = Function::new("first_at_least", vec![Type::PTR, Type::I32], Type::I32);
    let (table, key) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let body = b.create_block(Some("body"));
    let end = b.create_block(Some("end"));
    b.switch_to_block(entry);
    let zero = b.iconst(Type::I32, 0);
    b.jump(body);
    b.switch_to_block(body);
    let j = b.phi(Type::I32, vec![(entry, zero)]);
    let addr = b.gep(Type::I32, table, vec![j]);
    let x = b.load(Type::I32, addr, 4);
    let one = b.iconst(Type::I32, 1);
    let j_next = b.binary(BinaryOp::Add, j, one);
    let more = b.icmp(IntPredicate::Slt, x, key);
    b.branch(more, body, end);
    b.switch_to_block(end);
    let result = b.phi(Type::I32, vec![(body, j)]);
    b.ret(Some(result));
    b.add_phi_incoming(j, body, j_next);
    func
}

#[test]
fn a_divergent_loop_header_runs_with_an_active_lane() {
    // Entered with all lanes and repeated on rv_any(live.next): the header
    // (and the uniform load in it) runs only while some lane is live.
    let (mut result, report) = linearize(&first_at_least(), "uv", LinearizeMode::Partial);
    let mut predicates = report.predicates.clone();
    let header = report.divergent_loops[0].header;
    assert_eq!(predicates.get(header), Some(report.divergent_loops[0].live_mask));
    assert!(!predicates.some_lane_active(header));
    crate::boscc::mark_blocks_with_an_active_lane(&mut result, &mut predicates);
    assert!(predicates.some_lane_active(header), "{result}");
}
