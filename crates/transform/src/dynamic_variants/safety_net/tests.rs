//! Structure of the net. That both forms compute what the scalar code does
//! is checked on machine code: crates/lanewise/tests/safety_net.rs runs C
//! kernels with the net forced to each form.

use lanewise_analysis::ShapeInfo;
use lanewise_ir::vfabi::{ParamKind, ParamSpec};
use lanewise_ir::*;

use super::*;

/// `r = 0; while (r < x) { if (r == u) return -1; r += 3; } return r;`:
/// a loop with a varying trip count and two returns, a stack slot in the
/// entry block.
fn two_returns() -> Function {
    let mut func = Function::new("f", vec![Type::I32, Type::I32], Type::I32);
    let (x, u) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("header"));
    let body = b.create_block(Some("body"));
    let early = b.create_block(Some("early"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    let one = b.iconst(Type::I32, 1);
    b.ins_value(InstData::Alloca { ty: Type::I32, count: one, align: 4 }, Type::PTR);
    b.jump(header);
    b.switch_to_block(header);
    let zero = b.iconst(Type::I32, 0);
    let r = b.phi(Type::I32, vec![(entry, zero)]);
    let more = b.icmp(IntPredicate::Slt, r, x);
    b.branch(more, body, exit);
    b.switch_to_block(body);
    let hit = b.icmp(IntPredicate::Eq, r, u);
    let three = b.iconst(Type::I32, 3);
    let next = b.binary(BinaryOp::Add, r, three);
    b.add_phi_incoming(r, body, next);
    b.branch(hit, early, header);
    b.switch_to_block(early);
    let minus_one = b.iconst(Type::I32, -1);
    b.ret(Some(minus_one));
    b.switch_to_block(exit);
    b.ret(Some(r));
    func
}

fn returns(func: &Function) -> Vec<Block> {
    func.layout
        .blocks()
        .iter()
        .copied()
        .filter(|&block| {
            matches!(func.dfg.inst(func.terminator(block).unwrap()), InstData::Return { .. })
        })
        .collect()
}

fn callees(func: &Function) -> Vec<String> {
    func.layout.insts().filter_map(|inst| func.dfg.callee_name(inst).map(str::to_owned)).collect()
}

#[test]
fn the_choice_is_uniform_and_both_forms_meet_at_one_return() {
    let mut func = two_returns();
    let old_entry = func.layout.entry_block().unwrap();
    assert!(add_safety_net(
        &mut func,
        "f",
        2,
        PerLaneForm::ScalarCalls,
        SafetyNetMode::Adaptive,
        "f.net"
    ));
    verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));

    let entry = func.layout.entry_block().unwrap();
    assert_eq!(func.dfg.blocks[entry].name.as_deref(), Some("net.entry"));
    let InstData::Branch { cond, then_dest, else_dest } =
        func.dfg.inst(func.terminator(entry).unwrap()).clone()
    else {
        panic!("{func}")
    };
    assert_eq!(else_dest, old_entry);
    assert_eq!(
        callees(&func),
        [
            NET_BEGIN,
            "rv_popcount",
            "rv_ballot",
            "llvm.cttz.i64",
            "rv_extract",
            "rv_extract",
            "__lanewise_net_call.f",
            "rv_insert",
            NET_END
        ]
    );
    // The stack slot moved to the new entry block.
    let first = func.layout.block_insts(entry)[0];
    assert!(matches!(func.dfg.inst(first), InstData::Alloca { .. }), "{func}");

    // One return, whose phi takes the per-lane results (from the loop over
    // the lanes, after the per-lane block) and both old returns.
    let [exit] = returns(&func)[..] else { panic!("{func}") };
    assert_eq!(func.layout.blocks().last(), Some(&exit));
    let phi = func.layout.block_insts(exit)[0];
    let InstData::Phi { incoming, .. } = func.dfg.inst(phi) else { panic!("{func}") };
    assert_eq!(incoming.len(), 3);
    assert_eq!(func.successors(then_dest), [incoming[0].0]);

    // The branch between the forms and the call on one lane's arguments
    // are uniform even with varying parameters.
    let varying = ParamSpec { kind: ParamKind::Vector, align: None };
    let shapes = ShapeInfo::compute(&func, &DataLayout::default(), &[varying, varying]).unwrap();
    assert!(shapes.is_uniform(cond), "{func}");
    let per_lane_call = func
        .layout
        .insts()
        .find(|&inst| func.dfg.callee_name(inst) == Some("__lanewise_net_call.f"))
        .unwrap();
    assert!(shapes.is_uniform(func.dfg.result(per_lane_call).unwrap()), "{func}");
}

