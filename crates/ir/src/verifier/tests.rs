use super::*;
use crate::builder::FunctionBuilder;
use crate::instructions::*;
use crate::test_functions::{counting_loop, diamond, invoke_with_landing_pad, several_returns};
use cranelift_entity::EntityRef;

/// Asserts that `func` is rejected with an error whose message contains
/// `expected`, and returns all errors.
#[track_caller]
fn assert_rejected(func: &Function, expected: &str) -> VerifierErrors {
    match verify_function(func) {
        Ok(()) => panic!("expected an error containing {expected:?}, function passed:\n{func}"),
        Err(errors) => {
            assert!(
                errors.mentions(expected),
                "expected an error containing {expected:?}, got:\n{errors}"
            );
            errors
        }
    }
}

#[track_caller]
fn assert_valid(func: &Function) {
    if let Err(errors) = verify_function(func) {
        panic!("{errors}\n{}", crate::printer::display_function_with_errors(func, &errors));
    }
}

/// A function with the given parameters and one block to append to.
fn one_block(params: Vec<Type>, ret_ty: Type) -> (Function, Block) {
    let mut func = Function::new("f", params, ret_ty);
    let block = func.dfg.make_block(None);
    func.layout.append_block(block);
    (func, block)
}

/// Appends `data` and a `ret void` to a fresh one-block function with
/// parameters `params`, where `data` is built from the parameter values.
#[test]
fn atomics_have_the_types_of_their_memory() {
    let attrs = AtomicAttrs {
        ordering: AtomicOrdering::SeqCst,
        scope: SyncScope::System,
        align: 4,
        volatile: false,
    };
    let rmw = |op: AtomicRmwOp, ty: Type, result: Type| {
        with_inst(vec![Type::PTR, ty], result, |_, values| InstData::AtomicRmw {
            op,
            addr: values[0],
            value: values[1],
            attrs,
        })
    };
    assert_valid(&rmw(AtomicRmwOp::Add, Type::I32, Type::I32));
    assert_valid(&rmw(AtomicRmwOp::FAdd, Type::F32, Type::F32));
    assert_rejected(&rmw(AtomicRmwOp::Add, Type::F32, Type::F32), "atomicrmw add of type float");
    assert_rejected(&rmw(AtomicRmwOp::Xchg, Type::I32, Type::I64), "has type i64, expected i32");
    let pair = Type::Struct { fields: vec![Type::I32, Type::BOOL], packed: false };
    let cmpxchg = |new_ty: Type, result: Type| {
        with_inst(vec![Type::PTR, Type::I32, new_ty], result, |_, values| InstData::CmpXchg {
            addr: values[0],
            expected: values[1],
            new: values[2],
            attrs,
            failure_ordering: AtomicOrdering::Monotonic,
            weak: false,
        })
    };
    assert_valid(&cmpxchg(Type::I32, pair.clone()));
    assert_rejected(&cmpxchg(Type::I64, pair), "cmpxchg operand types differ");
    assert_rejected(&cmpxchg(Type::I32, Type::I32), "has type i32, expected { i32, i1 }");
}

fn with_inst(
    params: Vec<Type>,
    result_ty: Type,
    build: impl FnOnce(&mut Function, &[Value]) -> InstData,
) -> Function {
    let (mut func, block) = one_block(params, Type::Void);
    let values: Vec<Value> = func.params.iter().map(|param| param.value).collect();
    let data = build(&mut func, &values);
    func.append(block, data, result_ty);
    func.append(block, InstData::Return { value: None }, Type::Void);
    func
}

fn block(index: usize) -> Block {
    Block::new(index)
}

#[test]
fn valid_functions_pass() {
    assert_valid(&diamond());
    assert_valid(&counting_loop());
    assert_valid(&several_returns());
}

