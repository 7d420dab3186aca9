//! Mask phis in the register layout of the target.
//!
//! Widening produces masks as `<W x i1>` values. Where such a mask is carried
//! around a loop by a phi, LLVM's x86 backend (without AVX-512 mask
//! registers) legalizes the phi to a packed type of its own choosing, such as
//! `<8 x i16>`, while the comparisons that produce the mask and the blends
//! that consume it work on full-width lanes: every iteration then packs and
//! unpacks the mask (`vpackssdw`, `vpmovzxwd`, `vpslld`). Mandelbrot's escape
//! loop ran 1.7x slower than necessary because of it.
//!
//! This pass rewrites every `<W x i1>` phi into a phi of `<W x iN>`, with
//! `N = register bits / W` (the lane width of the comparisons that fill a
//! register), sign-extending the incoming values at the end of each
//! predecessor and truncating once after the phis. LLVM folds the extensions
//! of comparison results (they already are all-ones/all-zeros lanes), so the
//! mask stays in a vector register in its natural layout. AVX-512 has mask
//! registers for `<W x i1>`; the pass is not run for it.

use lanewise_ir::vfabi::Isa;
use lanewise_ir::{Block, CastFlags, CastOp, Function, Inst, InstData, Type, Value};

/// Rewrites the `<W x i1>` phis of the vector function `func` (see the
/// module docs). Returns the number of phis rewritten.
pub fn widen_mask_phis(func: &mut Function, isa: Isa) -> usize {
    if isa == Isa::Avx512 {
        return 0;
    }
    let mask_phis: Vec<(Block, Inst, u32)> = func
        .layout
        .blocks()
        .iter()
        .flat_map(|block| func.layout.block_insts(*block).iter().map(move |inst| (*block, *inst)))
        .filter_map(|(block, inst)| match func.dfg.inst(inst) {
            InstData::Phi { ty: Type::Vector { elem, lanes }, .. } if **elem == Type::BOOL => {
                Some((block, inst, *lanes))
            }
            _ => None,
        })
        .collect();
    for (block, phi, lanes) in &mask_phis {
        let lane_bits = (isa.register_bits() / lanes).clamp(8, 64).next_power_of_two();
        let wide_ty = Type::Int(lane_bits).vector_of(*lanes);
        let mask_ty = Type::BOOL.vector_of(*lanes);
        let InstData::Phi { incoming, .. } = func.dfg.inst(*phi).clone() else { unreachable!() };

        // Extend each incoming value at the end of its predecessor.
        let wide_incoming: Vec<(Block, Value)> = incoming
            .iter()
            .map(|(pred, value)| {
                let terminator =
                    func.terminator(*pred).expect("a predecessor ends in a terminator");
                let data = cast(CastOp::SExt, *value, &wide_ty);
                let inst = func.dfg.make_inst(data, wide_ty.clone());
                func.layout.insert_inst_before(inst, terminator);
                (*pred, func.dfg.result(inst).unwrap())
            })
            .collect();
        let old_value = func.dfg.result(*phi).unwrap();
        let wide_phi = func
            .dfg
            .make_inst(InstData::Phi { ty: wide_ty.clone(), incoming: wide_incoming }, wide_ty);
        func.layout.insert_inst_before(wide_phi, *phi);
        let wide_value = func.dfg.result(wide_phi).unwrap();

        // One truncation after the block's phis stands for the old phi.
        let first_non_phi = func
            .layout
            .block_insts(*block)
            .iter()
            .copied()
            .find(|inst| !matches!(func.dfg.inst(*inst), InstData::Phi { .. }))
            .expect("a block ends in a terminator");
        let truncation = func.dfg.make_inst(cast(CastOp::Trunc, wide_value, &mask_ty), mask_ty);
        func.layout.insert_inst_before(truncation, first_non_phi);
        let narrow_value = func.dfg.result(truncation).unwrap();

        func.layout.remove_inst(*phi);
        let users: Vec<Inst> = func.layout.insts().collect();
        for user in users {
            if user == truncation {
                continue;
            }
            func.dfg.inst_mut(user).map_operands(|value| {
                if value == old_value {
                    narrow_value
                } else {
                    value
                }
            });
        }
    }
    mask_phis.len()
}

fn cast(op: CastOp, arg: Value, to: &Type) -> InstData {
    InstData::Cast { op, arg, to: to.clone(), flags: CastFlags::default() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanewise_ir::{verify_function, Constant, FunctionBuilder};

    /// A loop carrying an `<8 x i1>` mask: `m = phi [true, entry], [m', loop]`.
    fn mask_loop() -> (Function, Block) {
        let mask_ty = Type::BOOL.vector_of(8);
        let mut func = Function::new("f", vec![mask_ty.clone()], mask_ty.clone());
        let input = func.param_value(0);
        let mut builder = FunctionBuilder::new(&mut func);
        let entry = builder.create_block(None);
        let body = builder.create_block(None);
        let exit = builder.create_block(None);
        builder.switch_to_block(entry);
        let all_true = builder.func.dfg.make_const(mask_ty.clone(), Constant::Int(u128::MAX));
        builder.jump(body);
        builder.switch_to_block(body);
        let phi_inst = builder.ins(
            InstData::Phi { ty: mask_ty.clone(), incoming: vec![(entry, all_true)] },
            mask_ty.clone(),
        );
        let mask = builder.func.dfg.result(phi_inst).unwrap();
        let next = builder.binary(lanewise_ir::BinaryOp::And, mask, input);
        let any = builder.func.dfg.make_const(Type::BOOL, Constant::Int(1));
        builder.branch(any, body, exit);
        builder.switch_to_block(exit);
        builder.ret(Some(next));
        let InstData::Phi { incoming, .. } = builder.func.dfg.inst_mut(phi_inst) else {
            unreachable!()
        };
        incoming.push((body, next));
        (func, body)
    }

    #[test]
    fn mask_phis_become_full_width_lanes() {
        let (mut func, body) = mask_loop();
        assert!(verify_function(&func).is_ok());

        assert_eq!(widen_mask_phis(&mut func, Isa::Avx2), 1);

        verify_function(&func).unwrap();
        let insts = func.layout.block_insts(body).to_vec();
        let InstData::Phi { ty, incoming } = func.dfg.inst(insts[0]) else {
            panic!("the block still starts with a phi");
        };
        assert_eq!(ty, &Type::I32.vector_of(8));
        assert_eq!(incoming.len(), 2);
        assert!(matches!(func.dfg.inst(insts[1]), InstData::Cast { op: CastOp::Trunc, .. }));
        let narrow = func.dfg.result(insts[1]).unwrap();
        assert_eq!(func.dfg.inst(insts[2]).operands()[0], narrow, "uses read the truncation");
    }

    #[test]
    fn avx512_keeps_i1_masks() {
        let (mut func, _) = mask_loop();
        assert_eq!(widen_mask_phis(&mut func, Isa::Avx512), 0);
    }
}