#[test]
fn forced_per_lane_calls_no_runtime() {
    let mut func = two_returns();
    assert!(add_safety_net(
        &mut func,
        "f",
        2,
        PerLaneForm::ScalarCalls,
        SafetyNetMode::PerLane,
        "f.net"
    ));
    verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));
    let callees = callees(&func);
    assert!(!callees.iter().any(|callee| callee == NET_BEGIN || callee == NET_END), "{func}");
    assert!(callees.contains(&"__lanewise_net_call.f".to_owned()), "{func}");
}

/// A lanes-independent function's net: the other form is one call of its
/// one-lane form on all lanes' arguments, whose result meets the body's at
/// the one return.
#[test]
fn the_one_lane_form_is_one_call_for_all_lanes() {
    let mut func = two_returns();
    let form = PerLaneForm::OneLaneVariant("f.one_lane");
    assert!(add_safety_net(&mut func, "f", 2, form, SafetyNetMode::Adaptive, "f.net"));
    verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));
    assert_eq!(callees(&func), [NET_BEGIN, "rv_popcount", "f.one_lane", NET_END]);
    let call =
        func.layout.insts().find(|&inst| func.dfg.callee_name(inst) == Some("f.one_lane")).unwrap();
    let InstData::Call { args, .. } = func.dfg.inst(call) else { panic!("{func}") };
    assert_eq!(args[..], [func.param_value(0), func.param_value(1)]);
    let call_block = func.layout.inst_block(call).unwrap();
    let [exit] = returns(&func)[..] else { panic!("{func}") };
    assert_eq!(func.successors(call_block), [exit]);
    let phi = func.layout.block_insts(exit)[0];
    let InstData::Phi { incoming, .. } = func.dfg.inst(phi) else { panic!("{func}") };
    assert_eq!(incoming.len(), 3);
    assert!(incoming.contains(&(call_block, func.dfg.result(call).unwrap())), "{func}");
}

#[test]
fn off_leaves_the_function_alone() {
    let mut func = two_returns();
    let before = func.to_string();
    assert!(!add_safety_net(
        &mut func,
        "f",
        2,
        PerLaneForm::ScalarCalls,
        SafetyNetMode::Off,
        "f.net"
    ));
    assert_eq!(func.to_string(), before);
}

#[test]
fn functions_that_see_other_lanes_may_not_run_per_lane() {
    let plain = two_returns();
    assert!(may_run_per_lane(&plain, &[]));
    for callee in ["rv_shuffle", "barrier"] {
        let mut func = two_returns();
        let entry = func.layout.entry_block().unwrap();
        let terminator = func.terminator(entry).unwrap();
        let call = func.dfg.make_inst(
            InstData::Call {
                callee: Callee::Direct(callee.to_owned()),
                args: Vec::new(),
                ret_ty: Type::Void,
                effects: CallEffects::SideEffects,
                flags: FastMathFlags::default(),
            },
            Type::Void,
        );
        func.layout.insert_inst_before(call, terminator);
        assert!(!may_run_per_lane(&func, &["barrier".to_owned()]), "{callee}");
    }
}

