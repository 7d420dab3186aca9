//! Short vector types (`float4`, clang's `ext_vector_type`, GCC's
//! `vector_size`) in varying code: the packed lane-major form.
//!
//! A scalar function may take, compute and return values of a short vector
//! type `<N x T>` (T an integer, float or pointer type). Lifting runs LLVM's
//! scalarizer first (`expand-reductions,scalarizer<load-store>`), so inside a
//! body almost all such code arrives as scalars already; what is left are the
//! values that cross a boundary the scalarizer cannot split: parameters
//! (`extractelement %a, 0` ...), results (an `insertelement` chain before the
//! `ret`), arguments and results of calls, and phis or selects the scalarizer
//! left whole. This module gives those values a W-lane form.
//!
//! # The layout
//! A varying value of type `<N x T>` of a W-lane function is one
//! `<W*N x T>` vector in *lane-major* order: element `e` of lane `l` is
//! element `l*N + e` ([`packed_type`]). This is the layout of an array of W
//! `float4`s in memory, so
//!
//! - a varying `<N x T>` parameter of a W-lane variant is passed as
//!   `<W*N x T>`, and a `<N x T>` result is returned as `<W*N x T>`: the
//!   signature rules of [`crate::abi`] then apply unchanged (register-sized
//!   parts, a result wider than a register through memory). On SSE
//!   (`_ZGVbN4vv_dot4`) lane `l`'s `float4` is the `l`-th xmm register, on
//!   AVX2 each ymm register holds two lanes, on AVX-512 each zmm four.
//!   GCC (12) makes no clones of such functions ("unsupported argument type
//!   `float4` for simd") and the x86 Vector Function ABI does not describe
//!   them, so there is no vendor layout to follow; clang-22 names the
//!   variants with the characteristic type's full size (`_ZGVbN1vv_cross`
//!   for a `float4` result on SSE), which fixes W but not the layout.
//! - uniform and linear `<N x T>` parameters stay one `<N x T>` value;
//! - the mask of an `M` variant whose characteristic type is a short vector
//!   is `<W x i32>` (SSE, AVX, AVX2) or bit masks (AVX-512), as for a
//!   characteristic type that is not a scalar ([`super::masked`]).
//!
//! A caller holding the value per lane (`Widened::Lanes`, one `<N x T>` per
//! lane) packs it by concatenation; lane `l` of a packed value is the
//! shuffle of elements `[l*N, l*N + N)`.
//!
//! # Operations in packed form ([`Widener::widen_short_vector_op`])
//! With at least one varying operand, these become one operation on the
//! packed vectors instead of W per-lane copies:
//!
//! - `extractelement` at a constant index `e < N`: the strided shuffle
//!   `<e, N+e, 2N+e, ..>`, a `<W x T>` vector;
//! - `insertelement` at a constant index: a shuffle of the packed vector with
//!   the widened scalar;
//! - `shufflevector` of two `<N x T>` values: the mask repeated per lane;
//! - lanewise arithmetic, comparisons, casts that keep the element count,
//!   `freeze`, and `select` (a `<W x i1>` condition is repeated N times per
//!   lane);
//! - phis (see `widen_phi`) get the packed type.
//!
//! Short vectors of 3, 5, ... elements (`float3`) have no packed form: they
//! would split unevenly into registers, and clang pads them to 4 elements in
//! memory; a varying parameter or result of such a type is refused with an
//! error naming it, and calls of such functions run per lane.
//!
//! Everything else on varying short vectors (an `extractelement` at a
//! variable index, a bitcast that changes the element count, loads, stores
//! and calls) keeps running once per lane on lane slices, which is correct;
//! what cannot be widened at all is an error naming function, block and
//! instruction, as everywhere in widening.

use lanewise_ir::{Constant, Function, Inst, InstData, Type, Value};

use super::{ValueMap, WidenError, Widened, Widener};

/// `N` if `ty` is a vector `<N x T>` of a scalar type `T` with a power-of-two
/// `N` (see [`why_not_packed`] for the others).
pub fn short_vector_lanes(ty: &Type) -> Option<u32> {
    match ty {
        Type::Vector { elem, lanes } if elem.is_scalar() && lanes.is_power_of_two() => Some(*lanes),
        _ => None,
    }
}

