//! Unit tests of SIMD-loop planning, reduction recognition, outlining and
//! the loop rewrite (trip counts checked by running the rewritten function
//! in the interpreter, with the vectorized bodies replaced by externals that
//! count the iterations they are asked to run).

use std::cell::RefCell;
use std::collections::HashSet;

use lanewise_analysis::loops::LoopInfo;
use lanewise_analysis::{ControlFlowGraph, DominatorTree};
use lanewise_ir::{
    verify_function, BinaryOp, CallEffects, Callee, Constant, DataLayout, FastMathFlags,
    FloatPredicate, Function, FunctionBuilder, InstData, IntPredicate, LifetimeMarker, LoopHints,
    Type, Value,
};

use super::*;
use crate::interp::{Interpreter, Memory, Val};

/// `f(start, bound, x)`: a guarded rotated loop
/// `iv = start; do { acc = update(acc, x); iv += step } while (iv PRED bound)`
/// returning `acc * 1000003 + iv_end`, with the latch branch marked for
/// vectorization. `update` builds the accumulation from `(acc, x)`.
fn marked_loop(
    step: i64,
    pred: IntPredicate,
    acc_ty: Type,
    init: impl FnOnce(&mut FunctionBuilder<'_>) -> Value,
    update: impl FnOnce(&mut FunctionBuilder<'_>, Value, Value) -> Value,
) -> Function {
    let mut func = Function::new("f", vec![Type::I64, Type::I64, acc_ty.clone()], Type::I64);
    let (start, bound, x) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let preheader = b.create_block(Some("preheader"));
    let header = b.create_block(Some("header"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    b.jump(preheader);
    b.switch_to_block(preheader);
    let init = init(&mut b);
    b.jump(header);
    b.switch_to_block(header);
    let iv = b.phi(Type::I64, vec![(preheader, start)]);
    let acc = b.phi(acc_ty.clone(), vec![(preheader, init)]);
    // `update` may add blocks: the latch is the block it ends in.
    let updated = update(&mut b, acc, x);
    let latch = b.current_block().expect("the update ends in a block");
    let step_value = b.iconst(Type::I64, i128::from(step));
    let next = b.binary(BinaryOp::Add, iv, step_value);
    let continues = b.icmp(pred, next, bound);
    let latch_branch = b.branch(continues, header, exit);
    for (phi, value) in [(iv, next), (acc, updated)] {
        let inst = b.func.dfg.defining_inst(phi).unwrap();
        if let InstData::Phi { incoming, .. } = b.func.dfg.inst_mut(inst) {
            incoming.push((latch, value));
        }
    }
    b.switch_to_block(exit);
    let acc_out = b.phi(acc_ty.clone(), vec![(latch, updated)]);
    let iv_out = b.phi(Type::I64, vec![(latch, next)]);
    let acc_i64 = if acc_ty == Type::I64 { acc_out } else { b.iconst(Type::I64, 0) };
    let scale = b.iconst(Type::I64, 1_000_003);
    let scaled = b.binary(BinaryOp::Mul, acc_i64, scale);
    let result = b.binary(BinaryOp::Add, scaled, iv_out);
    b.ret(Some(result));
    func.loop_hints.insert(latch_branch, LoopHints::simd_loop());
    verify_function(&func).unwrap();
    func
}

/// Counts the iterations in a reduction (`acc += x`, run with `x = 1`; a
/// constant increment would make `acc` a second induction).
fn counting_loop(step: i64, pred: IntPredicate) -> Function {
    marked_loop(
        step,
        pred,
        Type::I64,
        |b| b.iconst(Type::I64, 0),
        |b, acc, x| b.binary(BinaryOp::Add, acc, x),
    )
}

fn plan(func: &Function) -> Result<LoopPlan, LoopRefusal> {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let loops = LoopInfo::compute(func, &cfg, &domtree).unwrap();
    let candidates = find_simd_loops(func, &loops, &HashSet::new());
    assert_eq!(candidates.len(), 1);
    plan_simd_loop(func, &loops, &candidates[0])
}

#[test]
fn plan_finds_induction_exit_test_and_reduction() {
    let func = counting_loop(1, IntPredicate::Ne);
    let plan = plan(&func).unwrap();
    assert_eq!(plan.inductions.len(), 1);
    assert_eq!(plan.inductions[0].step, 1);
    assert_eq!(plan.exit_test.continue_while, IntPredicate::Ne);
    assert!(plan.exit_test.tests_next);
    assert_eq!(plan.reductions.len(), 1);
    assert_eq!(plan.reductions[0].kind, ReductionKind::Binary(BinaryOp::Add));
    assert_eq!(plan.exit_phis.len(), 2);
    assert!(plan.exit_phis.iter().any(|(_, out)| *out == LiveOut::Reduction(0)));
    assert!(plan.exit_phis.iter().any(|(_, out)| *out == LiveOut::InductionEnd(0)));
}

#[test]
fn reductions_of_every_operator_are_recognized() {
    let binary = |op: BinaryOp, ty: Type| {
        marked_loop(
            1,
            IntPredicate::Slt,
            ty.clone(),
            move |b| match ty {
                Type::F32 => b.f32const(1.0),
                _ => b.iconst(ty.clone(), 3),
            },
            move |b, acc, x| b.binary(op, acc, x),
        )
    };
    for (op, ty, expected) in [
        (BinaryOp::Add, Type::I64, BinaryOp::Add),
        (BinaryOp::Sub, Type::I64, BinaryOp::Add),
        (BinaryOp::Mul, Type::I64, BinaryOp::Mul),
        (BinaryOp::And, Type::I64, BinaryOp::And),
        (BinaryOp::Or, Type::I64, BinaryOp::Or),
        (BinaryOp::Xor, Type::I64, BinaryOp::Xor),
        (BinaryOp::FAdd, Type::F32, BinaryOp::FAdd),
        (BinaryOp::FSub, Type::F32, BinaryOp::FAdd),
        (BinaryOp::FMul, Type::F32, BinaryOp::FMul),
    ] {
        let plan = plan(&binary(op, ty)).unwrap();
        assert_eq!(plan.reductions[0].kind, ReductionKind::Binary(expected), "{op:?}");
    }
    // smin as an intrinsic and as a select of a comparison.
    let intrinsic = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I32,
        |b| b.iconst(Type::I32, 7),
        |b, acc, x| {
            let call = b.call(
                Callee::Direct("llvm.smin.i32".to_owned()),
                vec![x, acc],
                Type::I32,
                CallEffects::Pure,
            );
            b.func.dfg.result(call).unwrap()
        },
    );
    assert_eq!(
        plan(&intrinsic).unwrap().reductions[0].kind,
        ReductionKind::Intrinsic("llvm.smin.i32".to_owned())
    );
    let select = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I32,
        |b| b.iconst(Type::I32, 7),
        |b, acc, x| {
            let less = b.icmp(IntPredicate::Slt, x, acc);
            b.select(less, x, acc)
        },
    );
    // An integer select-compare is the intrinsic it computes.
    let kind = &plan(&select).unwrap().reductions[0].kind;
    assert_eq!(*kind, ReductionKind::Intrinsic("llvm.smin.i32".to_owned()));
    // Two updates writing the same min differently are one reduction.
    let twice = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I32,
        |b| b.iconst(Type::I32, 7),
        |b, acc, x| {
            let less = b.icmp(IntPredicate::Sle, x, acc);
            let first = b.select(less, x, acc);
            let one = b.iconst(Type::I32, 1);
            let y = b.binary(BinaryOp::Add, x, one);
            let greater = b.icmp(IntPredicate::Sgt, first, y);
            b.select(greater, y, first)
        },
    );
    assert_eq!(plan(&twice).unwrap().reductions[0].kind, *kind);
    // So are an intrinsic and a select computing the same min.
    let mixed = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I32,
        |b| b.iconst(Type::I32, 7),
        |b, acc, x| {
            let call = b.call(
                Callee::Direct("llvm.smin.i32".to_owned()),
                vec![x, acc],
                Type::I32,
                CallEffects::Pure,
            );
            let first = b.func.dfg.result(call).unwrap();
            let one = b.iconst(Type::I32, 1);
            let y = b.binary(BinaryOp::Add, x, one);
            let less = b.icmp(IntPredicate::Slt, y, first);
            b.select(less, y, first)
        },
    );
    assert_eq!(plan(&mixed).unwrap().reductions[0].kind, *kind);
    // Identities: 0 for add, 1 for mul, none (idempotent) for min.
    assert_eq!(ReductionKind::Binary(BinaryOp::Add).identity(&Type::I32), Some(Constant::Int(0)));
    assert_eq!(ReductionKind::Binary(BinaryOp::Mul).identity(&Type::I32), Some(Constant::Int(1)));
    assert_eq!(kind.identity(&Type::I32), None);
}

