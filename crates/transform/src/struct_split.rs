//! Splitting private arrays of structs into one array per member (the data
//! layout transformation of Pérard-Gayot et al., WPMVP'18, Alg. 1 and 2).
//!
//! A traversal stack of `{float distance; int node}` entries is one object:
//! if the distances differ between lanes, the whole object is per-lane memory
//! and every node index read from it is Varying, although every lane pushed
//! the same node (WPMVP'18 Fig. 1: the stack of a BVH traversal). Split into
//! a `float[64]` and an `int[64]`, each member gets the shape it deserves:
//! [`crate::uniform_memory`] keeps the node array as one scalar copy, and
//! the distances get the lane-interleaved layout of [`crate::private_memory`].
//!
//! WPMVP'18 accepts a struct or array-of-structs alloca whose users are
//! loads, stores and GEPs with constant indices except the array subscript.
//! LLVM 22 writes member accesses as byte GEPs (`gep i8, %entry, 4`), so we
//! check the same thing on byte offsets: every load and store reached from
//! the alloca through GEPs alone has the offset `c + sum(index * scale)` with
//! every `scale` a multiple of the struct size `S`, and `c mod S` is the
//! offset of a scalar member of the access's size. Then the access reads
//! member `m` of element `(c - offset(m)) / S + sum(index * scale / S)`, and
//! becomes an access of that element of member `m`'s own array:
//!
//! ```text
//! p = gep member_type(m), member_m, (c - offset(m)) / S + sum(index * scale / S)
//! ```
//!
//! computed right before the access; the old GEPs die. Any other user (a
//! call, a phi or select of derived pointers, a pointer stored or compared,
//! a whole-struct load) keeps the alloca as it is. Only entry-block allocas
//! with at least two members are split.

use std::collections::HashMap;

use lanewise_ir::{DataLayout, Function, Inst, InstData, Type, Value};

use crate::private_memory::{byte_offset_before, gep_offset_terms, insert_before, OffsetTerm};

/// Splits every eligible array-of-structs alloca of `func` into one alloca
/// per accessed member (see the module docs). Returns how many allocas were
/// split.
pub fn split_private_structs(func: &mut Function, data_layout: &DataLayout) -> usize {
    let Some(entry) = func.entry_block() else { return 0 };
    let allocas: Vec<Inst> = func
        .layout
        .block_insts(entry)
        .iter()
        .copied()
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Alloca { .. }))
        .collect();
    let mut split = 0;
    for alloca in allocas {
        if let Some(plan) = plan_split(func, alloca, data_layout) {
            rewrite(func, alloca, &plan, data_layout);
            split += 1;
        }
    }
    split
}

/// One scalar member of the struct.
#[derive(Clone, Debug)]
struct Member {
    offset: u64,
    ty: Type,
}

/// An access through the alloca: its byte offset and the member it reads.
struct Access {
    inst: Inst,
    constant: i128,
    scaled: Vec<(Value, u64)>,
    member: usize,
}

struct SplitPlan {
    struct_bytes: u64,
    elements: u64,
    members: Vec<Member>,
    accesses: Vec<Access>,
    /// GEPs derived from the alloca, in the order they were found.
    geps: Vec<Inst>,
}

