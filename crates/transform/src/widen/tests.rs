//! Tests of widening: the structure of the produced IR, and differential
//! execution (scalar function lane by lane against the widened function, in
//! the reference interpreter) on random inputs.

use std::cell::RefCell;

use lanewise_analysis::{Shape, ShapeInfo, ValueShape};
use lanewise_ir::vfabi::{Isa, ParamKind, ParamSpec};
use lanewise_ir::*;

use super::*;
use crate::interp::{InterpError, Interpreter, Memory, Val};
use crate::test_support::Rng;

// ----- Helpers -----

const MEMORY_BASE: u64 = 0x1000;
const MEMORY_SIZE: usize = 4096;

fn spec(kind: ParamKind) -> ParamSpec {
    ParamSpec { kind, align: None }
}

const VECTOR: ParamKind = ParamKind::Vector;
const UNIFORM: ParamKind = ParamKind::Uniform;
const LINEAR: ParamKind = ParamKind::Linear { step: 1 };

fn config(width: u32, isa: Isa, kinds: &[ParamKind]) -> WidenConfig {
    WidenConfig::new("vec", width, isa, kinds.iter().map(|kind| spec(*kind)).collect())
}

/// Hand-made shapes: every value uniform unless listed.
fn shapes(func: &Function, listed: &[(Value, Shape)]) -> ShapeInfo {
    let mut info = ShapeInfo::default();
    for (value, _) in func.dfg.values.iter() {
        info.shapes[value] = ValueShape { shape: Shape::Uniform, align: 1 };
    }
    for (value, shape) in listed {
        info.shapes[*value].shape = *shape;
    }
    info
}

fn widen(scalar: &Function, shapes: &ShapeInfo, config: &WidenConfig) -> Function {
    let vector = widen_function(scalar, shapes, &DataLayout::default(), config)
        .unwrap_or_else(|error| panic!("widening failed: {error}"));
    verify_function(&vector).unwrap_or_else(|errors| panic!("{errors}"));
    vector
}

/// `scalar` (already linearized) widened under `predicates` with the
/// shapes the analysis computes for `config`'s parameters, verified.
fn widen_under(scalar: &Function, config: &WidenConfig, predicates: &BlockPredicates) -> Function {
    let shapes = ShapeInfo::compute(scalar, &DataLayout::default(), &config.params).unwrap();
    let vector =
        widen_function_with_stats(scalar, &shapes, &DataLayout::default(), config, predicates)
            .unwrap_or_else(|error| panic!("widening failed: {error}"))
            .function;
    verify_function(&vector).unwrap_or_else(|errors| panic!("{errors}"));
    vector
}

fn insts(func: &Function) -> Vec<&InstData> {
    func.layout.insts().map(|inst| func.dfg.inst(inst)).collect()
}

fn count(func: &Function, predicate: impl Fn(&InstData) -> bool) -> usize {
    insts(func).into_iter().filter(|data| predicate(data)).count()
}

fn count_blocks_named(func: &Function, part: &str) -> usize {
    func.layout.blocks().iter().filter(|block| func.block_name(**block).contains(part)).count()
}

fn is_splat(data: &InstData) -> bool {
    matches!(data, InstData::Splat { .. })
}

/// Instructions that produce or consume vectors.
fn is_vector_op(func: &Function, inst: Inst) -> bool {
    let data = func.dfg.inst(inst);
    let result_is_vector =
        func.dfg.result(inst).is_some_and(|value| func.dfg.value_type(value).is_vector());
    let operand_is_vector =
        data.operands().iter().any(|value| func.dfg.value_type(*value).is_vector());
    result_is_vector || operand_is_vector
}

fn callees(func: &Function) -> Vec<String> {
    func.layout.insts().filter_map(|inst| func.dfg.callee_name(inst).map(str::to_owned)).collect()
}

/// External functions of the tests; calls are logged.
fn externals<'l>(
    log: &'l RefCell<Vec<(String, Vec<Val>)>>,
) -> impl FnMut(&str, &[Val]) -> Result<Option<Val>, InterpError> + 'l {
    move |name: &str, args: &[Val]| {
        log.borrow_mut().push((name.to_owned(), args.to_vec()));
        let float_arg = |index: usize| match &args[index] {
            Val::F32(x) => *x,
            _ => f32::NAN,
        };
        Ok(match name {
            "sinf" => Some(Val::F32(float_arg(0).sin())),
            "expf" => Some(Val::F32(float_arg(0).exp())),
            "logf" => Some(Val::F32(float_arg(0).ln())),
            "exp2f" => Some(Val::F32(float_arg(0).exp2())),
            "log2f" => Some(Val::F32(float_arg(0).log2())),
            "exp" | "log" | "log2" => {
                let Val::F64(x) = args[0] else { return Ok(Some(Val::F64(f64::NAN))) };
                Some(Val::F64(match name {
                    "exp" => x.exp(),
                    "log" => x.ln(),
                    _ => x.log2(),
                }))
            }
            "powf" => Some(Val::F32(float_arg(0).powf(float_arg(1)))),
            "observe" => None,
            "next_id" => match &args[0] {
                Val::Int { value, .. } => Some(Val::int(32, value.wrapping_mul(*value))),
                _ => None,
            },
            other => return Err(InterpError(format!("unknown function `{other}`"))),
        })
    }
}

/// A generator of one scalar argument value.
type ArgGen = fn(&mut Rng) -> Val;

/// Runs `scalar` lane by lane and `vector` once on the same random inputs
/// (`trials` times) and compares results, final memory and the external call
/// log. `lane_id` calls are answered per lane in the scalar runs.
fn check_differential(
    scalar: &Function,
    vector: &Function,
    config: &WidenConfig,
    args: &[ArgGen],
    trials: usize,
) {
    check_differential_inputs(scalar, vector, config, args, trials, false);
}

/// [`check_differential`], where in every other trial the integer
/// parameters passed as vectors get consecutive values (lane 0's random
/// value plus the lane), as a caller's loop index passed without a
/// `linear` clause.
fn check_differential_with_consecutive_vectors(
    scalar: &Function,
    vector: &Function,
    config: &WidenConfig,
    args: &[ArgGen],
    trials: usize,
) {
    check_differential_inputs(scalar, vector, config, args, trials, true);
}

