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

/// The floating-point fast path of a vector division (module docs).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum DivisionFastPath {
    /// 64-bit lanes through `double`.
    Double,
    /// 32-bit lanes through `float`.
    Float,
}

impl DivisionFastPath {
    fn limit(self) -> u128 {
        match self {
            DivisionFastPath::Double => DOUBLE_EXACT_LIMIT,
            DivisionFastPath::Float => FLOAT_EXACT_LIMIT,
        }
    }
}

impl Widener<'_> {
    /// The fast path of `data` (widened operands), if it is a vector
    /// division that gets one: 64-bit lanes, constant divisors too (LLVM
    /// turns them into a multiplication by the reciprocal, but that needs
    /// the high half of a 64 x 64-bit product, which x86 vectors lack, so it
    /// scalarizes those as well: gcd_pairs, whose `% 1000003` is inlined
    /// into the simd loop, 1.7x -> 3.0x over clang on AVX-512), except
    /// powers of two (and their negations), which LLVM divides by with
    /// vector shifts; 32-bit lanes with a divisor that is not a constant
    /// (constant divisors become 32-bit multiplications, faster still).
    pub(super) fn division_fast_path(&self, data: &InstData) -> Option<DivisionFastPath> {
        let InstData::Binary { op, lhs, rhs, .. } = data else { return None };
        let ty = self.func.dfg.value_type(*lhs);
        if !op.can_trap() || !ty.is_vector() {
            return None;
        }
        match ty.scalar_type() {
            Type::Int(64) if !self.is_power_of_two_splat(*rhs) => Some(DivisionFastPath::Double),
            Type::Int(32) if self.func.dfg.constant(*rhs).is_none() => {
                Some(DivisionFastPath::Float)
            }
            _ => None,
        }
    }

    /// Whether `value` is a constant vector whose lanes all hold the same
    /// power of two or its negation.
    fn is_power_of_two_splat(&self, value: Value) -> bool {
        let Some(Constant::Aggregate(elements)) = self.func.dfg.constant(value) else {
            return false;
        };
        let Some(&first) = elements.first() else { return false };
        elements.iter().all(|element| *element == first)
            && self
                .func
                .dfg
                .signed_int_constant(first)
                .is_some_and(|divisor| divisor.unsigned_abs().is_power_of_two())
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
        let fast_result = self.divide_through_floating_point(path, op, lhs, rhs, &result_ty);
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
            DivisionFastPath::Double => Type::F64,
            DivisionFastPath::Float => Type::F32,
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

fn cast(op: CastOp, arg: Value, to: &Type) -> InstData {
    InstData::Cast { op, arg, to: to.clone(), flags: CastFlags::default() }
}
