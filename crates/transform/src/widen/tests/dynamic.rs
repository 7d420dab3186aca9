//! Tests of the dynamic variants of gathers and scatters (`widen/dynamic.rs`,
//! thesis 7.1/7.2): which accesses get which run-time test, what the tests
//! compare, and differential execution of the fast paths against the scalar
//! lanes.

use super::*;
use crate::predicates::BlockPredicates;

/// A store whose address the shape analysis cannot prove consecutive (a
/// zero extension of a linear index may wrap) but the heuristic expects to
/// be: a run-time test picks one vector store, else the scatter.
#[test]
fn scatters_with_likely_consecutive_addresses_get_a_vector_store_fast_path() {
    let mut func = Function::new("store", vec![Type::PTR, Type::I32, Type::F32], Type::Void);
    let (p, i, v) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let index = b.cast(CastOp::ZExt, i, Type::I64);
    let address = b.gep(Type::F32, p, vec![index]);
    b.store(v, address, 4);
    b.ret(None);
    let config = config(8, Isa::Avx2, &[UNIFORM, LINEAR, VECTOR]);
    let info = ShapeInfo::compute(&func, &DataLayout::default(), &config.params).unwrap();
    assert!(info.is_varying(address), "a zext of a linear value may wrap");
    let vector = widen(&func, &info, &config);
    let contiguous = count(&vector, |data| {
        matches!(data, InstData::Store { .. } | InstData::MaskedStore { .. })
    });
    assert!(contiguous >= 1, "a vector store on the fast path");
    assert!(
        count(&vector, |data| matches!(data, InstData::Branch { .. })) >= 1,
        "the run-time test"
    );
    let small_index = |rng: &mut Rng| Val::int(32, u128::from(rng.below(64)));
    check_differential(&func, &vector, &config, &[memory_base, small_index, any_float], 30);
}

