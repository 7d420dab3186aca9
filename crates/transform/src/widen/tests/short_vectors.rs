//! Tests of short vector types in varying code ([`crate::widen::short_vectors`]):
//! the packed lane-major form of `<N x T>` parameters, results, phis and
//! operations, run in the reference interpreter against the scalar function
//! lane by lane (bit for bit).

use super::*;

/// `f(<4 x float> a, <4 x float> b, <4 x float> u, i32 k, i1 c)` with `u`
/// and `c` uniform, everything else varying:
///
/// ```text
/// s   = fadd a, u                        ; packed binary op, uniform operand
/// sh  = shufflevector s, b, <1, 2, 4, 7> ; packed shuffle over both operands
/// lt  = fcmp olt sh, b                   ; packed compare: <4 x i1>
/// sel = select lt, sh, a                 ; vector condition
/// e2  = extractelement sel, 2            ; packed extract: <W x float>
/// m   = fmul e2, 2.0
/// ins = insertelement sel, m, 0          ; packed insert
/// x   = extractelement ins, k & 3        ; variable index: per lane
/// in2 = insertelement ins, x, 3
/// pos = fcmp ogt x, 0.0                  ; a varying i1 ...
/// r   = select pos, in2, b               ; ... repeated per lane's elements
/// br c, then, join
/// then: t = fneg r; br join
/// join: p = phi [r, entry], [t, then]    ; packed phi
/// ret p
/// ```
fn short_vector_kernel() -> Function {
    let float4 = Type::F32.vector_of(4);
    let params = vec![float4.clone(), float4.clone(), float4.clone(), Type::I32, Type::BOOL];
    let mut func = Function::new("float4_ops", params, float4.clone());
    let (a, bv, u, k, c) = (
        func.param_value(0),
        func.param_value(1),
        func.param_value(2),
        func.param_value(3),
        func.param_value(4),
    );
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let then = b.create_block(Some("then"));
    let join = b.create_block(Some("join"));
    b.switch_to_block(entry);
    let s = b.binary(BinaryOp::FAdd, a, u);
    let sh =
        b.ins_value(InstData::Shuffle { lhs: s, rhs: bv, mask: vec![1, 2, 4, 7] }, float4.clone());
    let lt = b.fcmp(FloatPredicate::Olt, sh, bv);
    let sel = b.select(lt, sh, a);
    let two = b.iconst(Type::I32, 2);
    let e2 = b.extract_element(sel, two);
    let two_f = b.f32const(2.0);
    let m = b.binary(BinaryOp::FMul, e2, two_f);
    let zero = b.iconst(Type::I32, 0);
    let ins = b.insert_element(sel, m, zero);
    let three = b.iconst(Type::I32, 3);
    let index = b.binary(BinaryOp::And, k, three);
    let x = b.extract_element(ins, index);
    let in2 = b.insert_element(ins, x, three);
    let zero_f = b.f32const(0.0);
    let pos = b.fcmp(FloatPredicate::Ogt, x, zero_f);
    let r = b.select(pos, in2, bv);
    b.branch(c, then, join);
    b.switch_to_block(then);
    let t = b.ins_value(
        InstData::Unary { op: UnaryOp::FNeg, arg: r, flags: ArithFlags::default() },
        float4.clone(),
    );
    b.jump(join);
    b.switch_to_block(join);
    let p = b.phi(float4, vec![(entry, r), (then, t)]);
    b.ret(Some(p));
    func
}

fn float4_arg(rng: &mut Rng) -> Val {
    Val::Vector((0..4).map(|_| any_float(rng)).collect())
}

/// Runs `scalar` per lane and `vector` once on packed arguments; compares
/// every lane's `<N x T>` result with its slice of the packed result.
fn check_packed(scalar: &Function, vector: &Function, config: &WidenConfig, args: &[ArgGen]) {
    let width = config.width as usize;
    let mut rng = Rng(0x5eed_0f0a_7c15_9e37);
    for trial in 0..200 {
        let mut lane_args: Vec<Vec<Val>> = vec![Vec::new(); width];
        for (index, generate) in args.iter().enumerate() {
            let base = generate(&mut rng);
            for (lane, lane_arg) in lane_args.iter_mut().enumerate() {
                let varying = config.params[index].kind == ParamKind::Vector;
                lane_arg.push(if varying && lane > 0 { generate(&mut rng) } else { base.clone() });
            }
        }
        let mut interpreter =
            Interpreter::new(Memory::new(MEMORY_BASE, 64), |_: &str, _: &[Val]| {
                Err(InterpError("no calls".to_owned()))
            });
        let expected: Vec<Val> = lane_args
            .iter()
            .map(|lane_arg| interpreter.run(scalar, lane_arg).expect("scalar run").expect("result"))
            .collect();
        let vector_args: Vec<Val> = (0..args.len())
            .map(|index| match config.params[index].kind {
                // Packed: lane l's elements, then lane l + 1's.
                ParamKind::Vector => Val::Vector(
                    lane_args
                        .iter()
                        .flat_map(|lane| match &lane[index] {
                            Val::Vector(elements) => elements.clone(),
                            scalar => vec![scalar.clone()],
                        })
                        .collect(),
                ),
                _ => lane_args[0][index].clone(),
            })
            .collect();
        let Some(Val::Vector(packed)) = interpreter.run(vector, &vector_args).expect("vector run")
        else {
            panic!("the vector function returned no vector");
        };
        let per_lane = packed.len() / width;
        for (lane, expected) in expected.iter().enumerate() {
            let Val::Vector(expected_elements) = expected else { panic!("{expected:?}") };
            let got = &packed[lane * per_lane..(lane + 1) * per_lane];
            let same = got.len() == expected_elements.len()
                && got.iter().zip(expected_elements).all(|(got, want)| got.same_as(want));
            assert!(same, "trial {trial}, lane {lane}: got {got:?}, want {expected_elements:?}\nargs {lane_args:?}");
        }
    }
}

