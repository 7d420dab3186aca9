//! Tests of loop narrowing: hand-written widened divergent loops (the shape
//! the divergent-loop transform and widening produce) run in the reference
//! interpreter before and after narrowing, on inputs where every number of
//! lanes from none to all stays live.

use lanewise_ir::{verify_function, FunctionBuilder};

use super::*;
use crate::interp::{Interpreter, Memory, Val};
use crate::test_support::Rng;

const MEMORY_BASE: u64 = 0x1000;
/// Entries of the gathered table (`i32`), at the start of the memory.
const TABLE_ENTRIES: u64 = 16;

/// What the test loop holds besides the Collatz-like step.
#[derive(Copy, Clone, Default)]
struct Extras {
    /// A contiguous vector load in the loop (lanes by position).
    contiguous_load: bool,
    /// A value of the loop body (not carried) used after the loop.
    uncarried_live_out: bool,
    /// No gather (whose `<W x ptr>` addresses are the widest vectors).
    no_gather: bool,
    /// Also carries an `<W x i8>`, a `<W x ptr>` (the addresses gathered in
    /// the next iteration) and a `<W x double>` tracker (returned added in).
    more_types: bool,
    /// The loop is entered without an `any` test, so that its exit block
    /// has it as its only predecessor and uses its values without phis.
    always_entered: bool,
}

