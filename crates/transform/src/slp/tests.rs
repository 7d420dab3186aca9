//! Tests of the basic-block vectorizer: the shape of what it makes on small
//! kernels, and differential execution of random straight-line blocks (the
//! original against the vectorized function, in the reference interpreter,
//! with the two pointer parameters overlapping so that every dependence the
//! pass must respect is exercised).

use lanewise_ir::vfabi::Isa;
use lanewise_ir::*;

use super::*;
use crate::interp::{Interpreter, Memory, Val};
use crate::test_support::Rng;

const MEMORY_BASE: u64 = 0x1000;
const MEMORY_SIZE: usize = 1024;

fn config(algorithm: SlpAlgorithm, isa: Isa) -> SlpConfig {
    SlpConfig { algorithm, ..SlpConfig::for_isa(isa) }
}

fn vector_ops(func: &Function, lanes: u32) -> usize {
    func.layout
        .insts()
        .filter(|inst| {
            let ty = match func.dfg.inst(*inst) {
                InstData::Store { value, .. } => func.dfg.value_type(*value).clone(),
                _ => func.dfg.result(*inst).map_or(Type::Void, |v| func.dfg.value_type(v).clone()),
            };
            ty.lanes() == Some(lanes)
        })
        .count()
}

/// `out[k] = a[k] * b[k] + c[k]` for k < n, one block.
fn multiply_add(n: i128, ty: Type) -> Function {
    let mut func = Function::new("madd", vec![Type::PTR; 4], Type::Void);
    let mut builder = FunctionBuilder::new(&mut func);
    let entry = builder.create_block(Some("entry"));
    builder.switch_to_block(entry);
    let params: Vec<Value> = (0..4).map(|index| builder.func.param_value(index)).collect();
    let (float, op_mul, op_add) = if ty.is_float() {
        (true, BinaryOp::FMul, BinaryOp::FAdd)
    } else {
        (false, BinaryOp::Mul, BinaryOp::Add)
    };
    let _ = float;
    for k in 0..n {
        let index = builder.iconst(Type::Int(64), k);
        let mut loaded = Vec::new();
        for param in &params[..3] {
            let addr = builder.gep(ty.clone(), *param, vec![index]);
            loaded.push(builder.load(ty.clone(), addr, 4));
        }
        let product = builder.binary(op_mul, loaded[0], loaded[1]);
        let sum = builder.binary(op_add, product, loaded[2]);
        let addr = builder.gep(ty.clone(), params[3], vec![index]);
        builder.store(sum, addr, 4);
    }
    builder.ret(None);
    // C's `restrict` on every pointer.
    func.noalias_params = (0..4).collect();
    func
}

/// Runs `func` on memory filled with a pattern; the memory afterwards.
fn run(func: &Function, args: &[Val]) -> Vec<u8> {
    let mut memory = Memory::new(MEMORY_BASE, MEMORY_SIZE);
    for (index, byte) in memory.bytes.iter_mut().enumerate() {
        *byte = (index as u8).wrapping_mul(37).wrapping_add(11) & 0x3f;
    }
    let mut interpreter =
        Interpreter::new(memory, |name: &str, _: &[Val]| panic!("unexpected call of {name}"));
    interpreter.run(func, args).unwrap_or_else(|error| panic!("{error:?}\n{func}"));
    interpreter.memory.bytes
}

fn vectorized(func: &Function, config: &SlpConfig) -> (Function, SlpSummary) {
    let mut copy = func.clone();
    let summary = vectorize_basic_blocks(&mut copy, &DataLayout::default(), config);
    verify_function(&copy).unwrap_or_else(|errors| panic!("{errors}\n{copy}"));
    (copy, summary)
}

fn pointers(offsets: &[u64]) -> Vec<Val> {
    offsets.iter().map(|offset| Val::Ptr(MEMORY_BASE + offset)).collect()
}

