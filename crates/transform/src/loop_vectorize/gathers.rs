//! Branch-free masked gathers for targets without fast gathers.
//!
//! Widening turns a divergent-address load under a mask into
//! `llvm.masked.gather`. On AVX2 targets whose gathers LLVM does not consider
//! fast (all AMD Zen cores, so every `-march=native` build on this host),
//! LLVM scalarizes a masked gather into one *branch* per lane
//! (`ScalarizeMaskedMemIntrin`), and in the divergent inner loops of an
//! outlined loop body those branches follow the data and mispredict. Like the
//! branch-free scatters of widening, [`make_gathers_branch_free`] gives the
//! inactive lanes the address of a private scratch slot instead of their own
//! (`select(mask, addrs, splat(scratch))`) and gathers with an all-true mask:
//! every lane's address is then valid, so the scalarized form is W
//! unconditional loads and inserts, and a fast-gather target emits one
//! unmasked `vgather`. The inactive lanes' values were poison before and are
//! the scratch slot's (undefined) contents now, which no active computation
//! reads. The pass runs on widened loop bodies only (`lanewise::simd_loops`).

use lanewise_ir::{Constant, DataLayout, FastMathFlags, Function, InstData, Type, Value};

/// The narrowest element the rewrite applies to. Measured on the programs
/// corpus (znver3): 32-bit float gathers of a divergent inner loop
/// (nested_simd_outer) run 1.35x faster branch-free, but byte gathers
/// (string_lengths) 1.4x slower: their branchy form keeps the lane addresses
/// scalar (`base + constant`), while the select needs a vector of pointers
/// and W extracts.
pub const MIN_ELEMENT_BITS: u32 = 32;

/// Rewrites every `Gather` of `func` whose mask is not a constant and whose
/// elements have at least [`MIN_ELEMENT_BITS`] into an
/// all-true gather over addresses where inactive lanes read a scratch slot
/// (one `alloca` per element type, in the entry block). Returns how many
/// gathers were rewritten.
pub fn make_gathers_branch_free(func: &mut Function, data_layout: &DataLayout) -> usize {
    let Some(entry) = func.layout.entry_block() else {
        return 0;
    };
    let gathers: Vec<_> = func
        .layout
        .insts()
        .filter(|&inst| match func.dfg.inst(inst) {
            InstData::Gather { ty, mask, .. } => {
                func.dfg.constant(*mask).is_none()
                    && ty.scalar_type().scalar_bits().is_some_and(|bits| bits >= MIN_ELEMENT_BITS)
            }
            _ => false,
        })
        .collect();
    let mut scratch_slots: Vec<(Type, Value)> = Vec::new();
    for &gather in &gathers {
        let InstData::Gather { ty, addrs, mask, .. } = func.dfg.inst(gather).clone() else {
            continue;
        };
        let Some(lanes) = ty.lanes() else {
            continue;
        };
        let element = ty.scalar_type().clone();
        let scratch = match scratch_slots.iter().find(|(slot_ty, _)| *slot_ty == element) {
            Some((_, slot)) => *slot,
            None => {
                let one = func.dfg.int_const(Type::I32, 1);
                let align = data_layout.abi_align(&element) as u32;
                let alloca = func.dfg.make_inst(
                    InstData::Alloca { ty: element.clone(), count: one, align },
                    Type::PTR,
                );
                func.layout.insert_inst_at(alloca, entry, 0);
                let slot = func.dfg.result(alloca).expect("an alloca has a result");
                scratch_slots.push((element.clone(), slot));
                slot
            }
        };
        let pointers = Type::PTR.vector_of(lanes);
        let splat =
            func.dfg.make_inst(InstData::Splat { scalar: scratch, lanes }, pointers.clone());
        func.layout.insert_inst_before(splat, gather);
        let scratch_lanes = func.dfg.result(splat).expect("a splat has a result");
        let select = func.dfg.make_inst(
            InstData::Select {
                cond: mask,
                if_true: addrs,
                if_false: scratch_lanes,
                flags: FastMathFlags::default(),
            },
            pointers,
        );
        func.layout.insert_inst_before(select, gather);
        let safe_addrs = func.dfg.result(select).expect("a select has a result");
        let one = func.dfg.int_const(Type::BOOL, 1);
        let all_true = func.dfg.make_const(
            Type::BOOL.vector_of(lanes),
            Constant::Aggregate(vec![one; lanes as usize]),
        );
        if let InstData::Gather { addrs, mask, .. } = func.dfg.inst_mut(gather) {
            *addrs = safe_addrs;
            *mask = all_true;
        }
    }
    gathers.len()
}