/// A widened per-lane loop as the net builds it: lane `k`'s arguments are
/// extractions from a varying `<8 x i32>`, a splat of a uniform pointer and
/// an `<8 x i1>`, passed to `g`, whose results are inserted into the
/// result vector.
fn widened_per_lane_loop() -> Function {
    let x_ty = Type::I32.vector_of(8);
    let mask_ty = Type::BOOL.vector_of(8);
    let mut func = Function::new("f.vec", vec![x_ty.clone(), Type::PTR, mask_ty], x_ty.clone());
    let (x, p, m) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let per_lane = b.create_block(Some("net.per_lane"));
    let lanes = b.create_block(Some("net.lanes"));
    let lane = b.create_block(Some("net.lane"));
    let exit = b.create_block(Some("net.exit"));
    b.switch_to_block(per_lane);
    let p_lanes = b.splat(p, 8);
    b.jump(lanes);
    b.switch_to_block(lanes);
    let all = b.iconst(Type::I64, 0xff);
    let left = b.phi(Type::I64, vec![(per_lane, all)]);
    let poison = b.func.dfg.make_const(x_ty.clone(), Constant::Poison);
    let results = b.phi(x_ty.clone(), vec![(per_lane, poison)]);
    let none = b.iconst(Type::I64, 0);
    let more = b.icmp(IntPredicate::Ne, left, none);
    b.branch(more, lane, exit);
    b.switch_to_block(lane);
    let yes = b.iconst(Type::BOOL, 1);
    let k = spmd_call(&mut b, "llvm.cttz.i64", vec![left, yes], Type::I64);
    let one = b.iconst(Type::I64, 1);
    let below = b.binary(BinaryOp::Sub, left, one);
    let rest = b.binary(BinaryOp::And, left, below);
    let args = [x, p_lanes, m].map(|vector| b.extract_element(vector, k));
    let call =
        b.call(Callee::Direct("g".to_owned()), args.to_vec(), Type::I32, CallEffects::SideEffects);
    let result = b.func.dfg.result(call).unwrap();
    let inserted = b.insert_element(results, result, k);
    b.add_phi_incoming(left, lane, rest);
    b.add_phi_incoming(results, lane, inserted);
    b.jump(lanes);
    b.switch_to_block(exit);
    b.ret(Some(results));
    func
}

/// The varying vector's lanes come from a stack copy stored once before
/// the loop, by volatile scalar loads (LLVM kept the vector in a register
/// across the calls: a reload, an extraction and a `vzeroupper` per lane);
/// the splat and the `i1` vector keep their extractions; every lane still
/// passes what it passed before.
#[test]
fn per_lane_calls_read_their_arguments_from_a_stack_copy() {
    let before = widened_per_lane_loop();
    verify_function(&before).unwrap_or_else(|errors| panic!("{errors}\n{before}"));
    let mut after = before.clone();
    assert_eq!(read_lane_arguments_from_memory(&mut after), 1, "{after}");
    verify_function(&after).unwrap_or_else(|errors| panic!("{errors}\n{after}"));
    let count = |func: &Function, pick: fn(&InstData) -> bool| {
        func.layout.insts().filter(|&inst| pick(func.dfg.inst(inst))).count()
    };
    assert_eq!(count(&after, |data| matches!(data, InstData::ExtractElement { .. })), 2);
    assert_eq!(count(&after, |data| matches!(data, InstData::Load { volatile: true, .. })), 1);
    assert_eq!(count(&after, |data| matches!(data, InstData::Alloca { .. })), 1);
    let per_lane = after.layout.blocks()[0];
    let stores = after.layout.block_insts(per_lane).iter();
    assert_eq!(
        stores.filter(|&&inst| matches!(after.dfg.inst(inst), InstData::Store { .. })).count(),
        1
    );

    use crate::interp::{Interpreter, Memory, Val};
    let run = |func: &Function| {
        let calls = std::cell::RefCell::new(Vec::new());
        let mut interpreter = Interpreter::new(Memory::new(0x1000, 256), |name, args| {
            assert_eq!(name, "g");
            calls.borrow_mut().push(args.to_vec());
            let int = |value: &Val| match value {
                Val::Int { value, .. } => *value,
                other => panic!("an integer argument, not {other:?}"),
            };
            let (x, bit) = (int(&args[0]), int(&args[2]));
            Ok(Some(Val::int(32, (x * 3 + bit) & 0xffff_ffff)))
        });
        let x = Val::Vector((0..8).map(|lane| Val::int(32, 100 + lane * 7)).collect());
        let m = Val::Vector((0..8).map(|lane| Val::int(1, (lane % 3) & 1)).collect());
        let result = interpreter.run(func, &[x, Val::Ptr(0x1040), m]).unwrap();
        drop(interpreter);
        format!("{result:?}, calls {:?}", calls.into_inner())
    };
    assert_eq!(run(&after), run(&before));
}