/// Why a varying value of type `ty` has no W-lane form, for the error that
/// names the parameter or result.
pub fn why_not_packed(ty: &Type) -> &'static str {
    match ty {
        // `float3`: 3 elements per lane would split unevenly into registers
        // (`<12 x float>` is three xmm registers but one and a half ymm), and
        // clang's memory layout pads it to 4 elements, which the packed form
        // does not do (yet).
        Type::Vector { elem, .. } if elem.is_scalar() => {
            "short vectors with an element count that is not a power of two (`float3`) \
             have no packed form"
        }
        _ => "only scalars and short vectors of scalars have a vector form",
    }
}

/// The packed form `<W*N x T>` of a short vector type `<N x T>` at `width`
/// lanes (see the module docs), or `None` if `ty` is not a short vector.
pub fn packed_type(ty: &Type, width: u32) -> Option<Type> {
    let lanes = short_vector_lanes(ty)?;
    Some(ty.scalar_type().vector_of(lanes * width))
}

/// The type a varying value of scalar-function type `ty` has in a `width`-lane
/// function: `<W x T>` for a scalar, the packed `<W*N x T>` for a short
/// vector, `None` for other types.
pub fn varying_type(ty: &Type, width: u32) -> Option<Type> {
    if ty.is_scalar() {
        Some(ty.vector_of(width))
    } else {
        packed_type(ty, width)
    }
}

/// The shuffle mask taking lane `lane`'s `lanes` elements out of a packed
/// vector.
fn lane_slice_mask(lane: u32, lanes: u32) -> Vec<i32> {
    (lane * lanes..(lane + 1) * lanes).map(|index| index as i32).collect()
}

/// The mask of `shufflevector` with per-lane mask `mask` (over two `<n x T>`
/// operands) applied to packed operands of `width` lanes.
fn packed_shuffle_mask(mask: &[i32], n: u32, width: u32) -> Vec<i32> {
    let (n, width) = (n as i32, width as i32);
    let mut packed = Vec::with_capacity(mask.len() * width as usize);
    for lane in 0..width {
        for &element in mask {
            packed.push(match element {
                element if element < 0 => -1,
                element if element < n => lane * n + element,
                element => width * n + lane * n + (element - n),
            });
        }
    }
    packed
}

/// The mask inserting element `index` of every lane from the (widened to the
/// packed length) vector of scalars: element `l*N + index` takes lane `l` of
/// the second operand, every other element stays.
fn packed_insert_mask(index: u32, n: u32, width: u32) -> Vec<i32> {
    let total = n * width;
    (0..total)
        .map(|position| {
            let (lane, element) = (position / n, position % n);
            if element == index {
                (total + lane) as i32
            } else {
                position as i32
            }
        })
        .collect()
}

impl ValueMap<'_> {
    /// Lane `lane` (a `<N x T>` value) of the packed vector `packed`.
    pub(super) fn packed_lane(
        &mut self,
        func: &mut Function,
        packed: Value,
        short_ty: &Type,
        lane: u32,
    ) -> Value {
        let lanes = short_vector_lanes(short_ty).expect("a short vector type");
        if self.width == 1 {
            return packed;
        }
        let mut cursor = self.cursor_after_definition(func, packed);
        let shuffle =
            InstData::Shuffle { lhs: packed, rhs: packed, mask: lane_slice_mask(lane, lanes) };
        self.insert(func, &mut cursor, shuffle, short_ty.clone())
    }

    /// The packed `<W*N x T>` vector of a short-vector value represented
    /// as `widened`.
    pub(super) fn pack_short_vector(
        &mut self,
        func: &mut Function,
        short_ty: &Type,
        widened: Widened,
    ) -> Result<Value, String> {
        let width = self.width;
        let packed_ty = packed_type(short_ty, width).expect("a short vector type");
        let lanes = short_vector_lanes(short_ty).expect("a short vector type");
        Ok(match widened {
            Widened::Vector(vector) => vector,
            Widened::Uniform(scalar) if width == 1 => scalar,
            Widened::Uniform(scalar) => match func.dfg.constant(scalar).cloned() {
                Some(constant @ (Constant::Zero | Constant::Undef | Constant::Poison)) => {
                    func.dfg.make_const(packed_ty, constant)
                }
                Some(Constant::Aggregate(elements)) => {
                    let repeated = (0..width).flat_map(|_| elements.iter().copied()).collect();
                    func.dfg.make_const(packed_ty, Constant::Aggregate(repeated))
                }
                _ => {
                    let mut cursor = self.cursor_after_definition(func, scalar);
                    let mask = (0..width).flat_map(|_| 0..lanes as i32).collect();
                    let shuffle = InstData::Shuffle { lhs: scalar, rhs: scalar, mask };
                    self.insert(func, &mut cursor, shuffle, packed_ty)
                }
            },
            Widened::Lanes(mut parts) => {
                // Concatenate pairs until one vector is left (W is a power of two).
                let mut cursor =
                    self.cursor_after_definition(func, *parts.last().expect("at least one lane"));
                let elem = short_ty.scalar_type().clone();
                while parts.len() > 1 {
                    let part_lanes = func.dfg.value_type(parts[0]).lanes().expect("vectors");
                    let mask: Vec<i32> = (0..(2 * part_lanes) as i32).collect();
                    let mut joined = Vec::with_capacity(parts.len() / 2);
                    for pair in parts.chunks(2) {
                        let [lhs, rhs] = pair else {
                            return Err("an odd number of lanes cannot be packed".to_owned());
                        };
                        let shuffle =
                            InstData::Shuffle { lhs: *lhs, rhs: *rhs, mask: mask.clone() };
                        let ty = elem.vector_of(2 * part_lanes);
                        joined.push(self.insert(func, &mut cursor, shuffle, ty));
                    }
                    parts = joined;
                }
                parts[0]
            }
            Widened::Strided { .. } => {
                return Err(format!("a strided value of type {short_ty}"));
            }
        })
    }
}

