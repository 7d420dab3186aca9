//! Widening under masks: the block predicates of a linearized function
//! (see [`crate::predicates`]), the entry mask of masked (`M`) variants, and
//! the guards that keep inactive lanes from touching memory or running side
//! effects (Karrenberg 2014, 6.4.3 "guarded" operations and 6.4.4; the
//! per-lane `if` of duplicated side effects).
//!
//! # The mask of a block
//! A block whose predicate is `None`, or an `i1` value that is uniform, runs
//! for every lane that entered the function: the block is only reached when
//! a uniform predicate is true (PLDI'18 Theorem 4.1). Its mask is the entry
//! mask of a masked variant, and "all lanes" (no mask at all) otherwise. A
//! varying predicate `p` gives the mask `<W x i1>` of `p`; the contract says
//! `p` already implies the entry mask. The mask is computed at the first
//! operation of the block that needs it (the predicate may be materialized
//! from a strided or duplicated form; that code goes after its definition).
//!
//! # Guards
//! `Widener::emit_guarded` splits the current block: `br cond, guarded,
//! join`; the body is emitted into `guarded`, which jumps to `join`, where a
//! phi merges the body's result with poison. `Widener::emit_per_lane_guarded`
//! chains W of them, one per lane in lane order (`if mask[i] { body(i) }`).
//! The blocks are named `<block>.<what><n>.lane<i>` (`.join` for the
//! merges) and placed right after the block they split, so the layout stays
//! readable. After a split the widener appends to the last join block; the
//! scalar block's terminator lands there, and `Widener::complete_phis`
//! takes the incoming block of successor phis from the exit block recorded
//! by the terminator.
//!
//! # The ABI of the mask parameter ([`MaskAbi`])
//! GCC's `inbranch` SIMD clones (what the x86 Vector Function ABI specifies;
//! checked against GCC 12's `_ZGV{b,c,d,e}M*` clones) take the mask as the
//! last argument:
//! * ISAs `b`, `c`, `d`: one vector of W elements of the *characteristic
//!   data type* (CDT; the return type if not void, else the type of the first
//!   vector parameter, else `int`) — `<8 x float>` for `float f(float)` at
//!   `d`, `<4 x double>` for `void g(float *, double)` at `b` (split into
//!   register-sized parts like any vector argument). A lane is active iff its
//!   element is not all-zero bits (GCC compares the bits with 0; callers pass
//!   1/0, or 1.0/0.0 for floating-point CDTs). Pointers count as `i64`,
//!   `i1` as `i8`.
//! * ISA `e`: integer bit masks in general registers, lane i in bit i; one
//!   integer per 512-bit register's worth of lanes (16 lanes of a 32-bit CDT,
//!   8 of a 64-bit one), lanes beyond W ignored.
//!
//! Inside the function the mask becomes `<W x i1>` (`icmp ne` of the bits,
//! resp. `bitcast` of the integers), the value of the scalar function's
//! `i1` mask parameter.

use lanewise_analysis::Shape;
use lanewise_ir::vfabi::{Isa, ParamKind};
use lanewise_ir::{
    ArithFlags, BinaryOp, Block, CallEffects, Callee, CastFlags, CastOp, Constant, FastMathFlags,
    Function, InstData, IntPredicate, Type, Value,
};

use super::{Cursor, WidenError, Widened, Widener};
use crate::WidenConfig;

/// How a masked variant receives its mask.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum MaskAbi {
    /// `<W x elem>`: a lane is active iff its bits are not all zero.
    Vector { elem: Type, lanes: u32 },
    /// `parts` integers of `part_bits` bits; lane `i` is bit `i % lanes_per_part`
    /// of integer `i / lanes_per_part`.
    Bits { parts: u32, part_bits: u32, lanes_per_part: u32 },
}

