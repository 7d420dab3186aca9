//! The SPMD builtins (design brief; the RV vectorizer's names and meaning,
//! declared for C in `include/lanewise/rv.h`). In the scalar function they
//! have their one-lane meaning; widening gives them their W-lane meaning,
//! restricted to the lanes active in the block (the block mask, see
//! [`super::masked`]):
//!
//! | builtin | widened meaning |
//! |---|---|
//! | `rv_any(b)` / `rv_all(b)` | `b` in some / every active lane (uniform; `rv_all` of no lanes is true) |
//! | `rv_ballot(b)` | bit i set iff lane i is active and `b` holds there (uniform integer) |
//! | `rv_popcount(b)` | number of active lanes where `b` holds (uniform) |
//! | `rv_index(b)` | in lane i, the number of active lanes j < i where `b` holds (exclusive prefix count) |
//! | `rv_mask()` | the block mask (true in the active lanes) |
//! | `rv_entry_mask()` | the function's entry mask (the mask argument of an `M` variant; all lanes otherwise) |
//! | `rv_compact(v, b)` | the values of the k active lanes where `b` holds, packed to lanes 0..k-1; lanes k..W-1 keep `v`'s own value |
//! | `rv_lane_id()` / `rv_num_lanes()` | i / W |
//! | `rv_extract(v, k)` | lane `k` (uniform) of `v`, as a uniform value |
//! | `rv_insert(v, k, x)` | `v` with lane `k` replaced by the uniform `x` |
//! | `rv_shuffle(v, s)` | lane i gets lane `(i + s) mod W` of `v`; `s` a constant |
//! | `rv_load(p, k)` | one load, broadcast: through lane `k`'s pointer when `p` is not uniform, of `p[k]` when it is |
//! | `rv_store(p, k, v)` | one store of the uniform `v`: through lane `k`'s pointer, or to `p[k]` when `p` is uniform |
//! | `rv_align(p, n)` | `p` (RV's alignment hint; the alignment is not used) |
//!
//! These are RV's meanings (its NatBuilder), with three documented
//! differences: the lanes a builtin combines are the active ones (RV's
//! `rv_compact` ignores the block mask); `rv_insert` of a uniform `v` is
//! the insertion its definition describes (RV's implementation returns `x`
//! in every lane); `rv_load` and `rv_store` run only when some lane reaches
//! the call (RV runs them unconditionally), and `rv_store` of a varying `v`
//! is refused (RV stores one lane's value without saying which). Any other
//! `rv_*` call is an error naming it (RV's `rv_reduce` and friends do not
//! exist in Lanewise).
//!
//! With W = 1 every one of them is the scalar meaning (`rv_load(p, k)` is
//! `p[k]`, `rv_index` is 0, `rv_compact(v, b)` is `v`).

use lanewise_ir::{
    ArithFlags, BinaryOp, CallEffects, Callee, CastFlags, CastOp, Constant, FastMathFlags,
    InstData, Type, Value,
};

use super::{WidenError, Widened, Widener};

