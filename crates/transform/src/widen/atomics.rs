//! Widening of atomics (`atomicrmw`, `cmpxchg`).
//!
//! The scalar function runs its atomics one instance after the other; the
//! vector function keeps that order. In general every active lane runs its
//! own scalar atomic, lanes 0..W-1 in order, under the block's mask (each
//! lane's address and operands extracted, the result inserted back), with
//! the original ordering, sync scope, alignment and `volatile` flag: the
//! old values each lane sees, and the memory left behind, are those of the
//! scalar loop over the same instances.
//!
//! Fast path: an `atomicrmw` whose address is uniform and whose operation
//! is associative and commutative on integers (`add`, `sub`, `and`, `or`,
//! `xor`, `max`, `min`, `umax`, `umin`) runs once, with the active lanes'
//! operands combined (inactive lanes contribute the identity). When the
//! result is used, lane `i` gets `old op (v_0 op .. op v_{i-1})` (for
//! `sub`: `old - (v_0 + .. + v_{i-1})`) from an exclusive prefix scan in
//! log2(W) shuffle steps: exactly the value the i-th atomic of the scalar
//! order would have returned, had no other thread intervened between them
//! (the merged atomic is one of the interleavings the memory model allows).
//! An `xchg` at a uniform address (any type) is one exchange with the
//! highest active lane's value; lane i gets the previous active lane's
//! value (the first active lane the old one). Volatile atomics, `nand` and
//! the floating-point operations (whose rounding depends on the order) stay
//! per lane.

use lanewise_ir::{
    ArithFlags, AtomicAttrs, AtomicRmwOp, BinaryOp, Constant, FastMathFlags, Inst, InstData,
    IntPredicate, Type, Value,
};

use super::{scalar_result_value, WidenError, Widened, Widener};

/// How the lanes of a uniform-address `atomicrmw` combine: the scan's
/// operation and the one that applies a prefix to the old value.
#[derive(Copy, Clone)]
enum Combine {
    Binary(BinaryOp),
    /// Keep the operand for which `pred(candidate, other)` holds.
    Pick(IntPredicate),
}

