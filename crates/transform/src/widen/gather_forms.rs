//! The form of each gather on targets where LLVM expands gathers into
//! scalar loads.
//!
//! LLVM 22 emits `vpgatherdd` and its kin only where it deems gathers fast:
//! every AVX-512 target, and AVX2 targets tuned for Skylake or later Intel
//! cores. On the other targets (`-march=x86-64-v3`, Haswell, Broadwell,
//! AMD Zen 1-3, and everything without AVX2) it expands `llvm.masked.gather`
//! into W scalar loads, and under a mask that is not a constant each load
//! sits behind a branch on its lane's mask bit (`ScalarizeMaskedMemIntrin`).
//! In divergent code those branches follow the data: the vector body of
//! ragged (bench/kernels; a gather in an inner loop whose lanes leave at
//! different times) ran 2.3x slower than the scalar program on a Zen 3,
//! mispredicting.
//!
//! Measured there (AMD EPYC Zen 3, ragged's vector body, random and short
//! counts, ms): LLVM's branchy expansion 65 / 10.8; branch-free scalar
//! loads (inactive lanes reading a stack slot) 43.5 / 5.5; `vpgatherdd` for
//! every gather 32.6 / 5.0; `vpgatherdd` for the masked gathers and scalar
//! loads for the unmasked ones 29.7 / 4.65 (the scalar program: 28.5 /
//! 5.5). Where every lane loads (xs: gathers from a large table under no
//! mask), LLVM's scalar loads beat `vpgatherdd` (70-71 ms against 74-77
//! ms); where the masks are sparse (rising_run on random data: runs of one
//! or two steps), the branchy expansion skips most loads: the branch-free
//! loads lost 12% there, the form below 1-2% in the vector body and 8%
//! with the safety net choosing (README, "Gather forms"). So, on such a
//! target with AVX2:
//!
//! - a gather under a constant all-true mask becomes W scalar loads and
//!   inserts here, what LLVM made of it;
//! - every other gather stays a masked gather, and the caller lets LLVM
//!   emit the gather instruction for it: `lanewise` adds the tuning
//!   feature `+fast-gather` to the function, which by then holds no
//!   unmasked gather for the feature to reach.
//!
//! Below AVX2, widening emits no gathers: loads at varying addresses are
//! one scalar load per lane, under a mask each behind its own test.
//!
//! The caller decides which functions get this: `lanewise` asks LLVM
//! whether it expands gathers for the function's target
//! (`LlvmModule::expands_masked_gathers`). `--gather-forms off` turns it
//! off (ablation).

use lanewise_ir::{Constant, Function, Inst, InstData, Type, Value};

/// What [`choose_gather_forms`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GatherForms {
    /// Gathers under an all-true mask made W scalar loads.
    pub unmasked_as_loads: usize,
    /// Masked gathers left for the gather instruction (the function needs
    /// `+fast-gather` for LLVM to emit it).
    pub masked_as_instructions: usize,
}

/// Gives every gather of `func`, a function for an AVX2 target where LLVM
/// expands gathers, its form (see the module docs).
pub fn choose_gather_forms(func: &mut Function) -> GatherForms {
    let mut forms = GatherForms::default();
    let gathers: Vec<Inst> = func
        .layout
        .insts()
        .filter(|&inst| matches!(func.dfg.inst(inst), InstData::Gather { .. }))
        .collect();
    for gather in gathers {
        let InstData::Gather { mask, .. } = func.dfg.inst(gather) else { unreachable!() };
        if is_all_true(func, *mask) {
            expand_into_loads(func, gather);
            forms.unmasked_as_loads += 1;
        } else {
            forms.masked_as_instructions += 1;
        }
    }
    forms
}

fn is_all_true(func: &Function, mask: Value) -> bool {
    match func.dfg.constant(mask) {
        Some(Constant::Aggregate(lanes)) => {
            lanes.iter().all(|lane| func.dfg.int_constant(*lane) == Some(1))
        }
        _ => false,
    }
}

/// Inserts `data` (of type `ty`) before `before`; returns its result.
fn insert_before(func: &mut Function, before: Inst, data: InstData, ty: Type) -> Value {
    let inst = func.dfg.make_inst(data, ty);
    func.layout.insert_inst_before(inst, before);
    func.dfg.result(inst).expect("a value")
}

/// Replaces the gather `gather` (whose mask is all true) by one scalar
/// load per lane and the inserts that build its vector; the last insert
/// takes the gather's place, keeping its result.
fn expand_into_loads(func: &mut Function, gather: Inst) {
    let InstData::Gather { ty, addrs, align, .. } = func.dfg.inst(gather).clone() else {
        unreachable!("a gather")
    };
    let lanes = ty.lanes().expect("a gather loads a vector");
    let element = ty.scalar_type().clone();
    let pointer = func.dfg.value_type(addrs).scalar_type().clone();
    let mut vector = func.dfg.make_const(ty.clone(), Constant::Poison);
    for lane in 0..lanes {
        let index = func.dfg.int_const(Type::I32, u128::from(lane));
        let addr = insert_before(
            func,
            gather,
            InstData::ExtractElement { vector: addrs, index },
            pointer.clone(),
        );
        let load = InstData::Load { ty: element.clone(), addr, align, volatile: false };
        let value = insert_before(func, gather, load, element.clone());
        let insert = InstData::InsertElement { vector, value, index };
        if lane + 1 < lanes {
            vector = insert_before(func, gather, insert, ty.clone());
        } else {
            *func.dfg.inst_mut(gather) = insert;
        }
    }
}
