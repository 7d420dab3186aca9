//! Tests of widening under block predicates and of masked variants: the
//! structure of the masked operations and guard chains, and differential
//! execution of a divergent function (run lane by lane, only in the active
//! lanes) against its hand-linearized form widened under predicates.

use super::*;
use crate::predicates::{add_entry_mask_param, BlockPredicates};
use crate::widen::masked::MaskAbi;

// ----- The divergent kernel and its hand-linearized form -----

/// Instructions of the `then` side: a masked contiguous load, a division by
/// `x - 10` (zero in some inactive lanes), a gather, a contiguous store, a
/// strided store and a side-effect call. Returns `s`.
fn emit_then_side(b: &mut FunctionBuilder, a: Value, i: Value, x: Value) -> Value {
    let p = b.gep(Type::I32, a, vec![i]);
    let v = b.load(Type::I32, p, 4);
    let ten = b.iconst(Type::I32, 10);
    let d = b.binary(BinaryOp::Sub, x, ten);
    let q = b.binary(BinaryOp::SDiv, v, d);
    let sixty_three = b.iconst(Type::I32, 63);
    let m = b.binary(BinaryOp::And, x, sixty_three);
    let m64 = b.cast(CastOp::ZExt, m, Type::I64);
    let g = b.gep(Type::I32, a, vec![m64]);
    let gv = b.load(Type::I32, g, 4);
    let s = b.binary(BinaryOp::Add, q, gv);
    let sixty_four = b.iconst(Type::I64, 64);
    let i64_ = b.binary(BinaryOp::Add, i, sixty_four);
    let ps = b.gep(Type::I32, a, vec![i64_]);
    b.store(s, ps, 4);
    let two = b.iconst(Type::I64, 2);
    let j = b.binary(BinaryOp::Mul, i, two);
    let four_hundred = b.iconst(Type::I64, 400);
    let j2 = b.binary(BinaryOp::Add, j, four_hundred);
    let pj = b.gep(Type::I32, a, vec![j2]);
    b.store(s, pj, 4);
    b.call(Callee::Direct("observe".into()), vec![s], Type::Void, CallEffects::SideEffects);
    s
}

/// The `else` side: a varying value stored to a uniform address.
fn emit_else_side(b: &mut FunctionBuilder, a: Value, x: Value) {
    let thousand = b.iconst(Type::I64, 1000);
    let pu = b.gep(Type::I32, a, vec![thousand]);
    b.store(x, pu, 4);
}

/// `f(a, i, x)`: `if (x > 10) { ...then... ; r = s } else { a[1000] = x; r = x }`.
fn divergent_kernel() -> Function {
    let mut func = Function::new("div", vec![Type::PTR, Type::I64, Type::I32], Type::I32);
    let (a, i, x) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let then = b.create_block(Some("then"));
    let otherwise = b.create_block(Some("else"));
    let join = b.create_block(Some("join"));
    b.switch_to_block(entry);
    let ten = b.iconst(Type::I32, 10);
    let c = b.icmp(IntPredicate::Sgt, x, ten);
    b.branch(c, then, otherwise);
    b.switch_to_block(then);
    let s = emit_then_side(&mut b, a, i, x);
    b.jump(join);
    b.switch_to_block(otherwise);
    emit_else_side(&mut b, a, x);
    b.jump(join);
    b.switch_to_block(join);
    let r = b.phi(Type::I32, vec![(then, s), (otherwise, x)]);
    b.ret(Some(r));
    func
}

/// The same function linearized by hand: `entry -> then -> else -> join`,
/// all jumps, the phi a select; `then` runs under `c`, `else` under `!c`
/// (and-ed with the entry mask parameter when `masked`).
pub(super) fn linearized_kernel(masked: bool) -> (Function, BlockPredicates) {
    let mut func = Function::new("div.lin", vec![Type::PTR, Type::I64, Type::I32], Type::I32);
    let mask = masked.then(|| add_entry_mask_param(&mut func));
    let (a, i, x) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let then = b.create_block(Some("then"));
    let otherwise = b.create_block(Some("else"));
    let join = b.create_block(Some("join"));
    b.switch_to_block(entry);
    let ten = b.iconst(Type::I32, 10);
    let c = b.icmp(IntPredicate::Sgt, x, ten);
    let true_ = b.iconst(Type::BOOL, 1);
    let not_c = b.binary(BinaryOp::Xor, c, true_);
    let (then_pred, else_pred) = match mask {
        Some(mask) => (b.binary(BinaryOp::And, c, mask), b.binary(BinaryOp::And, not_c, mask)),
        None => (c, not_c),
    };
    b.jump(then);
    b.switch_to_block(then);
    let s = emit_then_side(&mut b, a, i, x);
    b.jump(otherwise);
    b.switch_to_block(otherwise);
    emit_else_side(&mut b, a, x);
    b.jump(join);
    b.switch_to_block(join);
    let r = b.select(c, s, x);
    b.ret(Some(r));
    let mut predicates = BlockPredicates::all_active();
    predicates.set(entry, mask);
    predicates.set(then, Some(then_pred));
    predicates.set(otherwise, Some(else_pred));
    (func, predicates)
}

pub(super) fn kernel_config(width: u32, isa: Isa, masked: bool) -> WidenConfig {
    let mut kinds = vec![UNIFORM, LINEAR, VECTOR];
    if masked {
        kinds.push(VECTOR);
    }
    let mut config = config(width, isa, &kinds);
    config.masked = masked;
    config
}