#[test]
fn valid_vector_instructions_pass() {
    let f32x8 = Type::F32.vector_of(8);
    let params = vec![
        Type::F32,
        Type::PTR,
        f32x8.clone(),
        Type::BOOL.vector_of(8),
        Type::PTR.vector_of(8),
        Type::I64.vector_of(8),
    ];
    let (mut func, entry) = one_block(params, f32x8.clone());
    let mut b = FunctionBuilder::new(&mut func);
    b.switch_to_block(entry);
    let values: Vec<Value> = b.func.params.iter().map(|param| param.value).collect();
    let (scalar, pointer, vector, mask, pointers, offsets) =
        (values[0], values[1], values[2], values[3], values[4], values[5]);
    let splat = b.splat(scalar, 8);
    let loaded = b.ins_value(
        InstData::MaskedLoad { ty: f32x8.clone(), addr: pointer, mask, passthru: splat, align: 4 },
        f32x8.clone(),
    );
    b.ins(InstData::MaskedStore { value: loaded, addr: pointer, mask, align: 4 }, Type::Void);
    let speculative =
        b.ins_value(InstData::SpeculativeLoad { ty: f32x8.clone(), addr: pointer }, f32x8.clone());
    b.ins(InstData::MaskedStore { value: speculative, addr: pointer, mask, align: 4 }, Type::Void);
    let addresses = b.gep(Type::F32, pointer, vec![offsets]);
    let gathered = b.ins_value(
        InstData::Gather { ty: f32x8.clone(), addrs: addresses, mask, passthru: vector, align: 4 },
        f32x8.clone(),
    );
    b.ins(InstData::Scatter { value: gathered, addrs: pointers, mask, align: 4 }, Type::Void);
    let sum = b.binary(BinaryOp::FAdd, gathered, loaded);
    let less = b.fcmp(FloatPredicate::Olt, sum, vector);
    let chosen = b.select(less, sum, vector);
    let lane = b.iconst(Type::I32, 2);
    let element = b.extract_element(chosen, lane);
    let updated = b.insert_element(chosen, element, lane);
    let halves = Type::F32.vector_of(4);
    b.ins(InstData::Shuffle { lhs: updated, rhs: vector, mask: vec![0, 1, 8, -1] }, halves);
    b.cast(CastOp::Bitcast, updated, Type::I64.vector_of(4));
    let call = b.call(
        Callee::Direct("_ZGVdN8v_sinf".to_owned()),
        vec![updated],
        f32x8.clone(),
        CallEffects::Pure,
    );
    let sine = b.func.dfg.result(call).unwrap();
    b.ret(Some(sine));
    assert_valid(&func);
}

#[test]
fn speculative_loads_fill_one_vector_register() {
    for (ty, valid) in [
        (Type::I8.vector_of(16), true),
        (Type::F64.vector_of(8), true),
        (Type::I32.vector_of(3), false),
        (Type::I32.vector_of(32), false),
        (Type::PTR.vector_of(4), false),
        (Type::BOOL.vector_of(128), false),
        (Type::I32, false),
    ] {
        let (mut func, entry) = one_block(vec![Type::PTR], Type::Void);
        let pointer = func.params[0].value;
        let mut b = FunctionBuilder::new(&mut func);
        b.switch_to_block(entry);
        b.ins_value(InstData::SpeculativeLoad { ty: ty.clone(), addr: pointer }, ty.clone());
        b.ret(None);
        if valid {
            assert_valid(&func);
        } else {
            assert_rejected(&func, "does not fill one vector register");
        }
    }
}

#[test]
fn errors_name_function_block_and_instruction() {
    let mut func = diamond();
    // Return the entry's comparison (an i1) from a function returning i32.
    let join = block(3);
    let ret = func.layout.last_inst(join).unwrap();
    let comparison = func.dfg.result(func.layout.block_insts(block(0))[0]).unwrap();
    *func.dfg.inst_mut(ret) = InstData::Return { value: Some(comparison) };
    let errors = assert_rejected(&func, "ret of a i1 in a function returning i32");
    assert_eq!(errors.len(), 1);
    let error = &errors.0[0];
    assert_eq!(error.location, format!("@diamond, block3 (join), {ret} (ret i1 v2)"));
    assert_eq!(error.block, Some(join));
    assert_eq!(error.inst, Some(ret));
    assert_eq!(
        error.to_string(),
        format!(
            "@diamond, block3 (join), {ret} (ret i1 v2): ret of a i1 in a function returning i32"
        )
    );
    let text = crate::printer::display_function_with_errors(&func, &errors);
    assert!(
        text.contains("  ret i1 v2\n; error: ret of a i1 in a function returning i32\n"),
        "{text}"
    );
}

#[test]
fn all_errors_are_collected() {
    let func = with_inst(vec![Type::F32, Type::I32], Type::F32, |_, values| InstData::Binary {
        op: BinaryOp::Add,
        lhs: values[0],
        rhs: values[1],
        flags: ArithFlags::default(),
    });
    let errors = assert_rejected(&func, "operand types differ: float and i32");
    assert!(errors.mentions("add needs integer operands (or vectors of them), got float"));
    assert_eq!(errors.len(), 2);
}

// ---- Signature and layout ----

#[test]
fn s1_parameter_types_match_the_signature() {
    let mut func = diamond();
    func.params[0].ty = Type::F32;
    assert_rejected(&func, "parameter 0: value v0 has type i32, the signature says float");
}

#[test]
fn l1_there_is_an_entry_block() {
    let func = Function::new("empty", vec![], Type::Void);
    assert_rejected(&func, "function has no entry block");
}

#[test]
fn l2_layout_blocks_exist() {
    let mut func = diamond();
    func.layout.append_block(block(50));
    assert_rejected(&func, "block50 is in the layout but does not exist");
}

#[test]
fn l3_layout_instructions_exist() {
    let mut func = diamond();
    func.layout.insert_inst_at(Inst::new(99), block(1), 0);
    assert_rejected(&func, "inst99 does not exist");
}

#[test]
fn l4_layout_maps_agree() {
    let mut func = diamond();
    let detached = func.dfg.make_block(None);
    let stray = func.dfg.make_inst(InstData::Unreachable, Type::Void);
    func.layout.append_inst(stray, detached);
    assert_rejected(&func, "does not hold it in the layout");
}