#[test]
fn four_float_lanes_fuse_in_two_rounds_on_avx() {
    let func = multiply_add(4, Type::F32);
    let (slp, summary) = vectorized(&func, &config(SlpAlgorithm::Tree, Isa::Avx2));
    assert_eq!(summary.widest_lanes, 4, "{slp}");
    // Three loads, a multiply, an add and a store of <4 x float>.
    assert_eq!(vector_ops(&slp, 4), 6, "{slp}");
    let args = pointers(&[0, 64, 128, 256]);
    assert_eq!(run(&func, &args), run(&slp, &args));
}

#[test]
fn eight_floats_stop_at_the_sse_register_width() {
    let func = multiply_add(8, Type::F32);
    let (slp, summary) = vectorized(&func, &config(SlpAlgorithm::Tree, Isa::Sse));
    assert_eq!(summary.widest_lanes, 4, "{slp}");
    assert_eq!(vector_ops(&slp, 4), 12, "{slp}");
    assert_eq!(vector_ops(&slp, 8), 0, "{slp}");
    let args = pointers(&[0, 64, 128, 256]);
    assert_eq!(run(&func, &args), run(&slp, &args));
}

#[test]
fn the_pair_vectorizer_fuses_the_same_kernel() {
    let func = multiply_add(4, Type::Int(32));
    let (slp, summary) = vectorized(&func, &config(SlpAlgorithm::Pair, Isa::Avx2));
    assert_eq!(summary.widest_lanes, 4, "{slp}");
    let args = pointers(&[0, 64, 128, 256]);
    assert_eq!(run(&func, &args), run(&slp, &args));
}

#[test]
fn loads_used_only_one_by_one_stay_scalar() {
    // x = a[0] + 1; y = a[1] * 3; stored far apart: fusing the loads would
    // need two extracts for one instruction saved.
    let mut func = Function::new("apart", vec![Type::PTR, Type::PTR], Type::Void);
    let mut builder = FunctionBuilder::new(&mut func);
    let entry = builder.create_block(Some("entry"));
    builder.switch_to_block(entry);
    let (a, out) = (builder.func.param_value(0), builder.func.param_value(1));
    let zero = builder.iconst(Type::Int(64), 0);
    let one = builder.iconst(Type::Int(64), 1);
    let five = builder.iconst(Type::Int(64), 5);
    let first_addr = builder.gep(Type::Int(32), a, vec![zero]);
    let second_addr = builder.gep(Type::Int(32), a, vec![one]);
    let first = builder.load(Type::Int(32), first_addr, 4);
    let second = builder.load(Type::Int(32), second_addr, 4);
    let c1 = builder.iconst(Type::Int(32), 1);
    let c3 = builder.iconst(Type::Int(32), 3);
    let x = builder.binary(BinaryOp::Add, first, c1);
    let y = builder.binary(BinaryOp::Mul, second, c3);
    let x_addr = builder.gep(Type::Int(32), out, vec![zero]);
    let y_addr = builder.gep(Type::Int(32), out, vec![five]);
    builder.store(x, x_addr, 4);
    builder.store(y, y_addr, 4);
    builder.ret(None);
    let (slp, summary) = vectorized(&func, &config(SlpAlgorithm::Tree, Isa::Avx2));
    assert!(!summary.changed(), "{slp}");
}