#[test]
fn non_reductions_are_refused_naming_the_phi() {
    // Division is not associative.
    let division = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I64,
        |b| b.iconst(Type::I64, 1000),
        |b, acc, x| b.binary(BinaryOp::SDiv, acc, x),
    );
    let refusal = plan(&division).unwrap_err();
    assert!(refusal.message.contains("neither an induction nor a reduction"), "{refusal}");
    assert!(refusal.message.contains("sdiv"), "{refusal}");
    // `x - acc` is not `acc + (-x)`.
    let reversed = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I64,
        |b| b.iconst(Type::I64, 0),
        |b, acc, x| b.binary(BinaryOp::Sub, x, acc),
    );
    assert!(plan(&reversed).unwrap_err().message.contains("sub"));
    // Mixing two operators.
    let mixed = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I64,
        |b| b.iconst(Type::I64, 0),
        |b, acc, x| {
            let sum = b.binary(BinaryOp::Add, acc, x);
            b.binary(BinaryOp::Mul, sum, x)
        },
    );
    assert!(plan(&mixed).unwrap_err().message.contains("mixes"));
    // Using the accumulator twice.
    let square = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I64,
        |b| b.iconst(Type::I64, 1),
        |b, acc, _| b.binary(BinaryOp::Mul, acc, acc),
    );
    assert!(plan(&square).unwrap_err().message.contains("itself"));
}

#[test]
fn conditional_assignments_are_last_values_and_resets_are_refused() {
    // `acc = x > 5 ? x * 2 : acc`: neither the condition nor the value reads
    // the accumulator, a conditional last value.
    let assigned = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I64,
        |b| b.iconst(Type::I64, -1),
        |b, acc, x| {
            let five = b.iconst(Type::I64, 5);
            let big = b.icmp(IntPredicate::Sgt, x, five);
            let two = b.iconst(Type::I64, 2);
            let twice = b.binary(BinaryOp::Mul, x, two);
            b.select(big, twice, acc)
        },
    );
    let plan = plan(&assigned).unwrap();
    assert_eq!(plan.reductions[0].kind, ReductionKind::LastAssigned);
    assert!(plan.has_conditional_assignments());
    // The induction, the live-ins, the value's slot and its stamps, then
    // the iteration number, linear.
    let mut expected = vec![Some(1)];
    expected.extend(std::iter::repeat_n(None, plan.live_ins.len() + 2));
    expected.push(Some(1));
    assert_eq!(plan.body_param_steps(), expected);
    // `acc = x > 5 ? 0 : acc + x`: a reset of a sum is not a reduction.
    let reset = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I64,
        |b| b.iconst(Type::I64, 0),
        |b, acc, x| {
            let five = b.iconst(Type::I64, 5);
            let big = b.icmp(IntPredicate::Sgt, x, five);
            let sum = b.binary(BinaryOp::Add, acc, x);
            let zero = b.iconst(Type::I64, 0);
            b.select(big, zero, sum)
        },
    );
    let refusal = super::tests::plan(&reset).unwrap_err();
    assert!(refusal.message.contains("a reset of an accumulator"), "{refusal}");
    // `acc = x > acc ? x * 2 : acc`: the condition reads the accumulator.
    let record = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I64,
        |b| b.iconst(Type::I64, 0),
        |b, acc, x| {
            let above = b.icmp(IntPredicate::Sgt, x, acc);
            let two = b.iconst(Type::I64, 2);
            let twice = b.binary(BinaryOp::Mul, x, two);
            b.select(above, twice, acc)
        },
    );
    let refusal = super::tests::plan(&record).unwrap_err();
    assert!(refusal.message.contains("a recurrence across iterations"), "{refusal}");
}