#[cfg(test)]
mod tests {
    use lanewise_ir::{verify_function, Constant, FunctionBuilder, InstData, Type};

    use super::*;
    use crate::interp::{Interpreter, Memory, Val};

    /// `f(addrs: <4 x ptr>, mask: <4 x i1>) = gather.<4 x elem>(addrs, mask)`.
    fn masked_gather(element: Type) -> Function {
        let lanes = 4;
        let vector = element.vector_of(lanes);
        let mut func = Function::new(
            "f",
            vec![Type::PTR.vector_of(lanes), Type::BOOL.vector_of(lanes)],
            vector.clone(),
        );
        let (addrs, mask) = (func.param_value(0), func.param_value(1));
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        b.switch_to_block(entry);
        let passthru = b.func.dfg.make_const(vector.clone(), Constant::Poison);
        let gathered = b.ins_value(
            InstData::Gather { ty: vector.clone(), addrs, mask, passthru, align: 4 },
            vector,
        );
        b.ret(Some(gathered));
        verify_function(&func).unwrap();
        func
    }

    fn gather_masks(func: &Function) -> Vec<Value> {
        func.layout
            .insts()
            .filter_map(|inst| match func.dfg.inst(inst) {
                InstData::Gather { mask, .. } => Some(*mask),
                _ => None,
            })
            .collect()
    }

    /// After the rewrite the gather is unmasked, inactive lanes read the
    /// scratch slot (an inactive lane's invalid address is never touched),
    /// and the active lanes get their own elements.
    #[test]
    fn inactive_lanes_read_the_scratch_slot_and_active_lanes_their_element() {
        let mut func = masked_gather(Type::F32);
        assert_eq!(make_gathers_branch_free(&mut func, &DataLayout::default()), 1);
        verify_function(&func).unwrap();
        let masks = gather_masks(&func);
        assert_eq!(masks.len(), 1);
        assert!(func.dfg.constant(masks[0]).is_some(), "the gather still has a variable mask");

        let mut memory = Memory::new(0x1000, 1 << 12);
        let base = memory.allocate(16, 4);
        for (index, value) in [1.5f32, 2.5, 3.5, 4.5].iter().enumerate() {
            memory.write(base + 4 * index as u64, &value.to_le_bytes()).unwrap();
        }
        let invalid = 0xdead_0000;
        let addrs = Val::Vector(vec![
            Val::Ptr(base + 12),
            Val::Ptr(invalid),
            Val::Ptr(base),
            Val::Ptr(invalid + 4),
        ]);
        let mask =
            Val::Vector(vec![Val::bool(true), Val::bool(false), Val::bool(true), Val::bool(false)]);
        let mut interpreter = Interpreter::new(memory, |name, _| panic!("unexpected call {name}"));
        let Some(Val::Vector(lanes)) = interpreter.run(&func, &[addrs, mask]).unwrap() else {
            panic!("the gather returns a vector");
        };
        assert!(lanes[0].same_as(&Val::F32(4.5)), "{lanes:?}");
        assert!(lanes[2].same_as(&Val::F32(1.5)), "{lanes:?}");
    }

    /// Byte gathers keep their mask (their branchy form is faster).
    #[test]
    fn narrow_gathers_are_left_alone() {
        let mut func = masked_gather(Type::Int(8));
        assert_eq!(make_gathers_branch_free(&mut func, &DataLayout::default()), 0);
        assert!(func.dfg.constant(gather_masks(&func)[0]).is_none());
    }
}