#[test]
fn a_store_between_two_loads_it_overwrites_keeps_them_apart() {
    // t = a[0]; a[1] = 7; u = a[1]; b[0] = t; b[1] = u: the loads of a[0]
    // and a[1] must not become one load before the store.
    let mut func = Function::new("overwrite", vec![Type::PTR, Type::PTR], Type::Void);
    let mut builder = FunctionBuilder::new(&mut func);
    let entry = builder.create_block(Some("entry"));
    builder.switch_to_block(entry);
    let (a, b) = (builder.func.param_value(0), builder.func.param_value(1));
    let zero = builder.iconst(Type::Int(64), 0);
    let one = builder.iconst(Type::Int(64), 1);
    let a0 = builder.gep(Type::Int(32), a, vec![zero]);
    let a1 = builder.gep(Type::Int(32), a, vec![one]);
    let b0 = builder.gep(Type::Int(32), b, vec![zero]);
    let b1 = builder.gep(Type::Int(32), b, vec![one]);
    let t = builder.load(Type::Int(32), a0, 4);
    let seven = builder.iconst(Type::Int(32), 7);
    builder.store(seven, a1, 4);
    let u = builder.load(Type::Int(32), a1, 4);
    builder.store(t, b0, 4);
    builder.store(u, b1, 4);
    builder.ret(None);
    let (slp, _) = vectorized(&func, &config(SlpAlgorithm::Tree, Isa::Avx2));
    // b may alias a: the stores to b stay after the store to a; a[1] is 7.
    for args in [pointers(&[0, 64]), pointers(&[0, 4]), pointers(&[4, 0])] {
        assert_eq!(run(&func, &args), run(&slp, &args), "{slp}");
    }
}

/// A random straight-line block over two pointer parameters: groups of
/// isomorphic lanes (`p[o + k] = f(q[i + k], p[j + k])` for k < width, the
/// same expression shape in every lane, now and then one lane different),
/// interleaved with stray loads and stores. Integers or floats.
fn random_block(rng: &mut Rng) -> Function {
    let ty = match rng.below(4) {
        0 => Type::F64,
        1 => Type::Int(32),
        2 => Type::Int(16),
        _ => Type::F32,
    };
    let float = ty.is_float();
    let mut func = Function::new("random", vec![Type::PTR, Type::PTR], Type::Void);
    let mut builder = FunctionBuilder::new(&mut func);
    let entry = builder.create_block(Some("entry"));
    builder.switch_to_block(entry);
    let bases = [builder.func.param_value(0), builder.func.param_value(1)];
    let ops: &[BinaryOp] = if float {
        &[BinaryOp::FAdd, BinaryOp::FSub, BinaryOp::FMul, BinaryOp::FDiv]
    } else {
        &[BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Xor, BinaryOp::Shl]
    };
    let slots = 24u64;
    let groups = 1 + rng.below(4);
    for _ in 0..groups {
        let width = [2, 4, 8][rng.below(3) as usize];
        let target = bases[rng.below(2) as usize];
        let out = rng.below(slots - width);
        let sources: Vec<(Value, u64)> =
            (0..2).map(|_| (bases[rng.below(2) as usize], rng.below(slots - width))).collect();
        let shape: Vec<u64> = (0..3).map(|_| rng.below(ops.len() as u64)).collect();
        let constant = rng.below(5) as i128 + 1;
        let odd_lane = (rng.below(4) == 0).then(|| rng.below(width));
        // The last step of every lane: none, a select on a comparison, a
        // cast there and back, or an elementwise intrinsic.
        let finish = rng.below(4);
        // The second source read in swapped lane order (a shuffle).
        let swap_second = rng.below(3) == 0;
        for lane in 0..width {
            let mut loaded = Vec::new();
            for (source, (base, start)) in sources.iter().enumerate() {
                let element = if swap_second && source == 1 { lane ^ 1 } else { lane };
                let index = builder.iconst(Type::Int(64), (start + element) as i128);
                let addr = builder.gep(ty.clone(), *base, vec![index]);
                loaded.push(builder.load(ty.clone(), addr, 1));
            }
            let c = if float {
                builder.f64const(constant as f64)
            } else {
                builder.iconst(ty.clone(), constant)
            };
            let c = if ty == Type::F32 { builder.cast(CastOp::FPTrunc, c, Type::F32) } else { c };
            let pick = |k: usize| {
                let op = ops[shape[k] as usize];
                if Some(lane) == odd_lane && k == 1 {
                    ops[(shape[k] as usize + 1) % ops.len()]
                } else {
                    op
                }
            };
            let shift_safe = |builder: &mut FunctionBuilder, op: BinaryOp, value: Value| {
                if op == BinaryOp::Shl {
                    let mask = builder.iconst(ty.clone(), 7);
                    builder.binary(BinaryOp::And, value, mask)
                } else {
                    value
                }
            };
            let op0 = pick(0);
            let rhs0 = shift_safe(&mut builder, op0, loaded[1]);
            let first = builder.binary(op0, loaded[0], rhs0);
            let op1 = pick(1);
            let rhs1 = shift_safe(&mut builder, op1, c);
            let second = builder.binary(op1, first, rhs1);
            let op2 = pick(2);
            let rhs2 = shift_safe(&mut builder, op2, loaded[0]);
            let third = builder.binary(op2, second, rhs2);
            let result = finish_lane(&mut builder, finish, &ty, third, loaded[1]);
            let index = builder.iconst(Type::Int(64), (out + lane) as i128);
            let addr = builder.gep(ty.clone(), target, vec![index]);
            builder.store(result, addr, 1);
            if rng.below(6) == 0 {
                // A stray store in the middle of the group.
                let index = builder.iconst(Type::Int(64), rng.below(slots) as i128);
                let addr = builder.gep(ty.clone(), bases[rng.below(2) as usize], vec![index]);
                builder.store(loaded[1], addr, 1);
            }
        }
    }
    builder.ret(None);
    func
}