/// `f(<W x i32> start, ptr table) -> <W x i32>`: per lane, a Collatz-like
/// walk from `start` (`3v + 1 + 2 * (start & 3) + lane` for odd `v`, `v / 2`
/// for even) of at most 60 steps, as the divergent-loop transform and
/// widening leave it: a live mask phi, a uniform step counter, a tracker
/// that keeps `steps + table[v & 15]` from the iteration the lane leaves
/// in, and `br any(live.next)`. It reads a live-in vector (`2 * (start &
/// 3)`), a lane-dependent constant (the lane numbers), gathers from
/// `table` (or computes the same, `7 * (v & 15)`), and returns the tracker plus, as a second live-out, 1000 in the
/// lanes that entered the loop.
fn widened_walk(width: u32, extras: Extras) -> Function {
    let i32s = Type::I32.vector_of(width);
    let masks = Type::BOOL.vector_of(width);
    let mut func = Function::new("walk", vec![i32s.clone(), Type::PTR], i32s.clone());
    let (start, table) = (func.param_value(0), func.param_value(1));
    let splat_const = |func: &mut Function, value: i128| {
        let element = func.dfg.int_const(Type::I32, value as u128);
        func.dfg.make_const(i32s.clone(), Constant::Aggregate(vec![element; width as usize]))
    };
    let one = splat_const(&mut func, 1);
    let two = splat_const(&mut func, 2);
    let three = splat_const(&mut func, 3);
    let fifteen = splat_const(&mut func, 15);
    let seven = splat_const(&mut func, 7);
    let thousand = splat_const(&mut func, 1000);
    let zero = func.dfg.make_const(i32s.clone(), Constant::Zero);
    let lane_numbers: Vec<Value> =
        (0..width).map(|lane| func.dfg.int_const(Type::I32, u128::from(lane))).collect();
    let lane_numbers = func.dfg.make_const(i32s.clone(), Constant::Aggregate(lane_numbers));
    let any_name = format!("llvm.vector.reduce.or.v{width}i1");

    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("header"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    let low = b.binary(BinaryOp::And, start, three);
    let bias = b.binary(BinaryOp::Mul, low, two);
    let live0 = b.icmp(IntPredicate::Ugt, start, one);
    let any0 = b.call(Callee::Direct(any_name.clone()), vec![live0], Type::BOOL, CallEffects::Pure);
    let any0 = b.func.dfg.result(any0).unwrap();
    let (bytes_start, addresses_start) = if extras.more_types {
        let bytes = b.cast(CastOp::Trunc, start, Type::I8.vector_of(width));
        (Some(bytes), Some(b.gep(Type::I32, table, vec![zero])))
    } else {
        (None, None)
    };
    if extras.always_entered {
        b.jump(header);
    } else {
        b.branch(any0, header, exit);
    }

    b.switch_to_block(header);
    let live = b.phi(masks.clone(), vec![]);
    let steps = b.phi(Type::I32, vec![]);
    let value = b.phi(i32s.clone(), vec![]);
    let poison = b.func.dfg.make_const(i32s.clone(), Constant::Poison);
    let tracker = b.phi(i32s.clone(), vec![]);
    let doubles = Type::F64.vector_of(width);
    let more = extras.more_types.then(|| {
        (
            b.phi(Type::I8.vector_of(width), vec![]),
            b.phi(Type::PTR.vector_of(width), vec![]),
            b.phi(doubles.clone(), vec![]),
        )
    });
    let odd = b.binary(BinaryOp::And, value, one);
    let is_even = b.icmp(IntPredicate::Eq, odd, zero);
    let half = b.binary(BinaryOp::LShr, value, one);
    let triple = b.binary(BinaryOp::Mul, value, three);
    let triple = b.binary(BinaryOp::Add, triple, one);
    let triple = b.binary(BinaryOp::Add, triple, bias);
    let triple = b.binary(BinaryOp::Add, triple, lane_numbers);
    let mut next = b.select(is_even, half, triple);
    if extras.contiguous_load {
        let loaded = b.load(i32s.clone(), table, 4);
        next = b.binary(BinaryOp::Xor, next, loaded);
        next = b.binary(BinaryOp::And, next, fifteen);
    }
    let index = b.binary(BinaryOp::And, next, fifteen);
    let gathered = if extras.no_gather {
        b.binary(BinaryOp::Mul, index, seven)
    } else {
        let addresses = b.gep(Type::I32, table, vec![index]);
        let gather = InstData::Gather {
            ty: i32s.clone(),
            addrs: addresses,
            mask: live,
            passthru: zero,
            align: 4,
        };
        b.ins_value(gather, i32s.clone())
    };
    let one_scalar = b.iconst(Type::I32, 1);
    let steps_next = b.binary(BinaryOp::Add, steps, one_scalar);
    let steps_lanes = b.splat(steps_next, width);
    let mut record = b.binary(BinaryOp::Add, steps_lanes, gathered);
    let more_next = more.map(|(bytes, addresses, _)| {
        let step = b.cast(CastOp::Trunc, next, Type::I8.vector_of(width));
        let bytes_next = b.binary(BinaryOp::Add, bytes, step);
        let gather = InstData::Gather {
            ty: i32s.clone(),
            addrs: addresses,
            mask: live,
            passthru: zero,
            align: 4,
        };
        let previous = b.ins_value(gather, i32s.clone());
        let wide_bytes = b.cast(CastOp::ZExt, bytes_next, i32s.clone());
        record = b.binary(BinaryOp::Add, record, previous);
        record = b.binary(BinaryOp::Xor, record, wide_bytes);
        let addresses_next = b.gep(Type::I32, table, vec![index]);
        (bytes_next, addresses_next)
    });
    let going = b.icmp(IntPredicate::Ugt, next, one);
    let limit = b.iconst(Type::I32, 60);
    let below_limit = b.icmp(IntPredicate::Ult, steps_next, limit);
    let below_limit = b.splat(below_limit, width);
    let going = b.binary(BinaryOp::And, going, below_limit);
    let live_next = b.binary(BinaryOp::And, live, going);
    let kept = b.select(going, tracker, record);
    let tracker_next = b.select(live, kept, tracker);
    let float_tracker_next = more.map(|(_, _, float_tracker)| {
        let recorded = b.cast(CastOp::SIToFP, record, doubles.clone());
        let kept = b.select(going, float_tracker, recorded);
        b.select(live, kept, float_tracker)
    });
    let any = b.call(Callee::Direct(any_name), vec![live_next], Type::BOOL, CallEffects::Pure);
    let any = b.func.dfg.result(any).unwrap();
    b.branch(any, header, exit);
    let incoming =
        |from_entry: Value, from_latch: Value| vec![(entry, from_entry), (header, from_latch)];
    let phi_inst = |b: &FunctionBuilder<'_>, value: Value| b.func.dfg.defining_inst(value).unwrap();
    for (phi, entry_value, latch_value) in
        [(live, live0, live_next), (value, start, next), (tracker, poison, tracker_next)]
    {
        let inst = phi_inst(&b, phi);
        set_phi_incoming(b.func, inst, incoming(entry_value, latch_value));
    }
    let zero_steps = b.iconst(Type::I32, 0);
    let inst = phi_inst(&b, steps);
    set_phi_incoming(b.func, inst, incoming(zero_steps, steps_next));
    let zero_doubles = b.func.dfg.make_const(doubles.clone(), Constant::Zero);
    if let (Some((bytes, addresses, float_tracker)), Some((bytes_next, addresses_next))) =
        (more, more_next)
    {
        for (phi, entry_value, latch_value) in [
            (bytes, bytes_start.unwrap(), bytes_next),
            (addresses, addresses_start.unwrap(), addresses_next),
            (float_tracker, zero_doubles, float_tracker_next.unwrap()),
        ] {
            let inst = phi_inst(&b, phi);
            set_phi_incoming(b.func, inst, incoming(entry_value, latch_value));
        }
    }

    b.switch_to_block(exit);
    let tracked = if extras.always_entered {
        tracker_next
    } else {
        b.phi(i32s.clone(), vec![(entry, zero), (header, tracker_next)])
    };
    let float_tracked = float_tracker_next.map(|float_tracker_next| {
        if extras.always_entered {
            float_tracker_next
        } else {
            b.phi(doubles.clone(), vec![(entry, zero_doubles), (header, float_tracker_next)])
        }
    });
    let last_gathered = extras
        .uncarried_live_out
        .then(|| b.phi(i32s.clone(), vec![(entry, zero), (header, gathered)]));
    let entered = b.select(live0, thousand, zero);
    let mut result = b.binary(BinaryOp::Add, tracked, entered);
    if let Some(last_gathered) = last_gathered {
        result = b.binary(BinaryOp::Add, result, last_gathered);
    }
    if let Some(float_tracked) = float_tracked {
        let converted = b.cast(CastOp::FPToSI, float_tracked, i32s.clone());
        let doubled = b.binary(BinaryOp::Mul, converted, two);
        result = b.binary(BinaryOp::Add, result, doubled);
    }
    b.ret(Some(result));
    verify_function(&func).unwrap_or_else(|errors| panic!("{errors}"));
    func
}

/// The result of `func` on `starts`, with table entry i holding `i * 7`.
fn run(func: &Function, starts: &[u32]) -> Vec<u128> {
    let mut memory = Memory::new(MEMORY_BASE, (TABLE_ENTRIES * 4) as usize);
    for entry in 0..TABLE_ENTRIES {
        let bytes = ((entry * 7) as u32).to_le_bytes();
        memory.write(MEMORY_BASE + entry * 4, &bytes).unwrap();
    }
    let mut interpreter =
        Interpreter::new(memory, |name: &str, _: &[Val]| panic!("unexpected call of {name}"));
    let starts = Val::Vector(starts.iter().map(|start| Val::int(32, u128::from(*start))).collect());
    let result = interpreter
        .run(func, &[starts, Val::Ptr(MEMORY_BASE)])
        .unwrap_or_else(|error| panic!("{error}\n{func}"));
    match result {
        Some(Val::Vector(lanes)) => lanes
            .iter()
            .map(|lane| match lane {
                Val::Int { value, .. } => *value,
                // Lanes that never entered the loop keep the tracker's
                // initial poison, in both versions.
                Val::Poison => u128::MAX,
                other => panic!("lane {other:?}"),
            })
            .collect(),
        other => panic!("result {other:?}"),
    }
}

/// Starting values: lanes that never enter (0 and 1), and walks of random
/// lengths; the number of lanes entering goes from none to all.
fn inputs(width: u32, trials: usize) -> Vec<Vec<u32>> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut inputs = vec![vec![1; width as usize], vec![5; width as usize]];
    for trial in 0..trials {
        let entering = trial % (width as usize + 1);
        inputs.push(
            (0..width as usize)
                .map(|lane| {
                    if lane < entering {
                        2 + (rng.next() % 300) as u32
                    } else {
                        (rng.next() % 2) as u32
                    }
                })
                .collect(),
        );
    }
    inputs
}