impl Widener<'_> {
    /// The widened form of a call to SPMD builtin `name`, or `None` if
    /// `name` is not one.
    pub(super) fn widen_spmd_builtin(
        &mut self,
        name: &str,
        args: &[Value],
        ret_ty: &Type,
    ) -> Result<Option<Widened>, WidenError> {
        let arity = match name {
            "rv_lane_id" | "rv_num_lanes" | "rv_mask" | "rv_entry_mask" => 0,
            "rv_any" | "rv_all" | "rv_ballot" | "rv_popcount" | "rv_index" => 1,
            "rv_extract" | "rv_shuffle" | "rv_compact" | "rv_load" | "rv_align" => 2,
            "rv_insert" | "rv_store" => 3,
            _ if name.starts_with("rv_") => {
                return Err(self.unsupported(format!(
                    "`{name}` is not an RV builtin Lanewise implements ({})",
                    crate::one_lane_builtins::SPMD_BUILTINS.join(", ")
                )))
            }
            _ => return Ok(None),
        };
        if args.len() != arity {
            return Err(self.unsupported(format!("`{name}` takes {arity} arguments")));
        }
        let widened = match name {
            "rv_lane_id" | "rv_num_lanes" => self.lane_numbering(name, ret_ty)?,
            "rv_mask" => {
                let mask = match self.block_mask()? {
                    Some(mask) => mask,
                    None => self.constant_mask(true),
                };
                Widened::Vector(mask)
            }
            "rv_entry_mask" => {
                let mask = match self.entry_mask {
                    Some(mask) => mask,
                    None => self.constant_mask(true),
                };
                Widened::Vector(mask)
            }
            "rv_align" => {
                if self.scalar.dfg.int_constant(args[1]).is_none() {
                    return Err(self.unsupported("`rv_align` needs a constant alignment"));
                }
                self.widened(args[0])?
            }
            "rv_any" | "rv_all" => self.any_or_all(name, args[0])?,
            "rv_ballot" | "rv_popcount" => {
                let bits = self.integer_of_at_least_width(name, ret_ty)?;
                let selected = self.active_and(args[0])?;
                let ballot = self.ballot(selected, bits);
                if name == "rv_ballot" {
                    Widened::Uniform(ballot)
                } else {
                    Widened::Uniform(self.intrinsic(
                        &format!("llvm.ctpop.i{bits}"),
                        vec![ballot],
                        ret_ty,
                    ))
                }
            }
            "rv_index" => {
                let selected = self.active_and(args[0])?;
                Widened::Vector(self.exclusive_prefix_count(selected, ret_ty)?)
            }
            "rv_compact" => self.compact(args[0], args[1], ret_ty)?,
            "rv_extract" => {
                let lane = self.uniform_operand(name, args[1], "lane number")?;
                let vector = self.vector(args[0])?;
                let extract = InstData::ExtractElement { vector, index: lane };
                Widened::Uniform(self.append_value(extract, ret_ty.clone()))
            }
            "rv_insert" => {
                let lane = self.uniform_operand(name, args[1], "lane number")?;
                let value = self.uniform_operand(name, args[2], "inserted value")?;
                let vector = self.vector(args[0])?;
                let vector_ty = self.func.dfg.value_type(vector).clone();
                let insert = InstData::InsertElement { vector, value, index: lane };
                Widened::Vector(self.append_value(insert, vector_ty))
            }
            "rv_shuffle" => {
                let Some(shift) = self.scalar.dfg.signed_int_constant(args[1]) else {
                    return Err(self.unsupported("`rv_shuffle` needs a constant shift"));
                };
                let width = i128::from(self.width);
                let indices: Vec<i32> =
                    (0..width).map(|lane| (lane + shift).rem_euclid(width) as i32).collect();
                let vector = self.vector(args[0])?;
                let vector_ty = self.func.dfg.value_type(vector).clone();
                let shuffle = InstData::Shuffle { lhs: vector, rhs: vector, mask: indices };
                Widened::Vector(self.append_value(shuffle, vector_ty))
            }
            "rv_load" => Widened::Uniform(self.lane_load(args[0], args[1], ret_ty)?),
            _ => {
                // rv_store(p, k, v)
                self.lane_store(args[0], args[1], args[2])?;
                // No result: the caller defines nothing for a void call.
                Widened::Uniform(self.func.dfg.make_const(Type::BOOL, Constant::Poison))
            }
        };
        Ok(Some(widened))
    }

    /// `rv_load`/`rv_store`: one scalar access.
    fn count_builtin_access(&mut self, masked: bool) {
        self.stats.uniform += 1;
        if masked {
            self.stats.masked += 1;
        }
    }

    fn lane_numbering(&mut self, name: &str, ret_ty: &Type) -> Result<Widened, WidenError> {
        let Type::Int(_) = ret_ty else {
            return Err(self.unsupported(format!("`{name}` must return an integer")));
        };
        Ok(if name == "rv_num_lanes" {
            Widened::Uniform(self.func.dfg.int_const(ret_ty.clone(), u128::from(self.width)))
        } else {
            Widened::Strided { lane0: self.func.dfg.int_const(ret_ty.clone(), 0), stride: 1 }
        })
    }

    /// The lane-0 value of a builtin operand that must be uniform.
    fn uniform_operand(
        &mut self,
        name: &str,
        value: Value,
        what: &str,
    ) -> Result<Value, WidenError> {
        if !self.is_uniform(value)? {
            return Err(self.unsupported(format!("`{name}` needs a uniform {what}")));
        }
        self.lane0(value)
    }

    fn integer_of_at_least_width(&self, name: &str, ret_ty: &Type) -> Result<u32, WidenError> {
        match ret_ty {
            Type::Int(bits) if *bits >= self.width => Ok(*bits),
            _ => Err(self.unsupported(format!(
                "`{name}` must return an integer of at least {} bits",
                self.width
            ))),
        }
    }

    /// A pure call of an intrinsic returning `ret_ty`.
    fn intrinsic(&mut self, name: &str, args: Vec<Value>, ret_ty: &Type) -> Value {
        let call = InstData::Call {
            callee: Callee::Direct(name.to_owned()),
            args,
            ret_ty: ret_ty.clone(),
            effects: CallEffects::Pure,
            flags: FastMathFlags::default(),
        };
        self.append_value(call, ret_ty.clone())
    }

    /// `lhs op rhs`, of `lhs`'s type, in the current block.
    pub(super) fn binary(&mut self, op: BinaryOp, lhs: Value, rhs: Value) -> Value {
        let ty = self.func.dfg.value_type(lhs).clone();
        self.append_value(InstData::Binary { op, lhs, rhs, flags: ArithFlags::default() }, ty)
    }

    /// `op arg to to`, in the current block.
    pub(super) fn cast(&mut self, op: CastOp, arg: Value, to: &Type) -> Value {
        let cast = InstData::Cast { op, arg, to: to.clone(), flags: CastFlags::default() };
        self.append_value(cast, to.clone())
    }

    /// `<W x i1>` of boolean `value` in the active lanes, false in the others.
    fn active_and(&mut self, value: Value) -> Result<Value, WidenError> {
        let vector = self.vector(value)?;
        Ok(match self.block_mask()? {
            Some(mask) => self.select_in_active_lanes(mask, vector, false),
            None => vector,
        })
    }

    /// The mask `selected` packed into an integer of `bits` bits.
    fn ballot(&mut self, selected: Value, bits: u32) -> Value {
        let packed = self.cast(CastOp::Bitcast, selected, &Type::Int(self.width));
        if bits > self.width {
            self.cast(CastOp::ZExt, packed, &Type::Int(bits))
        } else {
            packed
        }
    }

    fn any_or_all(&mut self, name: &str, value: Value) -> Result<Widened, WidenError> {
        let width = self.width;
        let mask = self.block_mask()?;
        if self.is_uniform(value)? {
            // The same answer in every active lane; none active: any = false, all = true.
            let scalar = self.lane0(value)?;
            let Some(mask) = mask else { return Ok(Widened::Uniform(scalar)) };
            let any = self.mask_any(mask);
            let result = if name == "rv_any" {
                self.binary(BinaryOp::And, scalar, any)
            } else {
                let none = self.func.dfg.int_const(Type::BOOL, 1);
                let not_any = self.binary(BinaryOp::Xor, any, none);
                self.binary(BinaryOp::Or, scalar, not_any)
            };
            return Ok(Widened::Uniform(result));
        }
        let vector = self.vector(value)?;
        let (reduction, operand) = match (name, mask) {
            ("rv_any", None) => ("or", vector),
            ("rv_any", Some(mask)) if self.implies_mask(vector, mask) => ("or", vector),
            ("rv_any", Some(mask)) => ("or", self.select_in_active_lanes(mask, vector, false)),
            (_, None) => ("and", vector),
            (_, Some(mask)) => ("and", self.select_in_active_lanes(mask, vector, true)),
        };
        let name = format!("llvm.vector.reduce.{reduction}.v{width}i1");
        Ok(Widened::Uniform(self.intrinsic(&name, vec![operand], &Type::BOOL)))
    }

    /// Lane i: the number of set lanes j < i of the mask `selected`, as
    /// `<W x ret_ty>`: `ctpop(bits & (2^i - 1))` on a splat of the bits.
    fn exclusive_prefix_count(
        &mut self,
        selected: Value,
        ret_ty: &Type,
    ) -> Result<Value, WidenError> {
        let width = self.width;
        let Some(ret_bits) = ret_ty.int_bits() else {
            return Err(self.unsupported("`rv_index` must return an integer"));
        };
        let count_ty = Type::Int(width.max(ret_bits));
        let bits = self.ballot(selected, width.max(ret_bits));
        let splat = InstData::Splat { scalar: bits, lanes: width };
        let count_vector_ty = count_ty.vector_of(width);
        let bits_vector = self.append_value(splat, count_vector_ty.clone());
        let below: Vec<Value> = (0..width)
            .map(|lane| {
                let below = if lane == 0 { 0 } else { (1u128 << lane) - 1 };
                self.func.dfg.int_const(count_ty.clone(), below)
            })
            .collect();
        let below = self.func.dfg.make_const(count_vector_ty.clone(), Constant::Aggregate(below));
        let lower_bits = self.binary(BinaryOp::And, bits_vector, below);
        let suffix = crate::vector_math::intrinsic_type_suffix(&count_vector_ty)
            .expect("integer vectors have a suffix");
        let counts =
            self.intrinsic(&format!("llvm.ctpop.{suffix}"), vec![lower_bits], &count_vector_ty);
        let ret_vector_ty = ret_ty.vector_of(width);
        Ok(if ret_bits < width { self.cast(CastOp::Trunc, counts, &ret_vector_ty) } else { counts })
    }

    /// `rv_compact(v, b)`: lane by lane, insert the value of every selected
    /// lane at its prefix count, into `v` itself (selects keep the vector
    /// for the others), so lanes k..W-1 keep their own values.
    fn compact(
        &mut self,
        value: Value,
        condition: Value,
        ret_ty: &Type,
    ) -> Result<Widened, WidenError> {
        let width = self.width;
        let vector_ty = self.vector_type(ret_ty)?;
        if self.is_uniform(value)? {
            // Every lane, packed or not, holds the one value.
            return self.widened(value);
        }
        let selected = self.active_and(condition)?;
        let positions = self.exclusive_prefix_count(selected, &Type::I32)?;
        // Lanes past the packed ones keep `value`'s own (RV's lookup table
        // maps them to themselves).
        let mut packed = self.vector(value)?;
        for lane in 0..width {
            let lane_index = self.func.dfg.int_const(Type::I32, u128::from(lane));
            let lane_value = self.lane(value, lane)?;
            let position = self.append_value(
                InstData::ExtractElement { vector: positions, index: lane_index },
                Type::I32,
            );
            let is_selected = self.append_value(
                InstData::ExtractElement { vector: selected, index: lane_index },
                Type::BOOL,
            );
            let inserted = self.append_value(
                InstData::InsertElement { vector: packed, value: lane_value, index: position },
                vector_ty.clone(),
            );
            let select = InstData::Select {
                cond: is_selected,
                if_true: inserted,
                if_false: packed,
                flags: FastMathFlags::default(),
            };
            packed = self.append_value(select, vector_ty.clone());
        }
        Ok(Widened::Vector(packed))
    }

    /// The address `rv_load(p, k)` / `rv_store(p, k, _)` of `elem` values
    /// access: lane `k`'s pointer when `p` is not uniform, `p[k]` when it is
    /// (`k` uniform), and the alignment of the access (the element's).
    fn lane_address(
        &mut self,
        name: &str,
        pointer: Value,
        index: Value,
        elem: &Type,
    ) -> Result<(Value, u32), WidenError> {
        if !elem.is_scalar() {
            return Err(self.unsupported(format!("`{name}` of a {elem}")));
        }
        let index = self.uniform_operand(name, index, "lane number")?;
        if !self.func.dfg.value_type(index).is_int() {
            return Err(self.unsupported(format!("`{name}` needs an integer lane number")));
        }
        let align = self.data_layout.abi_align(elem) as u32;
        if self.is_uniform(pointer)? {
            let pointer = self.lane0(pointer)?;
            let gep = InstData::Gep {
                source_ty: elem.clone(),
                base: pointer,
                indices: vec![index],
                inbounds: false,
            };
            return Ok((self.append_value(gep, Type::PTR), align));
        }
        let pointers = self.vector(pointer)?;
        let extract = InstData::ExtractElement { vector: pointers, index };
        Ok((self.append_value(extract, Type::PTR), align))
    }

    /// `rv_load(p, k)`: one load (see [`Self::lane_address`]), when some
    /// lane is active; the result is uniform.
    fn lane_load(
        &mut self,
        pointer: Value,
        index: Value,
        ret_ty: &Type,
    ) -> Result<Value, WidenError> {
        let (addr, align) = self.lane_address("rv_load", pointer, index, ret_ty)?;
        let load = InstData::Load { ty: ret_ty.clone(), addr, align, volatile: false };
        let mask = self.block_mask()?;
        self.count_builtin_access(mask.is_some());
        Ok(match mask {
            None => self.append_value(load, ret_ty.clone()),
            Some(mask) => self
                .emit_if_any_lane_active(mask, "rv_load", |this| {
                    Ok(this.append(load, ret_ty.clone()))
                })?
                .expect("a load has a result"),
        })
    }

    /// `rv_store(p, k, v)`: one store of the uniform `v` (see
    /// [`Self::lane_address`]), when some lane is active.
    fn lane_store(&mut self, pointer: Value, index: Value, value: Value) -> Result<(), WidenError> {
        let value_ty = self.scalar.dfg.value_type(value).clone();
        if !self.is_uniform(value)? {
            return Err(self.unsupported(
                "`rv_store` stores one value (RV's meaning): the stored value must be uniform, e.g. `rv_extract(v, k)`",
            ));
        }
        let (addr, align) = self.lane_address("rv_store", pointer, index, &value_ty)?;
        let value = self.lane0(value)?;
        let store = InstData::Store { value, addr, align, volatile: false };
        let mask = self.block_mask()?;
        self.count_builtin_access(mask.is_some());
        match mask {
            None => {
                self.append(store, Type::Void);
            }
            Some(mask) => {
                self.emit_if_any_lane_active(mask, "rv_store", |this| {
                    this.append(store, Type::Void);
                    Ok(None)
                })?;
            }
        }
        Ok(())
    }
}