/// The last step of a lane of [`random_block`]: `kind` 0 nothing, 1 a
/// select on a comparison with `other`, 2 a cast to another type and back,
/// 3 an elementwise intrinsic (`fabs`/`sqrt`, `smax`/`umin`).
fn finish_lane(
    builder: &mut FunctionBuilder,
    kind: u64,
    ty: &Type,
    value: Value,
    other: Value,
) -> Value {
    let float = ty.is_float();
    match kind {
        1 => {
            let condition = if float {
                builder.fcmp(FloatPredicate::Olt, value, other)
            } else {
                builder.icmp(IntPredicate::Sgt, value, other)
            };
            builder.select(condition, other, value)
        }
        2 => match ty {
            Type::F32 => {
                let wide = builder.cast(CastOp::FPExt, value, Type::F64);
                let half = builder.f64const(0.5);
                let halved = builder.binary(BinaryOp::FMul, wide, half);
                builder.cast(CastOp::FPTrunc, halved, Type::F32)
            }
            Type::F64 => {
                let narrow = builder.cast(CastOp::FPTrunc, value, Type::F32);
                builder.cast(CastOp::FPExt, narrow, Type::F64)
            }
            _ => {
                let wide = builder.cast(CastOp::SExt, value, Type::Int(64));
                let shifted = {
                    let three = builder.iconst(Type::Int(64), 3);
                    builder.binary(BinaryOp::Mul, wide, three)
                };
                builder.cast(CastOp::Trunc, shifted, ty.clone())
            }
        },
        3 => {
            let suffix = match ty {
                Type::F32 => "f32",
                Type::F64 => "f64",
                Type::Int(bits) => {
                    if *bits == 16 {
                        "i16"
                    } else {
                        "i32"
                    }
                }
                _ => unreachable!("random blocks use f32, f64, i16, i32"),
            };
            let (name, args) = if float {
                (format!("llvm.fabs.{suffix}"), vec![value])
            } else {
                (format!("llvm.smax.{suffix}"), vec![value, other])
            };
            let call = builder.call(Callee::Direct(name), args, ty.clone(), CallEffects::Pure);
            builder.func.dfg.result(call).expect("the intrinsic has a result")
        }
        _ => value,
    }
}

