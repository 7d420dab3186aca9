//! Vector 64-bit integer division with a run-time fast path through
//! `double`.
//!
//! x86 has no vector integer division: LLVM scalarizes a vector `sdiv`,
//! `udiv`, `srem` or `urem` into one `idiv` per lane (for a constant divisor,
//! one multiply-high sequence per lane). For lanes of at most 32
//! bits the bridge divides through `double` unconditionally (the operands
//! convert exactly; `lanewise_llvm::lower`). For 64-bit lanes that is exact
//! only while both operands are below 2^53 in magnitude: then they convert
//! exactly, and the rounding error of the quotient, below |a/b| * 2^-53 <
//! 1/|b|, cannot carry it across an integer (a non-integral a/b is at least
//! 1/|b| away from one), so `fptosi(sitofp a / sitofp b)` is the truncated
//! quotient and `a - q * b` the remainder. Typical 64-bit arithmetic in a
//! SIMD body (products of two 32-bit values reduced modulo a prime,
//! indices, counters) stays there, so the widened division tests it:
//!
//! ```text
//!     big = active & (a or b has |x| >= 2^53)        ; per lane
//!     br any(big), exact, through_double
//! through_double: q = fptosi(sitofp a / sitofp b); r = a - q * b
//! exact:          the vector division (one idiv per lane)
//! ```
//!
//! Inactive lanes do not count (their divisor is one, their dividend may be
//! anything). A zero divisor or `INT64_MIN / -1` in an active lane is
//! undefined behaviour in the scalar code; a zero divisor takes the fast
//! path and gives poison (`fptosi` of an infinity or NaN), the other the
//! exact path.

use lanewise_ir::{BinaryOp, CastFlags, CastOp, Constant, InstData, IntPredicate, Type, Value};

use super::{WidenError, Widener};

/// Operands of at most this magnitude (exclusive) convert to `double`
/// exactly and divide exactly (module docs).
const EXACT_LIMIT: u128 = 1 << 53;

impl Widener<'_> {
    /// Whether `data` (widened operands) is a 64-bit vector division, which
    /// gets the `double` fast path. Constant divisors too: LLVM turns them
    /// into a multiplication by the reciprocal, but that needs the high half
    /// of a 64 x 64-bit product, which x86 vectors lack, so it scalarizes
    /// those as well (gcd_pairs, whose `% 1000003` is inlined into the simd
    /// loop: 1.7x -> 3.0x over clang on AVX-512). Except powers of two
    /// (and their negations), which LLVM divides by with vector shifts.
    pub(super) fn divides_64_bits_through_double(&self, data: &InstData) -> bool {
        let InstData::Binary { op, lhs, rhs, .. } = data else { return false };
        op.can_trap()
            && matches!(self.func.dfg.value_type(*lhs).scalar_type(), Type::Int(64))
            && self.func.dfg.value_type(*lhs).is_vector()
            && !self.is_power_of_two_splat(*rhs)
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

    /// The division `data` (see [`Self::divides_64_bits_through_double`])
    /// with its fast path; returns the result vector.
    pub(super) fn divide_64_bits_through_double(
        &mut self,
        data: InstData,
        result_ty: Type,
    ) -> Result<Value, WidenError> {
        let InstData::Binary { op, lhs, rhs, .. } = data else {
            unreachable!("divides_64_bits_through_double accepts binary operations only")
        };
        let signed = matches!(op, BinaryOp::SDiv | BinaryOp::SRem);
        let mask_ty = Type::BOOL.vector_of(self.width);
        let lhs_big = self.at_least_exact_limit(lhs, signed, &result_ty);
        let rhs_big = self.at_least_exact_limit(rhs, signed, &result_ty);
        let mut big = self.append_value(binary(BinaryOp::Or, lhs_big, rhs_big), mask_ty.clone());
        if let Some(mask) = self.block_mask()? {
            big = self.append_value(binary(BinaryOp::And, big, mask), mask_ty);
        }
        let any_big = self.mask_any(big);

        let before = self.current.expect("a current block");
        let prefix = self.next_guard_prefix();
        let name = |label: &str| Some(format!("{prefix}.{label}"));
        let exact = self.func.dfg.make_block(name("exact_division"));
        let fast = self.func.dfg.make_block(name("double_division"));
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
        let double_ty = Type::F64.vector_of(self.width);
        let (to_double, to_int) = if signed {
            (CastOp::SIToFP, CastOp::FPToSI)
        } else {
            (CastOp::UIToFP, CastOp::FPToUI)
        };
        let lhs_double = self.append_value(cast(to_double, lhs, &double_ty), double_ty.clone());
        let rhs_double = self.append_value(cast(to_double, rhs, &double_ty), double_ty.clone());
        let quotient_double =
            self.append_value(binary(BinaryOp::FDiv, lhs_double, rhs_double), double_ty);
        let quotient =
            self.append_value(cast(to_int, quotient_double, &result_ty), result_ty.clone());
        let fast_result = match op {
            BinaryOp::SDiv | BinaryOp::UDiv => quotient,
            _ => {
                let product =
                    self.append_value(binary(BinaryOp::Mul, quotient, rhs), result_ty.clone());
                self.append_value(binary(BinaryOp::Sub, lhs, product), result_ty.clone())
            }
        };
        self.append(InstData::Jump { dest: join }, Type::Void);

        self.current = Some(join);
        let incoming = vec![(exact, exact_result), (fast, fast_result)];
        Ok(self.append_value(InstData::Phi { ty: result_ty.clone(), incoming }, result_ty))
    }

    /// `|x| >= 2^53` per lane (`x >= 2^53` unsigned), for a vector of i64.
    fn at_least_exact_limit(&mut self, x: Value, signed: bool, vector_ty: &Type) -> Value {
        let mask_ty = Type::BOOL.vector_of(self.width);
        let constant = |this: &mut Self, bits: u128| {
            let scalar = this.func.dfg.int_const(Type::I64, bits);
            this.func.dfg.make_const(
                vector_ty.clone(),
                Constant::Aggregate(vec![scalar; this.width as usize]),
            )
        };
        let (tested, bound) = if signed {
            // -2^53 < x < 2^53  <=>  x + (2^53 - 1) <u 2^54 - 1
            let offset = constant(self, EXACT_LIMIT - 1);
            let shifted = self.append_value(binary(BinaryOp::Add, x, offset), vector_ty.clone());
            (shifted, constant(self, 2 * EXACT_LIMIT - 1))
        } else {
            (x, constant(self, EXACT_LIMIT))
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
