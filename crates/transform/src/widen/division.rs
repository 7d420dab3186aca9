//! Vector integer division with a run-time fast path through floating
//! point.
//!
//! x86 has no vector integer division: LLVM scalarizes a vector `sdiv`,
//! `udiv`, `srem` or `urem` into one `idiv` per lane (for a constant divisor,
//! one multiply-high sequence per lane). For lanes of at most 32 bits the
//! bridge divides through `double` unconditionally (the operands convert
//! exactly; `lanewise_llvm::lower`). Two cheaper paths need a run-time test
//! of the operands' magnitudes:
//!
//! - 64-bit lanes through `double`, exact only while both operands are
//!   below 2^53 in magnitude: then they convert exactly, and the rounding
//!   error of the quotient, below |a/b| * 2^-53 < 1/|b|, cannot carry it
//!   across an integer (a non-integral a/b is at least 1/|b| away from
//!   one), so `fptosi(sitofp a / sitofp b)` is the truncated quotient and
//!   `a - q * b` the remainder. Typical 64-bit arithmetic in a SIMD body
//!   (products of two 32-bit values reduced modulo a prime, indices,
//!   counters) stays there.
//! - 32-bit lanes through `float` while the dividend is below 2^24 in
//!   magnitude: the same argument with 2^-24, and no bound on the divisor.
//!   Write a = q * d + r with 0 < r < d (magnitudes; r = 0 is exact). The
//!   float division of the exactly converted a (the divisor, if it is 2^24
//!   or more and rounds, still exceeds a: the quotient stays below one)
//!   errs by at most |a/d| * 2^-24, less than 1/d as |a| < 2^24, while
//!   a/d is at least (d - r)/d >= 1/d below q + 1: the truncated quotient
//!   is exact, with no correction. One `vdivps` divides 16 lanes where
//!   `vdivpd` divides 8, and is faster (Zen 4: 1.6 against 2.5 ns per zmm
//!   division): gcd_pairs (Euclid's loop) ran 1.13x faster.
//! - 64-bit lanes divided by a constant d (|d| >= 3, not a power of two)
//!   while the dividend is below 2^50 in magnitude: a multiplication by R,
//!   the smallest `double` at or above (1 + 2^-52)/|d|, instead of a
//!   division. For 0 <= a < 2^50 write a = q|d| + j with 0 <= j < |d|. The
//!   product rounds to at least aR(1 - 2^-53) >= (a/|d|)(1 + 2^-52)(1 -
//!   2^-53) >= a/|d| >= q, and, as R|d| < 1 + 2^-51 + 2^-60 (R is at most
//!   one ulp above its bound; [`reciprocal_rounded_up`] checks both bounds
//!   exactly), to at most (a/|d|)(1 + 2^-51 + 2^-60)(1 + 2^-53) < a/|d| +
//!   2^50 (2^-51 + 2^-53 + 2^-59)/|d| < a/|d| + 1/|d| <= q + 1. So the
//!   truncated product is q, with no correction: the quotient of |a|, signed
//!   as a/d. On Zen 4 a zmm `vdivpd` takes about 9 cycles, the
//!   multiplication one: gcd_pairs' `% 1000003` (modular exponentiation on
//!   products of two 20-bit values) ran 1.18x faster.
//!
//! ```text
//!     big = active & |a| >= limit (double: or |b|)      ; per lane
//!     br any(big), exact, fast
//! fast:  the floating-point division above
//! exact: the vector division (one idiv per lane; 32-bit lanes: double)
//! ```
//!
//! Inactive lanes do not count (their divisor is one, their dividend may be
//! anything: the float path's quotient may be out of range there, so it is
//! frozen). A zero divisor or `INT_MIN / -1` in an active lane is undefined
//! behaviour in the scalar code; a zero divisor takes the fast path and
//! gives an arbitrary result, the other the exact path.

use lanewise_ir::{BinaryOp, CastFlags, CastOp, Constant, InstData, IntPredicate, Type, Value};

use super::{WidenError, Widener};