/// Narrows `func` and checks the verifier and that every input gives the
/// same results; returns the report.
fn check_narrowing(func: &Function, config: &NarrowConfig) -> (Function, NarrowReport) {
    let width = func.params[0].ty.lanes().unwrap();
    let mut narrowed = func.clone();
    let report = narrow_divergent_loops(&mut narrowed, config);
    verify_function(&narrowed).unwrap_or_else(|errors| panic!("{errors}\n{narrowed}"));
    for starts in inputs(width, 60) {
        assert_eq!(run(&narrowed, &starts), run(func, &starts), "starts {starts:?}\n{narrowed}");
    }
    (narrowed, report)
}

fn count_calls(func: &Function, prefix: &str) -> usize {
    func.layout
        .insts()
        .filter(|inst| func.dfg.callee_name(*inst).is_some_and(|name| name.starts_with(prefix)))
        .count()
}

#[test]
fn narrowing_at_every_chance_keeps_every_lane_result() {
    // 8 lanes of 32 bits on 128-bit registers: two registers per value, so
    // the first compaction merges two compressed halves; then 4, 2, 1 lanes.
    let func = widened_walk(8, Extras::default());
    let (narrowed, report) = check_narrowing(&func, &NarrowConfig::always(128, false));
    assert_eq!(report.narrowed_loops, 1);
    assert_eq!(report.narrow_copies, 3, "8 -> 4 -> 2 -> 1 lanes");
    assert!(count_calls(&narrowed, "llvm.experimental.vector.compress.v4i32") > 0);
    assert!(count_calls(&narrowed, "llvm.masked.expandload.v8i32") > 0);
    assert_eq!(count_calls(&narrowed, "llvm.x86"), 0);
    // The same with AVX-512's expand in registers where the vectors have
    // an x86 size.
    let (narrowed, _) = check_narrowing(&func, &NarrowConfig::always(128, true));
    assert!(count_calls(&narrowed, "llvm.x86.avx512.mask.expand.v4i32") > 0);

    // One register per value: compress and take the lower half.
    let func = widened_walk(16, Extras::default());
    for avx512 in [false, true] {
        let (_, report) = check_narrowing(&func, &NarrowConfig::always(512, avx512));
        assert_eq!(report.narrow_copies, 4, "16 -> 8 -> 4 -> 2 -> 1 lanes");
    }
}