impl MaskAbi {
    /// The mask ABI of the masked variant `config` of `scalar`, whose last
    /// parameter is the `i1` entry mask (with a `Vector` spec).
    pub fn for_variant(scalar: &Function, config: &WidenConfig) -> Result<MaskAbi, String> {
        let Some(mask_param) = scalar.params.last() else {
            return Err("a masked variant needs the entry mask as last parameter".to_owned());
        };
        if mask_param.ty != Type::BOOL {
            return Err(format!(
                "the last parameter of a masked variant is the i1 entry mask, not {}",
                mask_param.ty
            ));
        }
        if config.params.last().map(|spec| spec.kind) != Some(ParamKind::Vector) {
            return Err("the entry mask parameter must have a vector (`v`) spec".to_owned());
        }
        let data_params = scalar.params.len() - 1;
        let param_types: Vec<Type> =
            scalar.params[..data_params].iter().map(|param| param.ty.clone()).collect();
        Ok(MaskAbi::for_signature(
            &scalar.ret_ty,
            &param_types,
            &config.params[..data_params],
            config.isa,
            config.width,
        ))
    }

    /// The mask ABI of a masked variant at `isa` and `width` of a scalar
    /// function with these result and (data) parameter types and specs: what
    /// a caller of the variant passes (see [`super::calls`]) and what the
    /// variant itself receives.
    pub fn for_signature(
        ret_ty: &Type,
        param_types: &[Type],
        specs: &[lanewise_ir::vfabi::ParamSpec],
        isa: Isa,
        width: u32,
    ) -> MaskAbi {
        let characteristic = characteristic_type(ret_ty, param_types, specs);
        let bits = characteristic.scalar_bits().unwrap_or(32);
        match isa {
            Isa::Sse | Isa::Avx | Isa::Avx2 => {
                MaskAbi::Vector { elem: characteristic, lanes: width }
            }
            Isa::Avx512 => {
                let per_register = (Isa::Avx512.register_bits() / bits).max(1);
                let lanes_per_part = per_register.min(width);
                MaskAbi::Bits {
                    parts: width.div_ceil(lanes_per_part),
                    part_bits: lanes_per_part.max(8),
                    lanes_per_part,
                }
            }
        }
    }

    /// The types of the mask parameters of the vector function.
    pub fn param_types(&self) -> Vec<Type> {
        match self {
            MaskAbi::Vector { elem, lanes } => vec![elem.vector_of(*lanes)],
            MaskAbi::Bits { parts, part_bits, .. } => vec![Type::Int(*part_bits); *parts as usize],
        }
    }
}

/// The characteristic data type of the VFABI (GCC's rules): the return type
/// if not void, else the type of the first vector parameter, else `int`;
/// pointers count as `i64`, booleans as `i8`.
pub fn characteristic_type(
    ret_ty: &Type,
    param_types: &[Type],
    data_specs: &[lanewise_ir::vfabi::ParamSpec],
) -> Type {
    let candidate = if *ret_ty != Type::Void {
        Some(ret_ty.clone())
    } else {
        param_types
            .iter()
            .zip(data_specs)
            .find(|(_, spec)| spec.kind == ParamKind::Vector)
            .map(|(ty, _)| ty.clone())
    };
    match candidate {
        Some(Type::Ptr(_)) => Type::I64,
        Some(Type::Int(1)) => Type::I8,
        Some(ty) if ty.is_scalar() => ty,
        _ => Type::I32,
    }
}

