//! Reduction recognition for SIMD loops.
//!
//! A header phi `acc = phi [init, preheader], [update, latch]` is a
//! reduction when the values derived from it inside the loop (its
//! *members*: `acc`, the results of the reduction operator applied to a
//! member and a non-member, and phis/selects that merge members, which is how
//! a conditional update `if (c) s += x` looks) form a chain of one
//! associative and commutative operator, and nothing else reads them: no
//! store, no call, no comparison other than the one of a min/max `select`.
//! Each lane then accumulates its own partial result and the partial results
//! are combined with the same operator after the loop. `s - x` counts as
//! `s + (-x)` (the accumulator must be the left operand).
//!
//! Operators: `add`/`sub`, `mul`, `and`, `or`, `xor`, `fadd`/`fsub`,
//! `fmul`, `llvm.fmuladd`/`llvm.fma` with the accumulator as addend (an
//! `fadd` after contraction), the `llvm.{s,u}{min,max}`, `llvm.minnum/maxnum` and
//! `llvm.minimum/maximum` intrinsics, and `select (cmp a, b), a, b`
//! (min/max written as a comparison, as clang emits `m = x < m ? x : m`
//! without fast-math).
//!
//! A phi or select that merges the accumulator with a value not derived
//! from it is an *assignment*: with no operator at all the phi is a
//! conditional last value ([`ReductionKind::LastAssigned`], `if (c) r = x`),
//! with one it is refused (a reset, `if (c) s = 0; else s += x`, is not a
//! reduction: each lane would reset only its own partial sum). Merges are
//! classified after all members are known, so the order in which the uses
//! are visited does not matter.
//!
//! Members are only values the update depends on: anything else derived
//! from the accumulator *reads* it (`b[i] = s - 3`), and a reduction whose
//! running value the body reads is a *scan* ([`Reduction::scan`]): `b[i] =
//! s` after (inclusive) or before (exclusive) `s += x`, which is how
//! clang-22 lowers `#pragma omp scan` in a `reduction(inscan, ...)` loop,
//! and any other read of `s` or of its update (arithmetic, a comparison, a
//! call argument). A comparison of the accumulator that decides its update
//! other than as a min/max select is a recurrence, refused. A scan is
//! vectorized as a prefix across the lanes (`scan.rs`) when the update is
//! one operator or has a neutral element, runs once per iteration, and
//! comes before every read of the phi (`check_update_precedes_reads`);
//! other reads stay refused with the reason.
//!
//! `reduction(&&: b)` and `reduction(||: b)` keep their short circuit in
//! clang's IR: the accumulator (an `i1`, or an `int` read as `b != 0`) is
//! read only by a branch that skips the condition, and the update is the
//! phi where the two paths meet ([`super::short_circuit`]); or clang
//! speculated the condition into `select b, c, false`, or computes `(b !=
//! 0) & c` and zero-extends it back (`is_boolean_view`). That is an `and` (or `or`) reduction whose
//! lanes branch on their own partial result: a lane evaluates the
//! condition while its own iterations all passed, where the serial loop
//! stops at the first failure of any iteration; the result is the same,
//! and the skipped code may read memory and call libm, but not write
//! memory or call anything else.

use std::collections::{HashMap, HashSet};

use lanewise_ir::{
    BinaryOp, Block, CallEffects, Callee, CastOp, Constant, FastMathFlags, FloatPredicate,
    Function, FunctionBuilder, Inst, InstData, IntPredicate, Type, Value,
};

/// The operator of a reduction.
#[derive(Clone, Debug, PartialEq)]
pub enum ReductionKind {
    /// `add`/`sub` (integers), `fadd`/`fsub` (floats), `mul`, `fmul`,
    /// `and`, `or`, `xor`: the combining [`BinaryOp`].
    Binary(BinaryOp),
    /// A two-operand intrinsic (`llvm.smin.i32`, `llvm.maxnum.f32`, ...).
    Intrinsic(String),
    /// `select (cmp x, y), x, y` with the accumulator in a fixed position.
    SelectCompare(SelectCompare),
    /// A conditional assignment, `if (c) r = x` with `c` and `x` not
    /// derived from `r`: after the loop `r` holds the value of the last
    /// iteration that assigned it (OpenMP's `lastprivate(conditional:)`).
    /// Each lane keeps its own last value and the number of the iteration
    /// that assigned it (a stamp slot, see `outline_loop_body`); the lane
    /// with the latest stamp wins. It has no combining operator.
    LastAssigned,
}

