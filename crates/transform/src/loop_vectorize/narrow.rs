//! Narrowing of truncated phis in an outlined loop body.
//!
//! LLVM's induction-variable widening (indvars) turns `int count` of an
//! inner loop into the `i64` induction, and the value used after the loop
//! into `trunc (i64 exit phi) to i32`. In the vectorized body the exit phi
//! of a divergent inner loop becomes a per-lane live-out tracked by a blend
//! in every iteration (PLDI'18 section 4), and an `i64` one costs two `ymm`
//! registers and a mask sign extension per iteration at W = 8
//! (early_exit_search). [`narrow_truncated_phis`] moves the truncation in
//! front of the phi (`trunc` distributes over `phi`): the phi then carries
//! the `i32` the body really uses.

use lanewise_ir::{CastFlags, CastOp, Function, Inst, InstData, Type, Value};

use super::users;

/// Rewrites every integer phi whose users are all truncations to one type
/// `T` into a phi of `T` over truncated incoming values (each truncated at
/// the end of its incoming block; constants folded). Returns how many phis
/// were narrowed.
pub fn narrow_truncated_phis(func: &mut Function) -> usize {
    // A narrowed phi truncates its incoming values, which may make another
    // phi's users all truncations: repeat until nothing changes.
    let mut total = 0;
    loop {
        let narrowed = narrow_round(func);
        if narrowed == 0 {
            return total;
        }
        total += narrowed;
    }
}

/// One pass of [`narrow_truncated_phis`] over the phis of `func`.
fn narrow_round(func: &mut Function) -> usize {
    let all_users = users(func);
    let phis: Vec<Inst> = func
        .layout
        .insts()
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Phi { ty, .. } if ty.is_int()))
        .collect();
    let mut narrowed = 0;
    for phi in phis {
        let value = func.dfg.result(phi).expect("phis have results");
        let Some(phi_users) = all_users.get(&value) else { continue };
        let mut target: Option<(Type, CastFlags)> = None;
        let all_truncs = phi_users.iter().all(|user| match func.dfg.inst(*user) {
            InstData::Cast { op: CastOp::Trunc, arg, to, flags } if *arg == value => {
                match target.clone() {
                    None => {
                        target = Some((to.clone(), *flags));
                        true
                    }
                    Some((ty, first_flags)) => {
                        if first_flags != *flags {
                            target = Some((ty.clone(), CastFlags::default()));
                        }
                        ty == *to
                    }
                }
            }
            _ => false,
        });
        let Some((narrow_ty, flags)) = target.filter(|_| all_truncs) else { continue };
        let InstData::Phi { incoming, .. } = func.dfg.inst(phi).clone() else { continue };
        let Some(narrow_bits) = narrow_ty.scalar_bits() else { continue };
        // Every incoming value must be an instruction result or an integer
        // constant (parameters and poison: left alone).
        let foldable = incoming.iter().all(|(_, incoming_value)| {
            func.dfg.defining_inst(*incoming_value).is_some()
                || func.dfg.int_constant(*incoming_value).is_some()
        });
        if !foldable {
            continue;
        }
        let mut narrow_incoming = Vec::new();
        for (block, incoming_value) in incoming {
            let narrow_value = if let Some(constant) = func.dfg.int_constant(incoming_value) {
                let mask = if narrow_bits >= 128 { u128::MAX } else { (1u128 << narrow_bits) - 1 };
                func.dfg.int_const(narrow_ty.clone(), constant & mask)
            } else {
                let Some(terminator) = func.terminator(block) else {
                    return narrowed;
                };
                let trunc = func.dfg.make_inst(
                    InstData::Cast {
                        op: CastOp::Trunc,
                        arg: incoming_value,
                        to: narrow_ty.clone(),
                        flags,
                    },
                    narrow_ty.clone(),
                );
                func.layout.insert_inst_before(trunc, terminator);
                func.dfg.result(trunc).expect("a trunc has a result")
            };
            narrow_incoming.push((block, narrow_value));
        }
        let narrow_phi = func.dfg.make_inst(
            InstData::Phi { ty: narrow_ty.clone(), incoming: narrow_incoming },
            narrow_ty,
        );
        func.layout.insert_inst_before(narrow_phi, phi);
        let narrow_value = func.dfg.result(narrow_phi).expect("phis have results");
        let trunc_results: Vec<Value> =
            phi_users.iter().filter_map(|user| func.dfg.result(*user)).collect();
        let insts: Vec<Inst> = func.layout.insts().collect();
        for inst in insts {
            func.dfg.inst_mut(inst).map_operands(|operand| {
                if trunc_results.contains(&operand) {
                    narrow_value
                } else {
                    operand
                }
            });
        }
        for user in phi_users {
            func.layout.remove_inst(*user);
        }
        func.layout.remove_inst(phi);
        narrowed += 1;
    }
    narrowed
}