fn check_differential_inputs(
    scalar: &Function,
    vector: &Function,
    config: &WidenConfig,
    args: &[ArgGen],
    trials: usize,
    consecutive_vectors: bool,
) {
    let width = config.width as usize;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for trial in 0..trials {
        let mut memory = Memory::new(MEMORY_BASE, MEMORY_SIZE);
        for byte in memory.bytes.iter_mut() {
            *byte = rng.next() as u8;
        }
        // Per-lane scalar arguments following the parameter kinds.
        let mut lane_args: Vec<Vec<Val>> = vec![Vec::new(); width];
        for (index, generate) in args.iter().enumerate() {
            let base = generate(&mut rng);
            let consecutive = consecutive_vectors && trial % 2 == 1;
            for (lane, lane_arg) in lane_args.iter_mut().enumerate() {
                lane_arg.push(match (&config.params[index].kind, &base) {
                    (ParamKind::Vector, Val::Int { bits, value }) if lane > 0 && consecutive => {
                        Val::int(*bits, value.wrapping_add(lane as u128))
                    }
                    (ParamKind::Vector, _) if lane > 0 => generate(&mut rng),
                    (ParamKind::Linear { step }, _) => match &base {
                        Val::Int { bits, value } => {
                            Val::int(*bits, value.wrapping_add((step * lane as i64) as u128))
                        }
                        Val::Ptr(address) => {
                            Val::Ptr(address.wrapping_add((step * lane as i64) as u64))
                        }
                        other => panic!("linear {other:?}"),
                    },
                    _ => base.clone(),
                });
            }
        }
        let log = RefCell::new(Vec::new());
        let mut scalar_results = Vec::new();
        let scalar_memory = {
            let mut interpreter = Interpreter::new(memory.clone(), externals(&log));
            for lane_arg in &lane_args {
                scalar_results.push(interpreter.run(scalar, lane_arg).expect("scalar run"));
            }
            interpreter.memory
        };
        let scalar_log = log.take();

        let vector_args: Vec<Val> = (0..args.len())
            .map(|index| match config.params[index].kind {
                ParamKind::Vector => {
                    Val::Vector(lane_args.iter().map(|lane| lane[index].clone()).collect())
                }
                _ => lane_args[0][index].clone(),
            })
            .collect();
        let mut interpreter = Interpreter::new(memory, externals(&log));
        let vector_result = interpreter.run(vector, &vector_args).expect("vector run");
        let vector_log = log.take();

        match vector_result {
            Some(Val::Vector(lanes)) => {
                for (lane, value) in lanes.iter().enumerate() {
                    let expected = scalar_results[lane].as_ref().expect("scalar result");
                    assert!(
                        value.same_as(expected),
                        "trial {trial}, lane {lane}: vector {value:?}, scalar {expected:?}\nargs {lane_args:?}"
                    );
                }
            }
            None => assert!(scalar_results.iter().all(Option::is_none)),
            other => panic!("vector function returned {other:?}"),
        }
        assert_eq!(
            &interpreter.memory.bytes[..MEMORY_SIZE],
            &scalar_memory.bytes[..MEMORY_SIZE],
            "trial {trial}: memory differs\nargs {lane_args:?}"
        );
        // Side effects keep lane order per operation (thesis 3.1), not
        // across operations: compare the calls of each callee separately.
        let per_callee = |log: &[(String, Vec<Val>)], callee: &str| -> Vec<Vec<Val>> {
            log.iter().filter(|(name, _)| name == callee).map(|(_, args)| args.clone()).collect()
        };
        for (callee, _) in scalar_log.iter().chain(&vector_log) {
            let (expected, actual) =
                (per_callee(&scalar_log, callee), per_callee(&vector_log, callee));
            let same = expected.len() == actual.len()
                && expected
                    .iter()
                    .zip(&actual)
                    .all(|(a, b)| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_as(y)));
            assert!(same, "trial {trial}: calls of `{callee}` differ:\nscalar {expected:?}\nvector {actual:?}");
        }
    }
}

fn small_int(rng: &mut Rng) -> Val {
    Val::int(32, rng.below(64) as u128)
}

fn any_int(rng: &mut Rng) -> Val {
    Val::int(32, u128::from(rng.next() as u32))
}

fn index64(rng: &mut Rng) -> Val {
    Val::int(64, rng.below(200) as u128)
}

fn any_float(rng: &mut Rng) -> Val {
    Val::F32((rng.below(20_000) as f32 - 10_000.0) / 97.0)
}

fn any_double(rng: &mut Rng) -> Val {
    Val::F64((rng.below(2_000_000) as f64 - 1_000_000.0) / 997.0)
}

fn memory_base(_: &mut Rng) -> Val {
    Val::Ptr(MEMORY_BASE)
}

// ----- Kernels -----

/// `a = q * d + e; return (a / d) * 31 + a % d` on i32 (`udiv`/`urem` when
/// not `signed`), with `d = (b & -4) | 2` (never 0 or -1) signed and `d = b
/// | 1` unsigned: `a` lands next to multiples of `d`, where a rounded
/// floating-point quotient may overshoot the truncated one.
fn division_kernel(signed: bool) -> Function {
    let params = vec![Type::I32, Type::I32, Type::I32];
    let mut func = Function::new("divide", params, Type::I32);
    let (q, b_arg, e) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let divisor = if signed {
        let minus_four = b.iconst(Type::I32, -4);
        let two = b.iconst(Type::I32, 2);
        let cleared = b.binary(BinaryOp::And, b_arg, minus_four);
        b.binary(BinaryOp::Or, cleared, two)
    } else {
        let one = b.iconst(Type::I32, 1);
        b.binary(BinaryOp::Or, b_arg, one)
    };
    let product = b.binary(BinaryOp::Mul, q, divisor);
    let a = b.binary(BinaryOp::Add, product, e);
    let (div, rem) =
        if signed { (BinaryOp::SDiv, BinaryOp::SRem) } else { (BinaryOp::UDiv, BinaryOp::URem) };
    let quotient = b.binary(div, a, divisor);
    let remainder = b.binary(rem, a, divisor);
    let factor = b.iconst(Type::I32, 31);
    let scaled = b.binary(BinaryOp::Mul, quotient, factor);
    let result = b.binary(BinaryOp::Add, scaled, remainder);
    b.ret(Some(result));
    func
}

/// `a = k * d + e; return (a / d) * 31 + a % d` on i64 with a constant `d`
/// (`udiv`/`urem` when not `signed`): `a` next to multiples of `d`, where a
/// rounded quotient may land on the wrong side of an integer.
fn constant_division_kernel(signed: bool, divisor: i64) -> Function {
    let mut func = Function::new("divide_by_constant", vec![Type::I64, Type::I64], Type::I64);
    let (k, e) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let d = b.iconst(Type::I64, i128::from(divisor));
    let product = b.binary(BinaryOp::Mul, k, d);
    let a = b.binary(BinaryOp::Add, product, e);
    let (div, rem) =
        if signed { (BinaryOp::SDiv, BinaryOp::SRem) } else { (BinaryOp::UDiv, BinaryOp::URem) };
    let quotient = b.binary(div, a, d);
    let remainder = b.binary(rem, a, d);
    let factor = b.iconst(Type::I64, 31);
    let scaled = b.binary(BinaryOp::Mul, quotient, factor);
    let result = b.binary(BinaryOp::Add, scaled, remainder);
    b.ret(Some(result));
    func
}

/// A random 64-bit value shifted right by 11 to 63 bits (below 2^53),
/// negated half the time.
fn multiple_count64(rng: &mut Rng) -> Val {
    let magnitude = rng.next() >> (11 + rng.below(53));
    let value = if rng.below(2) == 0 { magnitude } else { magnitude.wrapping_neg() };
    Val::int(64, u128::from(value))
}

/// A random value below 2^30 (bit lengths spread evenly), negated half the
/// time: multiplied by a divisor below 2^20 it stays below the 2^50 limit
/// of the reciprocal path.
fn small_count64(rng: &mut Rng) -> Val {
    let magnitude = rng.next() >> (34 + rng.below(30));
    let value = if rng.below(2) == 0 { magnitude } else { magnitude.wrapping_neg() };
    Val::int(64, u128::from(value))
}

fn small_offset64(rng: &mut Rng) -> Val {
    Val::int(64, u128::from(rng.below(5).wrapping_sub(2)))
}

/// A random 32-bit value shifted right by 0 to 31 bits, negated half the
/// time: magnitudes spread evenly over the bit lengths.
fn any_magnitude(rng: &mut Rng) -> Val {
    let magnitude = (rng.next() as u32) >> rng.below(32);
    let value = if rng.below(2) == 0 { magnitude } else { magnitude.wrapping_neg() };
    Val::int(32, u128::from(value))
}

/// A quotient whose product with a divisor of similar spread often lands
/// below 2^24 (the float fast path) and sometimes above.
fn quotient_magnitude(rng: &mut Rng) -> Val {
    let magnitude = (rng.next() as u32) >> (8 + rng.below(24));
    let value = if rng.below(2) == 0 { magnitude } else { magnitude.wrapping_neg() };
    Val::int(32, u128::from(value))
}

fn small_offset(rng: &mut Rng) -> Val {
    Val::int(32, (rng.below(5) as u32).wrapping_sub(2) as u128)
}

