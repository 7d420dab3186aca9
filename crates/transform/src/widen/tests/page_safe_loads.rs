//! Tests of page-safe speculative loads ([`crate::widen::page_safe_loads`]):
//! where masked contiguous loads become unmasked ones and behind which
//! tests, and differential execution at the edges of pages and of memory.

use super::masked::{kernel_config, linearized_kernel, mask_args, widen_masked};
use super::*;
use crate::predicates::{add_entry_mask_param, BlockPredicates};
use crate::widen::masked::MaskAbi;

fn is_speculative(data: &InstData) -> bool {
    matches!(data, InstData::SpeculativeLoad { .. })
}

/// The instruction that defines `value`, if one does.
fn definition(func: &Function, value: Value) -> Option<&InstData> {
    func.dfg.defining_inst(value).map(|inst| func.dfg.inst(inst))
}

fn is_masked_load(data: &InstData) -> bool {
    matches!(data, InstData::MaskedLoad { .. })
}

/// The conditions of the branches into the `.speculative` blocks.
fn speculation_conditions(vector: &Function) -> Vec<Value> {
    let speculative_blocks: Vec<Block> = vector
        .layout
        .blocks()
        .iter()
        .copied()
        .filter(|block| vector.block_name(*block).ends_with(".speculative"))
        .collect();
    insts(vector)
        .into_iter()
        .filter_map(|data| match data {
            InstData::Branch { cond, then_dest, .. } if speculative_blocks.contains(then_dest) => {
                Some(*cond)
            }
            _ => None,
        })
        .collect()
}

#[test]
fn masked_contiguous_loads_are_speculative_behind_an_any_and_page_test() {
    let (scalar, predicates) = linearized_kernel(false);
    let config = kernel_config(8, Isa::Avx2, false);
    let vector = widen_masked(&scalar, &config, &predicates).function;
    // The contiguous load `a[i]` and the consecutive fast path of the
    // gather `a[x & 63]`, each with the masked load as its fallback.
    assert_eq!(count(&vector, is_speculative), 2);
    assert_eq!(count(&vector, is_masked_load), 2);
    let conditions = speculation_conditions(&vector);
    assert_eq!(conditions.len(), 2);
    for cond in conditions {
        // `select any(mask), in_page, false`: never a branch on an address
        // that may be poison when no lane is active.
        let Some(InstData::Select { if_true, if_false, .. }) = definition(&vector, cond) else {
            panic!("the condition is {}", vector.dfg.display_value(cond));
        };
        assert!(matches!(definition(&vector, *if_true), Some(InstData::Icmp { .. })));
        assert_eq!(vector.dfg.int_constant(*if_false), Some(0));
    }
}

#[test]
fn a_block_known_to_have_an_active_lane_tests_only_the_page() {
    let (scalar, mut predicates) = linearized_kernel(false);
    let then = scalar.layout.blocks()[1];
    assert_eq!(scalar.block_name(then), "then");
    predicates.set_some_lane_active(then);
    let config = kernel_config(8, Isa::Avx2, false);
    let vector = widen_masked(&scalar, &config, &predicates).function;
    let conditions = speculation_conditions(&vector);
    assert_eq!(conditions.len(), 2);
    for cond in conditions {
        let condition = definition(&vector, cond);
        assert!(
            matches!(condition, Some(InstData::Icmp { pred: IntPredicate::Ule, .. })),
            "{condition:?}"
        );
    }
}

#[test]
fn loads_of_several_registers_go_a_register_at_a_time() {
    let (scalar, predicates) = linearized_kernel(false);
    // Eight `i32`s on SSE: two registers, each part behind its own tests
    // (the contiguous load; SSE has no gathers, so no consecutive path).
    let config = kernel_config(8, Isa::Sse, false);
    let vector = widen_masked(&scalar, &config, &predicates).function;
    assert_eq!(count(&vector, is_speculative), 2);
    assert_eq!(count(&vector, is_masked_load), 2);
    for data in insts(&vector) {
        if let InstData::SpeculativeLoad { ty, .. } = data {
            assert_eq!(*ty, Type::I32.vector_of(4));
        }
    }
    // Each part's `any` reduces its own four lanes (LLVM rejects a call of
    // `llvm.vector.reduce.or.v8i1` on four).
    let reductions: Vec<String> =
        callees(&vector).into_iter().filter(|name| name.contains("reduce.or")).collect();
    assert!(reductions.iter().any(|name| name == "llvm.vector.reduce.or.v4i1"), "{reductions:?}");
    // Thirty-two on SSE: eight registers, more than it splits.
    let config = kernel_config(32, Isa::Sse, false);
    let vector = widen_masked(&scalar, &config, &predicates).function;
    assert_eq!(count(&vector, is_speculative), 0);
}