/// Operands below this magnitude convert to `double` exactly and divide
/// exactly (module docs).
const DOUBLE_EXACT_LIMIT: u128 = 1 << 53;

/// Dividends below this magnitude divide exactly in `float` (module docs).
const FLOAT_EXACT_LIMIT: u128 = 1 << 24;

/// Dividends below this magnitude divide exactly by a multiplication with
/// [`reciprocal_rounded_up`] (module docs).
const RECIPROCAL_EXACT_LIMIT: u128 = 1 << 50;

/// The floating-point fast path of a vector division (module docs).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum DivisionFastPath {
    /// 64-bit lanes through `double`.
    Double,
    /// 32-bit lanes through `float`.
    Float,
    /// 64-bit lanes divided by a constant: a multiplication in `double`.
    Reciprocal(ConstantDivisor),
}

impl DivisionFastPath {
    fn limit(self) -> u128 {
        match self {
            DivisionFastPath::Double => DOUBLE_EXACT_LIMIT,
            DivisionFastPath::Float => FLOAT_EXACT_LIMIT,
            DivisionFastPath::Reciprocal(_) => RECIPROCAL_EXACT_LIMIT,
        }
    }
}

/// A constant 64-bit divisor of magnitude at least 3, not a power of two.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) struct ConstantDivisor {
    /// Whether the divisor is negative (signed divisions only).
    negative: bool,
    /// The bits of [`reciprocal_rounded_up`] of the magnitude.
    reciprocal_bits: u64,
}

/// The smallest `double` R at or above (1 + 2^-52) / `divisor`, checked to
/// satisfy R * `divisor` < 1 + 2^-51 + 2^-60: the two bounds the module
/// docs' proof needs. `None` for a divisor below 3 or a power of two.
pub(super) fn reciprocal_rounded_up(divisor: u64) -> Option<f64> {
    if divisor < 3 || divisor.is_power_of_two() {
        return None;
    }
    // R * divisor >= 1 + 2^-52  <=>  R * divisor * 2^52 >= 2^52 + 1.
    let at_least_lower = |r: f64| compare_scaled(r, divisor, 52, (1 << 52) + 1).is_ge();
    // R * divisor < 1 + 2^-51 + 2^-60  <=>  R * divisor * 2^60 < 2^60 + 2^9 + 1.
    let below_upper = |r: f64| compare_scaled(r, divisor, 60, (1 << 60) + (1 << 9) + 1).is_lt();
    // 1 / divisor rounds twice (the divisor to `double`, the quotient): a
    // few ulps from the bound, which stepping corrects.
    let mut r = 1.0 / divisor as f64;
    while !at_least_lower(r) {
        r = r.next_up();
    }
    while at_least_lower(r.next_down()) {
        r = r.next_down();
    }
    below_upper(r).then_some(r)
}

/// `r * divisor * 2^scale` compared with `bound`, exactly, for a positive
/// normal `r`.
fn compare_scaled(r: f64, divisor: u64, scale: i32, bound: u128) -> std::cmp::Ordering {
    let bits = r.to_bits();
    let mantissa = u128::from(bits & ((1 << 52) - 1) | (1 << 52));
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1075;
    // r * divisor * 2^scale = mantissa * divisor * 2^(exponent + scale).
    let product = mantissa * u128::from(divisor);
    let shift = exponent + scale;
    if shift >= 0 {
        match product.checked_shl(shift as u32).filter(|shifted| shifted >> shift == product) {
            Some(shifted) => shifted.cmp(&bound),
            None => std::cmp::Ordering::Greater,
        }
    } else {
        match bound.checked_shl((-shift) as u32).filter(|shifted| shifted >> -shift == bound) {
            Some(shifted) => product.cmp(&shifted),
            None => std::cmp::Ordering::Less,
        }
    }
}