/// `out[i + 256] = a[i] * (s * 2) + x; return that`, with `a` uniform, `i`
/// linear, `x` varying, `s` uniform.
fn contiguous_kernel() -> (Function, ShapeInfo) {
    let mut func =
        Function::new("axpy", vec![Type::PTR, Type::I64, Type::F32, Type::F32], Type::F32);
    let (a, i, x, s) =
        (func.param_value(0), func.param_value(1), func.param_value(2), func.param_value(3));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let p = b.gep(Type::F32, a, vec![i]);
    let loaded = b.load(Type::F32, p, 4);
    let two = b.f32const(2.0);
    let scale = b.binary(BinaryOp::FMul, s, two);
    let product = b.binary(BinaryOp::FMul, loaded, scale);
    let sum = b.binary(BinaryOp::FAdd, product, x);
    let offset = b.iconst(Type::I64, 256);
    let out_index = b.binary(BinaryOp::Add, i, offset);
    let q = b.gep(Type::F32, a, vec![out_index]);
    b.store(sum, q, 4);
    b.ret(Some(sum));
    let info = shapes(
        &func,
        &[
            (i, Shape::Strided(1)),
            (x, Shape::Varying),
            (p, Shape::Strided(4)),
            (loaded, Shape::Varying),
            (product, Shape::Varying),
            (sum, Shape::Varying),
            (out_index, Shape::Strided(1)),
            (q, Shape::Strided(4)),
        ],
    );
    (func, info)
}

#[test]
fn contiguous_accesses_become_one_vector_load_and_store() {
    let (scalar, info) = contiguous_kernel();
    let config = config(8, Isa::Avx2, &[UNIFORM, LINEAR, VECTOR, UNIFORM]);
    let vector = widen(&scalar, &info, &config);
    assert_eq!(vector.name, "vec");
    assert_eq!(
        vector.params.iter().map(|param| param.ty.clone()).collect::<Vec<_>>(),
        vec![Type::PTR, Type::I64, Type::F32.vector_of(8), Type::F32]
    );
    assert_eq!(vector.ret_ty, Type::F32.vector_of(8));
    let vector_loads = count(
        &vector,
        |data| matches!(data, InstData::Load { ty, align: 4, .. } if *ty == Type::F32.vector_of(8)),
    );
    assert_eq!(vector_loads, 1);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Load { .. })), 1);
    let vector_stores = count(
        &vector,
        |data| matches!(data, InstData::Store { value, .. } if vector.dfg.value_type(*value).is_vector()),
    );
    assert_eq!(vector_stores, 1);
    // The uniform `s * 2` stays scalar and is broadcast exactly once.
    assert_eq!(count(&vector, is_splat), 1);
    assert_eq!(
        count(&vector, |data| matches!(data, InstData::Gather { .. } | InstData::Scatter { .. })),
        0
    );
    check_differential(
        &scalar,
        &vector,
        &config,
        &[memory_base, index64, any_float, any_float],
        200,
    );
}

#[test]
fn vector_access_alignment_is_raised_only_as_far_as_proven() {
    let (scalar, mut info) = contiguous_kernel();
    let p = scalar.dfg.result(scalar.layout.insts().next().unwrap()).unwrap();
    info.shapes[p].align = 64;
    let vector = widen(&scalar, &info, &config(8, Isa::Avx2, &[UNIFORM, LINEAR, VECTOR, UNIFORM]));
    assert_eq!(count(&vector, |data| matches!(data, InstData::Load { align: 32, .. })), 1);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Store { align: 4, .. })), 1);
}

/// `a[2*i] + 1` loaded and stored to `a[2*i + 1]`: stride 8 bytes for `i32`.
fn strided_kernel() -> (Function, ShapeInfo) {
    let mut func = Function::new("strided", vec![Type::PTR, Type::I64], Type::I32);
    let (a, i) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let two = b.iconst(Type::I64, 2);
    let j = b.binary(BinaryOp::Mul, i, two);
    let p = b.gep(Type::I32, a, vec![j]);
    let loaded = b.load(Type::I32, p, 4);
    let one = b.iconst(Type::I32, 1);
    let incremented = b.binary(BinaryOp::Add, loaded, one);
    let one64 = b.iconst(Type::I64, 1);
    let k = b.binary(BinaryOp::Add, j, one64);
    let q = b.gep(Type::I32, a, vec![k]);
    b.store(incremented, q, 4);
    b.ret(Some(loaded));
    let info = shapes(
        &func,
        &[
            (i, Shape::Strided(1)),
            (j, Shape::Strided(2)),
            (p, Shape::Strided(8)),
            (loaded, Shape::Varying),
            (incremented, Shape::Varying),
            (k, Shape::Strided(2)),
            (q, Shape::Strided(8)),
        ],
    );
    (func, info)
}

#[test]
fn strided_accesses_gather_on_avx2_and_are_scalarized_on_sse() {
    let (scalar, info) = strided_kernel();
    let kinds = [UNIFORM, LINEAR];

    let avx2 = config(8, Isa::Avx2, &kinds);
    let vector = widen(&scalar, &info, &avx2);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Gather { .. })), 1);
    // AVX2 has no scatter: 8 scalar stores in lane order.
    assert_eq!(count(&vector, |data| matches!(data, InstData::Store { .. })), 8);
    check_differential(&scalar, &vector, &avx2, &[memory_base, index64], 100);

    let sse = config(4, Isa::Sse, &kinds);
    let vector = widen(&scalar, &info, &sse);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Gather { .. })), 0);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Load { ty: Type::I32, .. })), 4);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Store { .. })), 4);
    check_differential(&scalar, &vector, &sse, &[memory_base, index64], 100);

    let avx512 = config(16, Isa::Avx512, &kinds);
    let vector = widen(&scalar, &info, &avx512);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Gather { .. })), 1);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Scatter { .. })), 1);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Store { .. })), 0);
    check_differential(&scalar, &vector, &avx512, &[memory_base, index64], 100);

    // An AVX2-ABI variant whose target features enable AVX-512 (built with
    // `-march=native` on an AVX-512 host) scatters too.
    let mut avx2_on_avx512 = config(8, Isa::Avx2, &kinds);
    avx2_on_avx512.native_scatter = true;
    let vector = widen(&scalar, &info, &avx2_on_avx512);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Scatter { .. })), 1);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Store { .. })), 0);
    check_differential(&scalar, &vector, &avx2_on_avx512, &[memory_base, index64], 100);
}

#[test]
fn scalarized_stores_run_in_lane_order() {
    let (scalar, info) = strided_kernel();
    let vector = widen(&scalar, &info, &config(4, Isa::Sse, &[UNIFORM, LINEAR]));
    // Each store's address is lane i of the strided pointer: base + 8*i (+4).
    let store_addrs: Vec<Value> = insts(&vector)
        .into_iter()
        .filter_map(|data| match data {
            InstData::Store { addr, .. } => Some(*addr),
            _ => None,
        })
        .collect();
    let offsets: Vec<i128> = store_addrs
        .iter()
        .map(|addr| match vector.dfg.defining_inst(*addr).map(|inst| vector.dfg.inst(inst)) {
            Some(InstData::Gep { source_ty: Type::I8, indices, .. }) => {
                vector.dfg.signed_int_constant(indices[0]).unwrap()
            }
            _ => 0,
        })
        .collect();
    assert_eq!(offsets, vec![0, 8, 16, 24]);
}

#[test]
fn uniform_only_function_has_no_vector_ops_but_the_return_splat() {
    let mut func = Function::new("uniform", vec![Type::I32, Type::I32], Type::I32);
    let (x, y) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let sum = b.binary(BinaryOp::Add, x, y);
    let three = b.iconst(Type::I32, 3);
    let product = b.binary(BinaryOp::Mul, sum, three);
    b.ret(Some(product));
    let info = shapes(&func, &[]);
    let config = config(4, Isa::Sse, &[UNIFORM, UNIFORM]);
    let vector = widen(&func, &info, &config);
    let vector_ops: Vec<&InstData> = vector
        .layout
        .insts()
        .filter(|inst| is_vector_op(&vector, *inst))
        .map(|inst| vector.dfg.inst(inst))
        .collect();
    assert_eq!(vector_ops.len(), 2, "{vector_ops:?}");
    assert!(is_splat(vector_ops[0]));
    assert!(matches!(vector_ops[1], InstData::Return { .. }));
    // The splat sits right after the definition of `product`.
    let order = insts(&vector);
    assert!(matches!(order[1], InstData::Binary { op: BinaryOp::Mul, .. }));
    assert!(is_splat(order[2]));
    check_differential(&func, &vector, &config, &[any_int, any_int], 50);
}