// ---- Blocks and control flow ----

#[test]
fn b1_blocks_are_not_empty() {
    let mut func = diamond();
    let empty = func.dfg.make_block(None);
    func.layout.append_block(empty);
    assert_rejected(&func, "block4 is empty");
}

#[test]
fn b1_blocks_end_with_a_terminator() {
    let mut func = diamond();
    let ret = func.layout.last_inst(block(3)).unwrap();
    func.layout.remove_inst(ret);
    assert_rejected(&func, "block3 does not end with a terminator");
}

#[test]
fn b2_no_terminator_in_the_middle() {
    let mut func = diamond();
    let early_exit = func.dfg.make_inst(InstData::Unreachable, Type::Void);
    func.layout.insert_inst_at(early_exit, block(1), 0);
    assert_rejected(&func, "terminator in the middle of block1");
}

#[test]
fn b3_successors_exist_and_are_in_the_layout() {
    let mut func = diamond();
    let jump = func.layout.last_inst(block(1)).unwrap();
    *func.dfg.inst_mut(jump) = InstData::Jump { dest: block(1000) };
    assert_rejected(&func, "branch to block1000, which does not exist");

    let mut func = diamond();
    let detached = func.dfg.make_block(None);
    let jump = func.layout.last_inst(block(2)).unwrap();
    *func.dfg.inst_mut(jump) = InstData::Jump { dest: detached };
    assert_rejected(&func, "branch to block4, which is not in the layout");
}

#[test]
fn b4_entry_has_no_predecessors() {
    let mut func = diamond();
    let jump = func.layout.last_inst(block(1)).unwrap();
    *func.dfg.inst_mut(jump) = InstData::Jump { dest: block(0) };
    assert_rejected(&func, "the entry block has predecessors: block1");
}

#[test]
fn b5_phis_come_first() {
    let mut func = diamond();
    // Put a non-phi (`v0 + 0`) before the phi of the join block.
    let zero = func.dfg.int_const(Type::I32, 0);
    let arg = func.params[0].value;
    let copy = func.dfg.make_inst(
        InstData::Binary { op: BinaryOp::Add, lhs: arg, rhs: zero, flags: ArithFlags::default() },
        Type::I32,
    );
    func.layout.insert_inst_at(copy, block(3), 0);
    assert_rejected(&func, "phi after a non-phi instruction");
}

#[test]
fn b6_phi_entries_match_predecessors() {
    let phi_of = |func: &Function| func.layout.block_insts(block(3))[0];

    let mut func = diamond();
    let phi = phi_of(&func);
    if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
        incoming.pop();
    }
    assert_rejected(&func, "phi has no incoming value from predecessor block2");

    let mut func = diamond();
    let phi = phi_of(&func);
    let arg = func.params[0].value;
    if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
        incoming.push((block(0), arg));
    }
    assert_rejected(&func, "phi has an incoming entry from block0, which is not a predecessor");

    let mut func = diamond();
    let phi = phi_of(&func);
    if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
        let first = incoming[0];
        incoming.push(first);
    }
    assert_rejected(&func, "phi has two incoming entries from block1");
}

#[test]
fn b7_switch_cases_are_distinct_and_fit() {
    let make = |cases: Vec<(u128, Block)>| {
        let (mut func, entry) = one_block(vec![Type::I8], Type::Void);
        let value = func.params[0].value;
        func.append(entry, InstData::Switch { value, default: entry, cases }, Type::Void);
        func
    };
    // The entry jumping to itself is reported too; the case errors are what we look for.
    assert_rejected(&make(vec![(1, block(0)), (1, block(0))]), "switch case 1 appears twice");
    assert_rejected(&make(vec![(256, block(0))]), "switch case 256 does not fit in i8");
}

// ---- Values and SSA ----

#[test]
fn v1_operands_exist() {
    let func = with_inst(vec![Type::I32], Type::I32, |_, values| InstData::Binary {
        op: BinaryOp::Add,
        lhs: values[0],
        rhs: Value::new(999),
        flags: ArithFlags::default(),
    });
    assert_rejected(&func, "operand v999 does not exist");
}

#[test]
fn v2_defining_instruction_is_in_the_layout() {
    let func = with_inst(vec![Type::I32], Type::I32, |func, values| {
        let detached = func.dfg.make_inst(InstData::Freeze { arg: values[0] }, Type::I32);
        let detached_value = func.dfg.result(detached).unwrap();
        InstData::Freeze { arg: detached_value }
    });
    assert_rejected(&func, "operand v1 is defined by inst0, which is not in the layout");
}

#[test]
fn v3_parameters_belong_to_the_function() {
    let func = with_inst(vec![Type::I32], Type::I32, |func, _| {
        let foreign = func.dfg.make_param(3, Type::I32);
        InstData::Freeze { arg: foreign }
    });
    assert_rejected(&func, "operand v1 is not a parameter of this function");
}