#[test]
fn a_constant_increment_is_a_second_induction() {
    let func = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I64,
        |b| b.iconst(Type::I64, 0),
        |b, acc, _| {
            let two = b.iconst(Type::I64, 2);
            b.binary(BinaryOp::Add, acc, two)
        },
    );
    let plan = plan(&func).unwrap();
    assert_eq!(plan.inductions.len(), 2);
    assert_eq!(plan.inductions[1].step, 2);
    assert!(plan.reductions.is_empty());
}

#[test]
fn unsupported_exit_tests_are_refused() {
    // Counting up while iv > bound never ends well: refused.
    let refusal = plan(&counting_loop(1, IntPredicate::Sgt)).unwrap_err();
    assert!(refusal.message.contains("unsupported exit test"), "{refusal}");
}

/// `f(bound)`: a loop calling `may_throw(iv)` with an `invoke`. With
/// `caught`, its landing pad is in the loop (a catch in the body: the pad
/// continues at the latch); otherwise it is a cleanup outside the loop that
/// resumes.
fn invoke_loop(caught: bool) -> Function {
    let mut func = Function::new("f", vec![Type::I64], Type::Void);
    func.personality = Some("__gxx_personality_v0".to_owned());
    let bound = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let preheader = b.create_block(Some("preheader"));
    let header = b.create_block(Some("header"));
    let latch = b.create_block(Some("latch"));
    let exit = b.create_block(Some("exit"));
    let lpad = b.create_block(Some("lpad"));
    b.switch_to_block(preheader);
    let zero = b.iconst(Type::I64, 0);
    b.jump(header);
    b.switch_to_block(header);
    let iv = b.phi(Type::I64, vec![(preheader, zero)]);
    b.ins(
        InstData::Invoke {
            callee: Callee::Direct("may_throw".to_owned()),
            args: vec![iv],
            ret_ty: Type::Void,
            effects: CallEffects::SideEffects,
            normal_dest: latch,
            unwind_dest: lpad,
        },
        Type::Void,
    );
    b.switch_to_block(latch);
    let one = b.iconst(Type::I64, 1);
    let next = b.binary(BinaryOp::Add, iv, one);
    let continues = b.icmp(IntPredicate::Ne, next, bound);
    let latch_branch = b.branch(continues, header, exit);
    b.switch_to_block(exit);
    b.ret(None);
    b.switch_to_block(lpad);
    let exception_ty = Type::Struct { fields: vec![Type::PTR, Type::I32], packed: false };
    let pad = b.ins(
        InstData::LandingPad { ty: exception_ty.clone(), cleanup: true, clauses: vec![] },
        exception_ty,
    );
    if caught {
        b.jump(latch);
    } else {
        let exception = b.func.dfg.result(pad).unwrap();
        b.ins(InstData::Resume { value: exception }, Type::Void);
    }
    let phi = func.dfg.defining_inst(iv).unwrap();
    if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
        incoming.push((latch, next));
    }
    func.loop_hints.insert(latch_branch, LoopHints::simd_loop());
    verify_function(&func).unwrap();
    func
}

/// A loop whose body calls a function that may throw (`invoke`, with a
/// cleanup landing pad outside the loop): a conforming program never
/// unwinds out of the body, so the body calls instead, and the rewritten
/// function loses the landing pad only the loop reached. Widening a
/// function that holds the invoke is still refused.
#[test]
fn loops_whose_calls_unwind_out_of_the_loop_call_instead() {
    let func = invoke_loop(false);
    let plan = plan(&func).unwrap();
    assert_eq!(plan.unwind_dests.len(), 1);
    let body = outline_loop_body(&func, &plan, "f.body", &DataLayout::default());
    verify_function(&body).unwrap();
    let opcodes: Vec<&str> =
        body.layout.insts().map(|inst| body.dfg.inst(inst).opcode_name()).collect();
    assert!(!opcodes.contains(&"invoke"), "{opcodes:?}");
    assert!(
        body.layout.insts().any(|inst| matches!(body.dfg.inst(inst),
            InstData::Call { callee: Callee::Direct(name), .. } if name == "may_throw")),
        "{opcodes:?}"
    );
    let mut rewritten = func.clone();
    let targets = LoopCallTargets {
        width: 8,
        unmasked: "body.x".to_owned(),
        masked: "body.masked".to_owned(),
        scalar: "body.scalar".to_owned(),
        mask_param_types: vec![Type::I32.vector_of(8)],
    };
    rewrite_loop(&mut rewritten, &plan, &targets, TailForm::Masked, &DataLayout::default())
        .unwrap();
    verify_function(&rewritten).unwrap();
    assert!(
        !rewritten.layout.insts().any(|inst| rewritten.dfg.inst(inst).is_exception_handling()),
        "the landing pad is left"
    );
    assert_eq!(rewritten.personality.as_deref(), Some("__gxx_personality_v0"));
    let widening = crate::widen::refuse_exception_handling(&func).unwrap_err().to_string();
    assert!(
        widening.contains("block `header`, instruction `invoke`: exception handling (`invoke`)"),
        "{widening}"
    );
}

/// A landing pad in the loop (the body catches) keeps the loop scalar, with
/// a refusal naming the invoke and the pad.
#[test]
fn loops_that_catch_in_the_body_are_refused() {
    let refusal = plan(&invoke_loop(true)).unwrap_err();
    assert_eq!(
        refusal.message,
        "an exception is caught inside the loop body: `invoke` of `may_throw` in block %header \
         unwinds to the landing pad in block %lpad, which continues in the loop (W lanes cannot \
         unwind and resume one by one)"
    );
}