pub(super) fn widen_masked(
    scalar: &Function,
    config: &WidenConfig,
    predicates: &BlockPredicates,
) -> WidenedFunction {
    let shapes = ShapeInfo::compute(scalar, &DataLayout::default(), &config.params)
        .unwrap_or_else(|error| panic!("shapes: {error}"));
    let widened =
        widen_function_with_stats(scalar, &shapes, &DataLayout::default(), config, predicates)
            .unwrap_or_else(|error| panic!("widening failed: {error}"));
    verify_function(&widened.function)
        .unwrap_or_else(|errors| panic!("{errors}\n{}", widened.function));
    widened
}

/// The ABI arguments carrying `active` for a masked variant.
pub(super) fn mask_args(abi: &MaskAbi, active: &[bool]) -> Vec<Val> {
    match abi {
        MaskAbi::Vector { elem, .. } => vec![Val::Vector(
            active
                .iter()
                .map(|on| match elem {
                    Type::F32 => Val::F32(if *on { 1.0 } else { 0.0 }),
                    Type::F64 => Val::F64(if *on { 1.0 } else { 0.0 }),
                    ty => Val::int(ty.int_bits().unwrap(), u128::from(*on)),
                })
                .collect(),
        )],
        MaskAbi::Bits { parts, part_bits, lanes_per_part } => (0..*parts as usize)
            .map(|part| {
                let chunk = active.iter().skip(part * *lanes_per_part as usize);
                let bits = chunk
                    .take(*lanes_per_part as usize)
                    .enumerate()
                    .fold(0u128, |bits, (lane, on)| bits | (u128::from(*on) << lane));
                Val::int(*part_bits, bits)
            })
            .collect(),
    }
}

/// Runs the divergent kernel lane by lane for the active lanes, and the
/// widened linearized kernel once, and compares active result lanes, memory
/// and the `observe` calls.
fn check_kernel(vector: &Function, config: &WidenConfig, linearized: &Function, trials: usize) {
    let original = divergent_kernel();
    let width = config.width as usize;
    let abi = config.masked.then(|| MaskAbi::for_variant(linearized, config).unwrap());
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for trial in 0..trials {
        let mut memory = Memory::new(MEMORY_BASE, MEMORY_SIZE);
        for byte in memory.bytes.iter_mut() {
            *byte = rng.next() as u8;
        }
        let base_i = rng.below(200) as u128;
        let xs: Vec<Val> = (0..width).map(|_| Val::int(32, rng.below(20) as u128)).collect();
        let active: Vec<bool> = (0..width).map(|_| !config.masked || rng.below(3) != 0).collect();
        let lane_args = |lane: usize| {
            vec![Val::Ptr(MEMORY_BASE), Val::int(64, base_i + lane as u128), xs[lane].clone()]
        };

        let log = RefCell::new(Vec::new());
        let mut scalar_results = Vec::new();
        let scalar_memory = {
            let mut interpreter = Interpreter::new(memory.clone(), externals(&log));
            for (lane, lane_active) in active.iter().enumerate() {
                scalar_results.push(if *lane_active {
                    interpreter.run(&original, &lane_args(lane)).expect("scalar run")
                } else {
                    None
                });
            }
            interpreter.memory
        };
        let scalar_log = log.take();

        let mut vector_args = vec![Val::Ptr(MEMORY_BASE), Val::int(64, base_i), Val::Vector(xs)];
        if let Some(abi) = &abi {
            vector_args.extend(mask_args(abi, &active));
        }
        let mut interpreter = Interpreter::new(memory, externals(&log));
        let result = interpreter.run(vector, &vector_args).expect("vector run");
        let vector_log = log.take();
        let Some(Val::Vector(lanes)) = result else { panic!("vector result {result:?}") };
        for lane in (0..width).filter(|lane| active[*lane]) {
            let expected = scalar_results[lane].as_ref().unwrap();
            assert!(
                lanes[lane].same_as(expected),
                "trial {trial}, lane {lane}: vector {:?}, scalar {expected:?}",
                lanes[lane]
            );
        }
        assert_eq!(
            &interpreter.memory.bytes[..MEMORY_SIZE],
            &scalar_memory.bytes[..MEMORY_SIZE],
            "trial {trial}: memory differs (active {active:?})"
        );
        assert_eq!(format!("{scalar_log:?}"), format!("{vector_log:?}"), "trial {trial}: calls");
    }
}

// ----- Structure -----

#[test]
fn masked_blocks_use_masked_vector_memory_operations_on_avx2() {
    let (scalar, predicates) = linearized_kernel(false);
    let config = kernel_config(8, Isa::Avx2, false);
    let widened = widen_masked(&scalar, &config, &predicates);
    let vector = &widened.function;
    let is_constant = |value: &Value| vector.dfg.constant(*value).is_some();
    // The contiguous load, and the consecutive fast path of the gather
    // `a[x & 63]` (`x` a varying parameter: likely consecutive).
    assert_eq!(count(vector, |data| matches!(data, InstData::MaskedLoad { .. })), 2);
    assert_eq!(count_blocks_named(vector, ".consecutive"), 1);
    assert_eq!(count(vector, |data| matches!(data, InstData::MaskedStore { .. })), 1);
    // The gather, and the gathers of the two masked loads' paths for a
    // vector that crosses into the next page with its active lanes in one
    // of the two (see widen/page_safe_loads.rs).
    assert_eq!(
        count(vector, |data| matches!(data, InstData::Gather { mask, .. } if !is_constant(mask))),
        3
    );
    assert_eq!(count_blocks_named(vector, ".crossing"), 2);
    // No scatter on AVX2: the call runs in a loop over the active lanes;
    // the strided store is branch-free, inactive lanes writing to a scratch
    // slot.
    assert_eq!(count(vector, |data| matches!(data, InstData::Scatter { .. })), 0);
    assert_eq!(count_blocks_named(vector, ".store.lane"), 0);
    // Eight lane stores, the uniform-address store below, and the call's
    // argument vector stored to its slot (the second alloca).
    assert_eq!(count(vector, |data| matches!(data, InstData::Store { .. })), 10);
    assert_eq!(count(vector, |data| matches!(data, InstData::Alloca { .. })), 2);
    assert_eq!(count_blocks_named(vector, ".call.lane"), 0);
    assert_eq!(count_blocks_named(vector, ".lanes"), 2);
    // The uniform-address store runs once, under `any`, storing one lane.
    assert_eq!(count_blocks_named(vector, ".store.join"), 1);
    assert!(callees(vector).iter().any(|name| name == "llvm.ctlz.i8"));
    // Inactive lanes divide by one.
    let divisions: Vec<Value> = insts(vector)
        .into_iter()
        .filter_map(|data| match data {
            InstData::Binary { op: BinaryOp::SDiv, rhs, .. } => Some(*rhs),
            _ => None,
        })
        .collect();
    assert_eq!(divisions.len(), 1);
    let divisor_def = vector.dfg.defining_inst(divisions[0]).map(|inst| vector.dfg.inst(inst));
    assert!(matches!(divisor_def, Some(InstData::Select { .. })), "{divisor_def:?}");
    assert_eq!(
        widened.stats,
        MemoryAccessStats {
            uniform: 1,
            contiguous: 2,
            strided: 1,
            gather: 1,
            scatter: 0,
            scalarized: 0,
            masked: 5,
            speculative: 2,
        }
    );
}