impl Widener<'_> {
    /// Turns the ABI mask parameters into the `<W x i1>` entry mask (at the
    /// top of the entry block) and maps the scalar mask parameter to it.
    pub(super) fn map_entry_mask(&mut self, abi: &MaskAbi, first_param: usize) {
        let width = self.width;
        let entry = self.func.entry_block().expect("entry");
        let mut cursor = Cursor {
            block: entry,
            position: self.values.entry_prologue_len,
            in_entry_prologue: true,
        };
        let mask_ty = Type::BOOL.vector_of(width);
        let mask = match abi {
            MaskAbi::Vector { elem, lanes } => {
                let param = self.func.param_value(first_param);
                let int_elem = Type::Int(elem.scalar_bits().unwrap_or(32));
                let int_ty = int_elem.vector_of(*lanes);
                let bits = if elem.is_int() {
                    param
                } else {
                    let cast = InstData::Cast {
                        op: CastOp::Bitcast,
                        arg: param,
                        to: int_ty.clone(),
                        flags: CastFlags::default(),
                    };
                    self.values.insert(&mut self.func, &mut cursor, cast, int_ty.clone())
                };
                let zero = self.func.dfg.make_const(int_ty, Constant::Zero);
                let compare = InstData::Icmp { pred: IntPredicate::Ne, lhs: bits, rhs: zero };
                self.values.insert(&mut self.func, &mut cursor, compare, mask_ty.clone())
            }
            MaskAbi::Bits { parts, part_bits, lanes_per_part } => {
                let mut pieces = Vec::new();
                for part in 0..*parts {
                    let mut bits = self.func.param_value(first_param + part as usize);
                    let part_ty = Type::Int(*lanes_per_part);
                    if *part_bits != *lanes_per_part {
                        let trunc = InstData::Cast {
                            op: CastOp::Trunc,
                            arg: bits,
                            to: part_ty.clone(),
                            flags: CastFlags::default(),
                        };
                        bits = self.values.insert(&mut self.func, &mut cursor, trunc, part_ty);
                    }
                    let piece_ty = Type::BOOL.vector_of(*lanes_per_part);
                    let cast = InstData::Cast {
                        op: CastOp::Bitcast,
                        arg: bits,
                        to: piece_ty.clone(),
                        flags: CastFlags::default(),
                    };
                    pieces.push(self.values.insert(&mut self.func, &mut cursor, cast, piece_ty));
                }
                // Concatenate pairwise (pad with poison when the count is odd),
                // then cut to W lanes.
                let mut piece_lanes = *lanes_per_part;
                while pieces.len() > 1 {
                    if pieces.len() % 2 == 1 {
                        let poison = self
                            .func
                            .dfg
                            .make_const(Type::BOOL.vector_of(piece_lanes), Constant::Poison);
                        pieces.push(poison);
                    }
                    let joined_ty = Type::BOOL.vector_of(piece_lanes * 2);
                    let indices: Vec<i32> = (0..(piece_lanes * 2) as i32).collect();
                    let mut joined = Vec::new();
                    for pair in pieces.chunks(2) {
                        let shuffle =
                            InstData::Shuffle { lhs: pair[0], rhs: pair[1], mask: indices.clone() };
                        joined.push(self.values.insert(
                            &mut self.func,
                            &mut cursor,
                            shuffle,
                            joined_ty.clone(),
                        ));
                    }
                    pieces = joined;
                    piece_lanes *= 2;
                }
                let mut mask = pieces[0];
                if piece_lanes != width {
                    let indices: Vec<i32> = (0..width as i32).collect();
                    let shuffle = InstData::Shuffle { lhs: mask, rhs: mask, mask: indices };
                    mask =
                        self.values.insert(&mut self.func, &mut cursor, shuffle, mask_ty.clone());
                }
                mask
            }
        };
        self.func.dfg.value_names[mask] = Some("entry.mask".to_owned());
        let scalar_mask = self.scalar.param_value(self.scalar.params.len() - 1);
        self.values.define(scalar_mask, Widened::Vector(mask));
        self.entry_mask = Some(mask);
    }

    /// The `<W x i1>` mask of the block being widened; `None` when every
    /// lane is active (see the module docs).
    pub(super) fn block_mask(&mut self) -> Result<Option<Value>, WidenError> {
        if let Some(mask) = self.current_mask {
            return Ok(mask);
        }
        let (scalar_block, _) = self.location.expect("widening an instruction");
        let mask = match self.predicates.get(scalar_block) {
            None => self.entry_mask,
            Some(predicate) => {
                if *self.scalar.dfg.value_type(predicate) != Type::BOOL {
                    return Err(self.unsupported(format!(
                        "the predicate {} of block `{}` is not an i1 value",
                        self.scalar.dfg.display_value(predicate),
                        self.scalar.block_name(scalar_block)
                    )));
                }
                let always_true = self.scalar.dfg.int_constant(predicate) == Some(1);
                let uniform = self.scalar.dfg.constant(predicate).is_some()
                    || self.shapes.shape(predicate).shape == Shape::Uniform
                    || self.is_uniform(predicate)?;
                if always_true || (uniform && self.predicates.uniform_predicates_are_exact()) {
                    self.entry_mask
                } else {
                    // A varying predicate (which includes the entry mask), or
                    // a uniform one that may be false here (full
                    // linearization): mask by it.
                    Some(self.vector(predicate)?)
                }
            }
        };
        self.current_mask = Some(mask);
        Ok(mask)
    }

    /// `<W x i1>` `value` in the lanes of `mask`, `inactive` in the others.
    /// A `select`, not an `and`/`or`: linearized code computes every lane,
    /// so an inactive lane of `value` may be poison (an `nsw` overflow, a
    /// masked load's pass-through), and `and(poison, false)` is poison; a
    /// reduction of it that a branch reads would be undefined behaviour.
    pub(super) fn select_in_active_lanes(
        &mut self,
        mask: Value,
        value: Value,
        inactive: bool,
    ) -> Value {
        let ty = self.func.dfg.value_type(value).clone();
        let bit = self.func.dfg.int_const(Type::BOOL, u128::from(inactive));
        let inactive = match &ty {
            Type::Vector { lanes, .. } => self
                .func
                .dfg
                .make_const(ty.clone(), Constant::Aggregate(vec![bit; *lanes as usize])),
            _ => bit,
        };
        let select = InstData::Select {
            cond: mask,
            if_true: value,
            if_false: inactive,
            flags: FastMathFlags::default(),
        };
        self.append_value(select, ty)
    }

    /// `any(mask)` as a scalar `i1`, computed once right after the mask (a
    /// block mask of W lanes, or a part of one: a register's lanes).
    pub(super) fn mask_any(&mut self, mask: Value) -> Value {
        if let Some(any) = self.mask_any.get(&mask) {
            return *any;
        }
        let lanes = self.func.dfg.value_type(mask).lanes().unwrap_or(self.width);
        let call = InstData::Call {
            callee: Callee::Direct(format!("llvm.vector.reduce.or.v{lanes}i1")),
            args: vec![mask],
            ret_ty: Type::BOOL,
            effects: CallEffects::Pure,
            flags: FastMathFlags::default(),
        };
        let mut cursor = self.values.cursor_after_definition(&self.func, mask);
        let any = self.values.insert(&mut self.func, &mut cursor, call, Type::BOOL);
        self.mask_any.insert(mask, any);
        any
    }

    /// The mask packed into an `iW` (lane i is bit i), computed once right
    /// after the mask.
    pub(super) fn mask_bits(&mut self, mask: Value) -> Value {
        if let Some(bits) = self.mask_bits.get(&mask) {
            return *bits;
        }
        let packed_ty = Type::Int(self.width);
        let cast = InstData::Cast {
            op: CastOp::Bitcast,
            arg: mask,
            to: packed_ty.clone(),
            flags: CastFlags::default(),
        };
        let mut cursor = self.values.cursor_after_definition(&self.func, mask);
        let bits = self.values.insert(&mut self.func, &mut cursor, cast, packed_ty);
        self.mask_bits.insert(mask, bits);
        bits
    }

    /// Whether every lane set in the widened mask `value` is set in `mask`:
    /// `value` is `mask`, or `select(c, _, false)` or `a & b` with `c`
    /// (`a` or `b`) implying `mask`, a few levels deep. A divergent loop's
    /// continue mask is built that way from its live mask, so `rv_any` of
    /// it needs no `and` with the block mask.
    pub(super) fn implies_mask(&self, value: Value, mask: Value) -> bool {
        fn implies(func: &Function, value: Value, mask: Value, depth: u32) -> bool {
            if value == mask {
                return true;
            }
            if depth == 0 {
                return false;
            }
            let Some(def) = func.dfg.defining_inst(value) else { return false };
            match func.dfg.inst(def) {
                InstData::Select { cond, if_false, .. } if is_false_mask(func, *if_false) => {
                    implies(func, *cond, mask, depth - 1)
                }
                InstData::Binary { op: BinaryOp::And, lhs, rhs, .. } => {
                    implies(func, *lhs, mask, depth - 1) || implies(func, *rhs, mask, depth - 1)
                }
                _ => false,
            }
        }
        implies(&self.func, value, mask, 4)
    }

    /// The all-false or all-true `<W x i1>` constant.
    pub(super) fn constant_mask(&mut self, value: bool) -> Value {
        let bit = self.func.dfg.int_const(Type::BOOL, u128::from(value));
        let mask_ty = Type::BOOL.vector_of(self.width);
        self.func.dfg.make_const(mask_ty, Constant::Aggregate(vec![bit; self.width as usize]))
    }

    /// `mask[lane]` as a scalar `i1`.
    fn mask_lane(&mut self, mask: Value, lane: u32) -> Value {
        let index = self.func.dfg.int_const(Type::I32, u128::from(lane));
        self.append_value(InstData::ExtractElement { vector: mask, index }, Type::BOOL)
    }

    /// The name prefix of the blocks of a new guard in the current block:
    /// the current block's name without earlier guard suffixes, then
    /// `.guardN` with a serial number unique in the function.
    pub(super) fn next_guard_prefix(&mut self) -> String {
        let current = self.current.expect("a current block");
        let name = self.func.block_name(current);
        let base = name.split(".guard").next().unwrap_or(&name);
        self.guard_serial += 1;
        format!("{base}.guard{}", self.guard_serial)
    }

    /// Ends the current block with `br cond, fast, slow`, places `fast`,
    /// `slow` and a new join block (`{prefix}.join`) after it in that
    /// order, and continues in `fast`; returns the join block. The caller
    /// ends `fast` and `slow` with jumps to it.
    pub(super) fn branch_to_diamond(
        &mut self,
        prefix: &str,
        cond: Value,
        fast: Block,
        slow: Block,
    ) -> Block {
        let before = self.current.expect("a current block");
        let join = self.func.dfg.make_block(Some(format!("{prefix}.join")));
        self.func.layout.insert_block_after(fast, before);
        self.func.layout.insert_block_after(slow, fast);
        self.func.layout.insert_block_after(join, slow);
        self.append(InstData::Branch { cond, then_dest: fast, else_dest: slow }, Type::Void);
        self.current = Some(fast);
        join
    }

    /// Emits `if cond { body }` at the current point: the current block ends
    /// with a branch, the body goes into a new block, and widening continues
    /// in a new join block. Returns the body's result merged with zero (the
    /// value when `cond` is false) by a phi in the join block. Zero, not
    /// poison: a uniform load skipped because no lane is active may still
    /// reach a uniform branch, a `select` condition or a divisor of the
    /// linearized code, and branching on poison is undefined behaviour that
    /// LLVM's optimizations exploit (issue 14, class 1).
    pub(super) fn emit_guarded(
        &mut self,
        cond: Value,
        label: &str,
        body: impl FnOnce(&mut Self) -> Result<Option<Value>, WidenError>,
    ) -> Result<Option<Value>, WidenError> {
        let before = self.current.expect("a current block");
        let prefix = self.next_guard_prefix();
        let guarded = self.func.dfg.make_block(Some(format!("{prefix}.{label}")));
        let join = self.func.dfg.make_block(Some(format!("{prefix}.{label}.join")));
        self.func.layout.insert_block_after(guarded, before);
        self.func.layout.insert_block_after(join, guarded);
        let branch = InstData::Branch { cond, then_dest: guarded, else_dest: join };
        self.append(branch, Type::Void);
        self.current = Some(guarded);
        let result = body(self)?;
        let guarded_end = self.current.expect("a current block");
        self.append(InstData::Jump { dest: join }, Type::Void);
        self.current = Some(join);
        Ok(result.map(|value| {
            let ty = self.func.dfg.value_type(value).clone();
            let zero = self.func.dfg.make_const(ty.clone(), Constant::Zero);
            let incoming = vec![(guarded_end, value), (before, zero)];
            self.append_value(InstData::Phi { ty: ty.clone(), incoming }, ty)
        }))
    }

    /// Emits `body` to run once if some lane of `mask` (the current block's
    /// mask) is active: under an `any` guard ([`Self::emit_guarded`]), or
    /// straight in the block when the block is known to run only while some
    /// lane is active ([`crate::BlockPredicates::some_lane_active`]).
    pub(super) fn emit_if_any_lane_active(
        &mut self,
        mask: Value,
        label: &str,
        body: impl FnOnce(&mut Self) -> Result<Option<Value>, WidenError>,
    ) -> Result<Option<Value>, WidenError> {
        let (scalar_block, _) = self.location.expect("widening an instruction");
        if self.predicates.some_lane_active(scalar_block) {
            return body(self);
        }
        let any = self.mask_any(mask);
        self.emit_guarded(any, label, body)
    }

    /// `for lane in 0..W: if mask[lane] { body(lane) }`, as a chain of
    /// guards in lane order; returns the per-lane results (poison in the
    /// lanes that did not run) if the body produces values.
    pub(super) fn emit_per_lane_guarded(
        &mut self,
        mask: Value,
        label: &str,
        mut body: impl FnMut(&mut Self, u32) -> Result<Option<Value>, WidenError>,
    ) -> Result<Option<Vec<Value>>, WidenError> {
        let mut results = Vec::new();
        for lane in 0..self.width {
            let active = self.mask_lane(mask, lane);
            let label = format!("{label}.lane{lane}");
            if let Some(result) = self.emit_guarded(active, &label, |this| body(this, lane))? {
                results.push(result);
            }
        }
        Ok((!results.is_empty()).then_some(results))
    }

    /// The value of `value` in the highest active lane of `mask` (which must
    /// have an active lane when this runs): `extractelement` at
    /// `W - 1 - ctlz(bits(mask))`.
    pub(super) fn highest_active_lane_value(
        &mut self,
        value: Value,
        mask: Value,
    ) -> Result<Value, WidenError> {
        let width = self.width;
        let vector = self.vector(value)?;
        let bits = self.mask_bits(mask);
        let packed_ty = Type::Int(width);
        let no_poison = self.func.dfg.int_const(Type::BOOL, 1);
        let ctlz = InstData::Call {
            callee: Callee::Direct(format!("llvm.ctlz.i{width}")),
            args: vec![bits, no_poison],
            ret_ty: packed_ty.clone(),
            effects: CallEffects::Pure,
            flags: FastMathFlags::default(),
        };
        let leading_zeros = self.append_value(ctlz, packed_ty.clone());
        let last = self.func.dfg.int_const(packed_ty.clone(), u128::from(width - 1));
        let sub = InstData::Binary {
            op: BinaryOp::Sub,
            lhs: last,
            rhs: leading_zeros,
            flags: ArithFlags::default(),
        };
        let mut index = self.append_value(sub, packed_ty);
        if width != 32 {
            let op = if width > 32 { CastOp::Trunc } else { CastOp::ZExt };
            let cast =
                InstData::Cast { op, arg: index, to: Type::I32, flags: CastFlags::default() };
            index = self.append_value(cast, Type::I32);
        }
        let elem = self.func.dfg.value_type(vector).scalar_type().clone();
        Ok(self.append_value(InstData::ExtractElement { vector, index }, elem))
    }

    /// The divisor of a division or remainder in a masked block: inactive
    /// lanes divide by one. `divisor` is a vector (varying division) or a
    /// scalar (uniform division: one if no lane is active).
    pub(super) fn safe_divisor(&mut self, divisor: Value) -> Result<Value, WidenError> {
        if self.is_safe_constant_divisor(divisor) {
            return Ok(divisor);
        }
        let Some(mask) = self.block_mask()? else { return Ok(divisor) };
        let ty = self.func.dfg.value_type(divisor).clone();
        let one_scalar = self.func.dfg.int_const(ty.scalar_type().clone(), 1);
        let (cond, one) = match ty.lanes() {
            Some(lanes) => {
                let ones = Constant::Aggregate(vec![one_scalar; lanes as usize]);
                (mask, self.func.dfg.make_const(ty.clone(), ones))
            }
            None => (self.mask_any(mask), one_scalar),
        };
        let select = InstData::Select {
            cond,
            if_true: divisor,
            if_false: one,
            flags: FastMathFlags::default(),
        };
        Ok(self.append_value(select, ty))
    }

    /// Whether `divisor` (a value of the new function) is a constant that is
    /// neither zero nor -1 in every lane: dividing by it never traps.
    fn is_safe_constant_divisor(&self, divisor: Value) -> bool {
        let dfg = &self.func.dfg;
        let safe = |value: Value| {
            dfg.signed_int_constant(value).is_some_and(|constant| constant != 0 && constant != -1)
        };
        match dfg.constant(divisor) {
            Some(Constant::Aggregate(elements)) => elements.iter().all(|element| safe(*element)),
            Some(_) => safe(divisor),
            None => false,
        }
    }
}

/// Whether `value` is an all-false mask constant.
fn is_false_mask(func: &Function, value: Value) -> bool {
    match func.dfg.constant(value) {
        Some(Constant::Zero) => true,
        Some(Constant::Aggregate(lanes)) => {
            lanes.iter().all(|&lane| func.dfg.int_constant(lane) == Some(0))
        }
        _ => false,
    }
}