#[test]
fn varying_and_uniform_bools_select_on_the_scalar_uniform_bool() {
    // (x > 0 && n > 5) + 2 * (x > 0 || n > 5), as LLVM writes && and ||.
    let mut func = Function::new("both", vec![Type::I32, Type::I32], Type::I32);
    let (x, n) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let zero = b.iconst(Type::I32, 0);
    let five = b.iconst(Type::I32, 5);
    let positive = b.icmp(IntPredicate::Sgt, x, zero);
    let big = b.icmp(IntPredicate::Sgt, n, five);
    let (no, yes) = (b.iconst(Type::BOOL, 0), b.iconst(Type::BOOL, 1));
    let both = b.select(positive, big, no);
    let either = b.select(positive, yes, big);
    let both_int = b.cast(CastOp::ZExt, both, Type::I32);
    let either_int = b.cast(CastOp::ZExt, either, Type::I32);
    let twice = b.binary(BinaryOp::Add, either_int, either_int);
    let sum = b.binary(BinaryOp::Add, both_int, twice);
    b.ret(Some(sum));
    let config = config(8, Isa::Avx2, &[VECTOR, UNIFORM]);
    let info = ShapeInfo::compute(&func, &DataLayout::default(), &config.params).unwrap();
    let vector = widen(&func, &info, &config);
    let scalar_conditions = count(
        &vector,
        |data| matches!(data, InstData::Select { cond, .. } if *vector.dfg.value_type(*cond) == Type::BOOL),
    );
    assert_eq!(scalar_conditions, 2, "{vector}");
    assert_eq!(count(&vector, is_splat), 0, "{vector}");
    check_differential(&func, &vector, &config, &[any_int, small_int], 200);
}

#[test]
fn side_effect_calls_run_once_per_lane_in_lane_order() {
    let mut func = Function::new("effects", vec![Type::I32], Type::I32);
    let x = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    b.call(Callee::Direct("observe".into()), vec![x], Type::Void, CallEffects::SideEffects);
    let id_call =
        b.call(Callee::Direct("next_id".into()), vec![x], Type::I32, CallEffects::SideEffects);
    let id = b.func.dfg.result(id_call).unwrap();
    let sum = b.binary(BinaryOp::Add, id, x);
    b.ret(Some(sum));
    let info = shapes(&func, &[(x, Shape::Varying), (id, Shape::Varying), (sum, Shape::Varying)]);
    let config = config(8, Isa::Avx2, &[VECTOR]);
    let vector = widen(&func, &info, &config);
    let names = callees(&vector);
    assert_eq!(names.iter().filter(|name| *name == "observe").count(), 8);
    assert_eq!(names.iter().filter(|name| *name == "next_id").count(), 8);
    // Lane i's observe call gets lane i of x, in order.
    let observed_lanes: Vec<u128> = vector
        .layout
        .insts()
        .filter(|inst| vector.dfg.callee_name(*inst) == Some("observe"))
        .map(|inst| {
            let InstData::Call { args, .. } = vector.dfg.inst(inst) else { unreachable!() };
            let extract = vector.dfg.defining_inst(args[0]).unwrap();
            let InstData::ExtractElement { index, .. } = vector.dfg.inst(extract) else { panic!() };
            vector.dfg.int_constant(*index).unwrap()
        })
        .collect();
    assert_eq!(observed_lanes, (0..8).collect::<Vec<_>>());
    // The harness checks that each callee sees lanes 0..7 in order.
    check_differential(&func, &vector, &config, &[any_int], 20);
}

fn unary_float_call(name: &str, effects: CallEffects) -> (Function, ShapeInfo) {
    let mut func = Function::new("math", vec![Type::F32], Type::F32);
    let x = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let call = b.call(Callee::Direct(name.into()), vec![x], Type::F32, effects);
    let result = b.func.dfg.result(call).unwrap();
    b.ret(Some(result));
    let info = shapes(&func, &[(x, Shape::Varying), (result, Shape::Varying)]);
    (func, info)
}

#[test]
fn libm_calls_map_to_libmvec_where_allowed_or_are_scalarized() {
    let (scalar, info) = unary_float_call("sinf", CallEffects::SideEffects);
    let mut libmvec = config(8, Isa::Avx2, &[VECTOR]);
    libmvec.vector_math = VectorMath::Libmvec;
    let vector = widen(&scalar, &info, &libmvec);
    assert_eq!(callees(&vector), vec!["_ZGVdN8v_sinf".to_owned()]);
    check_differential(&scalar, &vector, &libmvec, &[any_float], 50);

    let exact = config(8, Isa::Avx2, &[VECTOR]);
    let vector = widen(&scalar, &info, &exact);
    assert_eq!(callees(&vector), vec!["sinf".to_owned(); 8]);
    check_differential(&scalar, &vector, &exact, &[any_float], 50);

    // A `sqrtf` that sets no errno (`memory(none)`) is the exact vector
    // sqrt, whatever the vector math; one that may stays per lane.
    let (pure_sqrt, pure_info) = unary_float_call("sqrtf", CallEffects::Pure);
    let vector = widen(&pure_sqrt, &pure_info, &exact);
    assert_eq!(callees(&vector), vec!["llvm.sqrt.v8f32".to_owned()]);
    let (errno_sqrt, errno_info) = unary_float_call("sqrtf", CallEffects::SideEffects);
    let vector = widen(&errno_sqrt, &errno_info, &exact);
    assert_eq!(callees(&vector), vec!["sqrtf".to_owned(); 8]);

    // `auto` follows the call: exact without `afn`, libmvec with it.
    let mut auto = config(8, Isa::Avx2, &[VECTOR]);
    auto.vector_math = VectorMath::Auto;
    let vector = widen(&scalar, &info, &auto);
    assert_eq!(callees(&vector), vec!["sinf".to_owned(); 8]);
    let mut approximate = scalar.clone();
    let call = approximate.layout.insts().next().unwrap();
    if let InstData::Call { flags, .. } = approximate.dfg.inst_mut(call) {
        flags.afn = true;
    }
    let vector = widen(&approximate, &info, &auto);
    assert_eq!(callees(&vector), vec!["_ZGVdN8v_sinf".to_owned()]);

    // 8 lanes of SSE: two 4-lane calls, split and joined by shuffles.
    let mut split = config(8, Isa::Sse, &[VECTOR]);
    split.vector_math = VectorMath::Libmvec;
    let vector = widen(&scalar, &info, &split);
    assert_eq!(callees(&vector), vec!["_ZGVbN4v_sinf".to_owned(); 2]);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Shuffle { .. })), 3);
    check_differential(&scalar, &vector, &split, &[any_float], 50);
}