#[test]
fn masked_blocks_scatter_on_avx512_and_guard_every_lane_on_sse() {
    let (scalar, predicates) = linearized_kernel(false);
    let avx512 = widen_masked(&scalar, &kernel_config(16, Isa::Avx512, false), &predicates);
    let vector = &avx512.function;
    assert_eq!(count(vector, |data| matches!(data, InstData::Scatter { .. })), 1);
    assert_eq!(count_blocks_named(vector, ".store.lane"), 0);

    let sse = widen_masked(&scalar, &kernel_config(4, Isa::Sse, false), &predicates);
    let vector = &sse.function;
    assert_eq!(count(vector, |data| matches!(data, InstData::Gather { .. })), 0);
    // The gather became 4 guarded loads whose results merge in phis.
    assert_eq!(count_blocks_named(vector, ".load.lane"), 8);
    let guarded_load_phis =
        count(vector, |data| matches!(data, InstData::Phi { ty: Type::I32, .. }));
    assert_eq!(guarded_load_phis, 4);
    assert_eq!(sse.stats.scalarized, 1);
    assert_eq!(sse.stats.masked, 5);
}

#[test]
fn unmasked_blocks_are_unchanged_by_all_active_predicates() {
    let (scalar, info) = contiguous_kernel();
    let config = config(8, Isa::Avx2, &[UNIFORM, LINEAR, VECTOR, UNIFORM]);
    let plain = widen(&scalar, &info, &config);
    let stats = widen_function_with_stats(
        &scalar,
        &info,
        &DataLayout::default(),
        &config,
        &BlockPredicates::all_active(),
    )
    .unwrap();
    assert_eq!(plain.to_string(), stats.function.to_string());
    assert_eq!(stats.stats.contiguous, 2);
    assert_eq!(stats.stats.masked, 0);
}

// ----- Differential execution -----

#[test]
fn linearized_divergent_kernel_agrees_with_the_scalar_lanes() {
    let (scalar, predicates) = linearized_kernel(false);
    for (width, isa) in [(4, Isa::Sse), (8, Isa::Avx2), (16, Isa::Avx512)] {
        let config = kernel_config(width, isa, false);
        let widened = widen_masked(&scalar, &config, &predicates);
        check_kernel(&widened.function, &config, &scalar, 150);
    }
}

#[test]
fn masked_variants_run_only_the_active_lanes() {
    let (scalar, predicates) = linearized_kernel(true);
    for (width, isa) in [(4, Isa::Sse), (8, Isa::Avx2), (16, Isa::Avx512), (32, Isa::Avx512)] {
        let config = kernel_config(width, isa, true);
        let widened = widen_masked(&scalar, &config, &predicates);
        check_kernel(&widened.function, &config, &scalar, 150);
    }
}