/// The struct an alloca holds (alone or as the element of an array), its
/// members and the number of structs.
fn struct_layout(
    ty: &Type,
    count: u128,
    data_layout: &DataLayout,
) -> Option<(u64, u64, Vec<Member>)> {
    let (struct_ty, per_alloca) = match ty {
        Type::Array { elem, len } => (elem.as_ref(), *len),
        other => (other, 1),
    };
    let Type::Struct { fields, packed } = struct_ty else { return None };
    if fields.len() < 2 {
        return None;
    }
    let members = fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            field.is_scalar().then(|| Member {
                offset: data_layout.field_offset(fields, *packed, index),
                ty: field.clone(),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let struct_bytes = data_layout.alloc_size(struct_ty);
    let elements = u64::try_from(u128::from(per_alloca).checked_mul(count)?).ok()?;
    (struct_bytes > 0).then_some((struct_bytes, elements, members))
}

fn plan_split(func: &Function, alloca: Inst, data_layout: &DataLayout) -> Option<SplitPlan> {
    let InstData::Alloca { ty, count, .. } = func.dfg.inst(alloca) else { return None };
    let count = func.dfg.int_constant(*count)?;
    let (struct_bytes, elements, members) = struct_layout(ty, count, data_layout)?;
    let root = func.dfg.result(alloca)?;

    let mut users: HashMap<Value, Vec<Inst>> = HashMap::new();
    for inst in func.layout.insts() {
        func.dfg
            .inst(inst)
            .for_each_operand(|operand| users.entry(operand).or_default().push(inst));
    }
    // The byte offset of every derived pointer: constant + scaled indices.
    let mut offsets: HashMap<Value, (i128, Vec<(Value, u64)>)> = HashMap::new();
    offsets.insert(root, (0, Vec::new()));
    let mut worklist = vec![root];
    let mut plan =
        SplitPlan { struct_bytes, elements, members, accesses: Vec::new(), geps: Vec::new() };
    while let Some(pointer) = worklist.pop() {
        let (constant, scaled) = offsets[&pointer].clone();
        for &user in users.get(&pointer).map(Vec::as_slice).unwrap_or_default() {
            match func.dfg.inst(user) {
                InstData::Gep { base, indices, .. } if *base == pointer => {
                    if indices.contains(&pointer) {
                        return None;
                    }
                    let result = func.dfg.result(user)?;
                    if !func.dfg.value_type(result).is_ptr() || offsets.contains_key(&result) {
                        return None;
                    }
                    let (mut constant, mut scaled) = (constant, scaled.clone());
                    for term in gep_offset_terms(func, user, data_layout)? {
                        match term {
                            OffsetTerm::Constant(bytes) => {
                                constant = constant.checked_add(bytes)?
                            }
                            OffsetTerm::Scaled { index, scale } => {
                                if scale % struct_bytes != 0 {
                                    return None;
                                }
                                scaled.push((index, scale));
                            }
                        }
                    }
                    offsets.insert(result, (constant, scaled));
                    plan.geps.push(user);
                    worklist.push(result);
                }
                InstData::Load { ty, addr, volatile: false, .. } if *addr == pointer => {
                    let member = member_at(&plan.members, constant, struct_bytes, ty, data_layout)?;
                    plan.accesses.push(Access {
                        inst: user,
                        constant,
                        scaled: scaled.clone(),
                        member,
                    });
                }
                InstData::Store { value, addr, volatile: false, .. }
                    if *addr == pointer && *value != pointer =>
                {
                    let ty = func.dfg.value_type(*value);
                    let member = member_at(&plan.members, constant, struct_bytes, ty, data_layout)?;
                    plan.accesses.push(Access {
                        inst: user,
                        constant,
                        scaled: scaled.clone(),
                        member,
                    });
                }
                _ => return None,
            }
        }
    }
    (!plan.accesses.is_empty()).then_some(plan)
}

/// The member an access of type `ty` at constant offset `constant` reads:
/// `constant mod S` must be a member's offset and `ty` a scalar of its size.
fn member_at(
    members: &[Member],
    constant: i128,
    struct_bytes: u64,
    ty: &Type,
    data_layout: &DataLayout,
) -> Option<usize> {
    if !ty.is_scalar() {
        return None;
    }
    let within = u64::try_from(constant.rem_euclid(i128::from(struct_bytes))).ok()?;
    members.iter().position(|member| {
        member.offset == within && data_layout.store_size(&member.ty) == data_layout.store_size(ty)
    })
}

fn rewrite(func: &mut Function, alloca: Inst, plan: &SplitPlan, data_layout: &DataLayout) {
    let InstData::Alloca { align, .. } = func.dfg.inst(alloca).clone() else {
        unreachable!("plan_split accepted an alloca")
    };
    // One alloca per accessed member, in member order, where the old one was.
    let mut member_allocas: Vec<Option<Value>> = vec![None; plan.members.len()];
    let one = func.dfg.int_const(Type::I32, 1);
    for (index, member) in plan.members.iter().enumerate() {
        if !plan.accesses.iter().any(|access| access.member == index) {
            continue;
        }
        let member_align = data_layout.abi_align(&member.ty).min(u64::from(align.max(1))) as u32;
        let array = Type::Array { elem: Box::new(member.ty.clone()), len: plan.elements };
        let inst = func.dfg.make_inst(
            InstData::Alloca { ty: array, count: one, align: member_align.max(1) },
            Type::PTR,
        );
        func.layout.insert_inst_before(inst, alloca);
        member_allocas[index] = func.dfg.result(inst);
    }
    for access in &plan.accesses {
        let member = &plan.members[access.member];
        let member_bytes = data_layout.alloc_size(&member.ty);
        let base = member_allocas[access.member].expect("created above");
        // The element index: every scale is a multiple of the struct size.
        let element = (access.constant - i128::from(member.offset)) / i128::from(plan.struct_bytes);
        let scaled: Vec<(Value, u64)> = access
            .scaled
            .iter()
            .map(|(index, scale)| (*index, scale / plan.struct_bytes))
            .collect();
        let index = byte_offset_before(func, access.inst, element, &scaled);
        let address = insert_before(
            func,
            access.inst,
            InstData::Gep {
                source_ty: member.ty.clone(),
                base,
                indices: vec![index],
                inbounds: true,
            },
            Type::PTR,
        );
        match func.dfg.inst_mut(access.inst) {
            InstData::Load { addr, align, .. } | InstData::Store { addr, align, .. } => {
                *addr = address;
                *align = (*align).min(member_bytes as u32).max(1);
            }
            _ => unreachable!("accesses are loads and stores"),
        }
    }
    // The old GEPs and the alloca have no users left.
    for &gep in plan.geps.iter().rev() {
        func.layout.remove_inst(gep);
    }
    func.layout.remove_inst(alloca);
}

#[cfg(test)]
mod tests;