#[test]
fn v4_constants_match_their_type() {
    let func = with_inst(vec![], Type::F32, |func, _| {
        let wrong = func.dfg.make_const(Type::F32, Constant::Int(1));
        InstData::Freeze { arg: wrong }
    });
    assert_rejected(&func, "operand v0: integer constant of type float");

    let func = with_inst(vec![], Type::I32.vector_of(4), |func, _| {
        let one = func.dfg.int_const(Type::I32, 1);
        let short = func.dfg.make_const(Type::I32.vector_of(4), Constant::Aggregate(vec![one]));
        InstData::Freeze { arg: short }
    });
    assert_rejected(&func, "aggregate constant of type <4 x i32> has 1 elements");

    // A cyclic aggregate (garbage) terminates.
    let func = with_inst(vec![], Type::I32.vector_of(1), |func, _| {
        let next = Value::new(func.dfg.values.len());
        let cyclic = func.dfg.make_const(Type::I32.vector_of(1), Constant::Aggregate(vec![next]));
        InstData::Freeze { arg: cyclic }
    });
    assert!(verify_function(&func).is_err());
    let _ = func.to_string();
}

#[test]
fn v5_results_exist_iff_the_instruction_produces_a_value() {
    let func =
        with_inst(vec![Type::I32], Type::Void, |_, values| InstData::Freeze { arg: values[0] });
    assert_rejected(&func, "instruction produces a i32 but has no result value");

    let func = with_inst(vec![Type::I32, Type::PTR], Type::I32, |_, values| InstData::Store {
        value: values[0],
        addr: values[1],
        align: 4,
        volatile: false,
    });
    assert_rejected(&func, "instruction has a result (v2) but produces no value");

    let func =
        with_inst(vec![Type::I32], Type::I64, |_, values| InstData::Freeze { arg: values[0] });
    assert_rejected(&func, "result v1 has type i64, expected i32");
}

#[test]
fn v6_definitions_dominate_uses() {
    // block2 uses v4, defined in block1.
    let mut func = diamond();
    let add = func.layout.block_insts(block(2))[0];
    let negated = func.dfg.result(func.layout.block_insts(block(1))[0]).unwrap();
    if let InstData::Binary { lhs, .. } = func.dfg.inst_mut(add) {
        *lhs = negated;
    }
    assert_rejected(&func, "the definition of v4 (in block1) does not dominate this use");
}

#[test]
fn v6_definitions_come_first_within_a_block() {
    let (mut func, entry) = one_block(vec![Type::I32], Type::I32);
    let arg = func.params[0].value;
    let first = func.append(entry, InstData::Freeze { arg }, Type::I32);
    let second = func.append(entry, InstData::Freeze { arg }, Type::I32);
    let second_value = func.dfg.result(second).unwrap();
    let first_value = func.dfg.result(first).unwrap();
    *func.dfg.inst_mut(first) = InstData::Freeze { arg: second_value };
    func.append(entry, InstData::Return { value: Some(first_value) }, Type::Void);
    assert_rejected(&func, "v2 is used before its definition inst1");

    let (mut func, entry) = one_block(vec![Type::I32], Type::I32);
    let own = func.append(entry, InstData::Freeze { arg }, Type::I32);
    let own_value = func.dfg.result(own).unwrap();
    *func.dfg.inst_mut(own) = InstData::Freeze { arg: own_value };
    func.append(entry, InstData::Return { value: Some(own_value) }, Type::Void);
    assert_rejected(&func, "v1 is used by its own definition");
}

#[test]
fn v6_phi_values_dominate_the_end_of_their_incoming_block() {
    // The phi takes v6 (defined in block2) as the value coming from block1.
    let mut func = diamond();
    let phi = func.layout.block_insts(block(3))[0];
    let incremented = func.dfg.result(func.layout.block_insts(block(2))[0]).unwrap();
    if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
        incoming[0].1 = incremented;
    }
    assert_rejected(
        &func,
        "the definition of v6 (in block2) does not dominate the end of incoming block block1",
    );
    // The loop's phi uses a value defined later in the latch: fine.
    assert_valid(&counting_loop());
}

#[test]
fn v6_unreachable_blocks_are_exempt() {
    // block6 is unreachable: let it return a value defined in block1.
    let mut func = several_returns();
    let five = func.dfg.int_const(Type::I32, 5);
    let frozen = func.dfg.make_inst(InstData::Freeze { arg: five }, Type::I32);
    let block1_ret = func.layout.last_inst(block(1)).unwrap();
    func.layout.insert_inst_before(frozen, block1_ret);
    let frozen_value = func.dfg.result(frozen).unwrap();
    let dead_ret = func.layout.last_inst(block(6)).unwrap();
    *func.dfg.inst_mut(dead_ret) = InstData::Return { value: Some(frozen_value) };
    assert_valid(&func);
}

// ---- Types ----

#[test]
fn t1_binary_operands() {
    let func = with_inst(vec![Type::I32, Type::I32], Type::I32, |_, values| InstData::Binary {
        op: BinaryOp::FMul,
        lhs: values[0],
        rhs: values[1],
        flags: ArithFlags::default(),
    });
    assert_rejected(&func, "fmul needs floating-point operands (or vectors of them), got i32");
}