/// A uniform loop whose body calls `observe` under a varying predicate: the
/// header phi's incoming block from the body must be the last guard block.
#[test]
fn phis_after_a_guard_chain_name_its_last_block() {
    let mut func = Function::new("loop", vec![Type::I32, Type::I32], Type::I32);
    let (x, n) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("header"));
    let body = b.create_block(Some("body"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    let zero = b.iconst(Type::I32, 0);
    let five = b.iconst(Type::I32, 5);
    let odd_bit = b.iconst(Type::I32, 1);
    b.jump(header);
    b.switch_to_block(header);
    let k_placeholder = b.iconst(Type::I32, 0);
    let k = b.phi(Type::I32, vec![(entry, zero), (body, k_placeholder)]);
    let more = b.icmp(IntPredicate::Slt, k, n);
    b.branch(more, body, exit);
    b.switch_to_block(body);
    let parity = b.binary(BinaryOp::And, x, odd_bit);
    let is_odd = b.icmp(IntPredicate::Ne, parity, zero);
    let sum = b.binary(BinaryOp::Add, x, k);
    b.call(Callee::Direct("observe".into()), vec![sum], Type::Void, CallEffects::SideEffects);
    let next = b.binary(BinaryOp::Add, k, odd_bit);
    b.jump(header);
    b.switch_to_block(exit);
    let scaled = b.binary(BinaryOp::Mul, x, five);
    b.ret(Some(scaled));
    let phi_inst = func.dfg.defining_inst(k).unwrap();
    if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi_inst) {
        incoming[1].1 = next;
    }
    // `observe` runs only in the odd lanes: the body's predicate.
    let mut predicates = BlockPredicates::all_active();
    predicates.set(body, Some(is_odd));
    let config = config(4, Isa::Avx2, &[VECTOR, UNIFORM]);
    let widened = widen_masked(&func, &config, &predicates);
    let vector = &widened.function;
    let new_phi = vector
        .layout
        .insts()
        .find(|inst| matches!(vector.dfg.inst(*inst), InstData::Phi { ty: Type::I32, .. }))
        .unwrap();
    let InstData::Phi { incoming, .. } = vector.dfg.inst(new_phi) else { unreachable!() };
    let from_body = incoming[1].0;
    assert!(vector.block_name(from_body).ends_with(".lanes.done"), "{vector}");
    // Differential: lane l calls observe(x_l + k) for k < n only if x_l is odd.
    let log = RefCell::new(Vec::new());
    let mut interpreter = Interpreter::new(Memory::new(MEMORY_BASE, 64), externals(&log));
    let xs: Vec<Val> = [3u128, 4, 7, 8].iter().map(|x| Val::int(32, *x)).collect();
    let result = interpreter.run(vector, &[Val::Vector(xs), Val::int(32, 2)]).unwrap();
    let observed: Vec<u128> = log
        .take()
        .iter()
        .map(|(_, args)| match &args[0] {
            Val::Int { value, .. } => *value,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(observed, vec![3, 7, 4, 8]);
    assert!(matches!(result, Some(Val::Vector(lanes)) if lanes[2].same_as(&Val::int(32, 35))));
}

// ----- Mask ABI -----

#[test]
fn mask_abi_follows_gcc_inbranch_clones() {
    let mut float_fn = Function::new("f", vec![Type::F32], Type::F32);
    add_entry_mask_param(&mut float_fn);
    let float_config = |width, isa| {
        let mut config = config(width, isa, &[VECTOR, VECTOR]);
        config.masked = true;
        config
    };
    // _ZGVdM8v_f: the mask is <8 x float> (ymm1).
    assert_eq!(
        MaskAbi::for_variant(&float_fn, &float_config(8, Isa::Avx2)).unwrap().param_types(),
        vec![Type::F32.vector_of(8)]
    );
    // _ZGVeM16v_f: one 16-bit mask in a general register; eM32: two.
    assert_eq!(
        MaskAbi::for_variant(&float_fn, &float_config(16, Isa::Avx512)).unwrap().param_types(),
        vec![Type::Int(16)]
    );
    assert_eq!(
        MaskAbi::for_variant(&float_fn, &float_config(32, Isa::Avx512)).unwrap().param_types(),
        vec![Type::Int(16), Type::Int(16)]
    );
    // void vd(float *p, double x), uniform p: the CDT is double (_ZGVbM4uv_vd).
    let mut void_fn = Function::new("vd", vec![Type::PTR, Type::F64], Type::Void);
    add_entry_mask_param(&mut void_fn);
    let mut void_config = config(4, Isa::Sse, &[UNIFORM, VECTOR, VECTOR]);
    void_config.masked = true;
    assert_eq!(
        MaskAbi::for_variant(&void_fn, &void_config).unwrap().param_types(),
        vec![Type::F64.vector_of(4)]
    );
    void_config.isa = Isa::Avx512;
    void_config.width = 8;
    assert_eq!(
        MaskAbi::for_variant(&void_fn, &void_config).unwrap().param_types(),
        vec![Type::Int(8)]
    );
    // The mask parameter must be there.
    let plain = Function::new("g", vec![Type::F32], Type::F32);
    let mut bad = config(8, Isa::Avx2, &[VECTOR]);
    bad.masked = true;
    assert!(MaskAbi::for_variant(&plain, &bad).is_err());
}

#[test]
fn float_masks_are_active_where_their_bits_are_not_zero() {
    // f(x, mask) = x * 2, stored to out[i] under the entry mask.
    let mut func = Function::new("f", vec![Type::F32, Type::PTR, Type::I64], Type::F32);
    add_entry_mask_param(&mut func);
    let (x, out, i) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let two = b.f32const(2.0);
    let doubled = b.binary(BinaryOp::FMul, x, two);
    let p = b.gep(Type::F32, out, vec![i]);
    b.store(doubled, p, 4);
    b.ret(Some(doubled));
    let mut config = config(4, Isa::Sse, &[VECTOR, UNIFORM, LINEAR, VECTOR]);
    config.masked = true;
    let widened = widen_masked(&func, &config, &BlockPredicates::all_active());
    let vector = &widened.function;
    assert_eq!(vector.params.last().unwrap().ty, Type::F32.vector_of(4));
    assert_eq!(count(vector, |data| matches!(data, InstData::MaskedStore { .. })), 1);
    let mut interpreter = Interpreter::new(Memory::new(MEMORY_BASE, 64), |_: &str, _: &[Val]| {
        Err(InterpError("no calls".into()))
    });
    let xs = Val::Vector([1.0f32, 2.0, 3.0, 4.0].iter().map(|x| Val::F32(*x)).collect());
    // -0.0 has a bit set: active, as in GCC's clones.
    let mask = Val::Vector([1.0f32, 0.0, -0.0, 1.0].iter().map(|x| Val::F32(*x)).collect());
    interpreter.run(vector, &[xs, Val::Ptr(MEMORY_BASE), Val::int(64, 0), mask]).unwrap();
    let stored: Vec<f32> = interpreter.memory.bytes[..16]
        .chunks(4)
        .map(|bytes| f32::from_le_bytes(bytes.try_into().unwrap()))
        .collect();
    assert_eq!(stored, vec![2.0, 0.0, 6.0, 8.0]);
}

// ----- SPMD builtins under the entry mask -----

const BUILTIN_XS: [u128; 8] = [3, 6, 7, 2, 9, 4, 5, 8];
const BUILTIN_ACTIVE: [bool; 8] = [true, true, false, true, true, false, true, true];

/// `f(x: i32, p: ptr, mask)`, a masked AVX2 variant of width 8 returning
/// what `build` computes from `x`, `x odd` and `p`; run on [`BUILTIN_XS`]
/// under [`BUILTIN_ACTIVE`]. Returns the result lanes (as integers) and the
/// first 16 `i32`s of memory.
fn run_builtin(
    build: impl FnOnce(&mut FunctionBuilder, Value, Value, Value) -> Value,
) -> (Vec<Option<u128>>, Vec<u32>) {
    run_widened_builtin(&widen_builtin(build))
}

/// The scalar function of [`run_builtin`], its config and its widening.
fn widen_builtin(
    build: impl FnOnce(&mut FunctionBuilder, Value, Value, Value) -> Value,
) -> (Function, WidenConfig, WidenedFunction) {
    let mut func = Function::new("builtin", vec![Type::I32, Type::PTR], Type::I32);
    add_entry_mask_param(&mut func);
    let (x, p) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let one = b.iconst(Type::I32, 1);
    let zero = b.iconst(Type::I32, 0);
    let low_bit = b.binary(BinaryOp::And, x, one);
    let odd = b.icmp(IntPredicate::Ne, low_bit, zero);
    let result = build(&mut b, x, odd, p);
    let result = match b.ty(result) {
        Type::Int(1) => b.cast(CastOp::ZExt, result, Type::I32),
        _ => result,
    };
    b.ret(Some(result));
    let mut config = config(8, Isa::Avx2, &[VECTOR, UNIFORM, VECTOR]);
    config.masked = true;
    let widened = widen_masked(&func, &config, &BlockPredicates::all_active());
    (func, config, widened)
}

/// Runs a [`widen_builtin`] result on [`BUILTIN_XS`] under
/// [`BUILTIN_ACTIVE`]: the result lanes and the first 16 `i32`s of memory.
fn run_widened_builtin(
    (func, config, widened): &(Function, WidenConfig, WidenedFunction),
) -> (Vec<Option<u128>>, Vec<u32>) {
    let mut memory = Memory::new(MEMORY_BASE, 64);
    for (index, byte) in memory.bytes.iter_mut().enumerate() {
        *byte = if index % 4 == 0 { 100 + index as u8 / 4 } else { 0 };
    }
    let mut interpreter = Interpreter::new(memory, |name: &str, _: &[Val]| {
        Err(InterpError(format!("unexpected call of `{name}`")))
    });
    let xs = Val::Vector(BUILTIN_XS.iter().map(|x| Val::int(32, *x)).collect());
    let abi = MaskAbi::for_variant(func, config).unwrap();
    let mut args = vec![xs, Val::Ptr(MEMORY_BASE)];
    args.extend(mask_args(&abi, &BUILTIN_ACTIVE));
    let result = interpreter.run(&widened.function, &args).expect("vector run");
    let Some(Val::Vector(lanes)) = result else { panic!("{result:?}") };
    let lanes = lanes
        .iter()
        .map(|lane| match lane {
            Val::Int { value, .. } => Some(*value),
            _ => None,
        })
        .collect();
    let memory = interpreter.memory.bytes[..64]
        .chunks(4)
        .map(|bytes| u32::from_le_bytes(bytes.try_into().unwrap()))
        .collect();
    (lanes, memory)
}

fn call_builtin(b: &mut FunctionBuilder, name: &str, args: Vec<Value>, ret: Type) -> Value {
    let effects = match name {
        "rv_store" => CallEffects::SideEffects,
        "rv_load" => CallEffects::ReadOnly,
        _ => CallEffects::Pure,
    };
    let call = b.call(Callee::Direct(name.into()), args, ret, effects);
    b.func.dfg.result(call).unwrap_or_else(|| b.iconst(Type::I32, 0))
}

fn uniform_lanes(value: u128) -> Vec<Option<u128>> {
    vec![Some(value); 8]
}

#[test]
fn spmd_reductions_count_only_active_lanes() {
    // Active and odd: lanes 0, 4, 6.
    let any = run_builtin(|b, _, odd, _| call_builtin(b, "rv_any", vec![odd], Type::BOOL)).0;
    assert_eq!(any, uniform_lanes(1));
    let all = run_builtin(|b, _, odd, _| call_builtin(b, "rv_all", vec![odd], Type::BOOL)).0;
    assert_eq!(all, uniform_lanes(0));
    // Lane 2 (odd) is inactive and lane 5 (even) too: all of "x != 7 && x != 4"
    // over the active lanes is true.
    let all_active = run_builtin(|b, x, _, _| {
        let seven = b.iconst(Type::I32, 7);
        let four = b.iconst(Type::I32, 4);
        let not_seven = b.icmp(IntPredicate::Ne, x, seven);
        let not_four = b.icmp(IntPredicate::Ne, x, four);
        let both = b.binary(BinaryOp::And, not_seven, not_four);
        call_builtin(b, "rv_all", vec![both], Type::BOOL)
    })
    .0;
    assert_eq!(all_active, uniform_lanes(1));
    let uniform_any = run_builtin(|b, _, _, _| {
        let true_ = b.iconst(Type::BOOL, 1);
        call_builtin(b, "rv_any", vec![true_], Type::BOOL)
    })
    .0;
    assert_eq!(uniform_any, uniform_lanes(1));
    let ballot = run_builtin(|b, _, odd, _| call_builtin(b, "rv_ballot", vec![odd], Type::I32)).0;
    assert_eq!(ballot, uniform_lanes(0b0101_0001));
    let popcount =
        run_builtin(|b, _, odd, _| call_builtin(b, "rv_popcount", vec![odd], Type::I32)).0;
    assert_eq!(popcount, uniform_lanes(3));
    let index = run_builtin(|b, _, odd, _| call_builtin(b, "rv_index", vec![odd], Type::I32)).0;
    let expected: Vec<Option<u128>> = [0, 1, 1, 1, 1, 2, 2, 3].iter().map(|n| Some(*n)).collect();
    assert_eq!(index, expected);
    let mask = run_builtin(|b, _, _, _| call_builtin(b, "rv_mask", vec![], Type::BOOL)).0;
    let expected: Vec<Option<u128>> =
        BUILTIN_ACTIVE.iter().map(|on| Some(u128::from(*on))).collect();
    assert_eq!(mask, expected);
}

#[test]
fn any_of_a_mask_within_the_block_mask_needs_no_masking() {
    // rv_any(select(rv_mask(), odd, false)): the argument has no lane
    // outside the block mask, as a divergent loop's continue mask.
    let selects = |data: &InstData| matches!(data, InstData::Select { .. });
    let built = widen_builtin(|b, _, odd, _| {
        let active = call_builtin(b, "rv_mask", vec![], Type::BOOL);
        let no = b.iconst(Type::BOOL, 0);
        let within = b.select(active, odd, no);
        call_builtin(b, "rv_any", vec![within], Type::BOOL)
    });
    // The one select is the scalar code's.
    assert_eq!(count(&built.2.function, selects), 1, "{}", built.2.function);
    assert_eq!(run_widened_builtin(&built).0, uniform_lanes(1));
    // Without it the argument is masked by the block mask: with a select
    // (an inactive lane may be poison; `and` would keep the poison).
    let plain = widen_builtin(|b, _, odd, _| call_builtin(b, "rv_any", vec![odd], Type::BOOL));
    assert_eq!(count(&plain.2.function, selects), 1, "{}", plain.2.function);
    let ands =
        count(&plain.2.function, |data| matches!(data, InstData::Binary { op: BinaryOp::And, .. }));
    // The one `and` is the scalar code's `x & 1`.
    assert_eq!(ands, 1, "{}", plain.2.function);
}

#[test]
fn spmd_lane_movements() {
    // The active odd lanes (0, 4, 6) packed to lanes 0..2; lanes 3..7 keep
    // their own x (RV's meaning).
    let compact =
        run_builtin(|b, x, odd, _| call_builtin(b, "rv_compact", vec![x, odd], Type::I32)).0;
    let expected: Vec<Option<u128>> = [3, 9, 5, 2, 9, 4, 5, 8].iter().map(|x| Some(*x)).collect();
    assert_eq!(compact, expected);
    let uniform = run_builtin(|b, _, odd, _| {
        let seven = b.iconst(Type::I32, 7);
        call_builtin(b, "rv_compact", vec![seven, odd], Type::I32)
    })
    .0;
    assert_eq!(uniform, uniform_lanes(7));
    let shuffle = run_builtin(|b, x, _, _| {
        let one = b.iconst(Type::I32, 1);
        call_builtin(b, "rv_shuffle", vec![x, one], Type::I32)
    })
    .0;
    let rotated: Vec<Option<u128>> = (0..8).map(|lane| Some(BUILTIN_XS[(lane + 1) % 8])).collect();
    assert_eq!(shuffle, rotated);
    let inserted = run_builtin(|b, x, _, _| {
        let lane = b.iconst(Type::I32, 2);
        let value = b.iconst(Type::I32, 99);
        call_builtin(b, "rv_insert", vec![x, lane, value], Type::I32)
    })
    .0;
    assert_eq!(inserted[2], Some(99));
    assert_eq!(inserted[3], Some(2));
    let extracted = run_builtin(|b, x, _, _| {
        let lane = b.iconst(Type::I32, 4);
        call_builtin(b, "rv_extract", vec![x, lane], Type::I32)
    })
    .0;
    assert_eq!(extracted, uniform_lanes(9));
    let ids = run_builtin(|b, _, _, _| call_builtin(b, "rv_lane_id", vec![], Type::I32)).0;
    assert_eq!(ids, (0..8).map(Some).collect::<Vec<_>>());
    let lanes = run_builtin(|b, _, _, _| call_builtin(b, "rv_num_lanes", vec![], Type::I32)).0;
    assert_eq!(lanes, uniform_lanes(8));
}

/// RV's `rv_load(p, k)`/`rv_store(p, k, v)`: one access through lane k's
/// pointer (any lane, active or not), or at `p[k]` for a uniform `p`; the
/// loaded value in every lane.
#[test]
fn rv_load_and_store_go_through_lane_k() {
    // Memory holds 100 + index in every i32 slot; x = [3, 6, 7, 2, 9, 4, 5, 8].
    let load = |lane: i128, varying: bool| {
        run_builtin(move |b, x, _, p| {
            let k = b.iconst(Type::I32, lane);
            let pointer = if varying { b.gep(Type::I32, p, vec![x]) } else { p };
            call_builtin(b, "rv_load", vec![pointer, k], Type::I32)
        })
        .0
    };
    assert_eq!(load(1, false), uniform_lanes(101));
    assert_eq!(load(1, true), uniform_lanes(106));
    // Lane 2 is inactive; its pointer is still the one read.
    assert_eq!(load(2, true), uniform_lanes(107));
    let store = |lane: i128, varying: bool| {
        run_builtin(move |b, x, _, p| {
            let k = b.iconst(Type::I32, lane);
            let value = b.iconst(Type::I32, 55);
            let pointer = if varying { b.gep(Type::I32, p, vec![x]) } else { p };
            call_builtin(b, "rv_store", vec![pointer, k, value], Type::Void);
            x
        })
        .1
    };
    let unchanged = |slot: usize| 100 + slot as u32;
    let memory = store(3, true);
    for (slot, value) in memory.iter().enumerate() {
        // Lane 3's pointer is p + 2.
        assert_eq!(*value, if slot == 2 { 55 } else { unchanged(slot) }, "slot {slot}");
    }
    let memory = store(4, false);
    for (slot, value) in memory.iter().enumerate() {
        assert_eq!(*value, if slot == 4 { 55 } else { unchanged(slot) }, "slot {slot}");
    }
}

#[test]
fn rv_store_of_a_varying_value_is_refused() {
    let mut func = Function::new("builtin", vec![Type::I32, Type::PTR], Type::Void);
    let (x, p) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let zero = b.iconst(Type::I32, 0);
    call_builtin(&mut b, "rv_store", vec![p, zero, x], Type::Void);
    b.ret(None);
    let config = config(8, Isa::Avx2, &[VECTOR, UNIFORM]);
    let shapes = ShapeInfo::compute(&func, &DataLayout::default(), &config.params).unwrap();
    let error = widen_function(&func, &shapes, &DataLayout::default(), &config).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("`rv_store` stores one value"), "{message}");
    assert!(message.contains("builtin") && message.contains("entry"), "{message}");
}

/// A call of an `rv_*` function Lanewise does not implement is an error
/// naming it, not per-lane calls of an undefined symbol.
#[test]
fn unknown_rv_builtins_are_refused() {
    for name in ["rv_reduce", "rv_frobnicate"] {
        let mut func = Function::new("caller", vec![Type::I32], Type::I32);
        let x = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        b.switch_to_block(entry);
        let call =
            b.call(Callee::Direct(name.into()), vec![x], Type::I32, CallEffects::SideEffects);
        let result = b.func.dfg.result(call).unwrap();
        b.ret(Some(result));
        let config = config(4, Isa::Sse, &[VECTOR]);
        let shapes = ShapeInfo::compute(&func, &DataLayout::default(), &config.params).unwrap();
        let error = widen_function(&func, &shapes, &DataLayout::default(), &config).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains(&format!("`{name}` is not an RV builtin"))
                && message.contains("caller")
                && message.contains("entry")
                && message.contains("call"),
            "{message}"
        );
    }
}

