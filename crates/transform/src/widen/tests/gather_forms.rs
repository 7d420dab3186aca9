//! Tests of the forms of gathers on targets where LLVM expands them
//! (`widen/gather_forms.rs`): which gathers change, and differential
//! execution against the original in the interpreter.

use super::*;
use crate::widen::gather_forms::{choose_gather_forms, GatherForms};

const LANES: u32 = 8;

/// `gather <8 x i32> &table[index], mask, passthru` (`passthru` a
/// parameter), returned; under an all-true constant mask when `all_true`.
fn masked_gather(all_true: bool) -> Function {
    let params = vec![
        Type::PTR,
        Type::I32.vector_of(LANES),
        Type::BOOL.vector_of(LANES),
        Type::I32.vector_of(LANES),
    ];
    let mut func = Function::new("masked_gather", params, Type::I32.vector_of(LANES));
    let (table, index, mask, passthru) =
        (func.param_value(0), func.param_value(1), func.param_value(2), func.param_value(3));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let addrs = b.gep(Type::I32, table, vec![index]);
    let mask = if all_true {
        let one = b.func.dfg.int_const(Type::BOOL, 1);
        b.func
            .dfg
            .make_const(Type::BOOL.vector_of(LANES), Constant::Aggregate(vec![one; LANES as usize]))
    } else {
        mask
    };
    let vector_ty = Type::I32.vector_of(LANES);
    let gathered = b.ins_value(
        InstData::Gather { ty: vector_ty.clone(), addrs, mask, passthru, align: 4 },
        vector_ty,
    );
    b.ret(Some(gathered));
    func
}

fn count_gathers(func: &Function) -> usize {
    func.layout
        .insts()
        .filter(|&inst| matches!(func.dfg.inst(inst), InstData::Gather { .. }))
        .count()
}

fn count_loads(func: &Function) -> usize {
    func.layout.insts().filter(|&inst| matches!(func.dfg.inst(inst), InstData::Load { .. })).count()
}

fn run(func: &Function, args: &[Val]) -> Val {
    let mut memory = Memory::new(MEMORY_BASE, MEMORY_SIZE);
    for (index, byte) in memory.bytes.iter_mut().enumerate() {
        *byte = (index as u8).wrapping_mul(29).wrapping_add(3);
    }
    let mut interpreter =
        Interpreter::new(memory, |name: &str, _: &[Val]| panic!("unexpected call of {name}"));
    let result = interpreter.run(func, args).unwrap_or_else(|error| panic!("{error:?}\n{func}"));
    result.expect("a result")
}

/// Runs `original` and `rewritten` on random masks and indices; inactive
/// lanes point far outside memory, so reading them is an error.
fn compare_on_random_inputs(original: &Function, rewritten: &Function, all_lanes_active: bool) {
    let mut rng = Rng::new(7);
    let words = (MEMORY_SIZE / 4) as u64;
    for round in 0..300 {
        let mask: Vec<bool> = (0..LANES).map(|_| all_lanes_active || rng.chance(50)).collect();
        let index = mask
            .iter()
            .map(|&active| {
                let element = if active { u128::from(rng.below(words)) } else { 1 << 28 };
                Val::int(32, element)
            })
            .collect();
        let passthru = (0..LANES).map(|lane| Val::int(32, u128::from(lane + round))).collect();
        let args = [
            Val::Ptr(MEMORY_BASE),
            Val::Vector(index),
            Val::Vector(mask.iter().map(|&active| Val::bool(active)).collect()),
            Val::Vector(passthru),
        ];
        let (expected, got) = (run(original, &args), run(rewritten, &args));
        assert!(expected.same_as(&got), "{expected:?} != {got:?} on {args:?}\n{rewritten}");
    }
}

#[test]
fn masked_gathers_stay_and_unmasked_ones_become_loads() {
    let masked = masked_gather(false);
    let mut kept = masked.clone();
    let forms = choose_gather_forms(&mut kept);
    assert_eq!(forms, GatherForms { masked_as_instructions: 1, ..GatherForms::default() });
    assert_eq!(kept.to_string(), masked.to_string());

    let unmasked = masked_gather(true);
    let mut expanded = unmasked.clone();
    let forms = choose_gather_forms(&mut expanded);
    assert_eq!(forms, GatherForms { unmasked_as_loads: 1, ..GatherForms::default() });
    verify_function(&expanded).unwrap_or_else(|errors| panic!("{errors}\n{expanded}"));
    assert_eq!((count_gathers(&expanded), count_loads(&expanded)), (0, LANES as usize));
    compare_on_random_inputs(&unmasked, &expanded, true);
}