#[test]
fn outlined_body_loads_and_stores_the_accumulator_per_lane() {
    let func = counting_loop(1, IntPredicate::Slt);
    let plan = plan(&func).unwrap();
    let body = outline_loop_body(&func, &plan, "f.body", &DataLayout::default());
    verify_function(&body).unwrap();
    // iv (linear), the live-ins x and bound, the reduction slot.
    assert_eq!(plan.body_param_steps(), vec![Some(1), None, None, None]);
    assert_eq!(body.params.len(), 4);
    let insts: Vec<&InstData> = body.layout.insts().map(|inst| body.dfg.inst(inst)).collect();
    assert!(insts.iter().any(|data| matches!(data, InstData::Call { callee: Callee::Direct(name), .. } if name == LANE_ID_BUILTIN)));
    assert_eq!(insts.iter().filter(|data| matches!(data, InstData::Load { .. })).count(), 1);
    assert_eq!(insts.iter().filter(|data| matches!(data, InstData::Store { .. })).count(), 1);
    assert!(matches!(insts.last(), Some(InstData::Return { value: None })));
    assert!(!insts.iter().any(|data| matches!(data, InstData::Phi { .. })));
}

/// Runs `func` in the interpreter with the vectorized bodies replaced by
/// externals; returns the result and the iterations the bodies ran, in order
/// of their first induction value. The scalar remainder body (`body.scalar`)
/// runs one iteration; its reduction slot must be `&slot[j]` for the `j`-th
/// iteration of its chunk, as lane `j` of a masked call would use.
fn run_rewritten(func: &Function, width: u32, args: &[Val]) -> (u128, Vec<u128>) {
    let Val::Int { value: start, .. } = args[0] else { panic!("start") };
    let iterations = RefCell::new(Vec::new());
    // The slot base of every call, as lane 0's slot: one base for all.
    let slot_bases = RefCell::new(HashSet::new());
    let mut interpreter = Interpreter::new(Memory::new(0x1000, 1 << 16), |name, call_args| {
        let Val::Int { value: first, .. } = call_args[0] else { panic!("induction") };
        // The reduction slot follows the induction and the live-ins x, bound.
        let Val::Ptr(slot) = call_args[3] else { panic!("slot {call_args:?}") };
        let lane = if name == "body.scalar" { (first - start) % u128::from(width) } else { 0 };
        slot_bases.borrow_mut().insert(u128::from(slot) - 8 * lane);
        let active: Vec<bool> = match name {
            "body.scalar" => vec![true],
            "body.x" => vec![true; width as usize],
            "body.masked" => match call_args.last() {
                Some(Val::Vector(lanes)) => {
                    lanes.iter().map(|lane| !matches!(lane, Val::Int { value: 0, .. })).collect()
                }
                other => panic!("mask {other:?}"),
            },
            other => panic!("unexpected call of {other}"),
        };
        for (lane, on) in active.iter().enumerate() {
            if *on {
                iterations.borrow_mut().push(first + lane as u128);
            }
        }
        Ok(None)
    });
    let result = interpreter.run(func, args).unwrap();
    let Some(Val::Int { value, .. }) = result else { panic!("result {result:?}") };
    drop(interpreter);
    assert_eq!(slot_bases.borrow().len(), 1, "calls with other lane slots: {slot_bases:?}");
    (value, iterations.into_inner())
}

#[test]
fn rewritten_loop_runs_every_iteration_once_for_every_trip_count() {
    check_every_iteration_runs_once(TailForm::Masked);
}

#[test]
fn scalar_remainder_runs_every_iteration_once_with_its_lanes_slots() {
    check_every_iteration_runs_once(TailForm::Scalar);
    for scalar_below in [1, 3, 7] {
        check_every_iteration_runs_once(TailForm::RunTime { scalar_below });
    }
}

/// Which bodies the tail of a loop rewritten with `tail` calls.
fn tail_calls(tail: TailForm) -> (bool, bool) {
    let original = counting_loop(1, IntPredicate::Slt);
    let plan = plan(&original).unwrap();
    let mut rewritten = original.clone();
    let targets = LoopCallTargets {
        width: 8,
        unmasked: "body.x".to_owned(),
        masked: "body.masked".to_owned(),
        scalar: "body.scalar".to_owned(),
        mask_param_types: vec![Type::I32.vector_of(8)],
    };
    rewrite_loop(&mut rewritten, &plan, &targets, tail, &DataLayout::default()).unwrap();
    verify_function(&rewritten).unwrap();
    let calls = |callee: &str| {
        rewritten.layout.insts().any(|inst| {
            matches!(rewritten.dfg.inst(inst),
                InstData::Call { callee: Callee::Direct(name), .. } if name == callee)
        })
    };
    (calls("body.masked"), calls("body.scalar"))
}

#[test]
fn each_tail_form_calls_only_its_bodies() {
    assert_eq!(tail_calls(TailForm::Masked), (true, false));
    assert_eq!(tail_calls(TailForm::Scalar), (false, true));
    assert_eq!(tail_calls(TailForm::RunTime { scalar_below: 4 }), (true, true));
}

