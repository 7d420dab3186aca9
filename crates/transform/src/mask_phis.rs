//! Mask arithmetic in the register layout of the target.
//!
//! Widening produces masks as `<W x i1>` values: block predicates, loop live
//! masks (Moll & Hack, PLDI'18, section 5) and the exit masks and blend
//! conditions of partial linearization (Karrenberg 2014, 6.1 and 6.2) are
//! `and`/`or`/`xor`/`select` of comparison results and splatted uniform
//! conditions. Where such a mask is carried around a loop by a phi, LLVM's
//! x86 backend without AVX-512 mask registers legalizes the `<W x i1>` value
//! that crosses blocks to a packed type of its own choosing (`<8 x i16>` for
//! eight lanes on AVX2), while the comparisons that produce the mask and the
//! blends that consume it work on full-width lanes: every iteration then packs
//! and unpacks the mask (`vpackssdw`, `vextractf128`, `vpmovzxwd`, `vpslld`,
//! `vpbroadcastb` of splatted uniform conditions). Mandelbrot's escape loop
//! ran at 4.2x instead of 7x over scalar calls because of it.
//!
//! Rewriting only the phis to `<W x iN>` (sign-extension at the predecessors,
//! truncation after the phi) does not survive LLVM: `instcombine` evaluates
//! `trunc(phi(sext a, -1))` in the narrow type and folds the phi back to
//! `<W x i1>`. This pass therefore moves the whole *mask arithmetic* into the
//! wide domain, as hand-written AVX2 code does (`_mm256_cmp_ps`,
//! `_mm256_and_ps`, `_mm256_movemask_ps`):
//!
//! - every mask phi, `and`/`or`/`xor`, mask-valued `select` and splat of a
//!   uniform boolean gets a twin of type `<W x iN>` (`N = register bits / W`,
//!   the lane width of the comparisons that fill a register) computed from the
//!   twins of its operands; `select(c, a, false)` becomes `and`,
//!   `select(c, true, b)` becomes `or` (linearization's blend of masks),
//!   with the operand the select could ignore frozen, since `and`/`or`
//!   propagate poison from lanes a select would not read;
//! - every other producer of a mask (comparisons, calls, parameters) is a leaf,
//!   sign-extended once after its definition;
//! - every use of a rewritten mask outside mask arithmetic (blend conditions,
//!   `rv_any` reductions, memory masks) reads `icmp slt twin, 0`, the sign
//!   bit, which is exactly what `vblendvps` and `vmovmskps` test;
//! - the old `<W x i1>` arithmetic is deleted.
//!
//! A loop-carried mask phi then has two different users in the wide type,
//! the sign test and the mask arithmetic of the next iteration (`and(live,
//! sext(continue))`, which instcombine turns into `select(continue, live,
//! 0)`), so instcombine's phi narrowing (which needs a phi with one use) and
//! `foldOpIntoPhi` leave it alone, in our cleanup pipeline and in the user's
//! `clang -O3` alike. Masks that live inside one block fold back to
//! `<W x i1>` in instcombine, which is the code they had before. AVX-512 has
//! mask registers for `<W x i1>`; the pass is not run for it.

use std::collections::{HashMap, HashSet};

use lanewise_ir::vfabi::Isa;
use lanewise_ir::{
    BinaryOp, Block, CastFlags, CastOp, Constant, FastMathFlags, Function, Inst, InstData,
    IntPredicate, Type, Value, ValueDef,
};