#[test]
fn the_ablation_keeps_the_masked_loads() {
    let (scalar, predicates) = linearized_kernel(false);
    let mut config = kernel_config(8, Isa::Avx2, false);
    config.speculative_loads = false;
    let vector = widen_masked(&scalar, &config, &predicates).function;
    assert_eq!(count(&vector, is_speculative), 0);
    assert_eq!(count(&vector, is_masked_load), 2);
    assert_eq!(count_blocks_named(&vector, ".speculative"), 0);
}

/// `f(a, i, x) = x > 10 ? a[i] : x` as a masked variant, linearized by
/// hand: the load runs in `then` under `mask && x > 10`.
fn guarded_load_kernel() -> (Function, BlockPredicates) {
    let mut func = Function::new("guarded", vec![Type::PTR, Type::I64, Type::I32], Type::I32);
    let mask = add_entry_mask_param(&mut func);
    let (a, i, x) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let then = b.create_block(Some("then"));
    let join = b.create_block(Some("join"));
    b.switch_to_block(entry);
    let ten = b.iconst(Type::I32, 10);
    let c = b.icmp(IntPredicate::Sgt, x, ten);
    let then_pred = b.binary(BinaryOp::And, c, mask);
    b.jump(then);
    b.switch_to_block(then);
    let p = b.gep(Type::I32, a, vec![i]);
    let v = b.load(Type::I32, p, 4);
    b.jump(join);
    b.switch_to_block(join);
    let r = b.select(c, v, x);
    b.ret(Some(r));
    let mut predicates = BlockPredicates::all_active();
    predicates.set(entry, Some(mask));
    predicates.set(then, Some(then_pred));
    (func, predicates)
}