/// The masked tail's mask compares the lane numbers with an opaque copy of
/// the remaining count, never with a value LLVM could fold into a constant
/// mask (fuzz seed 60300: LLVM 22 lost the zero-extension of a constant
/// 8-of-16-lane mask; tests/fuzz_regressions/026).
#[test]
fn the_masked_tail_builds_its_mask_from_an_opaque_count() {
    let original = counting_loop(1, IntPredicate::Slt);
    let plan = plan(&original).unwrap();
    let mut rewritten = original.clone();
    let targets = LoopCallTargets {
        width: 8,
        unmasked: "body.x".to_owned(),
        masked: "body.masked".to_owned(),
        scalar: "body.scalar".to_owned(),
        mask_param_types: vec![Type::I32.vector_of(8)],
    };
    rewrite_loop(&mut rewritten, &plan, &targets, TailForm::Masked, &DataLayout::default())
        .unwrap();
    verify_function(&rewritten).unwrap();
    let dfg = &rewritten.dfg;
    let masked_call = rewritten
        .layout
        .insts()
        .find(|&inst| {
            matches!(dfg.inst(inst),
                InstData::Call { callee: Callee::Direct(name), .. } if name == "body.masked")
        })
        .expect("the masked tail's call");
    let InstData::Call { args, .. } = dfg.inst(masked_call) else { unreachable!() };
    // The ABI's mask argument (`sext` of the `<8 x i1>` comparison).
    let mut mask = *args.last().expect("the mask argument");
    while let Some(InstData::Cast { arg, .. }) = dfg.defining_inst(mask).map(|inst| dfg.inst(inst))
    {
        mask = *arg;
    }
    let Some(InstData::Icmp { rhs, .. }) = dfg.defining_inst(mask).map(|inst| dfg.inst(inst))
    else {
        panic!("the mask is not a comparison of the lane numbers");
    };
    let Some(InstData::Splat { scalar, .. }) = dfg.defining_inst(*rhs).map(|inst| dfg.inst(inst))
    else {
        panic!("the count is not a splat");
    };
    let count = dfg.defining_inst(*scalar).map(|inst| dfg.inst(inst));
    assert!(
        matches!(count, Some(InstData::Call { callee: Callee::InlineAsm(asm), .. }) if asm.is_identity()),
        "the remaining count reaches the mask without a barrier: {count:?}"
    );
}

#[test]
fn the_scalar_remainder_body_uses_lane_zero() {
    let func = counting_loop(1, IntPredicate::Slt);
    let plan = plan(&func).unwrap();
    let body = outline_loop_body(&func, &plan, "f.body", &DataLayout::default());
    let scalar = scalar_remainder_body(&body, "f.body.scalar");
    verify_function(&scalar).unwrap();
    assert_eq!(scalar.name, "f.body.scalar");
    let insts: Vec<&InstData> = scalar.layout.insts().map(|inst| scalar.dfg.inst(inst)).collect();
    assert!(!insts.iter().any(|data| matches!(data, InstData::Call { .. })));
    // The accumulator is loaded from and stored to `slot[0]`.
    let gep_indices: Vec<Option<u128>> = insts
        .iter()
        .filter_map(|data| match data {
            InstData::Gep { indices, .. } => Some(scalar.dfg.int_constant(indices[0])),
            _ => None,
        })
        .collect();
    assert_eq!(gep_indices, vec![Some(0), Some(0)]);
}

/// Rewrites counting loops of every exit test with `tail` and runs them for
/// trip counts around multiples of W: every iteration runs exactly once.
fn check_every_iteration_runs_once(tail: TailForm) {
    let width = 8;
    for (pred, bound_offset) in [
        (IntPredicate::Ne, 0i64),
        (IntPredicate::Slt, 0),
        (IntPredicate::Sle, -1),
        (IntPredicate::Ult, 0),
    ] {
        let original = counting_loop(1, pred);
        let plan = plan(&original).unwrap();
        let mut rewritten = original.clone();
        let targets = LoopCallTargets {
            width,
            unmasked: "body.x".to_owned(),
            masked: "body.masked".to_owned(),
            scalar: "body.scalar".to_owned(),
            mask_param_types: vec![Type::I32.vector_of(width)],
        };
        rewrite_loop(&mut rewritten, &plan, &targets, tail, &DataLayout::default()).unwrap();
        verify_function(&rewritten).unwrap();
        for trip_count in [1i64, 2, 3, 6, 7, 8, 9, 10, 15, 17, 100] {
            let start = 5i64;
            let bound = start + trip_count + bound_offset;
            let args = [Val::int(64, start as u128), Val::int(64, bound as u128), Val::int(64, 1)];
            let mut interpreter = Interpreter::new(Memory::new(0x1000, 1 << 12), |name, _| {
                panic!("the scalar loop calls {name}")
            });
            let Some(Val::Int { value: expected, .. }) = interpreter.run(&original, &args).unwrap()
            else {
                panic!("no result")
            };
            let expected_end = (expected % 1_000_003) as i64;
            assert_eq!(expected / 1_000_003, trip_count as u128, "{pred:?}");
            let (result, iterations) = run_rewritten(&rewritten, width, &args);
            // The reduction slots are untouched by the fake bodies: 0.
            assert_eq!(result as i64, expected_end, "{tail:?} {pred:?} trip count {trip_count}");
            let expected_iterations: Vec<u128> =
                (0..trip_count).map(|k| (start + k) as u128).collect();
            assert_eq!(
                iterations, expected_iterations,
                "{tail:?} {pred:?} trip count {trip_count}"
            );
        }
    }
}

/// W comes from the data, not the indices: an inner loop's `i64` counter
/// (LLVM's indvars widens `int k` to `i64`) does not count, an `i64`
/// reduction does.
#[test]
fn widest_data_ignores_inner_integer_counters_but_not_reductions() {
    // The inner loop's i64 index (a counter) does not count, its i32 data does.
    assert_eq!(plan(&inner_index_loop(false)).unwrap().data_profile.widest_bits(), 32);

    assert_eq!(plan(&counting_loop(1, IntPredicate::Ne)).unwrap().data_profile.widest_bits(), 64);
}