impl Widener<'_> {
    /// `atomicrmw` and `cmpxchg`: one combined atomic for a uniform address
    /// where the operation allows it, else one atomic per active lane.
    pub(super) fn widen_atomic(&mut self, inst: Inst) -> Result<(), WidenError> {
        let data = self.scalar.dfg.inst(inst).clone();
        let mask = self.block_mask()?;
        if let InstData::AtomicRmw { op, addr, value, attrs } = data {
            if self.is_uniform(addr)? && op == AtomicRmwOp::Xchg && !attrs.volatile {
                let widened = self.combined_exchange(inst, addr, value, attrs, mask)?;
                self.stats.uniform += 1;
                self.stats.masked += u32::from(mask.is_some());
                self.define_result(inst, widened);
                return Ok(());
            }
            if self.is_uniform(addr)? {
                if let Some(widened) = self.combined_atomic(inst, op, addr, value, attrs, mask)? {
                    self.stats.uniform += 1;
                    self.stats.masked += u32::from(mask.is_some());
                    self.define_result(inst, widened);
                    return Ok(());
                }
            }
        }
        self.stats.scalarized += 1;
        self.stats.masked += u32::from(mask.is_some());
        let result_ty = self.scalar.dfg.value_type(scalar_result_value(self.scalar, inst)).clone();
        let operands = data.operands();
        let lane_atomic = |this: &mut Self, lane: u32| -> Result<Option<Value>, WidenError> {
            let mut lane_operands = Vec::with_capacity(operands.len());
            for &operand in &operands {
                lane_operands.push(this.lane(operand, lane)?);
            }
            let mut copy = data.clone();
            let mut next = lane_operands.into_iter();
            copy.map_operands(|_| next.next().expect("one lane value per operand"));
            Ok(this.append(copy, result_ty.clone()))
        };
        let results = match mask {
            Some(mask) => {
                self.emit_per_lane_guarded(mask, "atomic", lane_atomic)?.unwrap_or_default()
            }
            None => {
                let mut results = Vec::with_capacity(self.width as usize);
                for lane in 0..self.width {
                    results.extend(lane_atomic(self, lane)?);
                }
                results
            }
        };
        self.define_result(inst, Widened::Lanes(results));
        Ok(())
    }

    /// The fast path of a uniform-address `atomicrmw` (see the module docs),
    /// or `None` where the operation needs one atomic per lane.
    fn combined_atomic(
        &mut self,
        inst: Inst,
        op: AtomicRmwOp,
        addr: Value,
        value: Value,
        attrs: AtomicAttrs,
        mask: Option<Value>,
    ) -> Result<Option<Widened>, WidenError> {
        let ty = self.scalar.dfg.value_type(value).clone();
        let combinable = |bits: &u32| ty.is_int() && (1..=128).contains(bits) && !attrs.volatile;
        let Some(bits) = ty.int_bits().filter(combinable) else {
            return Ok(None);
        };
        let sign_bit = 1u128 << (bits - 1);
        let all_ones = if bits >= 128 { u128::MAX } else { (1u128 << bits) - 1 };
        // (scan, apply a prefix to the old value, identity of the scan)
        let same = |combine: Combine, identity: u128| (combine, combine, identity);
        let (scan, apply, identity) = match op {
            AtomicRmwOp::Add => same(Combine::Binary(BinaryOp::Add), 0),
            AtomicRmwOp::Sub => (Combine::Binary(BinaryOp::Add), Combine::Binary(BinaryOp::Sub), 0),
            AtomicRmwOp::And => same(Combine::Binary(BinaryOp::And), all_ones),
            AtomicRmwOp::Or => same(Combine::Binary(BinaryOp::Or), 0),
            AtomicRmwOp::Xor => same(Combine::Binary(BinaryOp::Xor), 0),
            AtomicRmwOp::Max => same(Combine::Pick(IntPredicate::Sgt), sign_bit),
            AtomicRmwOp::Min => same(Combine::Pick(IntPredicate::Slt), sign_bit - 1),
            AtomicRmwOp::UMax => same(Combine::Pick(IntPredicate::Ugt), 0),
            AtomicRmwOp::UMin => same(Combine::Pick(IntPredicate::Ult), all_ones),
            _ => return Ok(None),
        };
        let width = self.width;
        let vector_ty = ty.vector_of(width);
        let identity_lane = self.func.dfg.int_const(ty.clone(), identity);
        let identity_vector = self.func.dfg.make_const(
            vector_ty.clone(),
            Constant::Aggregate(vec![identity_lane; width as usize]),
        );
        let operands = self.vector(value)?;
        let lanes = match mask {
            None => operands,
            Some(mask) => self.append_value(
                InstData::Select {
                    cond: mask,
                    if_true: operands,
                    if_false: identity_vector,
                    flags: FastMathFlags::default(),
                },
                vector_ty.clone(),
            ),
        };
        // Inclusive scan: after the step of shift s, lane i combines lanes
        // i-2s+1..=i (Hillis-Steele).
        let mut inclusive = lanes;
        let mut shift = 1;
        while shift < width {
            let shifted = self.shift_lanes_up(inclusive, identity_vector, shift, &vector_ty);
            inclusive = self.combine(scan, inclusive, shifted, &vector_ty);
            shift *= 2;
        }
        let last = self.func.dfg.int_const(Type::I32, u128::from(width - 1));
        let total = self
            .append_value(InstData::ExtractElement { vector: inclusive, index: last }, ty.clone());
        let scalar_addr = self.lane0(addr)?;
        let atomic = InstData::AtomicRmw { op, addr: scalar_addr, value: total, attrs };
        let old = match mask {
            None => self.append_value(atomic, ty.clone()),
            Some(mask) => {
                self.emit_if_any_lane_active(mask, "atomic", |this| {
                    Ok(this.append(atomic, ty.clone()))
                })?
                .expect("an atomicrmw has a result")
            }
        };
        if !self.scalar_result_is_used(inst) {
            // Nobody reads the per-lane old values: the one old value stands
            // for them.
            return Ok(Some(Widened::Uniform(old)));
        }
        let exclusive = self.shift_lanes_up(inclusive, identity_vector, 1, &vector_ty);
        let splat = InstData::Splat { scalar: old, lanes: width };
        let old_lanes = self.append_value(splat, vector_ty.clone());
        Ok(Some(Widened::Vector(self.combine(apply, old_lanes, exclusive, &vector_ty))))
    }

    /// `atomicrmw xchg` at a uniform address: one exchange with the highest
    /// active lane's value; lane i gets the value of the active lane before
    /// it (the first active lane the old value), what the lane-order
    /// sequence of exchanges returns. The "last active value up to lane i"
    /// is a scan like [`Self::combined_atomic`]'s, over (value, active) pairs.
    fn combined_exchange(
        &mut self,
        inst: Inst,
        addr: Value,
        value: Value,
        attrs: AtomicAttrs,
        mask: Option<Value>,
    ) -> Result<Widened, WidenError> {
        let ty = self.scalar.dfg.value_type(value).clone();
        let width = self.width;
        let vector_ty = self.vector_type(&ty)?;
        let bools = Type::BOOL.vector_of(width);
        let values = self.vector(value)?;
        let poison = self.func.dfg.make_const(vector_ty.clone(), Constant::Poison);
        let no_lanes = self.constant_mask(false);
        // Inclusive scan: lane i holds the value of the highest active lane
        // <= i, `valid` whether there is one.
        let (mut last, mut valid) = (values, mask);
        if let Some(mut active) = mask {
            let mut shift = 1;
            while shift < width {
                let shifted = self.shift_lanes_up(last, poison, shift, &vector_ty);
                let shifted_active = self.shift_lanes_up(active, no_lanes, shift, &bools);
                last = self.append_value(
                    InstData::Select {
                        cond: active,
                        if_true: last,
                        if_false: shifted,
                        flags: FastMathFlags::default(),
                    },
                    vector_ty.clone(),
                );
                let or = InstData::Binary {
                    op: BinaryOp::Or,
                    lhs: active,
                    rhs: shifted_active,
                    flags: ArithFlags::default(),
                };
                active = self.append_value(or, bools.clone());
                shift *= 2;
            }
            valid = Some(active);
        }
        let last_lane = self.func.dfg.int_const(Type::I32, u128::from(width - 1));
        let total = self
            .append_value(InstData::ExtractElement { vector: last, index: last_lane }, ty.clone());
        let scalar_addr = self.lane0(addr)?;
        let exchange =
            InstData::AtomicRmw { op: AtomicRmwOp::Xchg, addr: scalar_addr, value: total, attrs };
        let old = match mask {
            None => self.append_value(exchange, ty.clone()),
            Some(mask) => self
                .emit_if_any_lane_active(mask, "atomic", |this| {
                    Ok(this.append(exchange, ty.clone()))
                })?
                .expect("an atomicrmw has a result"),
        };
        if !self.scalar_result_is_used(inst) {
            return Ok(Widened::Uniform(old));
        }
        let old_lanes =
            self.append_value(InstData::Splat { scalar: old, lanes: width }, vector_ty.clone());
        let before = self.shift_lanes_up(last, old_lanes, 1, &vector_ty);
        Ok(Widened::Vector(match valid {
            None => before,
            Some(valid) => {
                // No active lane before lane i: the old value.
                let valid_before = self.shift_lanes_up(valid, no_lanes, 1, &bools);
                self.append_value(
                    InstData::Select {
                        cond: valid_before,
                        if_true: before,
                        if_false: old_lanes,
                        flags: FastMathFlags::default(),
                    },
                    vector_ty,
                )
            }
        }))
    }

    /// Lane i of the result is lane i - `shift` of `vector`, the first
    /// `shift` lanes that of `fill` (a splat).
    fn shift_lanes_up(&mut self, vector: Value, fill: Value, shift: u32, ty: &Type) -> Value {
        let width = self.width;
        let mask = (0..width).map(|lane| (lane.checked_sub(shift).unwrap_or(width)) as i32);
        let shuffle = InstData::Shuffle { lhs: vector, rhs: fill, mask: mask.collect() };
        self.append_value(shuffle, ty.clone())
    }

    fn combine(&mut self, how: Combine, lhs: Value, rhs: Value, ty: &Type) -> Value {
        match how {
            Combine::Binary(op) => {
                let flags = ArithFlags::default();
                self.append_value(InstData::Binary { op, lhs, rhs, flags }, ty.clone())
            }
            Combine::Pick(pred) => {
                let bools = Type::BOOL.vector_of(self.width);
                let keep_lhs = self.append_value(InstData::Icmp { pred, lhs, rhs }, bools);
                let select = InstData::Select {
                    cond: keep_lhs,
                    if_true: lhs,
                    if_false: rhs,
                    flags: FastMathFlags::default(),
                };
                self.append_value(select, ty.clone())
            }
        }
    }

    /// Whether an instruction of the scalar function uses the result of `inst`.
    fn scalar_result_is_used(&self, inst: Inst) -> bool {
        let result = scalar_result_value(self.scalar, inst);
        self.scalar.layout.blocks().iter().any(|&block| {
            self.scalar.layout.block_insts(block).iter().any(|&user| {
                let mut uses = false;
                self.scalar.dfg.inst(user).for_each_operand(|operand| uses |= operand == result);
                uses
            })
        })
    }
}