/// The guarded load over memory that spans a page boundary (0x2000) and
/// ends 256 bytes into the next page: runs that straddle the boundary
/// must take the masked load (the interpreter refuses a speculative load
/// that crosses a page), runs past the end of memory read poison in their
/// inactive lanes, and the active lanes agree with the scalar function.
#[test]
fn speculative_loads_agree_with_the_scalar_lanes_at_page_and_memory_edges() {
    const BASE: u64 = 0x1f00;
    const ELEMENTS: u64 = 128;
    let (scalar, predicates) = guarded_load_kernel();
    let cases = [(4, Isa::Sse, 1), (8, Isa::Avx2, 1), (16, Isa::Avx512, 1), (8, Isa::Sse, 2)];
    for (width, isa, registers) in cases.into_iter().chain([(32, Isa::Avx512, 2)]) {
        let mut config = config(width, isa, &[UNIFORM, LINEAR, VECTOR, VECTOR]);
        config.masked = true;
        let vector = widen_masked(&scalar, &config, &predicates).function;
        assert_eq!(count(&vector, is_speculative), registers);
        let abi = MaskAbi::for_variant(&scalar, &config).unwrap();
        let mut rng = Rng(0x5eed_0f5e_ed00);
        let mut speculative_runs = 0;
        for trial in 0..400 {
            let mut memory = Memory::new(BASE, (ELEMENTS * 4) as usize);
            for byte in memory.bytes.iter_mut() {
                *byte = rng.next() as u8;
            }
            let start = rng.below(ELEMENTS);
            let width = u64::from(width);
            // Lanes past the end of memory are inactive, as a caller's
            // loop tail would leave them.
            let active: Vec<bool> =
                (0..width).map(|lane| start + lane < ELEMENTS && rng.chance(70)).collect();
            let xs: Vec<u64> = (0..width).map(|_| rng.below(20)).collect();
            let address = BASE + 4 * start;
            let in_one_page = address % PAGE_BYTES + 4 * width <= PAGE_BYTES;
            let loads = active.iter().zip(&xs).any(|(on, x)| *on && *x > 10);
            if in_one_page && loads {
                speculative_runs += 1;
            }
            let lane_args = |lane: u64| {
                vec![
                    Val::Ptr(BASE),
                    Val::int(64, u128::from(start + lane)),
                    Val::int(32, u128::from(xs[lane as usize])),
                    Val::int(1, 1),
                ]
            };
            let mut vector_args = vec![
                Val::Ptr(BASE),
                Val::int(64, u128::from(start)),
                Val::Vector(xs.iter().map(|x| Val::int(32, u128::from(*x))).collect()),
            ];
            vector_args.extend(mask_args(&abi, &active));
            let mut interpreter = Interpreter::new(memory.clone(), |name: &str, _: &[Val]| {
                Err(InterpError(format!("unexpected call of {name}")))
            });
            let result = interpreter
                .run(&vector, &vector_args)
                .unwrap_or_else(|error| panic!("trial {trial}, W={width}: {error:?}"));
            let Some(Val::Vector(lanes)) = result else { panic!("vector result {result:?}") };
            for lane in (0..width).filter(|lane| active[*lane as usize]) {
                let mut scalar_interpreter =
                    Interpreter::new(memory.clone(), |name: &str, _: &[Val]| {
                        Err(InterpError(format!("unexpected call of {name}")))
                    });
                let expected = scalar_interpreter.run(&scalar, &lane_args(lane)).unwrap().unwrap();
                assert!(
                    lanes[lane as usize].same_as(&expected),
                    "trial {trial}, W={width}, lane {lane}: {:?} against {expected:?}",
                    lanes[lane as usize]
                );
            }
        }
        assert!(speculative_runs > 100, "W={width}: {speculative_runs} runs could speculate");
    }
}

/// Where the vector crosses into the next page, the masked path loads with
/// the masked load only when no lane or active lanes in both pages are
/// active, and else gathers the active lanes: a masked load whose masked-off lanes fall into
/// an unmapped page takes a microcode assist on x86 (tests/programs
/// guard_page_scans). SSE has no masked loads (LLVM loads lane by lane),
/// so its masked path stays as it was.
#[test]
fn loads_across_a_page_gather_unless_active_lanes_read_both_pages() {
    let (scalar, predicates) = guarded_load_kernel();
    let mut avx512 = config(16, Isa::Avx512, &[UNIFORM, LINEAR, VECTOR, VECTOR]);
    avx512.masked = true;
    let vector = widen_masked(&scalar, &avx512, &predicates).function;
    assert_eq!(count_blocks_named(&vector, ".crossing"), 1, "{vector}");
    assert_eq!(count_blocks_named(&vector, ".gather"), 1, "{vector}");
    let cold: Vec<String> = vector
        .layout
        .blocks()
        .iter()
        .filter(|block| vector.dfg.blocks[**block].cold)
        .map(|block| vector.block_name(*block))
        .collect();
    assert_eq!(cold.len(), 2, "{cold:?}");
    assert!(cold.iter().all(|name| name.ends_with(".crossing") || name.ends_with(".gather")));
    assert_eq!(count(&vector, is_masked_load), 1);
    let gathers = count(&vector, |data| matches!(data, InstData::Gather { .. }));
    assert_eq!(gathers, 1, "{vector}");
    // The test shifts the packed mask by the lanes in the first page.
    let shifts = count(&vector, |data| matches!(data, InstData::Binary { op: BinaryOp::LShr, .. }));
    assert_eq!(shifts, 1, "{vector}");

    let mut sse = config(4, Isa::Sse, &[UNIFORM, LINEAR, VECTOR, VECTOR]);
    sse.masked = true;
    let vector = widen_masked(&scalar, &sse, &predicates).function;
    assert_eq!(count_blocks_named(&vector, ".crossing"), 0, "{vector}");
    assert_eq!(count(&vector, |data| matches!(data, InstData::Gather { .. })), 0);
}