#[test]
fn random_blocks_compute_what_they_computed() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut fused = [0, 0];
    // Vector selects, casts, intrinsic calls and comparisons made.
    let mut fused_kinds = [0; 4];
    let cases = 1000;
    for case in 0..cases {
        let mut func = random_block(&mut rng);
        let restrict = case % 2 == 1;
        if restrict {
            func.noalias_params = (0..2).collect();
        }
        let isa = [Isa::Sse, Isa::Avx, Isa::Avx2, Isa::Avx512][case % 4];
        let algorithm = if case % 3 == 0 { SlpAlgorithm::Pair } else { SlpAlgorithm::Tree };
        let (slp, summary) = vectorized(&func, &config(algorithm, isa));
        if summary.changed() {
            fused[usize::from(restrict)] += 1;
        }
        for inst in slp.layout.insts() {
            let vector = slp.dfg.result(inst).is_some_and(|v| slp.dfg.value_type(v).is_vector());
            match slp.dfg.inst(inst) {
                InstData::Select { .. } if vector => fused_kinds[0] += 1,
                InstData::Cast { .. } if vector => fused_kinds[1] += 1,
                InstData::Call { .. } if vector => fused_kinds[2] += 1,
                InstData::Fcmp { .. } | InstData::Icmp { .. } if vector => fused_kinds[3] += 1,
                _ => {}
            }
        }
        // q overlapping p at several distances, and apart.
        let overlaps: &[[u64; 2]] = if restrict { &[] } else { &[[0, 0], [0, 8], [16, 0], [0, 4]] };
        for offsets in std::iter::once(&[0u64, 512]).chain(overlaps) {
            let args = pointers(offsets);
            assert_eq!(
                run(&func, &args),
                run(&slp, &args),
                "case {case}, {offsets:?}\n{func}\n{slp}"
            );
        }
    }
    // Without `restrict` most groups read one pointer after storing through
    // the other, which may be the same memory: few can be fused.
    let [plain, restricted] = fused;
    assert!(
        restricted * 10 > cases / 2 * 8,
        "only {restricted} of {} random blocks with restrict pointers were vectorized",
        cases / 2
    );
    assert!(plain > 0, "no random block without restrict pointers was vectorized");
    assert!(
        fused_kinds.iter().all(|count| *count > 0),
        "fused selects, casts, calls, compares: {fused_kinds:?}"
    );
}

#[test]
fn complex_products_fuse_with_an_alternating_blend_and_a_reversed_pair() {
    // out = a * b for two complex floats: re = ar*br - ai*bi, im = ar*bi + ai*br.
    let mut func = Function::new("cmul", vec![Type::PTR; 3], Type::Void);
    let mut builder = FunctionBuilder::new(&mut func);
    let entry = builder.create_block(Some("entry"));
    builder.switch_to_block(entry);
    let [a, b, out] = [0, 1, 2].map(|index| builder.func.param_value(index));
    for k in 0..2i128 {
        let element = |builder: &mut FunctionBuilder, base: Value, offset: i128| {
            let index = builder.iconst(Type::Int(64), 2 * k + offset);
            builder.gep(Type::F32, base, vec![index])
        };
        let [ar_addr, ai_addr] = [0, 1].map(|offset| element(&mut builder, a, offset));
        let [br_addr, bi_addr] = [0, 1].map(|offset| element(&mut builder, b, offset));
        let ar = builder.load(Type::F32, ar_addr, 4);
        let ai = builder.load(Type::F32, ai_addr, 4);
        let br = builder.load(Type::F32, br_addr, 4);
        let bi = builder.load(Type::F32, bi_addr, 4);
        let rr = builder.binary(BinaryOp::FMul, ar, br);
        let ii = builder.binary(BinaryOp::FMul, ai, bi);
        let re = builder.binary(BinaryOp::FSub, rr, ii);
        let ri = builder.binary(BinaryOp::FMul, ar, bi);
        let ir = builder.binary(BinaryOp::FMul, ai, br);
        let im = builder.binary(BinaryOp::FAdd, ir, ri);
        let [re_addr, im_addr] = [0, 1].map(|offset| element(&mut builder, out, offset));
        builder.store(re, re_addr, 4);
        builder.store(im, im_addr, 4);
    }
    builder.ret(None);
    func.noalias_params = (0..3).collect();
    let (slp, summary) = vectorized(&func, &config(SlpAlgorithm::Tree, Isa::Avx2));
    assert_eq!(summary.widest_lanes, 4, "{slp}");
    let vector_binary = |wanted: BinaryOp| {
        slp.layout.insts().any(|inst| {
            matches!(slp.dfg.inst(inst), InstData::Binary { op, .. } if *op == wanted)
                && slp.dfg.result(inst).is_some_and(|v| slp.dfg.value_type(v).lanes() == Some(4))
        })
    };
    assert!(vector_binary(BinaryOp::FSub) && vector_binary(BinaryOp::FAdd), "{slp}");
    // (ar, ar, ar', ar') and (ai, ai, ai', ai'): shuffles of one load of `a`.
    assert_eq!(summary.window_loads, 2, "{slp}");
    // Both stores became one.
    assert_eq!(
        slp.layout
            .insts()
            .filter(|inst| matches!(slp.dfg.inst(*inst), InstData::Store { .. }))
            .count(),
        1,
        "{slp}"
    );
    let args = pointers(&[0, 64, 128]);
    assert_eq!(run(&func, &args), run(&slp, &args));
}