/// Rewrites the mask arithmetic of the vector function `func` into
/// full-width integer lanes when it carries a mask in a phi (see the module
/// docs). Returns the number of mask phis rewritten; functions without mask
/// phis are left unchanged.
pub fn widen_mask_phis(func: &mut Function, isa: Isa) -> usize {
    if isa == Isa::Avx512 {
        return 0;
    }
    let mask_arithmetic: Vec<Inst> =
        func.layout.insts().filter(|inst| is_mask_arithmetic(func, *inst)).collect();
    let mask_phi_count = mask_arithmetic
        .iter()
        .filter(|inst| matches!(func.dfg.inst(**inst), InstData::Phi { .. }))
        .count();
    if mask_phi_count == 0 {
        return 0;
    }
    let original_insts: Vec<Inst> = func.layout.insts().collect();
    let mut domain = WideMaskDomain {
        func,
        register_bits: isa.register_bits(),
        mask_arithmetic: mask_arithmetic.iter().copied().collect(),
        wide: HashMap::new(),
        narrow: HashMap::new(),
        pending_phis: Vec::new(),
    };
    for inst in &mask_arithmetic {
        let value = domain.func.dfg.result(*inst).expect("mask arithmetic has a result");
        domain.wide_of(value);
    }
    domain.fill_pending_phis();

    // Uses outside mask arithmetic read the sign bit of the twin.
    for user in original_insts {
        if domain.mask_arithmetic.contains(&user) {
            continue;
        }
        let rewritten: Vec<Value> = domain
            .func
            .dfg
            .inst(user)
            .operands()
            .into_iter()
            .filter(|operand| domain.is_rewritten(*operand))
            .collect();
        for operand in rewritten {
            let narrow = domain.narrow_of(operand);
            domain.func.dfg.inst_mut(user).map_operands(|value| {
                if value == operand {
                    narrow
                } else {
                    value
                }
            });
        }
    }

    // The old `<W x i1>` arithmetic is now only read by itself.
    for inst in mask_arithmetic {
        domain.func.layout.remove_inst(inst);
    }
    mask_phi_count
}

/// The lane count of a `<W x i1>` mask type.
fn mask_lanes(ty: &Type) -> Option<u32> {
    match ty {
        Type::Vector { elem, lanes } if **elem == Type::BOOL => Some(*lanes),
        _ => None,
    }
}

/// Whether `inst` computes a mask from masks (or splats a uniform boolean):
/// the instructions that get a wide twin and are then deleted.
fn is_mask_arithmetic(func: &Function, inst: Inst) -> bool {
    let Some(result) = func.dfg.result(inst) else { return false };
    if mask_lanes(func.dfg.value_type(result)).is_none() {
        return false;
    }
    match func.dfg.inst(inst) {
        InstData::Phi { .. } | InstData::Select { .. } => true,
        InstData::Binary { op, .. } => matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor),
        InstData::Splat { scalar, .. } => *func.dfg.value_type(*scalar) == Type::BOOL,
        _ => false,
    }
}

/// The rewriting state: the wide twin and the narrow (sign-test) view of
/// each mask value, created on demand right after the definitions they
/// stand for, so they dominate every use of the original.
struct WideMaskDomain<'f> {
    func: &'f mut Function,
    register_bits: u32,
    mask_arithmetic: HashSet<Inst>,
    wide: HashMap<Value, Value>,
    narrow: HashMap<Value, Value>,
    /// (old phi, wide phi) whose incoming values are filled at the end, so
    /// loops of phis terminate.
    pending_phis: Vec<(Inst, Inst)>,
}