/// A SIMD loop whose inner loop loads `base[k]` four times, with `k` a
/// counter (`k + 1`) or, when `chase`, the index just loaded (a pointer
/// chase: each address waits for the previous load).
fn inner_index_loop(chase: bool) -> Function {
    let mut func = Function::new("f", vec![Type::PTR, Type::I64], Type::Void);
    let (base, bound) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("header"));
    let inner = b.create_block(Some("inner"));
    let latch = b.create_block(Some("latch"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    let zero = b.iconst(Type::I64, 0);
    let zero32 = b.iconst(Type::I32, 0);
    b.jump(header);
    b.switch_to_block(header);
    let iv = b.phi(Type::I64, vec![(entry, zero)]);
    b.jump(inner);
    b.switch_to_block(inner);
    let index = b.phi(Type::I64, vec![(header, iv)]);
    let count = b.phi(Type::I32, vec![(header, zero32)]);
    let element_addr = b.gep(Type::I32, base, vec![index]);
    let element = b.load(Type::I32, element_addr, 4);
    let one = b.iconst(Type::I64, 1);
    let index_next = if chase {
        b.cast(lanewise_ir::CastOp::ZExt, element, Type::I64)
    } else {
        b.binary(BinaryOp::Add, index, one)
    };
    let one32 = b.iconst(Type::I32, 1);
    let count_next = b.binary(BinaryOp::Add, count, one32);
    let four = b.iconst(Type::I32, 4);
    let inner_continues = b.icmp(IntPredicate::Ult, count_next, four);
    b.branch(inner_continues, inner, latch);
    b.switch_to_block(latch);
    let out_addr = b.gep(Type::I32, base, vec![iv]);
    b.store(element, out_addr, 4);
    let iv_next = b.binary(BinaryOp::Add, iv, one);
    let continues = b.icmp(IntPredicate::Ne, iv_next, bound);
    let latch_branch = b.branch(continues, header, exit);
    b.add_phi_incoming(iv, latch, iv_next);
    b.add_phi_incoming(index, inner, index_next);
    b.add_phi_incoming(count, inner, count_next);
    b.switch_to_block(exit);
    b.ret(None);
    func.loop_hints.insert(latch_branch, LoopHints::simd_loop());
    verify_function(&func).unwrap();
    func
}

/// A load whose address waits for the previous iteration's data is
/// recorded; one indexed by a counter is not.
#[test]
fn data_dependent_inner_addresses_are_recorded() {
    let recorded =
        |chase| plan(&inner_index_loop(chase)).unwrap().data_profile.has_data_dependent_loads();
    assert!(!recorded(false));
    assert!(recorded(true));
}

/// A counting loop whose body stores `x` into a stack slot private to each
/// iteration (lifetime markers in the loop) and adds what it reads back
/// through an address LICM computed before the loop: `address(b, slot, x)`
/// builds it in the preheader (fuzzer seed 3368: `ka[c > 0]` hoisted as
/// `select c, &ka[1], &ka[0]`).
fn loop_reading_private_slot_through(
    address: impl FnOnce(&mut FunctionBuilder<'_>, Value, Value) -> Value,
) -> Function {
    let hoisted = std::cell::Cell::new(None);
    let mut func = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I64,
        |b| {
            let count = b.iconst(Type::I64, 1);
            let slot = b.ins_value(
                InstData::Alloca {
                    ty: Type::Array { elem: Box::new(Type::I64), len: 2 },
                    count,
                    align: 8,
                },
                Type::PTR,
            );
            let x = b.func.param_value(2);
            hoisted.set(Some((slot, address(b, slot, x))));
            b.iconst(Type::I64, 0)
        },
        |b, acc, x| {
            let (slot, address) = hoisted.get().unwrap();
            let zero = b.iconst(Type::I64, 0);
            let first = b.gep(Type::I64, slot, vec![zero]);
            b.store(x, first, 8);
            let one = b.iconst(Type::I64, 1);
            let second = b.gep(Type::I64, slot, vec![one]);
            b.store(one, second, 8);
            let read = b.load(Type::I64, address, 8);
            b.binary(BinaryOp::Add, acc, read)
        },
    );
    let (slot, _) = hoisted.get().unwrap();
    let header = func.layout.blocks()[2];
    for start in [true, false] {
        func.lifetime_markers.push(LifetimeMarker { slot, block: header, start });
    }
    func
}

#[test]
fn addresses_into_private_slots_computed_before_the_loop_are_recomputed_in_the_body() {
    let func = loop_reading_private_slot_through(|b, slot, x| {
        let zero = b.iconst(Type::I64, 0);
        let one = b.iconst(Type::I64, 1);
        let first = b.gep(Type::I64, slot, vec![zero]);
        let second = b.gep(Type::I64, slot, vec![one]);
        let positive = b.icmp(IntPredicate::Sgt, x, zero);
        b.select(positive, second, first)
    });
    let plan = plan(&func).unwrap();
    assert_eq!(plan.private_allocas.len(), 1);
    // Both addresses, then the select of them (each after what it uses).
    assert_eq!(plan.private_addresses.len(), 3);
    let selected = *plan.private_addresses.last().unwrap();
    let def = func.dfg.defining_inst(selected).unwrap();
    assert!(matches!(func.dfg.inst(def), InstData::Select { .. }));
    // The select's condition is what the body receives instead.
    let InstData::Select { cond, .. } = func.dfg.inst(def) else { unreachable!() };
    assert!(plan.live_ins.contains(cond));
    assert!(!plan.live_ins.contains(&selected));
}

#[test]
fn addresses_into_private_slots_the_body_cannot_recompute_are_refused() {
    let func = loop_reading_private_slot_through(|b, slot, _| b.load(Type::PTR, slot, 8));
    let refusal = plan(&func).unwrap_err();
    assert!(refusal.message.contains("private to each iteration"), "{refusal}");
    assert!(refusal.message.contains("load"), "{refusal}");
}

/// `acc = acc + x` with the running value passed to `sink` after the
/// update (`inclusive`) or, with `read_phi`, the accumulator read before
/// or after it.
fn loop_reading_running_value(read_phi: bool, before_update: bool) -> Function {
    marked_loop(
        1,
        IntPredicate::Slt,
        Type::I64,
        |b| b.iconst(Type::I64, 0),
        |b, acc, x| {
            let sink = |b: &mut FunctionBuilder<'_>, value: Value| {
                b.call(
                    Callee::Direct("sink".to_owned()),
                    vec![value],
                    Type::Void,
                    CallEffects::SideEffects,
                );
            };
            if read_phi && before_update {
                sink(b, acc);
            }
            let updated = b.binary(BinaryOp::Add, acc, x);
            if read_phi && !before_update {
                sink(b, acc);
            }
            if !read_phi {
                sink(b, updated);
            }
            updated
        },
    )
}