impl ReductionKind {
    /// One kind for one operation however it is written: an integer
    /// select-compare min/max (`x < m ? x : m`, `if (x < m) m = x`) is the
    /// intrinsic (`llvm.smin.i32`) it computes, so a variable updated both
    /// ways is one reduction. Float select-compares stay as written: their
    /// NaN and signed-zero behaviour is the predicate's, not `minnum`'s.
    fn canonical(self, ty: &Type) -> ReductionKind {
        let ReductionKind::SelectCompare(pattern) = &self else { return self };
        let ComparePredicate::Int(pred) = pattern.canonical().compare else { return self };
        let Type::Int(bits) = ty else { return self };
        let operation = match pred {
            IntPredicate::Slt => "smin",
            IntPredicate::Sgt => "smax",
            IntPredicate::Ult => "umin",
            IntPredicate::Ugt => "umax",
            _ => return self,
        };
        ReductionKind::Intrinsic(format!("llvm.{operation}.i{bits}"))
    }
}

/// The comparison of a select-based min/max, with the accumulator's role.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectCompare {
    pub compare: ComparePredicate,
    /// Whether the accumulator is the compare's left operand.
    pub accumulator_on_left: bool,
    /// Whether the select yields the accumulator when the comparison holds.
    pub accumulator_if_true: bool,
}

impl SelectCompare {
    /// `P` such that the select replaces the accumulator `m` by the other
    /// value `x` exactly when `x P m` (`Slt`: a signed min keeping the
    /// earlier of equal values).
    pub fn replaced_if(&self) -> ComparePredicate {
        match &self.compare {
            ComparePredicate::Int(pred) => {
                let pred = if self.accumulator_if_true { pred.inverse() } else { *pred };
                ComparePredicate::Int(if self.accumulator_on_left { pred.swapped() } else { pred })
            }
            ComparePredicate::Float(pred, flags) => {
                let pred = if self.accumulator_if_true { pred.inverse() } else { *pred };
                let pred = if self.accumulator_on_left { pred.swapped() } else { pred };
                ComparePredicate::Float(pred, *flags)
            }
        }
    }
}

impl SelectCompare {
    /// The same min/max as `select (x P m), x, m` with `P` =
    /// [`SelectCompare::replaced_if`], and for integers with the strict
    /// predicate (`x >= m ? x : m` and `x > m ? x : m` yield the same
    /// integer): every way of writing one min/max is one kind, so a loop
    /// updating `m` twice, written differently (`x < m ? x : m`, then `m > y
    /// ? y : m`), is one reduction.
    pub fn canonical(&self) -> SelectCompare {
        let compare = match self.replaced_if() {
            ComparePredicate::Int(pred) => ComparePredicate::Int(match pred {
                IntPredicate::Sge => IntPredicate::Sgt,
                IntPredicate::Sle => IntPredicate::Slt,
                IntPredicate::Uge => IntPredicate::Ugt,
                IntPredicate::Ule => IntPredicate::Ult,
                other => other,
            }),
            float => float,
        };
        SelectCompare { compare, accumulator_on_left: false, accumulator_if_true: false }
    }