#[cfg(test)]
mod tests {
    use lanewise_ir::{verify_function, BinaryOp, FunctionBuilder, IntPredicate, Type};

    use super::*;
    use crate::interp::{Interpreter, Memory, Val};

    /// `f(n) = (i32) j` after `j = 0; do j++; while (j < n)`, and a second
    /// exit phi with a constant entry (`n < 0 ? 7 : j`) truncated too.
    fn truncated_exit_value() -> Function {
        let mut func = Function::new("f", vec![Type::I64], Type::I32);
        let bound = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let header = b.create_block(Some("header"));
        let exit = b.create_block(Some("exit"));
        let join = b.create_block(Some("join"));
        b.switch_to_block(entry);
        let zero = b.iconst(Type::I64, 0);
        let negative = b.icmp(IntPredicate::Slt, bound, zero);
        b.branch(negative, join, header);
        b.switch_to_block(header);
        let j = b.phi(Type::I64, vec![(entry, zero)]);
        let one = b.iconst(Type::I64, 1);
        let next = b.binary(BinaryOp::Add, j, one);
        let continues = b.icmp(IntPredicate::Slt, next, bound);
        b.branch(continues, header, exit);
        let inst = b.func.dfg.defining_inst(j).unwrap();
        if let InstData::Phi { incoming, .. } = b.func.dfg.inst_mut(inst) {
            incoming.push((header, next));
        }
        b.switch_to_block(exit);
        let exit_value = b.phi(Type::I64, vec![(header, next)]);
        b.jump(join);
        b.switch_to_block(join);
        let seven = b.iconst(Type::I64, 0x1_0000_0007);
        let joined = b.phi(Type::I64, vec![(entry, seven), (exit, exit_value)]);
        let narrow = b.cast(CastOp::Trunc, joined, Type::I32);
        b.ret(Some(narrow));
        verify_function(&func).unwrap();
        func
    }

    fn run(func: &Function, n: i64) -> u128 {
        let mut interpreter =
            Interpreter::new(Memory::new(0x1000, 64), |name, _| panic!("unexpected call {name}"));
        match interpreter.run(func, &[Val::int(64, n as u128)]).unwrap() {
            Some(Val::Int { value, .. }) => value,
            other => panic!("result {other:?}"),
        }
    }

    #[test]
    fn truncated_phis_carry_the_narrow_type_and_compute_the_same() {
        let original = truncated_exit_value();
        let mut narrowed = original.clone();
        // The join phi first (its only user is the trunc), then the exit
        // phi, whose only user is now a trunc at the end of its block.
        assert_eq!(narrow_truncated_phis(&mut narrowed), 2);
        verify_function(&narrowed).unwrap();
        let wide_phis = narrowed
            .layout
            .insts()
            .filter(|inst| {
                matches!(narrowed.dfg.inst(*inst), InstData::Phi { ty, .. } if *ty == Type::I64)
            })
            .count();
        assert_eq!(wide_phis, 1, "only the loop counter stays i64");
        for n in [-3, 0, 1, 5, 300] {
            assert_eq!(run(&narrowed, n), run(&original, n), "n={n}");
        }
    }
}