#[test]
fn t2_fneg_operand() {
    let func = with_inst(vec![Type::I32], Type::I32, |_, values| InstData::Unary {
        op: UnaryOp::FNeg,
        arg: values[0],
        flags: ArithFlags::default(),
    });
    assert_rejected(&func, "fneg needs a floating-point operand, got i32");
}

#[test]
fn t3_comparisons() {
    let func = with_inst(vec![Type::F32, Type::F32], Type::BOOL, |_, values| InstData::Icmp {
        pred: IntPredicate::Eq,
        lhs: values[0],
        rhs: values[1],
    });
    assert_rejected(&func, "icmp needs integer or pointer operands");

    let vector = Type::I32.vector_of(4);
    let func = with_inst(vec![vector.clone(), vector], Type::BOOL, |_, values| InstData::Icmp {
        pred: IntPredicate::Eq,
        lhs: values[0],
        rhs: values[1],
    });
    assert_rejected(&func, "result v2 has type i1, expected <4 x i1>");

    let func = with_inst(vec![Type::I32, Type::I32], Type::BOOL, |_, values| InstData::Fcmp {
        pred: FloatPredicate::Oeq,
        lhs: values[0],
        rhs: values[1],
        flags: FastMathFlags::default(),
    });
    assert_rejected(&func, "fcmp needs floating-point operands");
}

#[test]
fn t4_select_condition() {
    let vector = Type::F32.vector_of(4);
    let params = vec![Type::BOOL.vector_of(8), vector.clone(), vector.clone()];
    let func = with_inst(params, vector.clone(), |_, values| InstData::Select {
        cond: values[0],
        if_true: values[1],
        if_false: values[2],
        flags: FastMathFlags::default(),
    });
    assert_rejected(
        &func,
        "select condition must be i1 or <N x i1> matching the <4 x float> values, got <8 x i1>",
    );
    // A scalar condition selects whole vectors.
    let func = with_inst(vec![Type::BOOL, vector.clone(), vector.clone()], vector, |_, values| {
        InstData::Select {
            cond: values[0],
            if_true: values[1],
            if_false: values[2],
            flags: FastMathFlags::default(),
        }
    });
    assert_valid(&func);
}

#[test]
fn t5_casts() {
    let cast = |op: CastOp, from: Type, to: Type| {
        with_inst(vec![from], to.clone(), |_, values| InstData::Cast {
            op,
            arg: values[0],
            to,
            flags: CastFlags::default(),
        })
    };
    assert_rejected(&cast(CastOp::Trunc, Type::I32, Type::I64), "trunc cannot convert i32 to i64");
    assert_rejected(
        &cast(CastOp::ZExt, Type::I32.vector_of(4), Type::I64.vector_of(8)),
        "zext from <4 x i32> to <8 x i64> changes the lane count",
    );
    assert_rejected(
        &cast(CastOp::SIToFP, Type::F32, Type::F64),
        "sitofp cannot convert float to double",
    );
    assert_rejected(
        &cast(CastOp::Bitcast, Type::I32.vector_of(8), Type::I64.vector_of(8)),
        "bitcast from <8 x i32> to <8 x i64> changes the size",
    );
    assert_rejected(
        &cast(CastOp::Bitcast, Type::PTR, Type::I64),
        "pointers only cast to the same pointer type",
    );
    assert_rejected(
        &cast(CastOp::AddrSpaceCast, Type::PTR, Type::PTR),
        "addrspacecast cannot convert ptr to ptr",
    );
    assert_valid(&cast(CastOp::Bitcast, Type::I32.vector_of(8), Type::I64.vector_of(4)));
    assert_valid(&cast(CastOp::FPExt, Type::F32.vector_of(4), Type::F64.vector_of(4)));
    assert_valid(&cast(CastOp::PtrToInt, Type::PTR.vector_of(4), Type::I64.vector_of(4)));
}

#[test]
fn t6_phi_incoming_types() {
    let mut func = diamond();
    let phi = func.layout.block_insts(block(3))[0];
    let half = func.dfg.make_const(Type::F32, Constant::Float(0));
    if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
        incoming[1].1 = half;
    }
    assert_rejected(&func, "phi of type i32 has incoming v8 of type float from block2");
}

#[test]
fn t7_memory_addresses_and_alignment() {
    let func = with_inst(vec![Type::I64], Type::F32, |_, values| InstData::Load {
        ty: Type::F32,
        addr: values[0],
        align: 4,
        volatile: false,
    });
    assert_rejected(&func, "load address must be a pointer, got i64");
    let func = with_inst(vec![Type::F32, Type::PTR], Type::Void, |_, values| InstData::Store {
        value: values[0],
        addr: values[1],
        align: 3,
        volatile: false,
    });
    assert_rejected(&func, "alignment 3 is not a power of two");
}