#[test]
fn running_values_read_in_the_body_are_scans() {
    for read_phi in [false, true] {
        let func = loop_reading_running_value(read_phi, false);
        let plan = plan(&func).unwrap();
        assert_eq!(plan.reductions.len(), 1);
        assert!(plan.reductions[0].scan);
        assert_eq!(plan.reductions[0].kind, ReductionKind::Binary(BinaryOp::Add));
    }
    let plain = plan(&counting_loop(1, IntPredicate::Ne)).unwrap();
    assert!(!plain.reductions[0].scan);
}

/// `s += x; sink(s * 3 + 1)` (or the same of the phi, `sink(s - 3)`
/// before `s += x`'s value is used): arithmetic on the running value that
/// the update does not depend on reads it; it is no operator of the
/// reduction (they used to "mix" `add` and `mul`).
#[test]
fn arithmetic_on_running_values_reads_them() {
    for read_phi in [false, true] {
        let func = marked_loop(
            1,
            IntPredicate::Slt,
            Type::I64,
            |b| b.iconst(Type::I64, 0),
            |b, acc, x| {
                let updated = b.binary(BinaryOp::Add, acc, x);
                let three = b.iconst(Type::I64, 3);
                let read = if read_phi { acc } else { updated };
                let times = b.binary(BinaryOp::Mul, read, three);
                let plus = b.binary(BinaryOp::Add, times, three);
                b.call(
                    Callee::Direct("sink".to_owned()),
                    vec![plus],
                    Type::Void,
                    CallEffects::SideEffects,
                );
                updated
            },
        );
        let plan = plan(&func).unwrap();
        assert!(plan.reductions[0].scan);
        assert_eq!(plan.reductions[0].kind, ReductionKind::Binary(BinaryOp::Add));
        assert_eq!(plan.reductions[0].members.len(), 2);
    }
}

/// `s = s > 10 ? s + x : s`: the comparison decides the update, a
/// recurrence whatever else reads `s`.
#[test]
fn comparisons_deciding_the_update_are_refused() {
    let func = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I64,
        |b| b.iconst(Type::I64, 0),
        |b, acc, x| {
            let ten = b.iconst(Type::I64, 10);
            let big = b.icmp(IntPredicate::Sgt, acc, ten);
            let sum = b.binary(BinaryOp::Add, acc, x);
            b.select(big, sum, acc)
        },
    );
    let refusal = plan(&func).unwrap_err();
    assert!(
        refusal.message.contains("is read by a comparison that decides its update"),
        "{refusal}"
    );
}

/// `if (x > 0) s = smin(s, x); sink(s - 3)` with the condition kept as a
/// branch: the update is a phi, and the body recomputes it in place from
/// the neutral element (`INT_MAX` for `smin`): a copy of the `smin` right
/// after it reading the constant, a copy of the phi beside it, and the
/// prefix after the phis; the reads take the inclusive value.
#[test]
fn conditional_updates_across_blocks_are_recomputed_in_place() {
    let func = marked_loop(
        1,
        IntPredicate::Slt,
        Type::I32,
        |b| b.iconst(Type::I32, 1000),
        |b, acc, x| {
            let from = b.current_block().unwrap();
            let then = b.create_block(Some("then"));
            let join = b.create_block(Some("join"));
            let zero = b.iconst(Type::I32, 0);
            let positive = b.icmp(IntPredicate::Sgt, x, zero);
            b.branch(positive, then, join);
            b.switch_to_block(then);
            let min = b.call(
                Callee::Direct("llvm.smin.i32".to_owned()),
                vec![acc, x],
                Type::I32,
                CallEffects::Pure,
            );
            let min = b.func.dfg.result(min).unwrap();
            b.jump(join);
            b.switch_to_block(join);
            let updated = b.phi(Type::I32, vec![(from, acc), (then, min)]);
            let three = b.iconst(Type::I32, 3);
            let read = b.binary(BinaryOp::Sub, updated, three);
            b.call(
                Callee::Direct("sink".to_owned()),
                vec![read],
                Type::Void,
                CallEffects::SideEffects,
            );
            updated
        },
    );
    let plan = plan(&func).unwrap();
    assert!(plan.reductions[0].scan);
    let body = outline_loop_body(&func, &plan, "f.body", &DataLayout::default());
    verify_function(&body).unwrap();
    let neutral = |value: Value| body.dfg.int_constant(value) == Some(0x7fff_ffff);
    let insts: Vec<&InstData> = body.layout.insts().map(|inst| body.dfg.inst(inst)).collect();
    let smins: Vec<&&InstData> = insts
        .iter()
        .filter(|data| matches!(data, InstData::Call { callee: Callee::Direct(name), .. } if name == "llvm.smin.i32"))
        .collect();
    // The update, its copy from INT_MAX, and the prefix's combining steps.
    assert!(smins
        .iter()
        .any(|data| matches!(data, InstData::Call { args, .. } if neutral(args[0]))));
    let phis_reading_neutral = insts
        .iter()
        .filter(|data| matches!(data, InstData::Phi { incoming, .. } if incoming.iter().any(|(_, v)| neutral(*v))))
        .count();
    assert_eq!(phis_reading_neutral, 1, "{insts:#?}");
    let inclusive =
        body.dfg.value_names.iter().filter(|(_, name)| name.as_deref() == Some("scan.inclusive"));
    assert_eq!(inclusive.count(), 1);
    // The read (`s - 3`) takes the inclusive value, not the update.
    let sub_reads_inclusive = body.layout.insts().any(|inst| {
        matches!(body.dfg.inst(inst), InstData::Binary { op: BinaryOp::Sub, lhs, .. }
            if body.dfg.value_names[*lhs].as_deref() == Some("scan.inclusive"))
    });
    assert!(sub_reads_inclusive);
}