impl WideMaskDomain<'_> {
    fn wide_type(&self, lanes: u32) -> Type {
        let lane_bits = (self.register_bits / lanes).clamp(8, 64).next_power_of_two();
        Type::Int(lane_bits).vector_of(lanes)
    }

    fn is_rewritten(&self, value: Value) -> bool {
        self.func.dfg.defining_inst(value).is_some_and(|inst| self.mask_arithmetic.contains(&inst))
    }

    /// The `<W x iN>` twin of the mask `value` (all-ones lanes where it is
    /// true, zero elsewhere).
    fn wide_of(&mut self, value: Value) -> Value {
        if let Some(wide) = self.wide.get(&value) {
            return *wide;
        }
        let lanes = mask_lanes(self.func.dfg.value_type(value)).expect("a mask value");
        let wide_ty = self.wide_type(lanes);
        let wide = match self.func.dfg.value_def(value).clone() {
            ValueDef::Const(constant) => self.wide_constant(&constant, &wide_ty),
            ValueDef::Param(_) => {
                let entry = self.func.layout.entry_block().expect("a function with a body");
                let data = cast(CastOp::SExt, value, &wide_ty);
                let inst = self.func.dfg.make_inst(data, wide_ty);
                self.func.layout.insert_inst_at(inst, entry, 0);
                self.func.dfg.result(inst).unwrap()
            }
            ValueDef::Result(inst) if self.mask_arithmetic.contains(&inst) => {
                self.wide_of_arithmetic(inst, wide_ty)
            }
            ValueDef::Result(inst) => {
                let data = cast(CastOp::SExt, value, &wide_ty);
                self.insert_after(inst, data, wide_ty)
            }
        };
        self.wide.insert(value, wide);
        wide
    }

    fn wide_of_arithmetic(&mut self, inst: Inst, wide_ty: Type) -> Value {
        match self.func.dfg.inst(inst).clone() {
            InstData::Phi { .. } => {
                let wide_phi = self
                    .func
                    .dfg
                    .make_inst(InstData::Phi { ty: wide_ty.clone(), incoming: vec![] }, wide_ty);
                self.func.layout.insert_inst_before(wide_phi, inst);
                self.pending_phis.push((inst, wide_phi));
                self.func.dfg.result(wide_phi).unwrap()
            }
            InstData::Binary { op, lhs, rhs, flags } => {
                let (lhs, rhs) = (self.wide_of(lhs), self.wide_of(rhs));
                self.insert_after(inst, InstData::Binary { op, lhs, rhs, flags }, wide_ty)
            }
            InstData::Splat { scalar, lanes } => {
                let scalar_ty = wide_ty.scalar_type().clone();
                let extended =
                    self.insert_after(inst, cast(CastOp::SExt, scalar, &scalar_ty), scalar_ty);
                let extended_inst = self.func.dfg.defining_inst(extended).unwrap();
                self.insert_after(
                    extended_inst,
                    InstData::Splat { scalar: extended, lanes },
                    wide_ty,
                )
            }
            InstData::Select { cond, if_true, if_false, flags } => {
                self.wide_of_select(inst, (cond, if_true, if_false, flags), wide_ty)
            }
            other => unreachable!("not mask arithmetic: {other:?}"),
        }
    }

    /// `select(c, a, b)` of masks; with a mask condition the blends of
    /// linearization become bitwise operations.
    fn wide_of_select(
        &mut self,
        inst: Inst,
        (cond, if_true, if_false, flags): (Value, Value, Value, FastMathFlags),
        wide_ty: Type,
    ) -> Value {
        let cond_is_mask = mask_lanes(self.func.dfg.value_type(cond)).is_some();
        let true_const = self.bool_constant(if_true);
        let false_const = self.bool_constant(if_false);
        if cond_is_mask {
            let wide_cond = self.wide_of(cond);
            let binary =
                |op, lhs, rhs| InstData::Binary { op, lhs, rhs, flags: Default::default() };
            match (true_const, false_const) {
                (Some(false), Some(false)) => {
                    return self.wide_constant(&Constant::Zero, &wide_ty);
                }
                (Some(true), Some(true)) => {
                    return self.all_ones(&wide_ty);
                }
                (Some(true), Some(false)) => return wide_cond,
                (_, Some(false)) => {
                    let wide_true = self.wide_of(if_true);
                    let (wide_true, after) = self.frozen_after(inst, wide_true);
                    return self.insert_after(
                        after,
                        binary(BinaryOp::And, wide_cond, wide_true),
                        wide_ty,
                    );
                }
                (Some(true), _) => {
                    let wide_false = self.wide_of(if_false);
                    let (wide_false, after) = self.frozen_after(inst, wide_false);
                    return self.insert_after(
                        after,
                        binary(BinaryOp::Or, wide_cond, wide_false),
                        wide_ty,
                    );
                }
                _ => {}
            }
        }
        let (wide_true, wide_false) = (self.wide_of(if_true), self.wide_of(if_false));
        let cond =
            if cond_is_mask && self.is_rewritten(cond) { self.narrow_of(cond) } else { cond };
        self.insert_after(
            inst,
            InstData::Select { cond, if_true: wide_true, if_false: wide_false, flags },
            wide_ty,
        )
    }

    /// `freeze(value)` right after `inst` (a constant needs none), and the
    /// instruction after which its users go. `select(c, a, false)` is false
    /// where `c` is, even if `a` is poison there (a lane that computed on
    /// garbage, an `nsw` overflow in an inactive lane); `and(c, a)` would be
    /// poison, so the operand that the select could ignore is frozen.
    fn frozen_after(&mut self, inst: Inst, value: Value) -> (Value, Inst) {
        if let Some(constant) = self.func.dfg.constant(value) {
            if !matches!(constant, Constant::Poison | Constant::Undef) {
                return (value, inst);
            }
        }
        let ty = self.func.dfg.value_type(value).clone();
        let frozen = self.insert_after(inst, InstData::Freeze { arg: value }, ty);
        (frozen, self.func.dfg.defining_inst(frozen).unwrap())
    }

    /// `Some(b)` if `value` is a mask constant whose lanes are all `b`.
    fn bool_constant(&self, value: Value) -> Option<bool> {
        let lanes_all = |elements: &[Value], wanted: u128| {
            elements.iter().all(|element| {
                matches!(self.func.dfg.constant(*element), Some(Constant::Int(bits)) if bits & 1 == wanted)
            })
        };
        match self.func.dfg.constant(value)? {
            Constant::Zero => Some(false),
            Constant::Int(bits) => Some(bits & 1 == 1),
            Constant::Aggregate(elements) if lanes_all(elements, 1) => Some(true),
            Constant::Aggregate(elements) if lanes_all(elements, 0) => Some(false),
            _ => None,
        }
    }

    fn all_ones(&mut self, wide_ty: &Type) -> Value {
        let lanes = wide_ty.lanes().unwrap();
        let elem = wide_ty.scalar_type().clone();
        let one = self.func.dfg.int_const(elem, u128::MAX);
        self.func.dfg.make_const(wide_ty.clone(), Constant::Aggregate(vec![one; lanes as usize]))
    }

    /// The twin of a mask constant: each true lane all ones.
    fn wide_constant(&mut self, constant: &Constant, wide_ty: &Type) -> Value {
        let elem = wide_ty.scalar_type().clone();
        let lanes = wide_ty.lanes().unwrap() as usize;
        let wide_constant = match constant {
            Constant::Zero | Constant::Null => Constant::Zero,
            Constant::Undef => Constant::Undef,
            Constant::Poison => Constant::Poison,
            Constant::Int(bits) => {
                let lane = self
                    .func
                    .dfg
                    .int_const(elem.clone(), if bits & 1 == 1 { u128::MAX } else { 0 });
                Constant::Aggregate(vec![lane; lanes])
            }
            Constant::Aggregate(elements) => {
                let elements = elements.clone();
                let wide_elements = elements
                    .iter()
                    .map(|element| match self.func.dfg.constant(*element) {
                        Some(Constant::Int(bits)) => {
                            let bits = if bits & 1 == 1 { u128::MAX } else { 0 };
                            self.func.dfg.int_const(elem.clone(), bits)
                        }
                        Some(Constant::Undef) => {
                            self.func.dfg.make_const(elem.clone(), Constant::Undef)
                        }
                        _ => self.func.dfg.make_const(elem.clone(), Constant::Poison),
                    })
                    .collect();
                Constant::Aggregate(wide_elements)
            }
            Constant::Float(_) | Constant::Symbol(_) => Constant::Poison,
        };
        self.func.dfg.make_const(wide_ty.clone(), wide_constant)
    }

    /// `icmp slt twin, 0`: the `<W x i1>` view of the rewritten mask `value`,
    /// right after the twin's definition (after the phis of its block).
    fn narrow_of(&mut self, value: Value) -> Value {
        if let Some(narrow) = self.narrow.get(&value) {
            return *narrow;
        }
        let wide = self.wide_of(value);
        let wide_ty = self.func.dfg.value_type(wide).clone();
        let mask_ty = self.func.dfg.value_type(value).clone();
        let zero = self.func.dfg.make_const(wide_ty, Constant::Zero);
        let data = InstData::Icmp { pred: IntPredicate::Slt, lhs: wide, rhs: zero };
        let narrow = match self.func.dfg.value_def(wide).clone() {
            ValueDef::Result(wide_inst) => {
                if matches!(self.func.dfg.inst(wide_inst), InstData::Phi { .. }) {
                    let block = self.func.layout.inst_block(wide_inst).unwrap();
                    let inst = self.func.dfg.make_inst(data, mask_ty);
                    let position = self.first_non_phi_position(block);
                    self.func.layout.insert_inst_at(inst, block, position);
                    self.func.dfg.result(inst).unwrap()
                } else {
                    self.insert_after(wide_inst, data, mask_ty)
                }
            }
            // A constant twin: the original constant-folded arithmetic
            // (e.g. `select(c, false, false)`) is a constant too.
            _ => self.narrow_constant(value, wide),
        };
        self.narrow.insert(value, narrow);
        narrow
    }

    fn narrow_constant(&mut self, value: Value, wide: Value) -> Value {
        let mask_ty = self.func.dfg.value_type(value).clone();
        let constant = match self.func.dfg.constant(wide) {
            Some(Constant::Aggregate(elements)) => {
                let elements = elements.clone();
                let narrow_elements = elements
                    .iter()
                    .map(|element| match self.func.dfg.constant(*element) {
                        Some(Constant::Int(0)) => self.func.dfg.int_const(Type::BOOL, 0),
                        Some(Constant::Int(_)) => self.func.dfg.int_const(Type::BOOL, 1),
                        Some(Constant::Undef) => {
                            self.func.dfg.make_const(Type::BOOL, Constant::Undef)
                        }
                        _ => self.func.dfg.make_const(Type::BOOL, Constant::Poison),
                    })
                    .collect();
                Constant::Aggregate(narrow_elements)
            }
            Some(other) => other.clone(),
            None => unreachable!("a wide twin that is neither an instruction nor a constant"),
        };
        self.func.dfg.make_const(mask_ty, constant)
    }

    fn first_non_phi_position(&self, block: Block) -> usize {
        self.func
            .layout
            .block_insts(block)
            .iter()
            .position(|inst| !matches!(self.func.dfg.inst(*inst), InstData::Phi { .. }))
            .expect("a block ends in a terminator")
    }

    /// Inserts `data` right after `after` (after the phis if `after` is one).
    fn insert_after(&mut self, after: Inst, data: InstData, ty: Type) -> Value {
        let block = self.func.layout.inst_block(after).expect("an inserted instruction");
        let position = if matches!(self.func.dfg.inst(after), InstData::Phi { .. }) {
            self.first_non_phi_position(block)
        } else {
            let insts = self.func.layout.block_insts(block);
            insts.iter().position(|inst| *inst == after).unwrap() + 1
        };
        let inst = self.func.dfg.make_inst(data, ty);
        self.func.layout.insert_inst_at(inst, block, position);
        self.func.dfg.result(inst).unwrap()
    }

    fn fill_pending_phis(&mut self) {
        while let Some((old_phi, wide_phi)) = self.pending_phis.pop() {
            let InstData::Phi { incoming, .. } = self.func.dfg.inst(old_phi).clone() else {
                unreachable!()
            };
            let wide_incoming: Vec<(Block, Value)> =
                incoming.iter().map(|(pred, value)| (*pred, self.wide_of(*value))).collect();
            let InstData::Phi { incoming, .. } = self.func.dfg.inst_mut(wide_phi) else {
                unreachable!()
            };
            *incoming = wide_incoming;
        }
    }
}

