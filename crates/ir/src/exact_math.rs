//! Names of Lanewise's exact vector math functions: vector forms of libm
//! functions that return, lane by lane, the bits the scalar libm call
//! returns (glibc's x86-64 `expf`, `exp2f`, `logf`, `log2f`, `exp` and
//! `log` as they run on CPUs
//! with FMA and AVX2: the same double-precision operations, fused where
//! glibc's FMA build fuses them, on every lane at once).
//!
//! Widening (`lanewise_transform::widen`) calls them by name; the LLVM
//! bridge (`lanewise_llvm::exact_math`) defines their bodies in the modules
//! that call them; the interpreter evaluates them with the scalar function.
//! This module is the one place their names are made and read.
//!
//! A function of `lanes` lanes takes the argument vector and the mask of
//! the active lanes: `<8 x float> __lanewise_expf_exact_v8(<8 x float> x,
//! <8 x i1> active)`. Lanes whose input the vector path does not cover
//! (for `expf`, |x| >= 88 and NaN; for `exp2f`, |x| >= 128 and NaN; for
//! `logf` and `log2f`, zero, negative, subnormal, infinite and NaN inputs;
//! for `exp`, |x| < 2^-54, |x| >= 512, infinities
//! and NaN; for `log`, what `logf` leaves) call the scalar function when
//! they are active,
//! in lane order, so that `errno` is what the scalar code leaves; the
//! results of inactive lanes are unspecified.

use crate::Type;

/// A libm function with an exact vector form.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ExactMathFunction {
    Expf,
    Exp2f,
    Logf,
    Log2f,
    /// `exp` of a `double`.
    Exp,
    /// `log` of a `double`.
    Log,
}

/// The prefix of every exact vector math function's name.
const PREFIX: &str = "__lanewise_";

impl ExactMathFunction {
    pub const ALL: [ExactMathFunction; 6] = [
        ExactMathFunction::Expf,
        ExactMathFunction::Exp2f,
        ExactMathFunction::Logf,
        ExactMathFunction::Log2f,
        ExactMathFunction::Exp,
        ExactMathFunction::Log,
    ];

    /// The scalar libm function: `expf`.
    pub fn scalar_name(self) -> &'static str {
        match self {
            ExactMathFunction::Expf => "expf",
            ExactMathFunction::Exp2f => "exp2f",
            ExactMathFunction::Logf => "logf",
            ExactMathFunction::Log2f => "log2f",
            ExactMathFunction::Exp => "exp",
            ExactMathFunction::Log => "log",
        }
    }

    /// The type of the argument and the result: `float` or `double`.
    pub fn element_type(self) -> Type {
        match self {
            ExactMathFunction::Expf
            | ExactMathFunction::Exp2f
            | ExactMathFunction::Logf
            | ExactMathFunction::Log2f => Type::F32,
            ExactMathFunction::Exp | ExactMathFunction::Log => Type::F64,
        }
    }

    /// The function of a scalar call, if it has an exact vector form: the
    /// libm function or the LLVM intrinsic clang emits for it without
    /// `errno` (`llvm.exp.f32`), returning its type.
    pub fn of_call(name: &str, ret_ty: &Type) -> Option<ExactMathFunction> {
        ExactMathFunction::ALL.into_iter().find(|function| {
            let intrinsic = match function {
                ExactMathFunction::Expf => "llvm.exp.f32",
                ExactMathFunction::Exp2f => "llvm.exp2.f32",
                ExactMathFunction::Logf => "llvm.log.f32",
                ExactMathFunction::Log2f => "llvm.log2.f32",
                ExactMathFunction::Exp => "llvm.exp.f64",
                ExactMathFunction::Log => "llvm.log.f64",
            };
            *ret_ty == function.element_type()
                && (name == function.scalar_name() || name == intrinsic)
        })
    }

    /// The name of the vector form of `lanes` lanes:
    /// `__lanewise_expf_exact_v8`.
    pub fn vector_name(self, lanes: u32) -> String {
        format!("{PREFIX}{}_exact_v{lanes}", self.scalar_name())
    }

    /// The function and lane count of a vector form's name.
    pub fn parse_vector_name(name: &str) -> Option<(ExactMathFunction, u32)> {
        let rest = name.strip_prefix(PREFIX)?;
        ExactMathFunction::ALL.into_iter().find_map(|function| {
            let lanes = rest.strip_prefix(function.scalar_name())?.strip_prefix("_exact_v")?;
            let lanes: u32 = lanes.parse().ok()?;
            (lanes.is_power_of_two() && lanes >= 2).then_some((function, lanes))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_calls_are_recognized() {
        for function in ExactMathFunction::ALL {
            let name = function.vector_name(16);
            assert_eq!(ExactMathFunction::parse_vector_name(&name), Some((function, 16)));
        }
        assert_eq!(ExactMathFunction::parse_vector_name("__lanewise_expf_exact_v3"), None);
        assert_eq!(ExactMathFunction::parse_vector_name("__lanewise_expf_v8"), None);
        assert_eq!(
            ExactMathFunction::parse_vector_name("__lanewise_exp2f_exact_v8"),
            Some((ExactMathFunction::Exp2f, 8))
        );
        assert_eq!(ExactMathFunction::of_call("expf", &Type::F32), Some(ExactMathFunction::Expf));
        assert_eq!(
            ExactMathFunction::of_call("llvm.log.f32", &Type::F32),
            Some(ExactMathFunction::Logf)
        );
        assert_eq!(ExactMathFunction::of_call("exp", &Type::F64), Some(ExactMathFunction::Exp));
        assert_eq!(ExactMathFunction::of_call("log", &Type::F64), Some(ExactMathFunction::Log));
        assert_eq!(ExactMathFunction::of_call("log2", &Type::F64), None);
        assert_eq!(ExactMathFunction::of_call("expf", &Type::F64), None);
        assert_eq!(ExactMathFunction::of_call("exp", &Type::F32), None);
    }
}