#[test]
fn expf_and_logf_become_their_exact_vector_forms_where_the_driver_allows() {
    let mut exact = config(8, Isa::Avx2, &[VECTOR]);
    exact.exact_vector_math = true;
    // Calls that set errno keep their effects: the vector form calls libm
    // for the active lanes outside its vector path.
    for (name, vector_name) in [
        ("expf", "__lanewise_expf_exact_v8"),
        ("llvm.exp.f32", "__lanewise_expf_exact_v8"),
        ("logf", "__lanewise_logf_exact_v8"),
        ("exp2f", "__lanewise_exp2f_exact_v8"),
        ("llvm.log2.f32", "__lanewise_log2f_exact_v8"),
    ] {
        let (scalar, info) = unary_float_call(name, CallEffects::SideEffects);
        let vector = widen(&scalar, &info, &exact);
        assert_eq!(callees(&vector), vec![vector_name.to_owned()], "{name}");
        let call = vector.layout.insts().find(|inst| vector.dfg.callee_name(*inst).is_some());
        let InstData::Call { args, effects, .. } = vector.dfg.inst(call.unwrap()) else {
            unreachable!()
        };
        assert_eq!(*effects, CallEffects::SideEffects);
        assert_eq!(vector.dfg.value_type(args[1]), &Type::BOOL.vector_of(8));
        check_differential(&scalar, &vector, &exact, &[any_float], 50);
    }
    // Off (the default, and for targets without FMA): one call per lane;
    // where libmvec is allowed, libmvec.
    let (scalar, info) = unary_float_call("expf", CallEffects::SideEffects);
    let vector = widen(&scalar, &info, &config(8, Isa::Avx2, &[VECTOR]));
    assert_eq!(callees(&vector), vec!["expf".to_owned(); 8]);
    exact.vector_math = VectorMath::Libmvec;
    let vector = widen(&scalar, &info, &exact);
    assert_eq!(callees(&vector), vec!["_ZGVdN8v_expf".to_owned()]);
    // In double precision `exp` and `log` have one, `log2` none.
    exact.vector_math = VectorMath::Exact;
    for (name, expected) in [
        ("exp", vec!["__lanewise_exp_exact_v8".to_owned()]),
        ("log", vec!["__lanewise_log_exact_v8".to_owned()]),
        ("log2", vec!["log2".to_owned(); 8]),
    ] {
        let mut func = Function::new("math", vec![Type::F64], Type::F64);
        let x = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        b.switch_to_block(entry);
        let call =
            b.call(Callee::Direct(name.into()), vec![x], Type::F64, CallEffects::SideEffects);
        let result = b.func.dfg.result(call).unwrap();
        b.ret(Some(result));
        let info = shapes(&func, &[(x, Shape::Varying), (result, Shape::Varying)]);
        let vector = widen(&func, &info, &exact);
        assert_eq!(callees(&vector), expected, "{name}");
        check_differential(&func, &vector, &exact, &[any_double], 50);
    }
}

#[test]
fn elementwise_intrinsics_become_vector_intrinsics() {
    let mut func = Function::new("intrinsics", vec![Type::F32, Type::I32], Type::F32);
    let (x, y) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let sqrt =
        b.call(Callee::Direct("llvm.sqrt.f32".into()), vec![x], Type::F32, CallEffects::Pure);
    let sqrt = b.func.dfg.result(sqrt).unwrap();
    let no_poison = b.iconst(Type::BOOL, 0);
    let ctlz = b.call(
        Callee::Direct("llvm.ctlz.i32".into()),
        vec![y, no_poison],
        Type::I32,
        CallEffects::Pure,
    );
    let ctlz = b.func.dfg.result(ctlz).unwrap();
    let as_float = b.cast(CastOp::SIToFP, ctlz, Type::F32);
    let sum = b.binary(BinaryOp::FAdd, sqrt, as_float);
    b.ret(Some(sum));
    let info = shapes(
        &func,
        &[
            (x, Shape::Varying),
            (y, Shape::Varying),
            (sqrt, Shape::Varying),
            (ctlz, Shape::Varying),
            (as_float, Shape::Varying),
            (sum, Shape::Varying),
        ],
    );
    let config = config(8, Isa::Avx2, &[VECTOR, VECTOR]);
    let vector = widen(&func, &info, &config);
    assert_eq!(callees(&vector), vec!["llvm.sqrt.v8f32".to_owned(), "llvm.ctlz.v8i32".to_owned()]);
    let ctlz_call = vector
        .layout
        .insts()
        .find(|inst| vector.dfg.callee_name(*inst) == Some("llvm.ctlz.v8i32"))
        .unwrap();
    let InstData::Call { args, .. } = vector.dfg.inst(ctlz_call) else { unreachable!() };
    assert_eq!(*vector.dfg.value_type(args[1]), Type::BOOL, "the i1 flag stays scalar");
    check_differential(&func, &vector, &config, &[any_float, any_int], 100);
}