#[test]
fn rv_align_is_its_pointer_and_rv_entry_mask_the_mask_argument() {
    // rv_align(p + x, 4) keeps the varying pointer: a gather of 100 + x.
    let loaded = run_builtin(|b, x, _, p| {
        let pointer = b.gep(Type::I32, p, vec![x]);
        let four = b.iconst(Type::I32, 4);
        let aligned = call_builtin(b, "rv_align", vec![pointer, four], Type::PTR);
        b.load(Type::I32, aligned, 4)
    })
    .0;
    for lane in (0..8).filter(|lane| BUILTIN_ACTIVE[*lane]) {
        assert_eq!(loaded[lane], Some(100 + BUILTIN_XS[lane]), "lane {lane}");
    }
    let entry = run_builtin(|b, _, _, _| call_builtin(b, "rv_entry_mask", vec![], Type::BOOL)).0;
    let expected: Vec<Option<u128>> =
        BUILTIN_ACTIVE.iter().map(|on| Some(u128::from(*on))).collect();
    assert_eq!(entry, expected);
}

// ----- Per-lane calls -----

/// A libm call without a vector form in a masked block runs once per
/// active lane (`widen::lane_loops`), not in all lanes: one active lane of
/// eight makes one call, as the scalar program does. Inactive lanes get 0.
#[test]
fn masked_per_lane_calls_run_only_in_active_lanes() {
    let mut func = Function::new("guarded_exp", vec![Type::F32, Type::BOOL], Type::F32);
    let (x, c) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let call = b.call(Callee::Direct("expf".into()), vec![x], Type::F32, CallEffects::Pure);
    let result = b.func.dfg.result(call).unwrap();
    b.ret(Some(result));
    let mut predicates = BlockPredicates::all_active();
    predicates.set(entry, Some(c));
    let config = config(8, Isa::Avx2, &[VECTOR, VECTOR]);
    let widened = widen_masked(&func, &config, &predicates);
    let vector = &widened.function;
    assert_eq!(callees(vector).iter().filter(|name| *name == "expf").count(), 1, "{vector}");
    for active in [[false, false, false, false, false, true, false, false], [true; 8], [false; 8]] {
        let log = RefCell::new(Vec::new());
        let mut interpreter = Interpreter::new(Memory::new(MEMORY_BASE, 64), externals(&log));
        let xs: Vec<Val> = (0..8).map(|lane| Val::F32(lane as f32 * 0.25)).collect();
        let cs: Vec<Val> = active.iter().map(|&bit| Val::bool(bit)).collect();
        let result = interpreter.run(vector, &[Val::Vector(xs), Val::Vector(cs)]).unwrap();
        let calls: Vec<f32> = log
            .take()
            .iter()
            .map(|(_, args)| match &args[0] {
                Val::F32(x) => *x,
                other => panic!("{other:?}"),
            })
            .collect();
        let expected_calls: Vec<f32> =
            (0..8).filter(|lane| active[*lane]).map(|lane| lane as f32 * 0.25).collect();
        assert_eq!(calls, expected_calls, "active {active:?}");
        let Some(Val::Vector(lanes)) = result else { panic!("{result:?}") };
        for (lane, value) in lanes.iter().enumerate() {
            let expected = if active[lane] { (lane as f32 * 0.25).exp() } else { 0.0 };
            assert!(value.same_as(&Val::F32(expected)), "lane {lane}: {value:?}");
        }
    }
}