#[test]
fn a_window_is_loaded_only_where_the_block_reads_all_of_it() {
    // out[k] = p[2k] * q[k] for k < 4: the lanes p[0], p[2], p[4], p[6]
    // span 7 elements, of which the block reads 4: no wider load of `p`.
    let mut func = Function::new("strided", vec![Type::PTR; 3], Type::Void);
    let mut builder = FunctionBuilder::new(&mut func);
    let entry = builder.create_block(Some("entry"));
    builder.switch_to_block(entry);
    let [p, q, out] = [0, 1, 2].map(|index| builder.func.param_value(index));
    for k in 0..4i128 {
        let at = |builder: &mut FunctionBuilder, base: Value, index: i128| {
            let index = builder.iconst(Type::Int(64), index);
            builder.gep(Type::F32, base, vec![index])
        };
        let p_addr = at(&mut builder, p, 2 * k);
        let q_addr = at(&mut builder, q, k);
        let x = builder.load(Type::F32, p_addr, 4);
        let y = builder.load(Type::F32, q_addr, 4);
        let product = builder.binary(BinaryOp::FMul, x, y);
        let out_addr = at(&mut builder, out, k);
        builder.store(product, out_addr, 4);
    }
    builder.ret(None);
    func.noalias_params = (0..3).collect();
    let (slp, summary) = vectorized(&func, &config(SlpAlgorithm::Tree, Isa::Avx2));
    assert_eq!(summary.window_loads, 0, "{slp}");
    let widest_load = slp
        .layout
        .insts()
        .filter_map(|inst| match slp.dfg.inst(inst) {
            InstData::Load { ty, .. } => ty.lanes(),
            _ => None,
        })
        .max();
    assert!(widest_load <= Some(4), "{slp}");
    let args = pointers(&[0, 64, 128]);
    assert_eq!(run(&func, &args), run(&slp, &args));
}

#[test]
fn addresses_split_into_base_terms_and_offsets() {
    use super::memory::decompose;
    let mut func =
        Function::new("addresses", vec![Type::PTR, Type::Int(64), Type::Int(32)], Type::Void);
    let mut builder = FunctionBuilder::new(&mut func);
    let entry = builder.create_block(Some("entry"));
    builder.switch_to_block(entry);
    let (base, i, narrow) =
        (builder.func.param_value(0), builder.func.param_value(1), builder.func.param_value(2));
    let one = builder.iconst(Type::Int(64), 1);
    let i_plus_one = builder.binary(BinaryOp::Add, i, one);
    let at_i = builder.gep(Type::F32, base, vec![i]);
    let at_i_plus_one = builder.gep(Type::F32, base, vec![i_plus_one]);
    let three = builder.iconst(Type::Int(64), 3);
    let at_i_then_3 = builder.gep(Type::F32, at_i, vec![three]);
    let narrow_one = builder.iconst(Type::Int(32), 1);
    let narrow_plus_one = builder.binary(BinaryOp::Add, narrow, narrow_one);
    let at_narrow = builder.gep(Type::F32, base, vec![narrow]);
    let at_narrow_plus_one = builder.gep(Type::F32, base, vec![narrow_plus_one]);
    builder.ret(None);
    let layout = DataLayout::default();
    let address = |value| decompose(&func, value, &layout);
    assert_eq!(address(at_i).distance_to(&address(at_i_plus_one)), Some(4));
    assert_eq!(address(at_i).distance_to(&address(at_i_then_3)), Some(12));
    // An i32 index is sign-extended after its addition may have wrapped:
    // `narrow + 1` is another term, not `narrow` plus 4 bytes.
    assert_eq!(address(at_narrow).distance_to(&address(at_narrow_plus_one)), None);
}