/// A loop with a uniform trip count and a varying accumulator.
fn loop_kernel() -> Function {
    let mut func = Function::new("loop", vec![Type::I32, Type::I32], Type::I32);
    let (x, n) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("header"));
    let body = b.create_block(Some("body"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    b.jump(header);
    b.switch_to_block(header);
    let zero = b.iconst(Type::I32, 0);
    let i = b.phi(Type::I32, vec![(entry, zero)]);
    let acc = b.phi(Type::I32, vec![(entry, x)]);
    let bound = b.iconst(Type::I32, 15);
    let limit = b.binary(BinaryOp::And, n, bound);
    let keep_going = b.icmp(IntPredicate::Slt, i, limit);
    b.branch(keep_going, body, exit);
    b.switch_to_block(body);
    let three = b.iconst(Type::I32, 3);
    let tripled = b.binary(BinaryOp::Mul, acc, three);
    let next_acc = b.binary(BinaryOp::Add, tripled, i);
    let one = b.iconst(Type::I32, 1);
    let next_i = b.binary(BinaryOp::Add, i, one);
    b.jump(header);
    b.switch_to_block(exit);
    b.ret(Some(acc));
    for (phi, latch_value) in [(i, next_i), (acc, next_acc)] {
        let inst = func.dfg.defining_inst(phi).unwrap();
        let InstData::Phi { incoming, .. } = func.dfg.inst_mut(inst) else { unreachable!() };
        incoming.push((body, latch_value));
    }
    func
}

#[test]
fn loops_with_uniform_trip_counts_keep_scalar_phis_for_uniform_values() {
    let scalar = loop_kernel();
    let config = config(4, Isa::Sse, &[VECTOR, UNIFORM]);
    let info = ShapeInfo::compute(&scalar, &DataLayout::default(), &config.params).unwrap();
    let vector = widen(&scalar, &info, &config);
    let phi_types: Vec<Type> = insts(&vector)
        .into_iter()
        .filter_map(|data| match data {
            InstData::Phi { ty, .. } => Some(ty.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(phi_types, vec![Type::I32, Type::I32.vector_of(4)]);
    assert_eq!(vector.layout.blocks().len(), 4);
    // The branch stays a scalar branch on the scalar comparison.
    let branch_cond = insts(&vector).into_iter().find_map(|data| match data {
        InstData::Branch { cond, .. } => Some(*cond),
        _ => None,
    });
    assert_eq!(*vector.dfg.value_type(branch_cond.unwrap()), Type::BOOL);
    check_differential(&scalar, &vector, &config, &[any_int, small_int], 200);
}

#[test]
fn store_of_varying_value_to_uniform_address_keeps_the_last_lane() {
    let mut func = Function::new("last", vec![Type::PTR, Type::I32], Type::Void);
    let (a, x) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    b.store(x, a, 4);
    b.ret(None);
    let info = shapes(&func, &[(x, Shape::Varying)]);
    let config = config(8, Isa::Avx2, &[UNIFORM, VECTOR]);
    let vector = widen(&func, &info, &config);
    let stored = insts(&vector).into_iter().find_map(|data| match data {
        InstData::Store { value, .. } => Some(*value),
        _ => None,
    });
    let extract = vector.dfg.defining_inst(stored.unwrap()).unwrap();
    let InstData::ExtractElement { index, .. } = vector.dfg.inst(extract) else { panic!() };
    assert_eq!(vector.dfg.int_constant(*index), Some(7));
    check_differential(&func, &vector, &config, &[memory_base, any_int], 50);
}

/// A private array per lane: `buf[k & 3] = x; buf[(k + 1) & 3] = x + 1;
/// return buf[k & 3] + buf[(k+1) & 3]`.
fn alloca_kernel() -> Function {
    let mut func = Function::new("private", vec![Type::I32, Type::I32], Type::I32);
    let (x, k) = (func.param_value(0), func.param_value(1));
    let array = Type::Array { elem: Box::new(Type::I32), len: 4 };
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let one = b.iconst(Type::I32, 1);
    let buf = b.ins_value(InstData::Alloca { ty: array.clone(), count: one, align: 4 }, Type::PTR);
    let three = b.iconst(Type::I32, 3);
    let zero = b.iconst(Type::I32, 0);
    let first = b.binary(BinaryOp::And, k, three);
    let k1 = b.binary(BinaryOp::Add, k, one);
    let second = b.binary(BinaryOp::And, k1, three);
    let p = b.gep(array.clone(), buf, vec![zero, first]);
    let q = b.gep(array.clone(), buf, vec![zero, second]);
    b.store(x, p, 4);
    let x1 = b.binary(BinaryOp::Add, x, one);
    b.store(x1, q, 4);
    let loaded_p = b.load(Type::I32, p, 4);
    let loaded_q = b.load(Type::I32, q, 4);
    let sum = b.binary(BinaryOp::Add, loaded_p, loaded_q);
    b.ret(Some(sum));
    func
}

#[test]
fn allocas_get_one_copy_per_lane() {
    let scalar = alloca_kernel();
    for (isa, width) in [(Isa::Sse, 4), (Isa::Avx2, 8), (Isa::Avx512, 16)] {
        let config = config(width, isa, &[VECTOR, UNIFORM]);
        let info = ShapeInfo::compute(&scalar, &DataLayout::default(), &config.params).unwrap();
        let vector = widen(&scalar, &info, &config);
        let allocas: Vec<&InstData> = insts(&vector)
            .into_iter()
            .filter(|data| matches!(data, InstData::Alloca { .. }))
            .collect();
        assert_eq!(allocas.len(), 1);
        let InstData::Alloca { ty, align, .. } = allocas[0] else { unreachable!() };
        // W copies of the 16-byte array, as bytes.
        assert_eq!(*ty, Type::Array { elem: Box::new(Type::I8), len: 16 * u64::from(width) });
        assert_eq!(*align, 4);
        check_differential(&scalar, &vector, &config, &[any_int, any_int], 50);
    }
}

/// Interleaved private arrays (`private_memory`): with a uniform index the
/// accesses become contiguous vector loads and stores; with a varying one,
/// gathers and per-lane stores into nearby cells. Both agree with the
/// original scalar function lane by lane.
#[test]
fn interleaved_private_arrays_agree_with_scalar_and_vectorize_uniform_indices() {
    let scalar = alloca_kernel();
    for (index_kind, contiguous_expected) in [(UNIFORM, true), (VECTOR, false)] {
        for (isa, width) in [(Isa::Sse, 4), (Isa::Avx2, 8)] {
            let config = config(width, isa, &[VECTOR, index_kind]);
            let mut interleaved = scalar.clone();
            let report = crate::private_memory::interleave_private_arrays(
                &mut interleaved,
                width,
                &DataLayout::default(),
                &|_| false,
            );
            assert_eq!(report.interleaved, 1);
            let info =
                ShapeInfo::compute(&interleaved, &DataLayout::default(), &config.params).unwrap();
            let vector = widen(&interleaved, &info, &config);
            let vector_memory_ops = count(&vector, |data| {
                matches!(data, InstData::Load { ty, .. } if ty.is_vector())
                    || matches!(data, InstData::Store { .. })
            });
            let gathers = count(&vector, |data| matches!(data, InstData::Gather { .. }));
            if contiguous_expected {
                assert_eq!(gathers, 0, "{vector}");
                assert!(vector_memory_ops >= 4, "{vector}");
            }
            check_differential(&scalar, &vector, &config, &[any_int, any_int], 50);
        }
    }
}

#[test]
fn uniform_switch_stays_a_scalar_switch() {
    let mut func = Function::new("switch", vec![Type::I32, Type::I32], Type::I32);
    let (selector, x) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let double = b.create_block(Some("double"));
    let negate = b.create_block(Some("negate"));
    let join = b.create_block(Some("join"));
    b.switch_to_block(entry);
    let three = b.iconst(Type::I32, 3);
    let case = b.binary(BinaryOp::URem, selector, three);
    b.ins(
        InstData::Switch { value: case, default: join, cases: vec![(0, double), (1, negate)] },
        Type::Void,
    );
    b.switch_to_block(double);
    let doubled = b.binary(BinaryOp::Add, x, x);
    b.jump(join);
    b.switch_to_block(negate);
    let zero = b.iconst(Type::I32, 0);
    let negated = b.binary(BinaryOp::Sub, zero, x);
    b.jump(join);
    b.switch_to_block(join);
    let result = b.phi(Type::I32, vec![(entry, x), (double, doubled), (negate, negated)]);
    let always = b.func.dfg.int_const(Type::BOOL, 1);
    let selected = b.select(always, result, x);
    b.ret(Some(selected));
    let config = config(4, Isa::Sse, &[UNIFORM, VECTOR]);
    let info = ShapeInfo::compute(&func, &DataLayout::default(), &config.params).unwrap();
    let vector = widen(&func, &info, &config);
    let switch_value = insts(&vector).into_iter().find_map(|data| match data {
        InstData::Switch { value, .. } => Some(*value),
        _ => None,
    });
    assert_eq!(*vector.dfg.value_type(switch_value.unwrap()), Type::I32);
    // The select's uniform condition stays scalar.
    let select_cond = insts(&vector).into_iter().find_map(|data| match data {
        InstData::Select { cond, .. } => Some(*cond),
        _ => None,
    });
    assert_eq!(*vector.dfg.value_type(select_cond.unwrap()), Type::BOOL);
    check_differential(&func, &vector, &config, &[any_int, any_int], 100);
}

#[test]
fn volatile_loads_are_duplicated_per_lane() {
    let mut func = Function::new("volatile", vec![Type::PTR], Type::I32);
    let a = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let loaded =
        b.ins_value(InstData::Load { ty: Type::I32, addr: a, align: 4, volatile: true }, Type::I32);
    b.ret(Some(loaded));
    let info = shapes(&func, &[(loaded, Shape::Varying)]);
    let config = config(4, Isa::Avx2, &[UNIFORM]);
    let vector = widen(&func, &info, &config);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Load { volatile: true, .. })), 4);
    assert_eq!(count(&vector, |data| matches!(data, InstData::InsertElement { .. })), 4);
    check_differential(&func, &vector, &config, &[memory_base], 10);
}

#[test]
fn strided_values_materialize_as_splat_plus_steps_once() {
    let mut func = Function::new("iota", vec![Type::I32, Type::PTR], Type::I32);
    let (i, p) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let as_int = b.cast(CastOp::PtrToInt, p, Type::I64);
    let truncated = b.cast(CastOp::Trunc, as_int, Type::I32);
    let sum = b.binary(BinaryOp::Xor, i, truncated);
    let again = b.binary(BinaryOp::Mul, i, sum);
    b.ret(Some(again));
    let config = config(4, Isa::Sse, &[LINEAR, ParamKind::Linear { step: 8 }]);
    let info = ShapeInfo::compute(&func, &DataLayout::default(), &config.params).unwrap();
    let vector = widen(&func, &info, &config);
    // `i` is materialized once (splat + add), used by xor and mul.
    let adds_of_steps = count(
        &vector,
        |data| matches!(data, InstData::Binary { op: BinaryOp::Add, rhs, .. } if vector.dfg.constant(*rhs).is_some()),
    );
    assert_eq!(adds_of_steps, 2, "i and the truncated pointer offset");
    check_differential(&func, &vector, &config, &[any_int, memory_base], 50);
}

/// fuzz_regressions/016: lane 0 of a masked `linear(a:3)` variant holds
/// a = -2 while lanes 1..3 hold 1, 4, 7. The scalar code's `zext nneg` and
/// `getelementptr inbounds` are fine for those lanes, but copied onto lane
/// 0's value they made every lane's address poison (in practice 2^32 - 2
/// elements off: a SIGSEGV).
#[test]
fn strided_lane0_copies_drop_flags_an_inactive_lane_0_would_break() {
    let mut func = Function::new("addr", vec![Type::I32, Type::PTR], Type::I64);
    let (a, p) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let nneg = CastFlags { nneg: true, ..CastFlags::default() };
    let widened = b.ins_value(
        InstData::Cast { op: CastOp::ZExt, arg: a, to: Type::I64, flags: nneg },
        Type::I64,
    );
    let address = b.ins_value(
        InstData::Gep { source_ty: Type::I32, base: p, indices: vec![widened], inbounds: true },
        Type::PTR,
    );
    let as_int = b.cast(CastOp::PtrToInt, address, Type::I64);
    b.ret(Some(as_int));
    let config = config(4, Isa::Sse, &[ParamKind::Linear { step: 3 }, UNIFORM]);
    let info = ShapeInfo::compute(&func, &DataLayout::default(), &config.params).unwrap();
    assert_eq!(info.shape(address).shape, Shape::Strided(12));
    let vector = widen(&func, &info, &config);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Gep { inbounds: true, .. })), 0);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Cast { op: CastOp::ZExt, .. })), 0);
    assert_eq!(count(&vector, |data| matches!(data, InstData::Cast { op: CastOp::SExt, .. })), 1);

    let mut interpreter =
        Interpreter::new(Memory::new(MEMORY_BASE, 16), |name: &str, _: &[Val]| {
            Err(InterpError(name.to_owned()))
        });
    let args = vec![Val::int(32, (-2i32 as u32).into()), Val::Ptr(MEMORY_BASE)];
    let Some(Val::Vector(result)) = interpreter.run(&vector, &args).unwrap() else { panic!() };
    for (lane, a) in [(1, 1u64), (2, 4), (3, 7)] {
        let expected = Val::int(64, (MEMORY_BASE + 4 * a).into());
        assert!(result[lane].same_as(&expected), "lane {lane}: {:?}", result[lane]);
    }
}