#[test]
fn lanes_of_every_type_travel_through_compaction_and_expansion() {
    // i8 and pointer lanes travel as i32 and i64, doubles as they are; at
    // 16 lanes the doubles take the two-register path, at 8 lanes one
    // register. The exit block, entered only from the loop, reads the
    // trackers directly: they get join phis.
    for width in [8, 16] {
        let extras = Extras { more_types: true, always_entered: true, ..Extras::default() };
        let func = widened_walk(width, extras);
        for avx512 in [false, true] {
            let (narrowed, report) = check_narrowing(&func, &NarrowConfig::always(512, avx512));
            assert!(report.narrow_copies >= 3, "{width} lanes: {report:?}");
            let suffix = if width == 16 { "v8f64" } else { "v4f64" };
            let compress = format!("llvm.experimental.vector.compress.{suffix}");
            assert!(count_calls(&narrowed, &compress) > 0, "{narrowed}");
        }
    }
}

#[test]
fn profitable_narrowing_waits_and_stops_at_256_bits() {
    // 32 lanes of 32 bits on AVX-512: copies at 16 and 8 lanes, after 16
    // iterations of the loop.
    let func = widened_walk(32, Extras::default());
    let (narrowed, report) = check_narrowing(&func, &NarrowConfig::profitable_on_avx512());
    assert_eq!((report.narrowed_loops, report.narrow_copies), (1, 2));
    let header = narrowed.layout.blocks()[1];
    let counters = block_phis(&narrowed, header)
        .into_iter()
        .filter(|phi| narrowed.dfg.value_type(narrowed.dfg.result(*phi).unwrap()) == &Type::I32)
        .count();
    assert_eq!(counters, 2, "the step counter and the iteration count of the guard");
    assert!(report.refused.is_empty(), "{:?}", report.refused);
}

#[test]
fn loops_that_address_lanes_by_position_stay() {
    let func = widened_walk(8, Extras { contiguous_load: true, ..Extras::default() });
    let (narrowed, report) = check_narrowing(&func, &NarrowConfig::always(256, false));
    assert_eq!(report.narrowed_loops, 0);
    assert_eq!(narrowed.layout.blocks().len(), func.layout.blocks().len());
    let [(header, reason)] = report.refused.as_slice() else { panic!("{:?}", report.refused) };
    assert_eq!(header, "header");
    assert!(reason.contains("contiguous vector access"), "{reason}");
}

#[test]
fn loops_with_uncarried_live_outs_stay() {
    let func = widened_walk(8, Extras { uncarried_live_out: true, ..Extras::default() });
    let (_, report) = check_narrowing(&func, &NarrowConfig::always(256, false));
    assert_eq!(report.narrowed_loops, 0);
    let [(_, reason)] = report.refused.as_slice() else { panic!("{:?}", report.refused) };
    assert!(reason.contains("not carried by a header phi"), "{reason}");
}

#[test]
fn loops_of_one_register_are_not_narrowed_where_it_does_not_pay() {
    // 16 lanes of 32 bits: one zmm register, whose narrow copy would run
    // at the latency of the loop's recurrence.
    let func = widened_walk(16, Extras { no_gather: true, ..Extras::default() });
    let (_, report) = check_narrowing(&func, &NarrowConfig::profitable_on_avx512());
    assert_eq!(report.narrowed_loops, 0);
    let [(_, reason)] = report.refused.as_slice() else { panic!("{:?}", report.refused) };
    assert!(reason.contains("16 lanes of 32 bits are narrower than 1024 bits"), "{reason}");
}