/// WFV-SLP (`widen::wfv_slp`, thesis 7.4): three independent libmvec calls
/// under a mask in a 16-lane AVX-512 variant run as one call when at most
/// five lanes are active (the interpreter runs a `_ZGV` call as 16 scalar
/// calls: 16 logged calls for the packed path, 48 for the three), with the
/// same results in the active lanes either way.
#[test]
fn few_active_lanes_pack_independent_math_calls_into_one() {
    let mut func =
        Function::new("glow", vec![Type::F32, Type::F32, Type::F32, Type::BOOL], Type::F32);
    let (x, y, z, c) =
        (func.param_value(0), func.param_value(1), func.param_value(2), func.param_value(3));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let mut results = Vec::new();
    for arg in [x, y, z] {
        let call = b.call(Callee::Direct("expf".into()), vec![arg], Type::F32, CallEffects::Pure);
        results.push(b.func.dfg.result(call).unwrap());
    }
    let partial = b.binary(BinaryOp::FAdd, results[0], results[1]);
    let sum = b.binary(BinaryOp::FAdd, partial, results[2]);
    b.ret(Some(sum));
    let mut predicates = BlockPredicates::all_active();
    predicates.set(entry, Some(c));
    let mut config = config(16, Isa::Avx512, &[VECTOR, VECTOR, VECTOR, VECTOR]);
    config.vector_math = VectorMath::Libmvec;
    let widened = widen_masked(&func, &config, &predicates);
    assert_eq!(widened.calls.packed_math_groups, 1, "{}", widened.function);
    let mut off = config.clone();
    off.wfv_slp = false;
    assert_eq!(widen_masked(&func, &off, &predicates).calls.packed_math_groups, 0);
    let vector = &widened.function;
    let mut rng = Rng(0x5eed);
    for active_count in [0usize, 1, 3, 5, 6, 11, 16] {
        let mut active = [false; 16];
        while active.iter().filter(|bit| **bit).count() < active_count {
            active[(rng.next() % 16) as usize] = true;
        }
        let lanes = |rng: &mut Rng| -> Vec<f32> {
            (0..16).map(|_| (rng.next() % 4000) as f32 / 1000.0 - 2.0).collect()
        };
        let (xs, ys, zs) = (lanes(&mut rng), lanes(&mut rng), lanes(&mut rng));
        let vector_of = |values: &[f32]| Val::Vector(values.iter().map(|v| Val::F32(*v)).collect());
        let cs = Val::Vector(active.iter().map(|&bit| Val::bool(bit)).collect());
        let log = RefCell::new(Vec::new());
        let mut interpreter = Interpreter::new(Memory::new(MEMORY_BASE, 64), externals(&log));
        let args = [vector_of(&xs), vector_of(&ys), vector_of(&zs), cs];
        let Some(Val::Vector(result)) = interpreter.run(vector, &args).unwrap() else {
            panic!("a vector result")
        };
        let expected_calls = if active_count * 3 <= 16 { 16 } else { 48 };
        assert_eq!(log.take().len(), expected_calls, "{active_count} active lanes");
        for lane in (0..16).filter(|lane| active[*lane]) {
            let expected = xs[lane].exp() + ys[lane].exp() + zs[lane].exp();
            assert!(result[lane].same_as(&Val::F32(expected)), "lane {lane}: {:?}", result[lane]);
        }
    }
}