/// A group function (an OpenCL work-group barrier) runs once for all lanes;
/// any other function with side effects runs once per lane.
#[test]
fn group_functions_run_once_for_all_lanes() {
    let mut func = Function::new("sync", vec![Type::I32], Type::Void);
    let flags = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    b.call(Callee::Direct("barrier".into()), vec![flags], Type::Void, CallEffects::SideEffects);
    b.ret(None);
    let mut config = config(8, Isa::Avx2, &[UNIFORM]);
    let info = ShapeInfo::compute(&func, &DataLayout::default(), &config.params).unwrap();
    let per_lane = widen(&func, &info, &config);
    assert_eq!(callees(&per_lane), vec!["barrier"; 8]);
    config.group_functions = vec!["barrier".into()];
    let once = widen(&func, &info, &config);
    assert_eq!(callees(&once), vec!["barrier"]);

    let mut varying = config.clone();
    varying.params = vec![spec(VECTOR)];
    let info = ShapeInfo::compute(&func, &DataLayout::default(), &varying.params).unwrap();
    let error = error_of(&func, &info, &varying);
    assert!(error.to_string().contains("must be the same in every lane"), "{error}");
}

#[test]
fn spmd_builtins_combine_lanes() {
    let mut func = Function::new("spmd", vec![Type::I32], Type::I32);
    let x = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let lane = b.call(Callee::Direct("rv_lane_id".into()), vec![], Type::I32, CallEffects::Pure);
    let lane = b.func.dfg.result(lane).unwrap();
    let ten = b.iconst(Type::I32, 10);
    let big = b.icmp(IntPredicate::Ugt, x, ten);
    let ballot =
        b.call(Callee::Direct("rv_ballot".into()), vec![big], Type::I32, CallEffects::Pure);
    let ballot = b.func.dfg.result(ballot).unwrap();
    let sum = b.binary(BinaryOp::Add, lane, ballot);
    b.ret(Some(sum));
    let config = config(8, Isa::Avx2, &[VECTOR]);
    let info = ShapeInfo::compute(&func, &DataLayout::default(), &config.params).unwrap();
    let vector = widen(&func, &info, &config);
    assert!(callees(&vector).is_empty(), "{:?}", callees(&vector));
    // Run it: lane i returns i + ballot of (x > 10).
    let xs: Vec<u128> = vec![0, 11, 3, 40, 10, 12, 1, 100];
    let mut interpreter =
        Interpreter::new(Memory::new(MEMORY_BASE, 16), |name: &str, _: &[Val]| {
            Err(InterpError(name.to_owned()))
        });
    let args = vec![Val::Vector(xs.iter().map(|x| Val::int(32, *x)).collect())];
    let Some(Val::Vector(result)) = interpreter.run(&vector, &args).unwrap() else { panic!() };
    let ballot = 0b1010_1010u128;
    for (lane, value) in result.iter().enumerate() {
        assert!(value.same_as(&Val::int(32, lane as u128 + ballot)), "lane {lane}: {value:?}");
    }
}

// ----- Errors -----

fn error_of(func: &Function, info: &ShapeInfo, config: &WidenConfig) -> WidenError {
    widen_function(func, info, &DataLayout::default(), config).expect_err("widening must fail")
}

#[test]
fn varying_branches_are_reported_with_their_location() {
    let mut func = Function::new("divergent", vec![Type::I32], Type::I32);
    let x = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let other = b.create_block(Some("other"));
    b.switch_to_block(entry);
    let zero = b.iconst(Type::I32, 0);
    let negative = b.icmp(IntPredicate::Slt, x, zero);
    b.func.dfg.value_names[negative] = Some("negative".into());
    b.branch(negative, other, other);
    b.switch_to_block(other);
    b.ret(Some(x));
    let info = shapes(&func, &[(x, Shape::Varying), (negative, Shape::Varying)]);
    let error = error_of(&func, &info, &config(4, Isa::Sse, &[VECTOR]));
    let WidenError::Unsupported { function, block, inst, message } = &error else {
        panic!("{error}")
    };
    assert_eq!((function.as_str(), block.as_str(), inst.as_str()), ("divergent", "entry", "br"));
    assert!(message.contains("varying branch"), "{message}");
}

#[test]
fn varying_aggregates_run_once_per_lane_and_bad_shapes_are_unsupported() {
    let pair = Type::Struct { fields: vec![Type::I32, Type::I32], packed: false };
    let mut func = Function::new("aggregate", vec![Type::I32], Type::I32);
    let x = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let zero = b.func.dfg.make_const(pair.clone(), Constant::Zero);
    let built =
        b.ins_value(InstData::InsertValue { aggregate: zero, value: x, indices: vec![0] }, pair);
    b.func.dfg.value_names[built] = Some("built".into());
    let field =
        b.ins_value(InstData::ExtractValue { aggregate: built, indices: vec![0] }, Type::I32);
    b.ret(Some(field));
    let config_4 = config(4, Isa::Sse, &[VECTOR]);
    let info = ShapeInfo::compute(&func, &DataLayout::default(), &config_4.params).unwrap();
    let vector = widen(&func, &info, &config_4);
    let count =
        |opcode: &str| insts(&vector).iter().filter(|data| data.opcode_name() == opcode).count();
    // A struct has no vector form: one insertvalue and one extractvalue per lane.
    assert_eq!((count("insertvalue"), count("extractvalue")), (4, 4));
    check_differential(&func, &vector, &config_4, &[any_int], 50);

    // A float marked strided is not trusted.
    let mut func = Function::new("strided_float", vec![Type::F32], Type::F32);
    let y = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let doubled = b.binary(BinaryOp::FAdd, y, y);
    b.ret(Some(doubled));
    let info = shapes(&func, &[(doubled, Shape::Strided(4))]);
    let error = error_of(&func, &info, &config(4, Isa::Sse, &[UNIFORM]));
    assert!(error.to_string().contains("strided"), "{error}");

    // Parameter count mismatch.
    let error = error_of(&func, &info, &config(4, Isa::Sse, &[]));
    assert!(matches!(error, WidenError::BadConfig { .. }), "{error}");
}

// ----- Random functions -----

mod random {
    use proptest::prelude::*;

    use super::*;

    /// One step of a random straight-line function: an operation on two
    /// earlier values (chosen modulo the pool size).
    #[derive(Clone, Debug)]
    struct Step {
        op: u8,
        lhs: usize,
        rhs: usize,
    }

    fn param_kind() -> impl Strategy<Value = ParamKind> {
        prop_oneof![
            Just(ParamKind::Vector),
            Just(ParamKind::Uniform),
            (-3i64..=3).prop_map(|step| ParamKind::Linear { step }),
        ]
    }