/// The same store under a varying condition (`if (v > 0) p[i + 1] = v`,
/// whose index is no plain extension, see the next test, but a 64-bit
/// index tested as it is): the vector store also serves when lane 0 is
/// inactive, the test comparing the active lanes' indices with lane 0's
/// (frozen) one. When lane 0 had to be
/// active, a store whose condition is usually false took the scatter path
/// almost always (tests/opencl floyd_warshall: AVX-512 scatters cost their
/// full time with an empty mask).
#[test]
fn masked_stores_take_the_vector_store_fast_path_with_lane_0_inactive() {
    let params = vec![Type::PTR, Type::I32, Type::F32];
    let mut scalar = Function::new("relax", params.clone(), Type::Void);
    let (p, i, v) = (scalar.param_value(0), scalar.param_value(1), scalar.param_value(2));
    let mut b = FunctionBuilder::new(&mut scalar);
    let entry = b.create_block(Some("entry"));
    let then = b.create_block(Some("then"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    let zero = b.f32const(0.0);
    let positive = b.fcmp(FloatPredicate::Ogt, v, zero);
    b.branch(positive, then, exit);
    b.switch_to_block(then);
    let index = b.cast(CastOp::ZExt, i, Type::I64);
    let one = b.iconst(Type::I64, 1);
    let index = b.binary(BinaryOp::Add, index, one);
    let address = b.gep(Type::F32, p, vec![index]);
    b.store(v, address, 4);
    b.jump(exit);
    b.switch_to_block(exit);
    b.ret(None);

    // Linearized by hand: `then` runs under `positive`.
    let mut linearized = Function::new("relax.lin", params, Type::Void);
    let (p, i, v) =
        (linearized.param_value(0), linearized.param_value(1), linearized.param_value(2));
    let mut b = FunctionBuilder::new(&mut linearized);
    let entry = b.create_block(Some("entry"));
    let then = b.create_block(Some("then"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    let zero = b.f32const(0.0);
    let positive = b.fcmp(FloatPredicate::Ogt, v, zero);
    b.jump(then);
    b.switch_to_block(then);
    let index = b.cast(CastOp::ZExt, i, Type::I64);
    let one = b.iconst(Type::I64, 1);
    let index = b.binary(BinaryOp::Add, index, one);
    let address = b.gep(Type::F32, p, vec![index]);
    b.store(v, address, 4);
    b.jump(exit);
    b.switch_to_block(exit);
    b.ret(None);
    let mut predicates = BlockPredicates::all_active();
    predicates.set(then, Some(positive));

    let config = config(8, Isa::Avx2, &[UNIFORM, LINEAR, VECTOR]);
    let vector = widen_under(&linearized, &config, &predicates);
    // The indices and the base are frozen (inactive lanes may hold poison).
    assert_eq!(count(&vector, |data| matches!(data, InstData::Freeze { .. })), 2, "{vector}");
    let lane_of_a_mask = count(&vector, |data| {
        matches!(data, InstData::ExtractElement { vector: mask, .. }
            if vector.dfg.value_type(*mask).scalar_type() == &Type::BOOL)
    });
    assert_eq!(lane_of_a_mask, 0, "the test does not ask whether lane 0 is active:\n{vector}");
    assert_eq!(count_blocks_named(&vector, ".consecutive"), 1, "{vector}");
    let small_index = |rng: &mut Rng| Val::int(32, u128::from(rng.below(64)));
    check_differential(&scalar, &vector, &config, &[memory_base, small_index, any_float], 40);
}

/// A store at `p[zext(i)]` with `i` strided by 1 in its own width tests
/// only lane 0's index against the wrap-around (`i0 <= 255 - 7` for `i8`
/// at W = 8), not the W addresses; indices that wrap take the scatter.
#[test]
fn extended_strided_indices_get_a_scalar_wrap_test() {
    let mut func = Function::new("store", vec![Type::PTR, Type::I8, Type::F32], Type::Void);
    let (p, i, v) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let index = b.cast(CastOp::ZExt, i, Type::I64);
    let address = b.gep(Type::F32, p, vec![index]);
    b.store(v, address, 4);
    b.ret(None);
    let config = config(8, Isa::Avx2, &[UNIFORM, LINEAR, VECTOR]);
    let info = ShapeInfo::compute(&func, &DataLayout::default(), &config.params).unwrap();
    let vector = widen(&func, &info, &config);
    let wrap_test = count(&vector, |data| {
        matches!(data, InstData::Icmp { pred: IntPredicate::Ule, rhs, .. }
            if vector.dfg.int_constant(*rhs) == Some(248))
    });
    assert_eq!(wrap_test, 1, "{vector}");
    assert_eq!(count(&vector, |data| matches!(data, InstData::Freeze { .. })), 0);
    // Every base index 0..255: those above 248 wrap within the 8 lanes.
    let any_byte = |rng: &mut Rng| Val::int(8, u128::from(rng.below(256)));
    check_differential(&func, &vector, &config, &[memory_base, any_byte, any_float], 60);
}

/// `if (v > 0) p[i & 127] = v; return p[128 + ((i + 3) & 127)];` with `i` a
/// varying parameter: callers often pass a loop's `i` without a `linear`
/// clause, so the store and the gather get consecutive fast paths, each
/// tested only when `i` came in consecutive (one entry test of the
/// parameter); else they go straight to the scatter and the gather.
#[test]
fn varying_index_parameters_get_consecutive_tests_behind_an_entry_flag() {
    let params = vec![Type::PTR, Type::I32, Type::F32];
    let build = |linearized: bool| {
        let mut func = Function::new("ring", params.clone(), Type::F32);
        let (p, i, v) = (func.param_value(0), func.param_value(1), func.param_value(2));
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let then = b.create_block(Some("then"));
        let exit = b.create_block(Some("exit"));
        b.switch_to_block(entry);
        let zero = b.f32const(0.0);
        let positive = b.fcmp(FloatPredicate::Ogt, v, zero);
        if linearized {
            b.jump(then);
        } else {
            b.branch(positive, then, exit);
        }
        b.switch_to_block(then);
        let low_bits = b.iconst(Type::I32, 127);
        let slot = b.binary(BinaryOp::And, i, low_bits);
        let index = b.cast(CastOp::ZExt, slot, Type::I64);
        let address = b.gep(Type::F32, p, vec![index]);
        b.store(v, address, 4);
        b.jump(exit);
        b.switch_to_block(exit);
        let three = b.iconst(Type::I32, 3);
        let next = b.binary(BinaryOp::Add, i, three);
        let next_slot = b.binary(BinaryOp::And, next, low_bits);
        let next_index = b.cast(CastOp::ZExt, next_slot, Type::I64);
        let table = b.iconst(Type::I64, 128);
        let next_index = b.binary(BinaryOp::Add, next_index, table);
        let next_address = b.gep(Type::F32, p, vec![next_index]);
        let loaded = b.load(Type::F32, next_address, 4);
        b.ret(Some(loaded));
        (func, then, positive)
    };
    let (scalar, _, _) = build(false);
    let (linearized, then, positive) = build(true);
    let mut predicates = BlockPredicates::all_active();
    predicates.set(then, Some(positive));
    let config = config(8, Isa::Avx2, &[UNIFORM, VECTOR, VECTOR]);
    let vector = widen_under(&linearized, &config, &predicates);
    assert_eq!(count_blocks_named(&vector, ".test"), 2, "{vector}");
    assert_eq!(count_blocks_named(&vector, ".consecutive"), 2, "{vector}");
    assert_eq!(count(&vector, |data| matches!(data, InstData::Gather { .. })), 1, "{vector}");
    // One entry test of `i`, shared: a single all-lanes comparison with an
    // all-ones constant.
    let entry_tests = count(&vector, |data| {
        matches!(data, InstData::Icmp { pred: IntPredicate::Eq, rhs, .. }
            if vector.dfg.int_constant(*rhs) == Some(255))
    });
    assert_eq!(entry_tests, 1, "{vector}");
    let any_index = |rng: &mut Rng| Val::int(32, u128::from(rng.next() as u32));
    check_differential_with_consecutive_vectors(
        &scalar,
        &vector,
        &config,
        &[memory_base, any_index, any_float],
        60,
    );

    // `--dynamic-tests off` (the ablation): a plain scatter and gather.
    let mut config = config;
    config.dynamic_tests = false;
    let plain = widen_under(&linearized, &config, &predicates);
    assert_eq!(count_blocks_named(&plain, ".test"), 0, "{plain}");
    assert_eq!(count_blocks_named(&plain, ".consecutive"), 0, "{plain}");
    assert_eq!(count(&plain, |data| matches!(data, InstData::Gather { .. })), 1, "{plain}");
    // AVX2 has no scatter: the store runs per lane, with no vector store.
    assert_eq!(count(&plain, |data| matches!(data, InstData::MaskedStore { .. })), 0, "{plain}");
    check_differential(&scalar, &plain, &config, &[memory_base, any_index, any_float], 60);
}

/// `i1` takes a byte in memory and a bit in a vector: a store of bools
/// gets no vector-store fast path (fuzz seed 23489: a conditional
/// lastprivate's flags stored as packed bits).
#[test]
fn bool_stores_get_no_vector_store_fast_path() {
    let mut func = Function::new("flags", vec![Type::PTR, Type::I32, Type::BOOL], Type::Void);
    let (p, i, v) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let index = b.cast(CastOp::ZExt, i, Type::I64);
    let address = b.gep(Type::BOOL, p, vec![index]);
    b.store(v, address, 1);
    b.ret(None);
    let config = config(8, Isa::Avx2, &[UNIFORM, LINEAR, VECTOR]);
    let info = ShapeInfo::compute(&func, &DataLayout::default(), &config.params).unwrap();
    let vector = widen(&func, &info, &config);
    let vector_stores = count(&vector, |data| match data {
        InstData::Store { value, .. } | InstData::MaskedStore { value, .. } => {
            vector.dfg.value_type(*value).is_vector()
        }
        _ => false,
    });
    assert_eq!(vector_stores, 0, "no <8 x i1> store");
    let small_index = |rng: &mut Rng| Val::int(32, u128::from(rng.below(64)));
    let bools = |rng: &mut Rng| Val::int(1, u128::from(rng.below(2)));
    check_differential(&func, &vector, &config, &[memory_base, small_index, bools], 30);
}

/// `if (x < 0) r = p[x]` with `x` a varying `char` passed without a
/// `linear` clause: the gather's consecutive test compares the narrow
/// indices `x`, not the addresses (the gather keeps its own GEP in its
/// block, see `Widener::addresses_in_current_block`). `x` of 121..127,
/// -128.. in the lanes counts up by one in `i8`, but the GEP's sign
/// extension makes `p[121..127]` and `p[-128..]` of it, far apart: the
/// active lanes (`x < 0`) match lane 0's run, so the test would take the
/// vector load unless the run is checked not to wrap.
#[test]
fn narrow_index_tests_refuse_runs_that_wrap() {
    let params = vec![Type::PTR, Type::I8];
    let build = |linearized: bool| {
        let mut func = Function::new("wrap", params.clone(), Type::F32);
        let (p, x) = (func.param_value(0), func.param_value(1));
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let then = b.create_block(Some("then"));
        let exit = b.create_block(Some("exit"));
        b.switch_to_block(entry);
        let zero = b.iconst(Type::I8, 0);
        let negative = b.icmp(IntPredicate::Slt, x, zero);
        if linearized {
            b.jump(then);
        } else {
            b.branch(negative, then, exit);
        }
        b.switch_to_block(then);
        let index = b.cast(CastOp::SExt, x, Type::I64);
        let address = b.gep(Type::F32, p, vec![index]);
        let loaded = b.load(Type::F32, address, 4);
        b.jump(exit);
        b.switch_to_block(exit);
        let none = b.f32const(0.0);
        let result = if linearized {
            b.select(negative, loaded, none)
        } else {
            b.phi(Type::F32, vec![(then, loaded), (entry, none)])
        };
        b.ret(Some(result));
        (func, then, negative)
    };
    let (scalar, _, _) = build(false);
    let (linearized, then, negative) = build(true);
    let mut predicates = BlockPredicates::all_active();
    predicates.set(then, Some(negative));
    let config = config(8, Isa::Avx2, &[UNIFORM, VECTOR]);
    let vector = widen_under(&linearized, &config, &predicates);
    assert_eq!(count_blocks_named(&vector, ".consecutive"), 1, "{vector}");
    let pointer_compares = count(
        &vector,
        |data| matches!(data, InstData::Icmp { lhs, .. } if vector.dfg.value_type(*lhs).scalar_type().is_ptr()),
    );
    assert_eq!(pointer_compares, 0, "the test compares indices, not addresses:\n{vector}");
    // `p` in the middle of memory: p[-128..127] are all in it.
    let middle = |_: &mut Rng| Val::Ptr(MEMORY_BASE + MEMORY_SIZE as u64 / 2);
    // Runs that start at 121..127 wrap; one trial in two is a run.
    let high_start = |rng: &mut Rng| Val::int(8, 121 + u128::from(rng.below(7)));
    check_differential_with_consecutive_vectors(
        &scalar,
        &vector,
        &config,
        &[middle, high_start],
        40,
    );
    let any_char = |rng: &mut Rng| Val::int(8, u128::from(rng.next() as u8));
    check_differential_with_consecutive_vectors(
        &scalar,
        &vector,
        &config,
        &[middle, any_char],
        200,
    );
}

/// `float *row = p + i; return row[3];` with `i` a varying `int` passed
/// without a `linear` clause: the address is a chain, a GEP of the vector
/// index off the scalar `p` and then a GEP by a constant. The consecutive
/// test compares the indices `i` at the chain's root (no vector of
/// pointers shared with the gather; bench xs, whose `low[channel]` and
/// `high = low + 5` are such chains, 0.94x -> 1.06x on sorted energies),
/// and the fast path loads at `p + i0 + 3`.
#[test]
fn address_chains_are_tested_on_their_root_indices() {
    let params = vec![Type::PTR, Type::I32];
    let mut scalar = Function::new("chain", params.clone(), Type::F32);
    let (p, i) = (scalar.param_value(0), scalar.param_value(1));
    let mut b = FunctionBuilder::new(&mut scalar);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let index = b.cast(CastOp::SExt, i, Type::I64);
    let row = b.gep(Type::F32, p, vec![index]);
    let three = b.iconst(Type::I64, 3);
    let address = b.gep(Type::F32, row, vec![three]);
    let loaded = b.load(Type::F32, address, 4);
    b.ret(Some(loaded));

    let config = config(8, Isa::Avx2, &[UNIFORM, VECTOR]);
    let vector = widen_under(&scalar, &config, &BlockPredicates::all_active());
    assert_eq!(count_blocks_named(&vector, ".consecutive"), 1, "{vector}");
    let pointer_compares = count(
        &vector,
        |data| matches!(data, InstData::Icmp { lhs, .. } if vector.dfg.value_type(*lhs).scalar_type().is_ptr()),
    );
    assert_eq!(pointer_compares, 0, "the test compares the root's indices:\n{vector}");
    let middle = |_: &mut Rng| Val::Ptr(MEMORY_BASE + MEMORY_SIZE as u64 / 2);
    let index =
        |rng: &mut Rng| Val::int(32, (u128::from(rng.below(200)) + (1 << 32) - 100) & 0xffff_ffff);
    check_differential_with_consecutive_vectors(&scalar, &vector, &config, &[middle, index], 60);
}

/// `p[(i & 255) - 1]` with `i` a linear 64-bit index (LLVM's form of
/// `v[i - 1]` for an `int i` it proved non-negative: `zext(trunc(i))` as
/// `i & 0xffffffff`, then a GEP by a constant). The lanes' indices count up
/// from `i0 & 255` unless they wrap within the vector, so the fast path
/// tests one scalar (`(i0 & 255) <= 255 - 7` at W = 8), not the W indices
/// (tests/programs guard_page_scans paid two W-lane comparisons of 64-bit
/// indices per load in its inner loops), and loads at `p + (i0 & 255) - 1`.
#[test]
fn low_bit_masks_of_linear_indices_get_a_scalar_wrap_test() {
    let mut scalar = Function::new("masked", vec![Type::PTR, Type::I64], Type::F32);
    let (p, i) = (scalar.param_value(0), scalar.param_value(1));
    let mut b = FunctionBuilder::new(&mut scalar);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let low_mask = b.iconst(Type::I64, 255);
    let index = b.binary(BinaryOp::And, i, low_mask);
    let element = b.gep(Type::F32, p, vec![index]);
    let minus_four = b.iconst(Type::I64, -4);
    let address = b.gep(Type::I8, element, vec![minus_four]);
    let loaded = b.load(Type::F32, address, 4);
    b.ret(Some(loaded));

    let config = config(8, Isa::Avx2, &[UNIFORM, LINEAR]);
    let vector = widen_under(&scalar, &config, &BlockPredicates::all_active());
    assert_eq!(count_blocks_named(&vector, ".consecutive"), 1, "{vector}");
    let wrap_test = count(&vector, |data| {
        matches!(data, InstData::Icmp { pred: IntPredicate::Ule, rhs, .. }
            if vector.dfg.int_constant(*rhs) == Some(248))
    });
    assert_eq!(wrap_test, 1, "{vector}");
    let vector_compares = count(
        &vector,
        |data| matches!(data, InstData::Icmp { lhs, .. } if vector.dfg.value_type(*lhs).is_vector()),
    );
    assert_eq!(vector_compares, 0, "no test of the W indices:\n{vector}");
    // Starts on both sides of the wrap at 248 and of 256 (index 0: the
    // element before `p + 4`).
    let past_first = |_: &mut Rng| Val::Ptr(MEMORY_BASE + 4);
    let any_start = |rng: &mut Rng| Val::int(64, u128::from(rng.below(600)));
    check_differential(&scalar, &vector, &config, &[past_first, any_start], 80);
}

/// The same with an `i32` index `i & 0xffffffff` (an identity that LLVM
/// folds, but not every producer does): the GEP sign-extends it, so lanes
/// 0x7fffffff and 0x80000000 are 2^32 elements apart and the scalar test
/// of the low bits does not apply; a 31-bit mask keeps the indices
/// non-negative and gets it.
#[test]
fn low_bit_masks_of_narrow_indices_stay_below_the_sign_bit() {
    let wrap_tests = |low_mask: i128| {
        let mut scalar = Function::new("masked32", vec![Type::PTR, Type::I32], Type::F32);
        let (p, i) = (scalar.param_value(0), scalar.param_value(1));
        let mut b = FunctionBuilder::new(&mut scalar);
        let entry = b.create_block(Some("entry"));
        b.switch_to_block(entry);
        let low_mask = b.iconst(Type::I32, low_mask);
        let index = b.binary(BinaryOp::And, i, low_mask);
        let address = b.gep(Type::F32, p, vec![index]);
        let loaded = b.load(Type::F32, address, 4);
        b.ret(Some(loaded));
        let config = config(8, Isa::Avx2, &[UNIFORM, LINEAR]);
        let vector = widen_under(&scalar, &config, &BlockPredicates::all_active());
        count(&vector, |data| matches!(data, InstData::Icmp { pred: IntPredicate::Ule, .. }))
    };
    assert_eq!(wrap_tests(0xffff_ffff), 0, "a sign-extended index may wrap");
    assert_eq!(wrap_tests(0x7fff_ffff), 1);
}

/// Table lookups by a float converted to an integer, chained as Perlin
/// noise chains them (`t[(t[(t[cell(x)] + c) & 255] + c) & 255]`, `cell(x)
/// = fptosi(x) & 255`): neighbouring lanes of a coherent input fall into
/// the same grid cell, so each of the three gathers gets the uniform test
/// (one scalar load when all active lanes read one address), the last one
/// eleven values away from the conversion. bench/kernels/perlin at W=8:
/// 2.29x -> 3.38x over scalar (fastest of 5 runs each).
#[test]
fn lookups_by_float_grid_cells_get_uniform_tests() {
    let params = vec![Type::PTR, Type::F32, Type::I32];
    let mut scalar = Function::new("noise", params, Type::I32);
    let (table, x, c) = (scalar.param_value(0), scalar.param_value(1), scalar.param_value(2));
    let mut b = FunctionBuilder::new(&mut scalar);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let low_byte = b.iconst(Type::I32, 255);
    let cell = b.cast(CastOp::FPToSI, x, Type::I32);
    let mut index = b.binary(BinaryOp::And, cell, low_byte);
    let mut loaded = index;
    for _ in 0..3 {
        let wide = b.cast(CastOp::ZExt, index, Type::I64);
        let address = b.gep(Type::I32, table, vec![wide]);
        loaded = b.load(Type::I32, address, 4);
        let shifted = b.binary(BinaryOp::Add, loaded, c);
        index = b.binary(BinaryOp::And, shifted, low_byte);
    }
    b.ret(Some(loaded));

    let config = config(8, Isa::Avx2, &[UNIFORM, VECTOR, UNIFORM]);
    let vector = widen_under(&scalar, &config, &BlockPredicates::all_active());
    assert_eq!(count_blocks_named(&vector, ".uniform"), 3, "{vector}");
    // Most lanes in one cell (all eight in about a third of the calls),
    // the others anywhere in the table.
    let coherent = |rng: &mut Rng| {
        let x = if rng.below(8) != 0 { 3.75 } else { rng.below(25_600) as f32 / 100.0 };
        Val::F32(x)
    };
    let any_int = |rng: &mut Rng| Val::int(32, u128::from(rng.below(1 << 16)));
    check_differential(&scalar, &vector, &config, &[memory_base, coherent, any_int], 60);
}

/// A flat 2D index `i` split into a row and a column (`(i / w) * s + i %
/// w`, as image code over `w`-pixel rows of stride `s` writes it) is
/// likely consecutive: neighbouring lanes share the row unless the vector
/// crosses a row's end. A quotient alone (`t[i >> 4]`, the word of a
/// bitmap) is likely uniform.
#[test]
fn flat_indices_split_into_rows_and_columns_get_tests() {
    let params = vec![Type::PTR, Type::I32, Type::I32, Type::I32];
    let mut scalar = Function::new("pixel", params, Type::I32);
    let (p, i, w, s) = (
        scalar.param_value(0),
        scalar.param_value(1),
        scalar.param_value(2),
        scalar.param_value(3),
    );
    let mut b = FunctionBuilder::new(&mut scalar);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let row = b.binary(BinaryOp::UDiv, i, w);
    let row_start = b.binary(BinaryOp::Mul, row, s);
    let column = b.binary(BinaryOp::URem, i, w);
    let index = b.binary(BinaryOp::Add, row_start, column);
    let wide = b.cast(CastOp::ZExt, index, Type::I64);
    let pixel = b.gep(Type::I32, p, vec![wide]);
    let pixel = b.load(Type::I32, pixel, 4);
    let four = b.iconst(Type::I32, 4);
    let word = b.binary(BinaryOp::LShr, i, four);
    let wide = b.cast(CastOp::ZExt, word, Type::I64);
    let bits = b.gep(Type::I32, p, vec![wide]);
    let bits = b.load(Type::I32, bits, 4);
    let sum = b.binary(BinaryOp::Add, pixel, bits);
    b.ret(Some(sum));

    let config = config(8, Isa::Avx2, &[UNIFORM, VECTOR, UNIFORM, UNIFORM]);
    let vector = widen_under(&scalar, &config, &BlockPredicates::all_active());
    assert_eq!(count_blocks_named(&vector, ".consecutive"), 1, "{vector}");
    assert_eq!(count_blocks_named(&vector, ".uniform"), 1, "{vector}");
    // Rows of 12 to 27 pixels in a 1 KiB buffer, 8 lanes from any start
    // (consecutive in every other trial): some vectors fit in a row, some
    // cross into the next.
    let start = |rng: &mut Rng| Val::int(32, u128::from(rng.below(200)));
    let width = |rng: &mut Rng| Val::int(32, u128::from(12 + rng.below(16)));
    let stride = |_: &mut Rng| Val::int(32, 28);
    check_differential_with_consecutive_vectors(
        &scalar,
        &vector,
        &config,
        &[memory_base, start, width, stride],
        60,
    );
}
