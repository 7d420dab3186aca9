//! Tests of atomics: per-lane atomics in lane order under the mask, and the
//! combined atomic of a uniform address, run in the reference interpreter
//! against the scalar function lane by lane (results, including the old
//! values every lane gets, and final memory bit for bit).

use super::*;
use crate::predicates::{add_entry_mask_param, BlockPredicates};
use crate::widen::masked::MaskAbi;

fn rmw(b: &mut FunctionBuilder, op: AtomicRmwOp, addr: Value, value: Value) -> Value {
    let ty = b.ty(value);
    let attrs = AtomicAttrs {
        ordering: AtomicOrdering::SeqCst,
        scope: SyncScope::System,
        align: 4,
        volatile: false,
    };
    b.ins_value(InstData::AtomicRmw { op, addr, value, attrs }, ty)
}

/// `f(p, i, x)` on i32 memory at `p`, with `x` varying:
///
/// ```text
/// a = atomicrmw add p[0], x          ; uniform address, result used
/// n = atomicrmw add p[1], 1          ; a counter: uniform value
/// atomicrmw or p[2], x               ; uniform address, result unused
/// m = atomicrmw <minmax> p[3], x     ; uniform address, result used
/// s = atomicrmw sub p[4], x
/// w = atomicrmw xchg p[5], x         ; uniform address: previous lane's x
/// e = atomicrmw xchg p[16 + x % 16], a    ; varying address
/// c = cmpxchg p[40 + x % 4], x, a         ; varying address
/// return a + n + m + s + w + e + c.old + zext(c.success)
/// ```
fn atomic_kernel(minmax: AtomicRmwOp, masked: bool) -> (Function, BlockPredicates) {
    let mut func = Function::new("atomics", vec![Type::PTR, Type::I64, Type::I32], Type::I32);
    let mask = masked.then(|| add_entry_mask_param(&mut func));
    let (p, x) = (func.param_value(0), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let cell = |b: &mut FunctionBuilder, index: i128| {
        let index = b.iconst(Type::I64, index);
        b.gep(Type::I32, p, vec![index])
    };
    let p0 = cell(&mut b, 0);
    let a = rmw(&mut b, AtomicRmwOp::Add, p0, x);
    let p1 = cell(&mut b, 1);
    let one = b.iconst(Type::I32, 1);
    let n = rmw(&mut b, AtomicRmwOp::Add, p1, one);
    let p2 = cell(&mut b, 2);
    rmw(&mut b, AtomicRmwOp::Or, p2, x);
    let p3 = cell(&mut b, 3);
    let m = rmw(&mut b, minmax, p3, x);
    let p4 = cell(&mut b, 4);
    let s = rmw(&mut b, AtomicRmwOp::Sub, p4, x);
    let p5 = cell(&mut b, 5);
    let swapped = rmw(&mut b, AtomicRmwOp::Xchg, p5, x);
    let fifteen = b.iconst(Type::I32, 15);
    let low = b.binary(BinaryOp::And, x, fifteen);
    let sixteen = b.iconst(Type::I32, 16);
    let slot = b.binary(BinaryOp::Add, low, sixteen);
    let q = b.gep(Type::I32, p, vec![slot]);
    let e = rmw(&mut b, AtomicRmwOp::Xchg, q, a);
    let three = b.iconst(Type::I32, 3);
    let low2 = b.binary(BinaryOp::And, x, three);
    let forty = b.iconst(Type::I32, 40);
    let slot2 = b.binary(BinaryOp::Add, low2, forty);
    let r = b.gep(Type::I32, p, vec![slot2]);
    let attrs = AtomicAttrs {
        ordering: AtomicOrdering::AcqRel,
        scope: SyncScope::SingleThread,
        align: 4,
        volatile: false,
    };
    let pair_ty = Type::Struct { fields: vec![Type::I32, Type::BOOL], packed: false };
    let cmpxchg = InstData::CmpXchg {
        addr: r,
        expected: x,
        new: a,
        attrs,
        failure_ordering: AtomicOrdering::Monotonic,
        weak: false,
    };
    let pair = b.ins_value(cmpxchg, pair_ty);
    let old = b.ins_value(InstData::ExtractValue { aggregate: pair, indices: vec![0] }, Type::I32);
    let success =
        b.ins_value(InstData::ExtractValue { aggregate: pair, indices: vec![1] }, Type::BOOL);
    let success = b.cast(CastOp::ZExt, success, Type::I32);
    let mut sum = a;
    for term in [n, m, s, swapped, e, old, success] {
        sum = b.binary(BinaryOp::Add, sum, term);
    }
    b.ret(Some(sum));
    let mut predicates = BlockPredicates::all_active();
    predicates.set(entry, mask);
    (func, predicates)
}

fn widen_kernel(scalar: &Function, config: &WidenConfig, predicates: &BlockPredicates) -> Function {
    let shapes = ShapeInfo::compute(scalar, &DataLayout::default(), &config.params)
        .unwrap_or_else(|error| panic!("shapes: {error}"));
    let widened =
        widen_function_with_stats(scalar, &shapes, &DataLayout::default(), config, predicates)
            .unwrap_or_else(|error| panic!("widening failed: {error}"));
    verify_function(&widened.function)
        .unwrap_or_else(|errors| panic!("{errors}\n{}", widened.function));
    widened.function
}

/// The ABI arguments carrying `active` (one bit per lane or one element per lane).
fn mask_args(abi: &MaskAbi, active: &[bool]) -> Vec<Val> {
    match abi {
        MaskAbi::Vector { elem, .. } => vec![Val::Vector(
            active.iter().map(|on| Val::int(elem.int_bits().unwrap(), u128::from(*on))).collect(),
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

/// Runs `original` lane by lane (active lanes only, in lane order) and the
/// widened kernel once; compares the active lanes' results and memory.
fn check_atomics(original: &Function, vector: &Function, config: &WidenConfig, trials: usize) {
    let width = config.width as usize;
    let abi = config.masked.then(|| MaskAbi::for_variant(original, config).unwrap());
    let mut rng = Rng(0x0bad_cafe_f00d_1234);
    for trial in 0..trials {
        let mut memory = Memory::new(MEMORY_BASE, MEMORY_SIZE);
        for byte in memory.bytes.iter_mut() {
            *byte = rng.next() as u8;
        }
        // Small values make cmpxchg succeed now and then; large ones wrap.
        let xs: Vec<Val> = (0..width)
            .map(|_| match rng.below(3) {
                0 => Val::int(32, rng.below(8) as u128),
                _ => Val::int(32, u128::from(rng.next() as u32)),
            })
            .collect();
        if trial % 2 == 0 {
            // Let some cmpxchg find its expected value.
            let bytes = 7u32.to_le_bytes();
            memory.bytes[40 * 4..40 * 4 + 4].copy_from_slice(&bytes);
        }
        let active: Vec<bool> = (0..width).map(|_| !config.masked || rng.below(3) != 0).collect();
        let scalar_args =
            |lane: usize| vec![Val::Ptr(MEMORY_BASE), Val::int(64, 0), xs[lane].clone()];
        let log = RefCell::new(Vec::new());
        let mut scalar_results = Vec::new();
        let scalar_memory = {
            let mut interpreter = Interpreter::new(memory.clone(), externals(&log));
            let original_unmasked = unmasked_copy(original, config.masked);
            for (lane, on) in active.iter().enumerate() {
                scalar_results.push(if *on {
                    interpreter.run(&original_unmasked, &scalar_args(lane)).expect("scalar run")
                } else {
                    None
                });
            }
            interpreter.memory
        };
        let mut vector_args = vec![Val::Ptr(MEMORY_BASE), Val::int(64, 0), Val::Vector(xs)];
        if let Some(abi) = &abi {
            vector_args.extend(mask_args(abi, &active));
        }
        let mut interpreter = Interpreter::new(memory, externals(&log));
        let result = interpreter.run(vector, &vector_args).expect("vector run");
        let Some(Val::Vector(lanes)) = result else { panic!("vector result {result:?}") };
        for lane in (0..width).filter(|lane| active[*lane]) {
            let expected = scalar_results[lane].as_ref().unwrap();
            assert!(
                lanes[lane].same_as(expected),
                "trial {trial}, lane {lane}: vector {:?}, scalar {expected:?} (active {active:?})",
                lanes[lane]
            );
        }
        assert_eq!(
            &interpreter.memory.bytes[..MEMORY_SIZE],
            &scalar_memory.bytes[..MEMORY_SIZE],
            "trial {trial}: memory differs (active {active:?})"
        );
    }
}

/// The kernel without its trailing mask parameter (never read by the body),
/// for the scalar runs.
fn unmasked_copy(func: &Function, masked: bool) -> Function {
    let mut copy = func.clone();
    if masked {
        copy.params.pop();
    }
    copy
}

const MINMAX: [AtomicRmwOp; 4] =
    [AtomicRmwOp::Max, AtomicRmwOp::Min, AtomicRmwOp::UMax, AtomicRmwOp::UMin];

#[test]
fn atomics_agree_with_the_scalar_lanes_in_order() {
    for (index, (width, isa)) in
        [(4, Isa::Sse), (8, Isa::Avx2), (16, Isa::Avx512)].iter().enumerate()
    {
        let (scalar, predicates) = atomic_kernel(MINMAX[index % 4], false);
        let config = config(*width, *isa, &[UNIFORM, LINEAR, VECTOR]);
        let vector = widen_kernel(&scalar, &config, &predicates);
        check_atomics(&scalar, &vector, &config, 60);
    }
}

#[test]
fn masked_atomics_run_only_the_active_lanes() {
    for (index, (width, isa)) in
        [(4, Isa::Sse), (8, Isa::Avx2), (16, Isa::Avx512), (32, Isa::Avx512)].iter().enumerate()
    {
        let (scalar, predicates) = atomic_kernel(MINMAX[(index + 1) % 4], true);
        let mut config = config(*width, *isa, &[UNIFORM, LINEAR, VECTOR, VECTOR]);
        config.masked = true;
        let vector = widen_kernel(&scalar, &config, &predicates);
        check_atomics(&scalar, &vector, &config, 60);
    }
}

/// Uniform-address add/or/min-max/sub/xchg become one atomic each; the
/// varying `xchg` and `cmpxchg` one per lane, with the ordering and scope kept.
#[test]
fn uniform_address_atomics_are_combined_into_one() {
    let (scalar, predicates) = atomic_kernel(AtomicRmwOp::UMax, false);
    let config = config(8, Isa::Avx2, &[UNIFORM, LINEAR, VECTOR]);
    let vector = widen_kernel(&scalar, &config, &predicates);
    let rmw_count = |op: AtomicRmwOp| {
        count(&vector, |data| matches!(data, InstData::AtomicRmw { op: found, .. } if *found == op))
    };
    for op in [AtomicRmwOp::Add, AtomicRmwOp::Or, AtomicRmwOp::UMax, AtomicRmwOp::Sub] {
        let expected = if op == AtomicRmwOp::Add { 2 } else { 1 };
        assert_eq!(rmw_count(op), expected, "{op:?}\n{vector}");
    }
    assert_eq!(rmw_count(AtomicRmwOp::Xchg), 8 + 1, "{vector}");
    let cmpxchgs: Vec<_> = insts(&vector)
        .into_iter()
        .filter_map(|data| match data {
            InstData::CmpXchg { attrs, failure_ordering, .. } => Some((*attrs, *failure_ordering)),
            _ => None,
        })
        .collect();
    assert_eq!(cmpxchgs.len(), 8, "{vector}");
    assert!(cmpxchgs.iter().all(|(attrs, failure)| attrs.ordering == AtomicOrdering::AcqRel
        && attrs.scope == SyncScope::SingleThread
        && *failure == AtomicOrdering::Monotonic));
}

/// A volatile atomic stays one atomic per lane even at a uniform address.
#[test]
fn volatile_atomics_stay_per_lane() {
    let mut func = Function::new("v", vec![Type::PTR, Type::I32], Type::I32);
    let (p, x) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let attrs = AtomicAttrs {
        ordering: AtomicOrdering::Monotonic,
        scope: SyncScope::System,
        align: 4,
        volatile: true,
    };
    let old = b.ins_value(
        InstData::AtomicRmw { op: AtomicRmwOp::Add, addr: p, value: x, attrs },
        Type::I32,
    );
    b.ret(Some(old));
    let config = config(4, Isa::Sse, &[UNIFORM, VECTOR]);
    let vector = widen_kernel(&func, &config, &BlockPredicates::all_active());
    assert_eq!(count(&vector, |data| matches!(data, InstData::AtomicRmw { .. })), 4, "{vector}");
}