#[test]
fn restrict_pointers_let_loads_pass_stores() {
    // b[0] = 1; x = a[0]; b[1] = 2; y = a[1]; out = 2x, 2y: with `noalias`
    // the loads of a are independent of the stores to b and fuse; without,
    // b may overlap a, and whatever is fused computes the same when it does.
    let build = |restrict: bool| {
        let mut func = Function::new("pass", vec![Type::PTR; 3], Type::Void);
        let mut builder = FunctionBuilder::new(&mut func);
        let entry = builder.create_block(Some("entry"));
        builder.switch_to_block(entry);
        let [a, b, out] = [0, 1, 2].map(|index| builder.func.param_value(index));
        let mut loaded = Vec::new();
        for k in 0..2i128 {
            let index = builder.iconst(Type::Int(64), k);
            let b_addr = builder.gep(Type::Int(32), b, vec![index]);
            let value = builder.iconst(Type::Int(32), k + 1);
            builder.store(value, b_addr, 4);
            let a_addr = builder.gep(Type::Int(32), a, vec![index]);
            let x = builder.load(Type::Int(32), a_addr, 4);
            let twice = builder.binary(BinaryOp::Add, x, x);
            loaded.push(twice);
        }
        for (k, value) in loaded.into_iter().enumerate() {
            let index = builder.iconst(Type::Int(64), k as i128);
            let out_addr = builder.gep(Type::Int(32), out, vec![index]);
            builder.store(value, out_addr, 4);
        }
        builder.ret(None);
        if restrict {
            func.noalias_params = (0..3).collect();
        }
        func
    };
    let config = config(SlpAlgorithm::Tree, Isa::Avx2);
    let (fused, summary) = vectorized(&build(true), &config);
    assert!(summary.changed(), "{fused}");
    assert_eq!(run(&build(true), &pointers(&[0, 64, 128])), run(&fused, &pointers(&[0, 64, 128])));
    let plain = build(false);
    let (kept, _) = vectorized(&plain, &config);
    for offsets in [[0u64, 4, 128], [4, 0, 128], [0, 64, 128]] {
        assert_eq!(run(&plain, &pointers(&offsets)), run(&kept, &pointers(&offsets)), "{kept}");
    }
}