#[test]
fn t8_getelementptr() {
    let func = with_inst(vec![Type::PTR, Type::F32], Type::PTR, |_, values| InstData::Gep {
        source_ty: Type::F32,
        base: values[0],
        indices: vec![values[1]],
        inbounds: false,
    });
    assert_rejected(&func, "getelementptr index 0 must be an integer, got float");

    let pair = Type::Struct { fields: vec![Type::I32, Type::F32], packed: false };
    let func = with_inst(vec![Type::PTR, Type::I32], Type::PTR, |_, values| InstData::Gep {
        source_ty: pair,
        base: values[0],
        indices: vec![values[1], values[1]],
        inbounds: true,
    });
    assert_rejected(
        &func,
        "getelementptr index 1 into { i32, float } must be a constant field number below 2",
    );

    let func =
        with_inst(vec![Type::PTR, Type::I64.vector_of(4)], Type::PTR, |_, values| InstData::Gep {
            source_ty: Type::F32,
            base: values[0],
            indices: vec![values[1]],
            inbounds: true,
        });
    assert_rejected(&func, "result v2 has type ptr, expected <4 x ptr>");
}

#[test]
fn t9_alloca_count() {
    let func = with_inst(vec![Type::F32], Type::PTR, |_, values| InstData::Alloca {
        ty: Type::I32,
        count: values[0],
        align: 4,
    });
    assert_rejected(&func, "alloca count must be an integer, got float");
}

#[test]
fn t10_aggregate_members() {
    let pair = Type::Struct { fields: vec![Type::I32, Type::F32], packed: false };
    let func = with_inst(vec![pair.clone()], Type::I32, |_, values| InstData::ExtractValue {
        aggregate: values[0],
        indices: vec![2],
    });
    assert_rejected(&func, "extractvalue: index 2 is out of range for { i32, float }");
    let func = with_inst(vec![pair.clone(), Type::I32], pair, |_, values| InstData::InsertValue {
        aggregate: values[0],
        value: values[1],
        indices: vec![1],
    });
    assert_rejected(&func, "insertvalue of a i32 into a float member");
}

#[test]
fn t11_vector_elements() {
    let func = with_inst(vec![Type::F32, Type::I32], Type::F32, |_, values| {
        InstData::ExtractElement { vector: values[0], index: values[1] }
    });
    assert_rejected(&func, "extractelement from a non-vector float");
    let vector = Type::F32.vector_of(4);
    let func = with_inst(vec![vector.clone(), Type::F64, Type::I32], vector, |_, values| {
        InstData::InsertElement { vector: values[0], value: values[1], index: values[2] }
    });
    assert_rejected(&func, "insertelement of a double into a <4 x float>");
}

#[test]
fn t12_shuffle_mask() {
    let vector = Type::F32.vector_of(4);
    let func =
        with_inst(vec![vector.clone(), vector.clone()], Type::F32.vector_of(2), |_, values| {
            InstData::Shuffle { lhs: values[0], rhs: values[1], mask: vec![0, 8] }
        });
    assert_rejected(&func, "shufflevector mask element 1 is 8, outside -1..8");
    let func = with_inst(vec![vector.clone(), vector.clone()], vector, |_, values| {
        InstData::Shuffle { lhs: values[0], rhs: values[1], mask: vec![0, 1] }
    });
    assert_rejected(&func, "result v2 has type <4 x float>, expected <2 x float>");
}

#[test]
fn t14_call_result_matches_ret_ty() {
    let func = with_inst(vec![Type::F32], Type::F64, |_, values| InstData::Call {
        callee: Callee::Direct("sinf".to_owned()),
        args: vec![values[0]],
        ret_ty: Type::F32,
        effects: CallEffects::Pure,
        flags: FastMathFlags::default(),
    });
    assert_rejected(&func, "result v1 has type double, expected float");
    let func = with_inst(vec![Type::F32], Type::Void, |_, values| InstData::Call {
        callee: Callee::Indirect(values[0]),
        args: vec![],
        ret_ty: Type::Void,
        effects: CallEffects::SideEffects,
        flags: FastMathFlags::default(),
    });
    assert_rejected(&func, "indirect callee must be a pointer, got float");
}

#[test]
fn t15_splat_type() {
    let func = with_inst(vec![Type::F32], Type::F32.vector_of(4), |_, values| InstData::Splat {
        scalar: values[0],
        lanes: 8,
    });
    assert_rejected(&func, "result v1 has type <4 x float>, expected <8 x float>");
    let vector = Type::F32.vector_of(4);
    let func = with_inst(vec![vector.clone()], vector, |_, values| InstData::Splat {
        scalar: values[0],
        lanes: 4,
    });
    assert_rejected(&func, "splat of a non-scalar <4 x float>");
}