impl Widener<'_> {
    /// The fast path of `data` (widened operands), if it is a vector
    /// division that gets one: 64-bit lanes, constant divisors through their
    /// `double` reciprocal (LLVM turns a constant divisor into a
    /// multiplication by an integer reciprocal, but that needs the high half
    /// of a 64 x 64-bit product, which x86 vectors lack, so it scalarizes
    /// those as well: gcd_pairs, whose `% 1000003` is inlined into the simd
    /// loop, 1.7x -> 3.0x over clang on AVX-512 through `double` division),
    /// except powers of two (and their negations), which LLVM divides by
    /// with vector shifts; 32-bit lanes with a divisor that is not a
    /// constant (constant divisors become 32-bit multiplications, faster
    /// still).
    pub(super) fn division_fast_path(&self, data: &InstData) -> Option<DivisionFastPath> {
        let InstData::Binary { op, lhs, rhs, .. } = data else { return None };
        let ty = self.func.dfg.value_type(*lhs);
        if !op.can_trap() || !ty.is_vector() {
            return None;
        }
        match ty.scalar_type() {
            Type::Int(64) if !self.is_power_of_two_splat(*rhs) => {
                let signed = matches!(op, BinaryOp::SDiv | BinaryOp::SRem);
                Some(match self.constant_divisor(*rhs, signed) {
                    Some(divisor) => DivisionFastPath::Reciprocal(divisor),
                    None => DivisionFastPath::Double,
                })
            }
            Type::Int(32) if self.func.dfg.constant(*rhs).is_none() => {
                Some(DivisionFastPath::Float)
            }
            _ => None,
        }
    }

    /// The divisor of the reciprocal path, if `value` is a constant vector
    /// whose 64-bit lanes all hold the same value of magnitude 3 or more,
    /// not a power of two (read as signed if `signed`).
    fn constant_divisor(&self, value: Value, signed: bool) -> Option<ConstantDivisor> {
        let bits = self.func.dfg.int_constant(self.splat_element(value)?)? as u64;
        let negative = signed && (bits as i64) < 0;
        let magnitude = if signed { (bits as i64).unsigned_abs() } else { bits };
        let reciprocal = reciprocal_rounded_up(magnitude)?;
        Some(ConstantDivisor { negative, reciprocal_bits: reciprocal.to_bits() })
    }

    /// Whether `value` is a constant vector whose lanes all hold the same
    /// power of two or its negation.
    fn is_power_of_two_splat(&self, value: Value) -> bool {
        self.splat_element(value)
            .and_then(|element| self.func.dfg.signed_int_constant(element))
            .is_some_and(|divisor| divisor.unsigned_abs().is_power_of_two())
    }

    /// The element of a constant vector whose lanes all hold the same value.
    fn splat_element(&self, value: Value) -> Option<Value> {
        let Some(Constant::Aggregate(elements)) = self.func.dfg.constant(value) else {
            return None;
        };
        let &first = elements.first()?;
        elements.iter().all(|element| *element == first).then_some(first)
    }

    /// The division `data` (see [`Self::division_fast_path`]) with its fast
    /// path; returns the result vector.
    pub(super) fn divide_with_fast_path(
        &mut self,
        data: InstData,
        result_ty: Type,
        path: DivisionFastPath,
    ) -> Result<Value, WidenError> {
        let InstData::Binary { op, lhs, rhs, .. } = data else {
            unreachable!("division_fast_path accepts binary operations only")
        };
        let signed = matches!(op, BinaryOp::SDiv | BinaryOp::SRem);
        let mask_ty = Type::BOOL.vector_of(self.width);
        let limit = path.limit();
        let mut big = self.at_least(lhs, limit, signed, &result_ty);
        if path == DivisionFastPath::Double {
            let rhs_big = self.at_least(rhs, limit, signed, &result_ty);
            big = self.append_value(binary(BinaryOp::Or, big, rhs_big), mask_ty.clone());
        }
        if let Some(mask) = self.block_mask()? {
            // A select, not an `and`: an inactive lane's operands may be
            // poison, and `and poison, false` is poison.
            let false_value = self.func.dfg.int_const(Type::BOOL, 0);
            let no_lane = self.func.dfg.make_const(
                mask_ty.clone(),
                Constant::Aggregate(vec![false_value; self.width as usize]),
            );
            let select = InstData::Select {
                cond: mask,
                if_true: big,
                if_false: no_lane,
                flags: Default::default(),
            };
            big = self.append_value(select, mask_ty);
        }
        let any_big = self.mask_any(big);

        let before = self.current.expect("a current block");
        let prefix = self.next_guard_prefix();
        let name = |label: &str| Some(format!("{prefix}.{label}"));
        let exact = self.func.dfg.make_block(name("exact_division"));
        let fast_label = match path {
            DivisionFastPath::Double => "double_division",
            DivisionFastPath::Float => "float_division",
            DivisionFastPath::Reciprocal(_) => "reciprocal_division",
        };
        let fast = self.func.dfg.make_block(name(fast_label));
        let join = self.func.dfg.make_block(name("division_join"));
        self.func.layout.insert_block_after(exact, before);
        self.func.layout.insert_block_after(fast, exact);
        self.func.layout.insert_block_after(join, fast);
        self.append(
            InstData::Branch { cond: any_big, then_dest: exact, else_dest: fast },
            Type::Void,
        );

        self.current = Some(exact);
        let exact_result = self.append_value(data, result_ty.clone());
        self.append(InstData::Jump { dest: join }, Type::Void);

        self.current = Some(fast);
        let fast_result = match path {
            DivisionFastPath::Reciprocal(divisor) => {
                self.divide_by_reciprocal(divisor, op, lhs, rhs, &result_ty)
            }
            _ => self.divide_through_floating_point(path, op, lhs, rhs, &result_ty),
        };
        self.append(InstData::Jump { dest: join }, Type::Void);

        self.current = Some(join);
        let incoming = vec![(exact, exact_result), (fast, fast_result)];
        Ok(self.append_value(InstData::Phi { ty: result_ty.clone(), incoming }, result_ty))
    }

    /// `fptosi(sitofp a / sitofp b)` in `double`, or in `float` for the
    /// float path (unsigned: `uitofp`, `fptoui`), and the remainder `a - q *
    /// b` for `srem`/`urem`.
    fn divide_through_floating_point(
        &mut self,
        path: DivisionFastPath,
        op: BinaryOp,
        lhs: Value,
        rhs: Value,
        ty: &Type,
    ) -> Value {
        let signed = matches!(op, BinaryOp::SDiv | BinaryOp::SRem);
        let float_ty = match path {
            DivisionFastPath::Float => Type::F32,
            _ => Type::F64,
        }
        .vector_of(self.width);
        let (to_float, to_int) = if signed {
            (CastOp::SIToFP, CastOp::FPToSI)
        } else {
            (CastOp::UIToFP, CastOp::FPToUI)
        };
        let lhs_float = self.append_value(cast(to_float, lhs, &float_ty), float_ty.clone());
        let rhs_float = self.append_value(cast(to_float, rhs, &float_ty), float_ty.clone());
        let quotient_float =
            self.append_value(binary(BinaryOp::FDiv, lhs_float, rhs_float), float_ty);
        let mut quotient = self.append_value(cast(to_int, quotient_float, ty), ty.clone());
        if path == DivisionFastPath::Float {
            // Inactive lanes may divide anything by one: out of range, poison.
            quotient = self.append_value(InstData::Freeze { arg: quotient }, ty.clone());
        }
        self.quotient_or_remainder(op, quotient, lhs, rhs, ty)
    }

    /// The quotient of |a| by |d| as `fptoui(uitofp |a| * R)` (module
    /// docs), negated when a and d differ in sign, and the remainder `a - q
    /// * d` for `srem`/`urem`.
    fn divide_by_reciprocal(
        &mut self,
        divisor: ConstantDivisor,
        op: BinaryOp,
        lhs: Value,
        rhs: Value,
        ty: &Type,
    ) -> Value {
        let signed = matches!(op, BinaryOp::SDiv | BinaryOp::SRem);
        let mask_ty = Type::BOOL.vector_of(self.width);
        let float_ty = Type::F64.vector_of(self.width);
        let zero = self.splat_int(ty, 0);
        let mut negative_dividend = None;
        let magnitude = if signed {
            let negative = self
                .append_value(InstData::Icmp { pred: IntPredicate::Slt, lhs, rhs: zero }, mask_ty);
            let negated = self.append_value(binary(BinaryOp::Sub, zero, lhs), ty.clone());
            negative_dividend = Some(negative);
            self.append_value(select(negative, negated, lhs), ty.clone())
        } else {
            lhs
        };
        let magnitude_float =
            self.append_value(cast(CastOp::UIToFP, magnitude, &float_ty), float_ty.clone());
        let scalar_reciprocal =
            self.func.dfg.make_const(Type::F64, Constant::Float(divisor.reciprocal_bits));
        let reciprocal = self.func.dfg.make_const(
            float_ty.clone(),
            Constant::Aggregate(vec![scalar_reciprocal; self.width as usize]),
        );
        let product =
            self.append_value(binary(BinaryOp::FMul, magnitude_float, reciprocal), float_ty);
        let truncated = self.append_value(cast(CastOp::FPToUI, product, ty), ty.clone());
        // Inactive lanes' dividends may be anything: out of range, poison.
        let mut quotient = self.append_value(InstData::Freeze { arg: truncated }, ty.clone());
        if let Some(negative) = negative_dividend {
            let negated = self.append_value(binary(BinaryOp::Sub, zero, quotient), ty.clone());
            let (if_negative, if_positive) =
                if divisor.negative { (quotient, negated) } else { (negated, quotient) };
            quotient = self.append_value(select(negative, if_negative, if_positive), ty.clone());
        }
        self.quotient_or_remainder(op, quotient, lhs, rhs, ty)
    }

    fn quotient_or_remainder(
        &mut self,
        op: BinaryOp,
        quotient: Value,
        lhs: Value,
        rhs: Value,
        ty: &Type,
    ) -> Value {
        match op {
            BinaryOp::SDiv | BinaryOp::UDiv => quotient,
            _ => {
                let product = self.append_value(binary(BinaryOp::Mul, quotient, rhs), ty.clone());
                self.append_value(binary(BinaryOp::Sub, lhs, product), ty.clone())
            }
        }
    }

    /// A vector constant of type `vector_ty` with `value` in every lane.
    fn splat_int(&mut self, vector_ty: &Type, value: u128) -> Value {
        let scalar = self.func.dfg.int_const(vector_ty.scalar_type().clone(), value);
        self.func
            .dfg
            .make_const(vector_ty.clone(), Constant::Aggregate(vec![scalar; self.width as usize]))
    }

    /// `|x| >= limit` per lane (`x >= limit` unsigned), for a vector of
    /// integers.
    fn at_least(&mut self, x: Value, limit: u128, signed: bool, vector_ty: &Type) -> Value {
        let mask_ty = Type::BOOL.vector_of(self.width);
        let (tested, bound) = if signed {
            // -limit < x < limit  <=>  x + (limit - 1) <u 2 * limit - 1
            let offset = self.splat_int(vector_ty, limit - 1);
            let shifted = self.append_value(binary(BinaryOp::Add, x, offset), vector_ty.clone());
            (shifted, self.splat_int(vector_ty, 2 * limit - 1))
        } else {
            (x, self.splat_int(vector_ty, limit))
        };
        self.append_value(
            InstData::Icmp { pred: IntPredicate::Uge, lhs: tested, rhs: bound },
            mask_ty,
        )
    }
}

fn binary(op: BinaryOp, lhs: Value, rhs: Value) -> InstData {
    InstData::Binary { op, lhs, rhs, flags: Default::default() }
}

fn select(cond: Value, if_true: Value, if_false: Value) -> InstData {
    InstData::Select { cond, if_true, if_false, flags: Default::default() }
}

fn cast(op: CastOp, arg: Value, to: &Type) -> InstData {
    InstData::Cast { op, arg, to: to.clone(), flags: CastFlags::default() }
}
