//! Addresses as a base, a sum of scaled values and a constant byte offset,
//! so that two accesses can be found adjacent (a pair of loads or stores,
//! [`super::candidates`]) or disjoint (no dependence between them,
//! [`super::dependence`]).

use lanewise_ir::{BinaryOp, DataLayout, Function, InstData, Type, Value};

/// `base + Σ scale·value + offset` bytes.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Address {
    pub base: Value,
    /// (value, bytes per unit), sorted by value, no zero scales.
    pub terms: Vec<(Value, i64)>,
    pub offset: i64,
}

impl Address {
    /// Whether `self` and `other` differ by a constant: the byte distance
    /// from `self` to `other`.
    pub fn distance_to(&self, other: &Address) -> Option<i64> {
        (self.base == other.base && self.terms == other.terms)
            .then(|| other.offset.wrapping_sub(self.offset))
    }
}

/// How deep address decomposition follows GEPs and additions.
const MAX_DEPTH: u32 = 8;

/// The address `addr` decomposed through GEPs and `add`/`or disjoint` of
/// constants in the indices.
pub(crate) fn decompose(func: &Function, addr: Value, data_layout: &DataLayout) -> Address {
    let mut address = Address { base: addr, terms: Vec::new(), offset: 0 };
    let mut current = addr;
    for _ in 0..MAX_DEPTH {
        let Some(inst) = func.dfg.defining_inst(current) else { break };
        let InstData::Gep { source_ty, base, indices, .. } = func.dfg.inst(inst) else { break };
        let Some((terms, offset)) = gep_offset(func, source_ty, indices, data_layout) else {
            break;
        };
        for term in terms {
            add_term(&mut address.terms, term);
        }
        address.offset = address.offset.wrapping_add(offset);
        address.base = *base;
        current = *base;
    }
    address.terms.sort_by_key(|(value, _)| *value);
    address
}

fn add_term(terms: &mut Vec<(Value, i64)>, (value, scale): (Value, i64)) {
    if let Some(existing) = terms.iter_mut().find(|(known, _)| *known == value) {
        existing.1 = existing.1.wrapping_add(scale);
    } else {
        terms.push((value, scale));
    }
    terms.retain(|(_, scale)| *scale != 0);
}

/// The terms and constant offset one GEP adds, or `None` for an index it
/// cannot follow (a variable struct index, an unsized type).
fn gep_offset(
    func: &Function,
    source_ty: &Type,
    indices: &[Value],
    data_layout: &DataLayout,
) -> Option<(Vec<(Value, i64)>, i64)> {
    let mut terms = Vec::new();
    let mut offset = 0i64;
    let mut stepped = source_ty.clone();
    for (position, index) in indices.iter().enumerate() {
        let element = if position == 0 {
            stepped.clone()
        } else {
            match &stepped {
                Type::Struct { fields, packed } => {
                    let field = usize::try_from(func.dfg.int_constant(*index)?).ok()?;
                    let field_offset = data_layout.field_offset(fields, *packed, field);
                    offset = offset.wrapping_add(i64::try_from(field_offset).ok()?);
                    stepped = fields.get(field)?.clone();
                    continue;
                }
                Type::Array { elem, .. } | Type::Vector { elem, .. } => (**elem).clone(),
                _ => return None,
            }
        };
        let scale = i64::try_from(data_layout.alloc_size(&element)).ok()?;
        let (value, constant) = split_index(func, *index);
        offset = offset.wrapping_add(constant.wrapping_mul(scale));
        if let Some(value) = value {
            terms.push((value, scale));
        }
        stepped = element;
    }
    Some((terms, offset))
}

/// An index as `value + constant` (through `add` and `or disjoint` of a
/// constant). Only 64-bit indices are split: a narrower index is sign
/// extended after its addition wrapped, so `sext(i + 1)` need not be
/// `sext(i) + 1`.
fn split_index(func: &Function, index: Value) -> (Option<Value>, i64) {
    if let Some(constant) = func.dfg.signed_int_constant(index) {
        return (None, i64::try_from(constant).unwrap_or(0));
    }
    if *func.dfg.value_type(index) != Type::Int(64) {
        return (Some(index), 0);
    }
    if let Some(inst) = func.dfg.defining_inst(index) {
        if let InstData::Binary { op, lhs, rhs, flags } = func.dfg.inst(inst) {
            let adds = *op == BinaryOp::Add || (*op == BinaryOp::Or && flags.disjoint);
            if adds {
                if let Some(constant) = func.dfg.signed_int_constant(*rhs) {
                    if let Ok(constant) = i64::try_from(constant) {
                        return (Some(*lhs), constant);
                    }
                }
            }
        }
    }
    (Some(index), 0)
}