#[test]
fn t16_masked_memory_operations() {
    let f32x8 = Type::F32.vector_of(8);
    let params = vec![Type::PTR.vector_of(4), Type::BOOL.vector_of(8), f32x8.clone()];
    let func = with_inst(params, f32x8.clone(), |_, values| InstData::Gather {
        ty: Type::F32.vector_of(8),
        addrs: values[0],
        mask: values[1],
        passthru: values[2],
        align: 4,
    });
    assert_rejected(&func, "gather has 4 addresses for 8 lanes");

    let params = vec![f32x8.clone(), Type::PTR, Type::BOOL.vector_of(4)];
    let func = with_inst(params, Type::Void, |_, values| InstData::MaskedStore {
        value: values[0],
        addr: values[1],
        mask: values[2],
        align: 4,
    });
    assert_rejected(&func, "masked_store mask must be <8 x i1>, got <4 x i1>");

    let params = vec![Type::PTR.vector_of(8), Type::BOOL.vector_of(8), f32x8.clone()];
    let func = with_inst(params, f32x8.clone(), |_, values| InstData::MaskedLoad {
        ty: Type::F32.vector_of(8),
        addr: values[0],
        mask: values[1],
        passthru: values[2],
        align: 4,
    });
    assert_rejected(&func, "masked_load address must be a pointer, got <8 x ptr>");

    let params = vec![Type::F32, Type::PTR.vector_of(8), Type::BOOL.vector_of(8)];
    let func = with_inst(params, Type::Void, |_, values| InstData::Scatter {
        value: values[0],
        addrs: values[1],
        mask: values[2],
        align: 4,
    });
    assert_rejected(&func, "scatter data must be a vector, got float");
}

#[test]
fn t17_terminators() {
    let mut func = diamond();
    let branch = func.layout.last_inst(block(0)).unwrap();
    let arg = func.params[0].value;
    if let InstData::Branch { cond, .. } = func.dfg.inst_mut(branch) {
        *cond = arg;
    }
    assert_rejected(&func, "branch condition must be i1, got i32");

    let (mut func, entry) = one_block(vec![Type::F32], Type::Void);
    func.append(
        entry,
        InstData::Switch { value: func.params[0].value, default: entry, cases: vec![] },
        Type::Void,
    );
    assert_rejected(&func, "switch on a non-integer float");

    let (mut func, entry) = one_block(vec![], Type::I32);
    func.append(entry, InstData::Return { value: None }, Type::Void);
    assert_rejected(&func, "ret void in a function returning i32");
}

#[test]
fn exception_handling_passes() {
    assert_valid(&invoke_with_landing_pad());
}

/// The landing pad, its block and the value it defines in
/// [`invoke_with_landing_pad`].
fn landing_pad(func: &Function) -> (Block, Inst, Value) {
    let pad = func.layout.block_insts(block(2))[0];
    (block(2), pad, func.dfg.result(pad).unwrap())
}

#[test]
fn b8_landing_pads_lead_blocks_entered_by_unwind_edges() {
    let mut func = invoke_with_landing_pad();
    let (lpad, _, _) = landing_pad(&func);
    let pointer = func.params[0].value;
    let early = func.dfg.make_inst(
        InstData::Call {
            callee: Callee::Direct("log".to_owned()),
            args: vec![pointer],
            ret_ty: Type::Void,
            effects: CallEffects::SideEffects,
            flags: FastMathFlags::default(),
        },
        Type::Void,
    );
    func.layout.insert_inst_at(early, lpad, 0);
    assert_rejected(&func, "landingpad must be the first non-phi instruction");
    assert_rejected(&func, "does not begin with a landingpad");
    func.layout.remove_inst(early);
    assert_valid(&func);

    // A plain branch into the landing pad's block.
    let invoke = func.layout.last_inst(block(0)).unwrap();
    let InstData::Invoke { unwind_dest: unwind, .. } = *func.dfg.inst(invoke) else {
        panic!("block0 ends in the invoke")
    };
    let detour = func.dfg.make_block(None);
    func.layout.append_block(detour);
    func.append(detour, InstData::Jump { dest: unwind }, Type::Void);
    if let InstData::Invoke { unwind_dest, .. } = func.dfg.inst_mut(invoke) {
        *unwind_dest = detour;
    }
    assert_rejected(&func, "enters this landing pad's block other than by the unwind edge");
    assert_rejected(&func, &format!("the unwind destination {detour} does not begin"));

    let mut func = invoke_with_landing_pad();
    if let InstData::Invoke { normal_dest, .. } = func.dfg.inst_mut(invoke) {
        *normal_dest = unwind;
    }
    assert_rejected(&func, "invoke has the same normal and unwind destination");

    let mut func = invoke_with_landing_pad();
    func.personality = None;
    assert_rejected(&func, "no personality function");

    let mut func = invoke_with_landing_pad();
    let (lpad, _, _) = landing_pad(&func);
    let resume = func.layout.last_inst(lpad).unwrap();
    let wrong = func.dfg.make_const(Type::I32, Constant::Zero);
    *func.dfg.inst_mut(resume) = InstData::Resume { value: wrong };
    assert_rejected(&func, "resume of a i32, the landing pads have type { ptr, i32 }");
}