/// A math intrinsic that LLVM lowers to one libm call per lane
/// (`llvm.exp`, from `expf` under `-fno-math-errno`) runs under a mask as
/// a loop over the active lanes, not as `llvm.exp.v8f32` (8 calls whatever
/// the mask); unmasked it stays the vector intrinsic.
#[test]
fn masked_libcall_intrinsics_run_per_active_lane() {
    let mut func = Function::new("guarded_exp", vec![Type::F32, Type::BOOL], Type::F32);
    let (x, c) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let call = b.call(Callee::Direct("llvm.exp.f32".into()), vec![x], Type::F32, CallEffects::Pure);
    let result = b.func.dfg.result(call).unwrap();
    b.ret(Some(result));
    let config = config(8, Isa::Avx2, &[VECTOR, VECTOR]);
    let unmasked = widen_masked(&func, &config, &BlockPredicates::all_active());
    assert_eq!(callees(&unmasked.function), ["llvm.exp.v8f32"]);
    let mut predicates = BlockPredicates::all_active();
    predicates.set(entry, Some(c));
    let widened = widen_masked(&func, &config, &predicates);
    let vector = &widened.function;
    assert_eq!(callees(vector), ["llvm.cttz.i8", "llvm.exp.f32"], "{vector}");
    for active in [[true, false, false, true, false, false, false, true], [true; 8]] {
        let log = RefCell::new(Vec::new());
        let mut interpreter = Interpreter::new(Memory::new(MEMORY_BASE, 64), externals(&log));
        let xs: Vec<Val> = (0..8).map(|lane| Val::F32(lane as f32 * 0.5 - 1.0)).collect();
        let cs: Vec<Val> = active.iter().map(|&bit| Val::bool(bit)).collect();
        let Some(Val::Vector(lanes)) =
            interpreter.run(vector, &[Val::Vector(xs), Val::Vector(cs)]).unwrap()
        else {
            panic!("a vector result")
        };
        for lane in (0..8).filter(|lane| active[*lane]) {
            let expected = Val::F32((lane as f32 * 0.5 - 1.0).exp());
            assert!(lanes[lane].same_as(&expected), "lane {lane}: {:?}", lanes[lane]);
        }
    }
}