    /// `f(ptr a, i32 p1, i32 p2, i32 p3)`: integer operations, selects,
    /// loads `a[v & 255]`, and at most one store to `a[512 + (v & 255)]`
    /// (one store: lanes that collide must not depend on the order of two
    /// different stores, which WFV changes on purpose).
    fn build(steps: &[Step], store: Option<(usize, usize)>) -> Function {
        let mut func =
            Function::new("random", vec![Type::PTR, Type::I32, Type::I32, Type::I32], Type::I32);
        let a = func.param_value(0);
        let mut pool: Vec<Value> = (1..4).map(|index| func.param_value(index)).collect();
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        b.switch_to_block(entry);
        let mask255 = b.iconst(Type::I32, 255);
        let mask31 = b.iconst(Type::I32, 31);
        let seven = b.iconst(Type::I32, 7);
        pool.push(seven);
        for step in steps {
            let lhs = pool[step.lhs % pool.len()];
            let rhs = pool[step.rhs % pool.len()];
            let value = match step.op % 12 {
                0 => b.binary(BinaryOp::Add, lhs, rhs),
                1 => b.binary(BinaryOp::Sub, lhs, rhs),
                2 => b.binary(BinaryOp::Mul, lhs, rhs),
                3 => b.binary(BinaryOp::And, lhs, rhs),
                4 => b.binary(BinaryOp::Or, lhs, rhs),
                5 => b.binary(BinaryOp::Xor, lhs, rhs),
                6 => {
                    let amount = b.binary(BinaryOp::And, rhs, mask31);
                    b.binary(BinaryOp::Shl, lhs, amount)
                }
                7 => b.binary(BinaryOp::Mul, lhs, seven),
                8 => {
                    let less = b.icmp(IntPredicate::Slt, lhs, rhs);
                    b.select(less, lhs, rhs)
                }
                9 => {
                    let index = b.binary(BinaryOp::And, lhs, mask255);
                    let address = b.gep(Type::I32, a, vec![index]);
                    b.load(Type::I32, address, 4)
                }
                10 => {
                    let wide = b.cast(CastOp::SExt, lhs, Type::I64);
                    let address = b.gep(Type::I8, a, vec![wide]);
                    let as_int = b.cast(CastOp::PtrToInt, address, Type::I64);
                    b.cast(CastOp::Trunc, as_int, Type::I32)
                }
                _ => {
                    let is_equal = b.icmp(IntPredicate::Eq, lhs, rhs);
                    b.cast(CastOp::ZExt, is_equal, Type::I32)
                }
            };
            pool.push(value);
        }
        if let Some((value, index)) = store {
            let (value, index) = (pool[value % pool.len()], pool[index % pool.len()]);
            let masked = b.binary(BinaryOp::And, index, mask255);
            let offset = b.iconst(Type::I32, 512);
            let slot = b.binary(BinaryOp::Add, masked, offset);
            let address = b.gep(Type::I32, a, vec![slot]);
            b.store(value, address, 4);
        }
        let result = *pool.last().expect("non-empty pool");
        b.ret(Some(result));
        func
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        #[test]
        fn widened_random_functions_agree_with_the_scalar_lanes(
            steps in prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>())
                .prop_map(|(op, lhs, rhs)| Step { op, lhs, rhs }), 1..14),
            store in prop::option::of((any::<usize>(), any::<usize>())),
            kinds in prop::collection::vec(param_kind(), 3),
            target in 0usize..4,
        ) {
            let scalar = build(&steps, store);
            let (isa, width) = [(Isa::Sse, 4), (Isa::Avx2, 8), (Isa::Avx512, 16), (Isa::Sse, 2)][target];
            let config = config(width, isa, &[UNIFORM, kinds[0], kinds[1], kinds[2]]);
            let info = ShapeInfo::compute(&scalar, &DataLayout::default(), &config.params).unwrap();
            let vector = widen(&scalar, &info, &config);
            check_differential(&scalar, &vector, &config, &[memory_base, any_int, any_int, any_int], 8);
        }
    }
}

#[test]
fn i32_division_takes_the_float_path_when_exact_and_agrees_with_the_scalar_lanes() {
    for signed in [true, false] {
        let scalar = division_kernel(signed);
        let config = config(8, Isa::Avx2, &[VECTOR, VECTOR, VECTOR]);
        let info = ShapeInfo::compute(&scalar, &DataLayout::default(), &config.params).unwrap();
        let vector = widen(&scalar, &info, &config);
        // Both divisions get a float fast path behind a magnitude test.
        let float_divisions =
            count(&vector, |data| matches!(data, InstData::Binary { op: BinaryOp::FDiv, .. }));
        assert_eq!(float_divisions, 2, "{vector}");
        let args: [ArgGen; 3] = [quotient_magnitude, any_magnitude, small_offset];
        check_differential(&scalar, &vector, &config, &args, 3000);
    }
}

#[test]
fn i64_division_by_a_constant_multiplies_by_its_reciprocal_and_agrees_with_the_scalar_lanes() {
    // 49 * (1.0 / 49) < 1: the rounded-to-nearest reciprocal of 49, -103 or
    // 107 would get 1 / 1 wrong.
    let cases = [(true, 1_000_003), (true, -7), (true, 3), (true, 49), (true, -103)];
    let cases = cases.into_iter().chain([(false, 1_000_003), (false, 10), (false, 107)]);
    for (signed, divisor) in cases {
        let scalar = constant_division_kernel(signed, divisor);
        let config = config(8, Isa::Avx512, &[VECTOR, VECTOR]);
        let info = ShapeInfo::compute(&scalar, &DataLayout::default(), &config.params).unwrap();
        let vector = widen(&scalar, &info, &config);
        let is = |wanted: BinaryOp| move |data: &InstData| matches!(data, InstData::Binary { op, .. } if *op == wanted);
        assert_eq!(count(&vector, is(BinaryOp::FDiv)), 0, "{vector}");
        assert_eq!(count(&vector, is(BinaryOp::FMul)), 2, "{vector}");
        // Small dividends take the fast path, large ones the exact one.
        check_differential(&scalar, &vector, &config, &[small_count64, small_offset64], 2000);
        check_differential(&scalar, &vector, &config, &[multiple_count64, small_offset64], 1000);
    }
}

/// The proof of the reciprocal path (widen/division.rs) checked on the
/// dividends where a rounded quotient goes wrong first: next to multiples
/// of the divisor and next to the 2^50 limit, for divisors of every size.
#[test]
fn reciprocal_quotients_are_exact_below_two_to_the_fifty() {
    const LIMIT: u64 = 1 << 50;
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut divisors = vec![3, 5, 7, 10, 1_000_003, (1 << 20) + 1, (1 << 32) - 1, (1 << 49) - 1];
    divisors.extend([(1 << 50) + 3, (1 << 53) + 1, (1 << 62) - 1, u64::MAX, i64::MAX as u64]);
    divisors.extend((0..200).map(|_| (rng.next() >> rng.below(62)) | 3));
    let mut naive_errors = 0;
    for divisor in divisors {
        if divisor.is_power_of_two() {
            continue;
        }
        let reciprocal = super::division::reciprocal_rounded_up(divisor).expect("a reciprocal");
        let naive = 1.0 / divisor as f64;
        let largest_multiple = (LIMIT - 1) / divisor;
        let mut dividends = vec![0, 1, LIMIT - 1, LIMIT - 2, LIMIT - divisor.min(LIMIT)];
        for _ in 0..300 {
            let multiple = rng.below(largest_multiple + 1);
            let base = multiple.saturating_mul(divisor);
            for offset in [0, 1, divisor - 1] {
                dividends.push(base.saturating_add(offset));
                dividends.push(base.saturating_sub(offset));
            }
            dividends.push(rng.below(LIMIT));
        }
        for dividend in dividends.into_iter().filter(|&dividend| dividend < LIMIT) {
            let quotient = (dividend as f64 * reciprocal) as u64;
            assert_eq!(quotient, dividend / divisor, "{dividend} / {divisor}");
            naive_errors += usize::from((dividend as f64 * naive) as u64 != dividend / divisor);
        }
    }
    // The dividends find the errors of the plain rounded reciprocal.
    assert!(naive_errors > 0);
}

mod atomics;
mod dynamic;
mod gather_forms;
mod gather_pairs;
mod masked;
mod page_safe_loads;
mod short_vectors;