#[test]
fn v6_invoke_results_exist_on_the_normal_edge_only() {
    // Used in the landing pad: not defined on the unwind edge.
    let mut func = invoke_with_landing_pad();
    let invoke = func.layout.last_inst(block(0)).unwrap();
    let result = func.dfg.result(invoke).unwrap();
    let pointer = func.params[0].value;
    let (lpad, _, _) = landing_pad(&func);
    let store = func.dfg.make_inst(
        InstData::Store { value: result, addr: pointer, align: 4, volatile: false },
        Type::Void,
    );
    func.layout.insert_inst_at(store, lpad, 1);
    assert_rejected(&func, "is used where the normal edge to block1 does not dominate");

    // A phi of the landing pad's block may not take it from the invoke.
    let mut func = invoke_with_landing_pad();
    let phi = func
        .dfg
        .make_inst(InstData::Phi { ty: Type::I32, incoming: vec![(block(0), result)] }, Type::I32);
    func.layout.insert_inst_at(phi, lpad, 0);
    assert_rejected(&func, "is not available at the end of incoming block block0");

    // The normal destination may: a phi there takes it over the normal edge.
    let mut func = invoke_with_landing_pad();
    let ok = block(1);
    let phi = func
        .dfg
        .make_inst(InstData::Phi { ty: Type::I32, incoming: vec![(block(0), result)] }, Type::I32);
    func.layout.insert_inst_at(phi, ok, 0);
    assert_valid(&func);

    // A normal destination entered from elsewhere too: the result may not
    // be there.
    let mut func = invoke_with_landing_pad();
    let flag = func.dfg.make_param(1, Type::BOOL);
    func.params.push(crate::function::Param { ty: Type::BOOL, value: flag });
    // A new entry block branches to the invoke's block or straight to
    // its normal destination.
    let entry = func.dfg.make_block(None);
    func.layout.append_block(entry);
    let branch = InstData::Branch { cond: flag, then_dest: block(0), else_dest: ok };
    func.append(entry, branch, Type::Void);
    func.layout.set_block_order(vec![entry, block(0), block(1), block(2)]);
    assert_rejected(&func, "is used where the normal edge to block1 does not dominate");
}

#[test]
fn t18_landing_pad_clauses() {
    let mut func = invoke_with_landing_pad();
    let (_, pad, _) = landing_pad(&func);
    let pointer = func.params[0].value;
    if let InstData::LandingPad { clauses, cleanup, .. } = func.dfg.inst_mut(pad) {
        clauses.clear();
        *cleanup = false;
    }
    assert_rejected(&func, "landingpad without clauses must be a cleanup");
    if let InstData::LandingPad { clauses, .. } = func.dfg.inst_mut(pad) {
        clauses.push(LandingPadClause::Catch(pointer));
    }
    assert_rejected(&func, "landingpad catch clause v0 must be a constant pointer, got ptr");
    let null = func.dfg.make_const(Type::PTR, Constant::Null);
    if let InstData::LandingPad { clauses, .. } = func.dfg.inst_mut(pad) {
        *clauses = vec![LandingPadClause::Filter(null)];
    }
    assert_rejected(&func, "landingpad filter clause");
    let empty =
        func.dfg.make_const(Type::Array { elem: Box::new(Type::PTR), len: 0 }, Constant::Zero);
    if let InstData::LandingPad { clauses, .. } = func.dfg.inst_mut(pad) {
        *clauses = vec![LandingPadClause::Filter(empty), LandingPadClause::Catch(null)];
    }
    assert_valid(&func);
}

#[test]
fn garbage_never_panics() {
    let (mut func, entry) = one_block(vec![Type::I32], Type::Void);
    func.append(entry, InstData::Freeze { arg: Value::new(500) }, Type::Void);
    let phi = func.dfg.make_inst(
        InstData::Phi { ty: Type::I32, incoming: vec![(block(77), Value::new(400))] },
        Type::I32,
    );
    func.layout.append_inst(phi, entry);
    func.layout.append_inst(Inst::new(300), entry);
    func.append(entry, InstData::Jump { dest: block(1000) }, Type::Void);
    func.dfg.results[Inst::new(0)] = Some(Value::new(600));
    func.layout.append_block(block(40));
    func.params.push(crate::Param { ty: Type::Void, value: Value::new(900) });
    // A constant whose type claims four billion lanes.
    let huge = func.dfg.make_const(Type::I32.vector_of(u32::MAX), Constant::Aggregate(vec![]));
    let first = func.layout.block_insts(entry)[0];
    *func.dfg.inst_mut(first) = InstData::Freeze { arg: huge };
    let errors = verify_function(&func).unwrap_err();
    assert!(errors.mentions("result v600 does not exist"), "{errors}");
    assert!(errors.mentions("has 0 elements"), "{errors}");
    assert!(errors.mentions("phi has an incoming entry from block77"), "{errors}");
    assert!(errors.mentions("operand v400 does not exist"), "{errors}");
    assert!(errors.mentions("branch to block1000, which does not exist"), "{errors}");
    assert!(errors.mentions("block40 is empty"), "{errors}");
    assert!(errors.mentions("parameter 1: value v900 does not exist"), "{errors}");
    let text = crate::printer::display_function_with_errors(&func, &errors);
    assert!(text.contains("; error: "), "{text}");
}