    /// The name of [`SelectCompare::replaced_if`]'s predicate (`slt`, `ogt`).
    fn replaced_if_name(&self) -> &'static str {
        match self.replaced_if() {
            ComparePredicate::Int(pred) => pred.name(),
            ComparePredicate::Float(pred, _) => pred.name(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ComparePredicate {
    Int(IntPredicate),
    Float(FloatPredicate, FastMathFlags),
}

/// A recognized reduction.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduction {
    pub phi: Value,
    pub init: Value,
    pub update: Value,
    pub ty: Type,
    pub kind: ReductionKind,
    /// Every value derived from the accumulator in the loop (phi included).
    pub members: Vec<Value>,
    /// Whether the body reads the running value (the phi: the exclusive
    /// prefix, or the update: the inclusive one) other than to update it.
    pub scan: bool,
}

impl ReductionKind {
    /// The identity element, or `None` for idempotent operators (min, max,
    /// `and`, `or`), whose lanes start from the initial value itself.
    pub fn identity(&self, ty: &Type) -> Option<Constant> {
        match self {
            ReductionKind::Binary(op) => match op {
                BinaryOp::Add | BinaryOp::Xor => Some(Constant::Int(0)),
                BinaryOp::Mul => Some(Constant::Int(1)),
                BinaryOp::FAdd => Some(Constant::Float(match ty {
                    Type::F32 => u64::from((-0.0f32).to_bits()),
                    Type::F64 => (-0.0f64).to_bits(),
                    _ => 0x8000, // half
                })),
                BinaryOp::FMul => Some(Constant::Float(match ty {
                    Type::F32 => u64::from(1.0f32.to_bits()),
                    Type::F64 => 1.0f64.to_bits(),
                    _ => 0x3c00, // half
                })),
                _ => None,
            },
            _ => None,
        }
    }

    /// An element `e` with `e OP x = x` for every `x` of type `ty` (the
    /// identity, or for the idempotent operators the value that never wins:
    /// `INT_MIN` for `smax`, NaN for `maxnum`, -inf for `maximum`, ...), or
    /// `None` where there is none this code knows. A scan computes a lane's
    /// contribution with it.
    ///
    /// A select-compare min/max has one when its comparison is ordered:
    /// `x < m ? x : m` keeps `m` for a NaN `x`, and so does `x < +inf ?
    /// x : +inf`, so +inf is neutral and a NaN contribution vanishes, as
    /// in the scalar loop. An unordered comparison (`!(x >= m)`) lets a NaN
    /// in and is not associative: no neutral element.
    pub fn neutral(&self, ty: &Type) -> Option<Constant> {
        if let Some(identity) = self.identity(ty) {
            return Some(identity);
        }
        let ones = |bits: u32| if bits >= 128 { u128::MAX } else { (1u128 << bits) - 1 };
        let float = |f32_bits: u32, f64_bits: u64| match ty {
            Type::F32 => Some(Constant::Float(u64::from(f32_bits))),
            Type::F64 => Some(Constant::Float(f64_bits)),
            _ => None,
        };
        match self {
            ReductionKind::Binary(BinaryOp::And) => {
                ty.int_bits().map(|bits| Constant::Int(ones(bits)))
            }
            ReductionKind::Binary(BinaryOp::Or) => Some(Constant::Int(0)),
            ReductionKind::Intrinsic(name) => {
                let bits = ty.int_bits();
                let family = name.strip_prefix("llvm.")?.split('.').next()?;
                match (family, bits) {
                    ("smax", Some(bits)) => Some(Constant::Int(1u128 << (bits - 1))),
                    ("smin", Some(bits)) => Some(Constant::Int(ones(bits - 1))),
                    ("umax", Some(_)) => Some(Constant::Int(0)),
                    ("umin", Some(bits)) => Some(Constant::Int(ones(bits))),
                    ("maxnum" | "minnum", None) => float(0x7fc0_0000, 0x7ff8_0000_0000_0000),
                    ("maximum", None) => float(0xff80_0000, 0xfff0_0000_0000_0000),
                    ("minimum", None) => float(0x7f80_0000, 0x7ff0_0000_0000_0000),
                    _ => None,
                }
            }
            ReductionKind::SelectCompare(select) => {
                let bits = ty.int_bits();
                match (select.replaced_if(), bits) {
                    (ComparePredicate::Int(IntPredicate::Slt | IntPredicate::Sle), Some(bits)) => {
                        Some(Constant::Int(ones(bits - 1)))
                    }
                    (ComparePredicate::Int(IntPredicate::Sgt | IntPredicate::Sge), Some(bits)) => {
                        Some(Constant::Int(1u128 << (bits - 1)))
                    }
                    (ComparePredicate::Int(IntPredicate::Ult | IntPredicate::Ule), Some(bits)) => {
                        Some(Constant::Int(ones(bits)))
                    }
                    (ComparePredicate::Int(IntPredicate::Ugt | IntPredicate::Uge), Some(_)) => {
                        Some(Constant::Int(0))
                    }
                    (
                        ComparePredicate::Float(FloatPredicate::Olt | FloatPredicate::Ole, _),
                        None,
                    ) => float(0x7f80_0000, 0x7ff0_0000_0000_0000),
                    (
                        ComparePredicate::Float(FloatPredicate::Ogt | FloatPredicate::Oge, _),
                        None,
                    ) => float(0xff80_0000, 0xfff0_0000_0000_0000),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Emits `combine(accumulator, other)` at the builder's position.
    pub fn combine(&self, b: &mut FunctionBuilder<'_>, accumulator: Value, other: Value) -> Value {
        match self {
            ReductionKind::Binary(op) => b.binary(*op, accumulator, other),
            ReductionKind::Intrinsic(name) => {
                let ty = b.ty(accumulator);
                let call = b.call(
                    Callee::Direct(name.clone()),
                    vec![accumulator, other],
                    ty,
                    CallEffects::Pure,
                );
                b.func.dfg.result(call).expect("the intrinsic returns a value")
            }
            ReductionKind::LastAssigned => {
                unreachable!("a conditional assignment is combined by its stamps (rewrite_loop)")
            }
            ReductionKind::SelectCompare(select) => {
                let (lhs, rhs) = if select.accumulator_on_left {
                    (accumulator, other)
                } else {
                    (other, accumulator)
                };
                let holds = match &select.compare {
                    ComparePredicate::Int(pred) => b.icmp(*pred, lhs, rhs),
                    ComparePredicate::Float(pred, flags) => {
                        let ty = Type::BOOL;
                        b.ins_value(InstData::Fcmp { pred: *pred, lhs, rhs, flags: *flags }, ty)
                    }
                };
                if select.accumulator_if_true {
                    b.select(holds, accumulator, other)
                } else {
                    b.select(holds, other, accumulator)
                }
            }
        }
    }

    fn describe(&self) -> String {
        match self {
            ReductionKind::Binary(op) => op.name().to_owned(),
            ReductionKind::Intrinsic(name) => name.clone(),
            ReductionKind::SelectCompare(select) => {
                let flags = match select.replaced_if() {
                    ComparePredicate::Float(_, flags) if !flags.is_empty() => {
                        " with fast-math flags"
                    }
                    _ => "",
                };
                format!(
                    "select-compare min/max (m = x {} m ? x : m{flags})",
                    select.replaced_if_name()
                )
            }
            ReductionKind::LastAssigned => "conditional last value".to_owned(),
        }
    }
}

impl std::fmt::Display for ReductionKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

/// Intrinsic name prefixes of two-operand reduction operators.
const REDUCTION_INTRINSICS: &[&str] = &[
    "llvm.smin.",
    "llvm.smax.",
    "llvm.umin.",
    "llvm.umax.",
    "llvm.minnum.",
    "llvm.maxnum.",
    "llvm.minimum.",
    "llvm.maximum.",
];

/// Recognizes the header phi `phi` (`init` from the preheader, `update`
/// from the latch) of a loop with blocks `in_loop` and exit block `exit` as a
/// reduction, or says why not.
pub fn recognize_reduction(
    func: &Function,
    users: &HashMap<Value, Vec<Inst>>,
    in_loop: &HashSet<Block>,
    exit: Block,
    phi: Value,
    init: Value,
    update: Value,
) -> Result<Reduction, String> {
    let ty = func.dfg.value_type(phi).clone();
    if !ty.is_scalar() || ty.is_ptr() {
        return Err(format!("its type {ty} cannot be reduced"));
    }
    if let Some(reduction) =
        super::short_circuit::short_circuit_reduction(func, users, in_loop, exit, phi, init, update)
    {
        return Ok(reduction);
    }
    let name = |value: Value| func.dfg.display_value(value);
    let phi_inst = func.dfg.defining_inst(phi).expect("a phi is an instruction");
    let mut members = vec![phi];
    let mut member_set: HashSet<Value> = HashSet::from([phi]);
    let mut worklist = vec![phi];
    // Reads of the running value other than by the operator: a scan if the
    // rest allows one (below), else the first of them is the refusal.
    let mut scan_reads: Vec<(Value, String)> = Vec::new();
    let feeds_update = values_feeding(func, in_loop, phi, update);
    // `acc != 0` of an integer accumulator, combined with `&`/`|` (or a
    // logical select) and zero-extended back: `int b; b = b && c` (see
    // `is_boolean_view`).
    let mut boolean_view = false;
    let mut kind: Option<ReductionKind> = None;
    let mut set_kind = |new: ReductionKind| -> Result<(), String> {
        let new = new.canonical(&ty);
        match &kind {
            None => {
                kind = Some(new);
                Ok(())
            }
            Some(existing) if *existing == new => Ok(()),
            Some(existing) => Err(format!("it mixes `{existing}` and `{new}`")),
        }
    };
    while let Some(value) = worklist.pop() {
        for &user in users.get(&value).into_iter().flatten() {
            let user_block = func.layout.inst_block(user).expect("users are in the layout");
            let data = func.dfg.inst(user);
            let result = func.dfg.result(user);
            if !in_loop.contains(&user_block) {
                if user_block == exit && matches!(data, InstData::Phi { .. }) && value == update {
                    continue;
                }
                return Err(format!("{} is used after the loop", name(value)));
            }
            if user == phi_inst {
                if value == update {
                    continue;
                }
                return Err(format!(
                    "{} reaches the header otherwise than as the update",
                    name(value)
                ));
            }
            // A value derived from the accumulator that the update does not
            // depend on is a read of the running value (`b[i] = s - 3`):
            // `check_scan_shape` decides whether the body may read it.
            if result.is_none_or(|result| !feeds_update.contains(&result))
                && !matches!(data, InstData::Icmp { .. } | InstData::Fcmp { .. })
            {
                let why = format!(
                    "{} is used by `{}`, not a reduction operator",
                    name(value),
                    data.opcode_name()
                );
                scan_reads.push((value, why));
                continue;
            }
            let mut new_member: Option<Value> = None;
            match data {
                // Merges: classified once every member is known (below).
                InstData::Phi { .. } => new_member = result,
                InstData::Select { cond, if_true, if_false, .. } => {
                    if *cond == value {
                        // `b && c` as `select b, c, false`, `b || c` as
                        // `select b, true, c` (a speculated short circuit).
                        let constant = |value: Value, bit: u128| {
                            func.dfg.constant(value) == Some(&Constant::Int(bit))
                        };
                        let select_ty = result.map(|result| func.dfg.value_type(result).clone());
                        let logical = if select_ty != Some(Type::BOOL) {
                            None
                        } else if constant(*if_false, 0) && !member_set.contains(if_true) {
                            Some(BinaryOp::And)
                        } else if constant(*if_true, 1) && !member_set.contains(if_false) {
                            Some(BinaryOp::Or)
                        } else {
                            None
                        };
                        let Some(op) = logical else {
                            let why = format!("{} is used as a select condition", name(value));
                            scan_reads.push((value, why));
                            continue;
                        };
                        set_kind(ReductionKind::Binary(op))?;
                    }
                    new_member = result;
                }
                InstData::Icmp { .. } if is_boolean_view(func, data, value, &ty) => {
                    boolean_view = true;
                    new_member = result;
                }
                InstData::Cast { op: CastOp::ZExt, to, .. }
                    if boolean_view && *to == ty && *func.dfg.value_type(value) == Type::BOOL =>
                {
                    new_member = result;
                }
                InstData::Icmp { lhs, rhs, .. } | InstData::Fcmp { lhs, rhs, .. } => {
                    // Only as the comparison of a min/max select over its operands.
                    let compare = result.expect("comparisons have results");
                    let only_min_max = users.get(&compare).into_iter().flatten().all(|&user| {
                        match func.dfg.inst(user) {
                            InstData::Select { cond, if_true, if_false, .. } => {
                                *cond == compare
                                    && ((*if_true == *lhs && *if_false == *rhs)
                                        || (*if_true == *rhs && *if_false == *lhs))
                            }
                            InstData::Branch { .. } => {
                                decides_branch_min_max(func, in_loop, user, &feeds_update)
                            }
                            _ => false,
                        }
                    });
                    if !only_min_max && feeds_update.contains(&compare) {
                        return Err(format!(
                            "{} is read by a comparison that decides its update: a recurrence \
                             across iterations, not a reduction",
                            name(value)
                        ));
                    }
                    if !only_min_max {
                        scan_reads.push((
                            value,
                            format!(
                                "{} is read by a comparison other than that of a min/max select: \
                             a recurrence across iterations (as `if (a[i] > r) r = f(a[i])`), \
                             not a reduction",
                                name(value)
                            ),
                        ));
                    }
                }
                InstData::Binary { op, lhs, rhs, .. } => {
                    if member_set.contains(lhs) && member_set.contains(rhs) {
                        return Err(format!(
                            "{} combines the accumulator with itself",
                            name(value)
                        ));
                    }
                    let combining = match op {
                        BinaryOp::Add
                        | BinaryOp::Mul
                        | BinaryOp::And
                        | BinaryOp::Or
                        | BinaryOp::Xor => *op,
                        BinaryOp::Sub if *lhs == value => BinaryOp::Add,
                        BinaryOp::FAdd | BinaryOp::FMul => *op,
                        BinaryOp::FSub if *lhs == value => BinaryOp::FAdd,
                        other => {
                            return Err(format!(
                                "{} is used by `{}`, not a reduction operator",
                                name(value),
                                other.name()
                            ))
                        }
                    };
                    set_kind(ReductionKind::Binary(combining))?;
                    new_member = result;
                }
                InstData::Call { callee: Callee::Direct(callee), args, .. }
                    if args.len() == 2
                        && REDUCTION_INTRINSICS.iter().any(|prefix| callee.starts_with(prefix)) =>
                {
                    if member_set.contains(&args[0]) && member_set.contains(&args[1]) {
                        return Err(format!(
                            "{} combines the accumulator with itself",
                            name(value)
                        ));
                    }
                    set_kind(ReductionKind::Intrinsic(callee.clone()))?;
                    new_member = result;
                }
                InstData::Call { callee: Callee::Direct(callee), args, .. }
                    if args.len() == 3
                        && (callee.starts_with("llvm.fmuladd.")
                            || callee.starts_with("llvm.fma."))
                        && args[2] == value
                        && !member_set.contains(&args[0])
                        && !member_set.contains(&args[1]) =>
                {
                    // `a * b + acc`, contracted: an fadd reduction.
                    set_kind(ReductionKind::Binary(BinaryOp::FAdd))?;
                    new_member = result;
                }
                other => {
                    // `b[i] = s` of a running value: what clang-22 makes of
                    // `#pragma omp scan` in a `reduction(inscan, ...)` loop.
                    scan_reads.push((
                        value,
                        format!(
                            "{} is used by `{}`, not a reduction operator",
                            name(value),
                            other.opcode_name()
                        ),
                    ));
                }
            }
            if let Some(result) = new_member {
                if member_set.insert(result) {
                    members.push(result);
                    worklist.push(result);
                }
            }
        }
    }
    if !member_set.contains(&update) {
        return Err(format!("its update {} is not derived from it", name(update)));
    }
    // The merges: a phi or select of members merges partial results (`if
    // (c) s += x`); one whose other operand is not a member either compares
    // it with the accumulator (min/max) or assigns a new value.
    let mut assignment = None;
    let mut branch_form = false;
    for &member in &members {
        let Some(inst) = func.dfg.defining_inst(member) else { continue };
        match func.dfg.inst(inst) {
            InstData::Phi { incoming, .. } if member != phi => {
                for &(block, value) in incoming {
                    // `poison` on an edge no execution takes with this
                    // value (the dispatch of an irreducible cycle made
                    // reducible passes a frozen `poison` for the other
                    // entries).
                    if member_set.contains(&value) || is_arbitrary(func, value) {
                        continue;
                    }
                    match branch_min_max(func, in_loop, inst, block) {
                        Some((pattern, compared)) if member_set.contains(&compared) => {
                            set_kind(ReductionKind::SelectCompare(pattern))?;
                            branch_form = true;
                        }
                        _ => {
                            assignment.get_or_insert(member);
                        }
                    }
                }
            }
            InstData::Select { cond, if_true, if_false, flags } => {
                let (true_member, false_member) =
                    (member_set.contains(if_true), member_set.contains(if_false));
                // Both merged, or the logical `and`/`or` of the accumulator
                // (its condition; classified with the uses above).
                if (true_member && false_member) || member_set.contains(cond) {
                    continue;
                }
                let accumulator = if true_member { *if_true } else { *if_false };
                match min_max_select(func, *cond, *if_true, *if_false, accumulator, *flags) {
                    Some(pattern) => set_kind(ReductionKind::SelectCompare(pattern))?,
                    None => {
                        assignment.get_or_insert(member);
                    }
                }
            }
            _ => {}
        }
    }
    let kind = match (kind, assignment) {
        (Some(kind), None) => kind,
        (None, Some(_)) => ReductionKind::LastAssigned,
        (Some(kind), Some(merge)) => {
            return Err(format!(
                "{} assigns it a value not derived from it, and it is also reduced with \
                 `{kind}` (a reset of an accumulator is not a reduction)",
                name(merge)
            ))
        }
        (None, None) => return Err("it is never updated".to_owned()),
    };
    if boolean_view {
        // Lanes combine with `&`/`|`, right for the 0 and 1 the updates give
        // and for an initial 0 or 1 (a lane without iterations keeps it).
        let logical = matches!(kind, ReductionKind::Binary(BinaryOp::And | BinaryOp::Or));
        let zero_or_one =
            matches!(func.dfg.constant(init), Some(Constant::Int(0)) | Some(Constant::Int(1)));
        if !logical || !zero_or_one {
            return Err(format!(
                "it is read as `{} != 0`: only as the `&&` or `||` of a reduction that \
                 starts at 0 or 1",
                name(phi)
            ));
        }
    }
    let scan = !scan_reads.is_empty();
    if scan && branch_form {
        return Err(format!(
            "its running value is read, and a min/max update of it is written as a branch \
             (`if (x < {0}) {0} = x` with more code in the branch or other paths to the join): \
             a scan of that form is not supported",
            name(phi)
        ));
    }
    if scan {
        super::scan::check_scan_shape(phi, update, &kind, &ty, &members, &scan_reads)?;
    }
    Ok(Reduction { phi, init, update, ty, kind, members, scan })
}

/// The values in the loop that `update` depends on through operands,
/// up to the accumulator `phi`: the reduction's members are among them,
/// everything else derived from `phi` reads it.
fn values_feeding(
    func: &Function,
    in_loop: &HashSet<Block>,
    phi: Value,
    update: Value,
) -> HashSet<Value> {
    let mut feeding = HashSet::from([update]);
    let mut worklist = vec![update];
    while let Some(value) = worklist.pop() {
        if value == phi {
            continue;
        }
        let Some(inst) = func.dfg.defining_inst(value) else { continue };
        if !func.layout.inst_block(inst).is_some_and(|block| in_loop.contains(&block)) {
            continue;
        }
        func.dfg.inst(inst).for_each_operand(|operand| {
            if feeding.insert(operand) {
                worklist.push(operand);
            }
        });
    }
    feeding
}

/// A min/max update written as a branch, as LLVM leaves `if (x < m) m =
/// x;` when the join block has other predecessors (or the branch holds
/// more code):
///
/// ```text
/// decide: c = fcmp olt x, m ; br c, assign, join   (or the arms swapped)
/// assign: ... ; br join                             (`decide` its only predecessor)
/// join:   r = phi [x, assign], [m, decide], ...
/// ```
///
/// On the edge from `assign` the phi `r` (`join_phi`) takes `x` exactly
/// where `select c, x, m` would take it (and `m` on the edge from
/// `decide`), so its incoming from `assign` is a select-compare update of
/// `m`. The branch must decide nothing else: `assign` has no side effects
/// and every other phi of `join` takes the same value from both edges, or
/// the comparison with the running value would be observable (`if (x < m)
/// { m = x; out[i] = 1; }` reads the order-dependent running minimum).
/// Returns the [`SelectCompare`] and `m`.
fn branch_min_max(
    func: &Function,
    in_loop: &HashSet<Block>,
    join_phi: Inst,
    assign: Block,
) -> Option<(SelectCompare, Value)> {
    let join = func.layout.inst_block(join_phi)?;
    let InstData::Phi { incoming, .. } = func.dfg.inst(join_phi) else { return None };
    let incoming_from = |incoming: &[(Block, Value)], pred: Block| {
        incoming.iter().find(|(block, _)| *block == pred).map(|&(_, value)| value)
    };
    let x = incoming_from(incoming, assign)?;
    let jumps_to_join = func.terminator(assign).is_some_and(
        |term| matches!(func.dfg.inst(term), InstData::Jump { dest } if *dest == join),
    );
    if !jumps_to_join {
        return None;
    }
    let [decide] = loop_predecessors(func, in_loop, assign)[..] else { return None };
    let InstData::Branch { cond, then_dest, else_dest } = func.dfg.inst(func.terminator(decide)?)
    else {
        return None;
    };
    let assign_if_true = match (*then_dest == assign, *else_dest == assign) {
        (true, false) if *else_dest == join => true,
        (false, true) if *then_dest == join => false,
        _ => return None,
    };
    let m = incoming_from(incoming, decide)?;
    if m == x {
        return None;
    }
    let assign_is_pure =
        func.layout.block_insts(assign).iter().all(|&inst| !func.dfg.inst(inst).has_side_effects());
    let decides_only_the_update =
        func.layout.block_insts(join).iter().all(|&inst| match func.dfg.inst(inst) {
            InstData::Phi { incoming, .. } if inst != join_phi => {
                incoming_from(incoming, assign) == incoming_from(incoming, decide)
            }
            _ => true,
        });
    if !assign_is_pure || !decides_only_the_update {
        return None;
    }
    let (if_true, if_false) = if assign_if_true { (x, m) } else { (m, x) };
    let pattern = min_max_select(func, *cond, if_true, if_false, m, FastMathFlags::default())?;
    Some((pattern, m))
}

/// Whether `data` is `icmp ne value, 0` (or `0 != value`) on the integer
/// accumulator type `ty`: the truth value of an `int` that a `&&` or `||`
/// reduction reads.
fn is_boolean_view(func: &Function, data: &InstData, value: Value, ty: &Type) -> bool {
    let InstData::Icmp { pred: IntPredicate::Ne, lhs, rhs } = data else { return false };
    let zero = |operand: &Value| func.dfg.constant(*operand) == Some(&Constant::Int(0));
    matches!(ty, Type::Int(_))
        && *ty != Type::BOOL
        && ((*lhs == value && zero(rhs)) || (*rhs == value && zero(lhs)))
}

/// Whether the conditional branch `branch` decides a [`branch_min_max`]
/// update whose phi the reduction's update depends on.
fn decides_branch_min_max(
    func: &Function,
    in_loop: &HashSet<Block>,
    branch: Inst,
    feeds_update: &HashSet<Value>,
) -> bool {
    let InstData::Branch { then_dest, else_dest, .. } = func.dfg.inst(branch) else {
        return false;
    };
    [(*then_dest, *else_dest), (*else_dest, *then_dest)].into_iter().any(|(assign, join)| {
        func.layout.block_insts(join).iter().any(|&inst| {
            matches!(func.dfg.inst(inst), InstData::Phi { .. })
                && func.dfg.result(inst).is_some_and(|phi| feeds_update.contains(&phi))
                && branch_min_max(func, in_loop, inst, assign).is_some()
        })
    })
}

/// Whether `value` is `poison`, `undef` or a `freeze` of one: no value a
/// reduction could be assigned on purpose.
fn is_arbitrary(func: &Function, value: Value) -> bool {
    let undefined =
        |value: Value| matches!(func.dfg.constant(value), Some(Constant::Poison | Constant::Undef));
    undefined(value)
        || func.dfg.defining_inst(value).is_some_and(
            |inst| matches!(func.dfg.inst(inst), InstData::Freeze { arg } if undefined(*arg)),
        )
}

/// The blocks of the loop whose terminator names `block` as a successor.
pub(super) fn loop_predecessors(
    func: &Function,
    in_loop: &HashSet<Block>,
    block: Block,
) -> Vec<Block> {
    let mut predecessors: Vec<Block> = in_loop
        .iter()
        .copied()
        .filter(|&candidate| func.successors(candidate).contains(&block))
        .collect();
    predecessors.sort();
    predecessors
}

/// `select (cmp a, b), a, b` (or with swapped arms) where `accumulator` is one
/// of `a`, `b`: the [`SelectCompare`] it computes.
fn min_max_select(
    func: &Function,
    cond: Value,
    if_true: Value,
    if_false: Value,
    accumulator: Value,
    _select_flags: FastMathFlags,
) -> Option<SelectCompare> {
    let compare_inst = func.dfg.defining_inst(cond)?;
    let (compare, lhs, rhs) = match func.dfg.inst(compare_inst) {
        InstData::Icmp { pred, lhs, rhs } => (ComparePredicate::Int(*pred), *lhs, *rhs),
        InstData::Fcmp { pred, lhs, rhs, flags } => {
            (ComparePredicate::Float(*pred, *flags), *lhs, *rhs)
        }
        _ => return None,
    };
    let arms_match = (lhs == if_true && rhs == if_false) || (lhs == if_false && rhs == if_true);
    if !arms_match || (accumulator != lhs && accumulator != rhs) {
        return None;
    }
    let written = SelectCompare {
        compare,
        accumulator_on_left: lhs == accumulator,
        accumulator_if_true: if_true == accumulator,
    };
    Some(written.canonical())
}