/// A loop of one block carrying `lanes` accumulators of `ty`:
/// `acc[k] = acc[k] op a[lanes * i + k]` (lane `odd` uses another op), the
/// results stored after the loop.
fn accumulating_loop(ty: &Type, lanes: i128, odd: Option<i128>, trips: i128) -> Function {
    let mut func = Function::new("accumulate", vec![Type::PTR, Type::PTR], Type::Void);
    let mut builder = FunctionBuilder::new(&mut func);
    let entry = builder.create_block(Some("entry"));
    let body = builder.create_block(Some("body"));
    let exit = builder.create_block(Some("exit"));
    let (a, out) = (builder.func.param_value(0), builder.func.param_value(1));
    let (op, other) = if ty.is_float() {
        (BinaryOp::FAdd, BinaryOp::FMul)
    } else {
        (BinaryOp::Add, BinaryOp::Xor)
    };
    builder.switch_to_block(entry);
    let zero = builder.iconst(Type::Int(64), 0);
    let mut initial = Vec::new();
    for k in 0..lanes {
        let value = if ty.is_float() {
            let wide = builder.f64const(k as f64);
            if *ty == Type::F32 {
                builder.cast(CastOp::FPTrunc, wide, Type::F32)
            } else {
                wide
            }
        } else {
            builder.iconst(ty.clone(), k)
        };
        initial.push(value);
    }
    builder.jump(body);
    builder.switch_to_block(body);
    let i = builder.phi(Type::Int(64), vec![(entry, zero)]);
    let accs: Vec<Value> =
        initial.iter().map(|value| builder.phi(ty.clone(), vec![(entry, *value)])).collect();
    let width = builder.iconst(Type::Int(64), lanes);
    let row = builder.binary(BinaryOp::Mul, i, width);
    let mut next = Vec::new();
    for (k, acc) in accs.iter().enumerate() {
        let offset = builder.iconst(Type::Int(64), k as i128);
        let index = builder.binary(BinaryOp::Add, row, offset);
        let addr = builder.gep(ty.clone(), a, vec![index]);
        let x = builder.load(ty.clone(), addr, 1);
        let lane_op = if Some(k as i128) == odd { other } else { op };
        next.push(builder.binary(lane_op, *acc, x));
    }
    let one = builder.iconst(Type::Int(64), 1);
    let i_next = builder.binary(BinaryOp::Add, i, one);
    builder.add_phi_incoming(i, body, i_next);
    for (acc, value) in accs.iter().zip(&next) {
        builder.add_phi_incoming(*acc, body, *value);
    }
    let bound = builder.iconst(Type::Int(64), trips);
    let more = builder.icmp(IntPredicate::Slt, i_next, bound);
    builder.branch(more, body, exit);
    builder.switch_to_block(exit);
    for (k, value) in next.iter().enumerate() {
        let index = builder.iconst(Type::Int(64), k as i128);
        let addr = builder.gep(ty.clone(), out, vec![index]);
        builder.store(*value, addr, 1);
    }
    builder.ret(None);
    func.noalias_params = (0..2).collect();
    func
}

#[test]
fn loop_carried_values_travel_as_vectors() {
    let func = accumulating_loop(&Type::F32, 4, None, 5);
    let (slp, summary) = vectorized(&func, &config(SlpAlgorithm::Tree, Isa::Avx2));
    let vector_phis = slp
        .layout
        .insts()
        .filter(
            |inst| matches!(slp.dfg.inst(*inst), InstData::Phi { ty, .. } if ty.lanes() == Some(4)),
        )
        .count();
    assert_eq!(vector_phis, 1, "{slp}");
    assert!(summary.changed());
    let args = pointers(&[0, 512]);
    assert_eq!(run(&func, &args), run(&slp, &args));
}

#[test]
fn random_accumulating_loops_compute_what_they_computed() {
    let mut rng = Rng(0x5151_2026_1128_0001);
    let mut vectorized_loops = 0;
    for case in 0..200 {
        let ty =
            [Type::F32, Type::F64, Type::Int(32), Type::Int(16)][rng.below(4) as usize].clone();
        let lanes = [2, 3, 4, 8][rng.below(4) as usize];
        let odd = (rng.below(3) == 0).then(|| rng.below(lanes as u64) as i128);
        let trips = 1 + rng.below(6) as i128;
        let func = accumulating_loop(&ty, lanes, odd, trips);
        let isa = [Isa::Sse, Isa::Avx2, Isa::Avx512][case % 3];
        let (slp, summary) = vectorized(&func, &config(SlpAlgorithm::Tree, isa));
        if summary.changed() {
            vectorized_loops += 1;
        }
        let args = pointers(&[0, 512]);
        assert_eq!(run(&func, &args), run(&slp, &args), "case {case}\n{func}\n{slp}");
    }
    assert!(vectorized_loops > 100, "only {vectorized_loops} of 200 loops vectorized");
}