impl Widener<'_> {
    /// Widens `inst` in packed form if it is one of the operations on
    /// varying short vectors listed in the module docs; `Ok(false)` leaves it
    /// to the other rules (uniform operands, per-lane copies).
    pub(super) fn widen_short_vector_op(&mut self, inst: Inst) -> Result<bool, WidenError> {
        let data = self.scalar.dfg.inst(inst).clone();
        let Some(result) = self.scalar.dfg.result(inst) else { return Ok(false) };
        let result_ty = self.scalar.dfg.value_type(result).clone();
        let operand_ty = |this: &Self, value: Value| this.scalar.dfg.value_type(value).clone();
        let lanewise = match &data {
            InstData::Binary { .. }
            | InstData::Unary { .. }
            | InstData::Icmp { .. }
            | InstData::Fcmp { .. }
            | InstData::Freeze { .. } => !data.can_trap_on_inactive_lanes(),
            InstData::Cast { arg, .. } => {
                short_vector_lanes(&operand_ty(self, *arg)) == short_vector_lanes(&result_ty)
            }
            _ => false,
        };
        let handled = match &data {
            _ if lanewise => {
                let n = short_vector_lanes(&result_ty);
                n.is_some()
                    && data
                        .operands()
                        .iter()
                        .all(|value| short_vector_lanes(&operand_ty(self, *value)) == n)
            }
            InstData::ExtractElement { vector, index } => {
                let n = short_vector_lanes(&operand_ty(self, *vector));
                let index = self.scalar.dfg.int_constant(*index);
                matches!((n, index), (Some(n), Some(index)) if index < u128::from(n))
            }
            InstData::InsertElement { vector, index, .. } => {
                let n = short_vector_lanes(&operand_ty(self, *vector));
                let index = self.scalar.dfg.int_constant(*index);
                matches!((n, index), (Some(n), Some(index)) if index < u128::from(n))
            }
            InstData::Shuffle { lhs, .. } => {
                short_vector_lanes(&operand_ty(self, *lhs)).is_some()
                    && short_vector_lanes(&result_ty).is_some()
            }
            InstData::Select { cond, if_true, .. } => {
                let n = short_vector_lanes(&operand_ty(self, *if_true));
                let cond_ty = operand_ty(self, *cond);
                n.is_some() && (cond_ty == Type::BOOL || short_vector_lanes(&cond_ty) == n)
            }
            _ => false,
        };
        if !handled {
            return Ok(false);
        }
        let mut any_varying = false;
        for operand in data.operands() {
            any_varying |= !self.is_uniform(operand)?;
        }
        if !any_varying {
            return Ok(false);
        }
        let width = self.width;
        let widened_result_ty = varying_type(&result_ty, width)
            .ok_or_else(|| self.unsupported(format!("no packed form of {result_ty}")))?;
        let value = match data {
            InstData::ExtractElement { vector, index } => {
                let n = short_vector_lanes(&operand_ty(self, vector)).expect("checked");
                let index = self.scalar.dfg.int_constant(index).expect("checked") as u32;
                let packed = self.vector(vector)?;
                let mask = (0..width).map(|lane| (lane * n + index) as i32).collect();
                let shuffle = InstData::Shuffle { lhs: packed, rhs: packed, mask };
                self.append_value(shuffle, widened_result_ty)
            }
            InstData::InsertElement { vector, value, index } => {
                let n = short_vector_lanes(&result_ty).expect("checked");
                let index = self.scalar.dfg.int_constant(index).expect("checked") as u32;
                let packed = self.vector(vector)?;
                let scalars = self.vector(value)?;
                let scalars = if n == 1 {
                    scalars
                } else {
                    // `<W x T>` to the packed length (the rest is poison).
                    let mask =
                        (0..width * n).map(|i| if i < width { i as i32 } else { -1 }).collect();
                    let widen = InstData::Shuffle { lhs: scalars, rhs: scalars, mask };
                    self.append_value(widen, widened_result_ty.clone())
                };
                let mask = packed_insert_mask(index, n, width);
                let insert = InstData::Shuffle { lhs: packed, rhs: scalars, mask };
                self.append_value(insert, widened_result_ty)
            }
            InstData::Shuffle { lhs, rhs, mask } => {
                let n = short_vector_lanes(&operand_ty(self, lhs)).expect("checked");
                let (lhs, rhs) = (self.vector(lhs)?, self.vector(rhs)?);
                let mask = packed_shuffle_mask(&mask, n, width);
                self.append_value(InstData::Shuffle { lhs, rhs, mask }, widened_result_ty)
            }
            InstData::Select { cond, if_true, if_false, flags } => {
                let n = short_vector_lanes(&result_ty).expect("checked");
                let cond = if self.is_uniform(cond)? {
                    self.lane0(cond)?
                } else if operand_ty(self, cond) == Type::BOOL {
                    // One `i1` per lane, repeated for the lane's N elements.
                    let lanes = self.vector(cond)?;
                    let mask = (0..width).flat_map(|lane| [lane as i32].repeat(n as usize));
                    let repeat = InstData::Shuffle { lhs: lanes, rhs: lanes, mask: mask.collect() };
                    self.append_value(repeat, Type::BOOL.vector_of(width * n))
                } else {
                    self.vector(cond)?
                };
                let (if_true, if_false) = (self.vector(if_true)?, self.vector(if_false)?);
                let select = InstData::Select { cond, if_true, if_false, flags };
                self.append_value(select, widened_result_ty)
            }
            mut lanewise_data => {
                let mut packed = Vec::new();
                for operand in lanewise_data.operands() {
                    packed.push(self.vector(operand)?);
                }
                let mut next = packed.into_iter();
                lanewise_data.map_operands(|_| next.next().expect("one packed value per operand"));
                if let InstData::Cast { to, .. } = &mut lanewise_data {
                    *to = widened_result_ty.clone();
                }
                self.append_value(lanewise_data, widened_result_ty)
            }
        };
        self.define_result(inst, Widened::Vector(value));
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_types_are_lane_major_concatenations() {
        let float4 = Type::F32.vector_of(4);
        assert_eq!(short_vector_lanes(&float4), Some(4));
        assert_eq!(packed_type(&float4, 8), Some(Type::F32.vector_of(32)));
        assert_eq!(varying_type(&Type::F64, 4), Some(Type::F64.vector_of(4)));
        assert_eq!(packed_type(&Type::F32, 4), None);
        let nested = Type::Array { elem: Box::new(Type::F32), len: 4 };
        assert_eq!(varying_type(&nested, 4), None);
    }

    #[test]
    fn slices_and_inserts_address_lane_major_elements() {
        assert_eq!(lane_slice_mask(2, 4), vec![8, 9, 10, 11]);
        // Element 1 of each of 2 lanes of a 3-element vector comes from the
        // second operand's lanes 0 and 1 (at 6 and 7).
        assert_eq!(packed_insert_mask(1, 3, 2), vec![0, 6, 2, 3, 7, 5]);
    }

    #[test]
    fn shuffle_masks_repeat_per_lane_over_both_operands() {
        // `.yzx` of the first operand then `.x` of the second, for 2 lanes of
        // `<4 x T>`: the second operand starts at W*N = 8.
        let mask = packed_shuffle_mask(&[1, 2, 0, 4, -1], 4, 2);
        assert_eq!(mask, vec![1, 2, 0, 8, -1, 5, 6, 4, 12, -1]);
    }
}
