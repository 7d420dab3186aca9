//! Tests of the pairing of neighbouring gathers (`widen/gather_pairs.rs`):
//! which gathers pair, and differential execution of the paired function
//! against the original in the interpreter.

use super::*;
use crate::widen::gather_pairs::pair_adjacent_gathers;

const LANES: u32 = 8;

/// The masks of the two gathers.
#[derive(Clone, Copy, PartialEq)]
enum Masks {
    /// The parameter `mask`, for both.
    Shared,
    /// `mask` and `mask2`.
    Different,
    /// An all-true constant each (two values).
    AllTrue,
}

/// `select(mask, t[i] ^ bits(((float *)t)[i + 1]), 0)` as two gathers
/// (`t[i + 1]` at `gep i8, &t[i], 4`) under `masks`, with a store into
/// `t` between them when `store_between`.
fn neighbours(store_between: bool, masks: Masks) -> Function {
    let params = vec![
        Type::PTR,
        Type::I32.vector_of(LANES),
        Type::BOOL.vector_of(LANES),
        Type::BOOL.vector_of(LANES),
    ];
    let mut func = Function::new("neighbours", params, Type::I32.vector_of(LANES));
    let (table, index, mask, mask2) =
        (func.param_value(0), func.param_value(1), func.param_value(2), func.param_value(3));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let low_addrs = b.gep(Type::I32, table, vec![index]);
    let gather = |b: &mut FunctionBuilder, ty: Type, addrs: Value, mask: Value| {
        let vector_ty = ty.vector_of(LANES);
        let passthru = b.func.dfg.make_const(vector_ty.clone(), Constant::Poison);
        b.ins_value(
            InstData::Gather { ty: vector_ty.clone(), addrs, mask, passthru, align: 4 },
            vector_ty,
        )
    };
    let all_true = |b: &mut FunctionBuilder| {
        let one = b.func.dfg.int_const(Type::BOOL, 1);
        let lanes = Constant::Aggregate(vec![one; LANES as usize]);
        b.func.dfg.make_const(Type::BOOL.vector_of(LANES), lanes)
    };
    let (low_mask, high_mask) = match masks {
        Masks::Shared => (mask, mask),
        Masks::Different => (mask, mask2),
        Masks::AllTrue => (all_true(&mut b), all_true(&mut b)),
    };
    let low = gather(&mut b, Type::I32, low_addrs, low_mask);
    if store_between {
        let zero = b.iconst(Type::I32, 0);
        b.store(zero, table, 4);
    }
    let four = b.iconst(Type::I64, 4);
    let high_addrs = b.gep(Type::I8, low_addrs, vec![four]);
    let high = gather(&mut b, Type::F32, high_addrs, high_mask);
    let high_bits = b.cast(CastOp::Bitcast, high, Type::I32.vector_of(LANES));
    let mixed = b.binary(BinaryOp::Xor, low, high_bits);
    let zero = b.iconst(Type::I32, 0);
    let zeros = b.splat(zero, LANES);
    let result = b.select(mask, mixed, zeros);
    b.ret(Some(result));
    func
}

fn gathers(func: &Function) -> Vec<Type> {
    func.layout
        .insts()
        .filter_map(|inst| match func.dfg.inst(inst) {
            InstData::Gather { ty, .. } => Some(ty.clone()),
            _ => None,
        })
        .collect()
}

fn run(func: &Function, args: &[Val]) -> Val {
    let mut memory = Memory::new(MEMORY_BASE, MEMORY_SIZE);
    for (index, byte) in memory.bytes.iter_mut().enumerate() {
        *byte = (index as u8).wrapping_mul(101).wrapping_add(7);
    }
    let mut interpreter =
        Interpreter::new(memory, |name: &str, _: &[Val]| panic!("unexpected call of {name}"));
    let result = interpreter.run(func, args).unwrap_or_else(|error| panic!("{error:?}"));
    result.expect("a result")
}

#[test]
fn neighbouring_gathers_under_one_mask_become_one_wide_gather() {
    for masks in [Masks::Shared, Masks::AllTrue] {
        check_pairing(masks);
    }
}

/// Pairs the gathers of [`neighbours`] under `masks` and compares the
/// results with the original's in the interpreter.
fn check_pairing(masks: Masks) {
    let original = neighbours(false, masks);
    let mut paired = original.clone();
    assert_eq!(pair_adjacent_gathers(&mut paired, &DataLayout::default(), Isa::Avx2), 1);
    verify_function(&paired).unwrap_or_else(|errors| panic!("{errors}\n{paired}"));
    assert_eq!(gathers(&paired), vec![Type::I64.vector_of(LANES)], "{paired}");
    let mut rng = Rng::new(1);
    for _ in 0..200 {
        let index = (0..LANES).map(|_| Val::int(32, u128::from(rng.below(1000)))).collect();
        let mask = (0..LANES).map(|_| Val::bool(!rng.chance(33))).collect();
        let args = [
            Val::Ptr(MEMORY_BASE),
            Val::Vector(index),
            Val::Vector(mask),
            Val::Vector(vec![Val::bool(true); LANES as usize]),
        ];
        let (expected, got) = (run(&original, &args), run(&paired, &args));
        assert!(expected.same_as(&got), "{expected:?} != {got:?} on {args:?}\n{paired}");
    }
}

#[test]
fn gathers_with_a_store_between_or_other_masks_stay_apart() {
    for (store_between, masks) in [(true, Masks::Shared), (false, Masks::Different)] {
        let mut func = neighbours(store_between, masks);
        assert_eq!(pair_adjacent_gathers(&mut func, &DataLayout::default(), Isa::Avx512), 0);
        assert_eq!(gathers(&func).len(), 2);
    }
    let mut func = neighbours(false, Masks::Shared);
    assert_eq!(
        pair_adjacent_gathers(&mut func, &DataLayout::default(), Isa::Sse),
        0,
        "no gather instructions, nothing to gain"
    );
}