fn cast(op: CastOp, arg: Value, to: &Type) -> InstData {
    InstData::Cast { op, arg, to: to.clone(), flags: CastFlags::default() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{Interpreter, Memory, Val};
    use lanewise_ir::{verify_function, FunctionBuilder};

    const LANES: u32 = 8;

    fn mask_ty() -> Type {
        Type::BOOL.vector_of(LANES)
    }

    fn mask_const(func: &mut Function, lanes: bool) -> Value {
        let lane = func.dfg.int_const(Type::BOOL, u128::from(lanes));
        func.dfg.make_const(mask_ty(), Constant::Aggregate(vec![lane; LANES as usize]))
    }

    /// A divergent loop as linearization and widening leave it (Mandelbrot's
    /// shape): a live mask carried by a phi, narrowed by a varying condition
    /// (`select(live, c, false)`) and a splatted uniform one (`and`), a
    /// tracker blended under the exiting lanes, an `or`-shaped select, a
    /// select with a scalar condition, a constant-folded `select(m, false,
    /// false)`, and the loop test on the packed mask.
    ///
    /// `f(<8 x i32> limits, i32 n)`: lane k counts up to `min(limits[k], n)`.
    fn counting_loop() -> (Function, Block) {
        let int_vec = Type::I32.vector_of(LANES);
        let mut func = Function::new("f", vec![int_vec.clone(), Type::I32], int_vec.clone());
        let (limits, n) = (func.param_value(0), func.param_value(1));
        let all_true = mask_const(&mut func, true);
        let all_false = mask_const(&mut func, false);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(None);
        let body = b.create_block(None);
        let exit = b.create_block(None);
        b.switch_to_block(entry);
        let zero_vec = b.func.dfg.make_const(int_vec.clone(), Constant::Zero);
        b.jump(body);

        b.switch_to_block(body);
        let live = b.phi(mask_ty(), vec![(entry, all_true)]);
        let zero = b.func.dfg.int_const(Type::I32, 0);
        let counter = b.phi(Type::I32, vec![(entry, zero)]);
        let count = b.phi(int_vec.clone(), vec![(entry, zero_vec)]);
        let counter_splat = b.splat(counter, LANES);
        let below = b.icmp(IntPredicate::Slt, counter_splat, limits);
        let staying = b.select(live, below, all_false);
        let not_below = b.binary(BinaryOp::Xor, below, all_true);
        let exiting = b.select(live, not_below, all_false);
        let nothing = b.select(exiting, all_false, all_false);
        let exiting_or_nothing = b.select(nothing, all_true, exiting);
        let one = b.func.dfg.int_const(Type::I32, 1);
        let next_counter = b.binary(BinaryOp::Add, counter, one);
        let more = b.icmp(IntPredicate::Ne, next_counter, n);
        let more_splat = b.splat(more, LANES);
        let live_next = b.binary(BinaryOp::And, staying, more_splat);
        let either = b.select(more, staying, exiting_or_nothing);
        let with_exits = b.select(either, counter_splat, count);
        let next_count = b.select(exiting_or_nothing, counter_splat, with_exits);
        let final_count = b.select(live, next_count, count);
        let packed = b.cast(CastOp::Bitcast, live_next, Type::Int(LANES));
        let zero_packed = b.func.dfg.int_const(Type::Int(LANES), 0);
        let any = b.icmp(IntPredicate::Ne, packed, zero_packed);
        b.branch(any, body, exit);
        b.switch_to_block(exit);
        b.ret(Some(final_count));
        for (phi, value) in [(live, live_next), (counter, next_counter), (count, final_count)] {
            let phi = b.func.dfg.defining_inst(phi).unwrap();
            let InstData::Phi { incoming, .. } = b.func.dfg.inst_mut(phi) else { unreachable!() };
            incoming.push((body, value));
        }
        (func, body)
    }

    fn run(func: &Function, limits: [i128; 8], n: i128) -> Val {
        let mut interpreter =
            Interpreter::new(Memory::new(0x1000, 0), |name, _| panic!("unexpected call to {name}"));
        let limits = Val::Vector(
            limits.iter().map(|limit| Val::int(32, *limit as u128 & 0xffff_ffff)).collect(),
        );
        let n = Val::int(32, n as u128 & 0xffff_ffff);
        interpreter.run(func, &[limits, n]).expect("the function runs").expect("a result")
    }

    #[test]
    fn mask_arithmetic_moves_to_full_width_lanes() {
        let (mut func, body) = counting_loop();
        verify_function(&func).unwrap();

        assert_eq!(widen_mask_phis(&mut func, Isa::Avx2), 1);

        verify_function(&func).unwrap();
        let insts = func.layout.block_insts(body).to_vec();
        let InstData::Phi { ty, incoming } = func.dfg.inst(insts[0]) else {
            panic!("the block still starts with a phi");
        };
        assert_eq!(ty, &Type::I32.vector_of(LANES), "the live mask is carried in i32 lanes");
        assert_eq!(incoming.len(), 2);
        let phi_value = func.dfg.result(insts[0]).unwrap();
        // No `<8 x i1>` phi, `and`, `or`, `xor` or mask select is left.
        for inst in func.layout.insts() {
            assert!(
                !is_mask_arithmetic(&func, inst),
                "{:?} is still mask arithmetic",
                func.dfg.inst(inst)
            );
        }
        // The wide phi has a sign-test user and an arithmetic user, which keeps
        // instcombine from narrowing it back.
        let users: Vec<&InstData> = func
            .layout
            .insts()
            .map(|inst| func.dfg.inst(inst))
            .filter(|data| data.operands().contains(&phi_value))
            .collect();
        assert!(users
            .iter()
            .any(|data| matches!(data, InstData::Icmp { pred: IntPredicate::Slt, .. })));
        assert!(users
            .iter()
            .any(|data| matches!(data, InstData::Binary { op: BinaryOp::And, .. })));
    }

    #[test]
    fn full_width_masks_compute_the_same_results() {
        let (original, _) = counting_loop();
        let mut rewritten = original.clone();
        widen_mask_phis(&mut rewritten, Isa::Avx2);
        let cases: [([i128; 8], i128); 4] = [
            ([0, 1, 2, 3, 4, 5, 6, 7], 100),
            ([7, 6, 5, 4, 3, 2, 1, 0], 4),
            ([9, 9, 9, 9, 9, 9, 9, 9], 3),
            ([-1, 20, 0, 13, 5, 5, 2, 30], 17),
        ];
        for (limits, n) in cases {
            let expected = run(&original, limits, n);
            let actual = run(&rewritten, limits, n);
            assert!(
                actual.same_as(&expected),
                "limits {limits:?}, n {n}: {actual:?} != {expected:?}"
            );
        }
    }

    #[test]
    fn sse_lanes_follow_the_register_width() {
        let (mut func, body) = counting_loop();
        widen_mask_phis(&mut func, Isa::Sse);
        verify_function(&func).unwrap();
        let first = func.layout.block_insts(body)[0];
        assert!(
            matches!(func.dfg.inst(first), InstData::Phi { ty, .. } if *ty == Type::Int(16).vector_of(LANES))
        );
    }

    #[test]
    fn avx512_keeps_i1_masks() {
        let (mut func, _) = counting_loop();
        let before = func.to_string();
        assert_eq!(widen_mask_phis(&mut func, Isa::Avx512), 0);
        assert_eq!(func.to_string(), before);
    }

    #[test]
    fn functions_without_mask_phis_are_unchanged() {
        let mut func = Function::new("g", vec![mask_ty(), mask_ty()], mask_ty());
        let (a, c) = (func.param_value(0), func.param_value(1));
        let all_false = mask_const(&mut func, false);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(None);
        b.switch_to_block(entry);
        let both = b.select(a, c, all_false);
        b.ret(Some(both));
        let before = func.to_string();
        assert_eq!(widen_mask_phis(&mut func, Isa::Avx2), 0);
        assert_eq!(func.to_string(), before);
    }
}