#[test]
fn packed_operations_match_the_scalar_function_per_lane() {
    let scalar = short_vector_kernel();
    let kinds = [VECTOR, VECTOR, UNIFORM, VECTOR, UNIFORM];
    for (width, isa) in [(1, Isa::Sse), (2, Isa::Avx2), (4, Isa::Avx512), (8, Isa::Avx512)] {
        let config = config(width, isa, &kinds);
        let info = ShapeInfo::compute(&scalar, &DataLayout::default(), &config.params).unwrap();
        let vector = widen(&scalar, &info, &config);
        // The signature: packed <W*4 x float> for the varying short vectors,
        // `u` stays <4 x float>, the result is packed.
        let packed = Type::F32.vector_of(4 * width);
        assert_eq!(vector.params[0].ty, packed);
        assert_eq!(vector.params[2].ty, Type::F32.vector_of(4));
        assert_eq!(vector.ret_ty, packed);
        // One phi, on the packed type.
        let phis: Vec<&Type> = vector
            .layout
            .insts()
            .filter(|inst| matches!(vector.dfg.inst(*inst), InstData::Phi { .. }))
            .map(|inst| vector.dfg.value_type(vector.dfg.result(inst).unwrap()))
            .collect();
        assert_eq!(phis, vec![&packed], "width {width}");
        if width > 1 {
            // Only the variable-index extract runs per lane: per lane one
            // extract of the element and one of the lane's index; the other
            // extracts are packed shuffles.
            let extracts = count(&vector, |data| matches!(data, InstData::ExtractElement { .. }));
            assert_eq!(extracts, 2 * width as usize, "width {width}");
        }
        check_packed(
            &scalar,
            &vector,
            &config,
            &[float4_arg, float4_arg, float4_arg, any_int, |rng| {
                Val::int(1, u128::from(rng.below(2)))
            }],
        );
    }
}

/// A `float4` result computed per lane (a call the widener duplicates) is
/// packed by concatenation: `f(<4 x float> a) = g(a)` with `g` unknown.
#[test]
fn per_lane_results_are_packed_in_lane_order() {
    let float4 = Type::F32.vector_of(4);
    let mut func = Function::new("per_lane", vec![float4.clone()], float4.clone());
    let a = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let shuffled =
        b.ins_value(InstData::Shuffle { lhs: a, rhs: a, mask: vec![3, 2, 1, 0] }, float4.clone());
    // A lane-dependent value the widener keeps per lane: a freeze of an
    // extract at a varying index, inserted back.
    let one = b.iconst(Type::I32, 1);
    let x = b.extract_element(shuffled, one);
    let bits = b.cast(CastOp::Bitcast, x, Type::I32);
    let three = b.iconst(Type::I32, 3);
    let index = b.binary(BinaryOp::And, bits, three);
    let y = b.extract_element(shuffled, index);
    let r = b.insert_element(shuffled, y, index);
    b.ret(Some(r));
    let config = config(4, Isa::Avx2, &[VECTOR]);
    let info = ShapeInfo::compute(&func, &DataLayout::default(), &config.params).unwrap();
    let vector = widen(&func, &info, &config);
    // The variable-index insert ran per lane and was packed by shuffles.
    let inserts = count(&vector, |data| matches!(data, InstData::InsertElement { .. }));
    assert_eq!(inserts, 4);
    check_packed(&func, &vector, &config, &[float4_arg]);
}

/// A short vector of a type without a vector ABI, or a vector of vectors,
/// is still an error naming the parameter, never a panic.
#[test]
fn short_vectors_of_aggregates_are_refused_with_the_parameter() {
    let array4 = Type::Array { elem: Box::new(Type::F32), len: 4 };
    let mut func = Function::new("aggregate", vec![array4], Type::F32);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let zero = b.f32const(0.0);
    b.ret(Some(zero));
    let config = config(4, Isa::Avx2, &[VECTOR]);
    let info = ShapeInfo::compute(&func, &DataLayout::default(), &config.params).unwrap();
    let error = widen_function(&func, &info, &DataLayout::default(), &config).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("parameter 0 of type [4 x float] cannot be passed as a vector: only scalars"),
        "{error}"
    );
}