#[test]
fn running_values_read_before_the_update_are_refused() {
    let func = loop_reading_running_value(true, true);
    let refusal = plan(&func).unwrap_err();
    assert!(
        refusal.message.contains("is read by `call` before the iteration's update"),
        "{refusal}"
    );
}

#[test]
fn neutral_elements_never_win() {
    let neutral = |name: &str, ty: Type| ReductionKind::Intrinsic(name.to_owned()).neutral(&ty);
    assert_eq!(neutral("llvm.smax.i32", Type::I32), Some(Constant::Int(0x8000_0000)));
    assert_eq!(neutral("llvm.smin.i32", Type::I32), Some(Constant::Int(0x7fff_ffff)));
    assert_eq!(neutral("llvm.umax.i64", Type::I64), Some(Constant::Int(0)));
    assert_eq!(neutral("llvm.umin.i8", Type::I8), Some(Constant::Int(0xff)));
    assert_eq!(neutral("llvm.maximum.f32", Type::F32), Some(Constant::Float(0xff80_0000)));
    assert_eq!(neutral("llvm.minnum.f64", Type::F64), Some(Constant::Float(0x7ff8_0000_0000_0000)));
    let and = ReductionKind::Binary(BinaryOp::And);
    assert_eq!(and.neutral(&Type::Int(16)), Some(Constant::Int(0xffff)));
    assert_eq!(ReductionKind::Binary(BinaryOp::Add).neutral(&Type::I32), Some(Constant::Int(0)));
    let select = |compare, accumulator_on_left, accumulator_if_true| {
        ReductionKind::SelectCompare(reduction::SelectCompare {
            compare,
            accumulator_on_left,
            accumulator_if_true,
        })
    };
    let int = reduction::ComparePredicate::Int;
    let float = |pred| reduction::ComparePredicate::Float(pred, FastMathFlags::default());
    // `m < x ? m : x`: a signed min.
    let min = select(int(IntPredicate::Slt), true, true);
    assert_eq!(min.neutral(&Type::I32), Some(Constant::Int(0x7fff_ffff)));
    // `x > m ? x : m` (unsigned): a max.
    let max = select(int(IntPredicate::Ugt), false, false);
    assert_eq!(max.neutral(&Type::I8), Some(Constant::Int(0)));
    // `x < m ? x : m` keeps `m` for a NaN `x`, as it keeps +inf.
    let fmin = select(float(FloatPredicate::Olt), false, false);
    assert_eq!(fmin.neutral(&Type::F32), Some(Constant::Float(0x7f80_0000)));
    // So does `x uge m ? m : x`, the same select inverted.
    let fmin = select(float(FloatPredicate::Uge), false, true);
    assert_eq!(fmin.neutral(&Type::F64), Some(Constant::Float(0x7ff0_0000_0000_0000)));
    let fmax = select(float(FloatPredicate::Ogt), false, false);
    assert_eq!(fmax.neutral(&Type::F32), Some(Constant::Float(0xff80_0000)));
    // `x ult m ? x : m` takes a NaN `x` in: no neutral element.
    let unordered = select(float(FloatPredicate::Ult), false, false);
    assert_eq!(unordered.neutral(&Type::F32), None);
    let equal = select(int(IntPredicate::Eq), false, false);
    assert_eq!(equal.neutral(&Type::I32), None);
}

/// `if (x > 0) { if (x < m) m = x; }` with the inner `if` kept as a
/// branch to the join of the outer one (three predecessors), optionally
/// with a call `sink(x)` in the assigning block or a second phi that the
/// comparison decides (`flag = x < m`, passed to `sink` after the join).
fn loop_with_branch_min(store_in_branch: bool, flag_decided: bool) -> Function {
    marked_loop(
        1,
        IntPredicate::Slt,
        Type::I32,
        |b| b.iconst(Type::I32, 1000),
        |b, acc, x| {
            let outer = b.current_block().unwrap();
            let decide = b.create_block(Some("decide"));
            let assign = b.create_block(Some("assign"));
            let join = b.create_block(Some("join"));
            let zero = b.iconst(Type::I32, 0);
            let positive = b.icmp(IntPredicate::Sgt, x, zero);
            b.branch(positive, decide, join);
            b.switch_to_block(decide);
            let less = b.icmp(IntPredicate::Slt, x, acc);
            b.branch(less, assign, join);
            b.switch_to_block(assign);
            if store_in_branch {
                b.call(
                    Callee::Direct("sink".to_owned()),
                    vec![x],
                    Type::Void,
                    CallEffects::SideEffects,
                );
            }
            b.jump(join);
            b.switch_to_block(join);
            let updated = b.phi(Type::I32, vec![(outer, acc), (decide, acc), (assign, x)]);
            if flag_decided {
                let one = b.iconst(Type::I32, 1);
                let flag = b.phi(Type::I32, vec![(outer, zero), (decide, zero), (assign, one)]);
                b.call(
                    Callee::Direct("sink".to_owned()),
                    vec![flag],
                    Type::Void,
                    CallEffects::SideEffects,
                );
            }
            updated
        },
    )
}

#[test]
fn min_updates_written_as_branches_are_select_compare_reductions() {
    let plan = plan(&loop_with_branch_min(false, false)).unwrap();
    assert_eq!(plan.reductions[0].kind, ReductionKind::Intrinsic("llvm.smin.i32".to_owned()));
    assert!(!plan.reductions[0].scan);
}

/// A branch whose comparison with the running minimum decides more than
/// the update (a call, another value) makes the order of updates
/// observable: a recurrence, not a reduction.
#[test]
fn min_branches_deciding_more_than_the_update_are_refused() {
    for (store_in_branch, flag_decided) in [(true, false), (false, true)] {
        let refusal = plan(&loop_with_branch_min(store_in_branch, flag_decided)).unwrap_err();
        assert!(
            refusal.message.contains("a recurrence across iterations"),
            "store {store_in_branch}, flag {flag_decided}: {refusal}"
        );
    }
}
