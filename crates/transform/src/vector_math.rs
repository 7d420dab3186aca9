//! Vector forms of math calls: LLVM intrinsics and glibc's libmvec.
//!
//! Widening (Karrenberg 2014, section 6.4: "mapped" calls with a known vector
//! variant become one vector call; section 6.4.4: everything else is
//! duplicated per lane) needs to know, for a scalar call, whether a vector
//! function computes the same thing lane by lane. Two sources exist:
//!
//! * **Elementwise LLVM intrinsics** ([`vector_intrinsic`]): `llvm.sqrt.f32`
//!   has the vector form `llvm.sqrt.v8f32`, with the same semantics per lane.
//!   Some operands are immediates that stay scalar in the vector form (the
//!   `i1` "is zero poison" flag of `llvm.ctlz`/`llvm.cttz`/`llvm.abs`). The
//!   transcendental intrinsics (`llvm.sin`, `llvm.exp`, ...) have vector
//!   forms too, which LLVM expands into scalar libm calls: bit-exact.
//! * **glibc libmvec** ([`libmvec_variant`]): `sinf` at 8 lanes on AVX2 is
//!   `_ZGVdN8v_sinf`. The variants are *not* bit-exact with the scalar libm
//!   (glibc documents at most 4 ulp) and do not set `errno`, so they are only
//!   used where the user allowed it: [`VectorMath::Libmvec`] for every call,
//!   [`VectorMath::Auto`] for calls marked `afn`. Each ISA has exactly one
//!   width per element type (the register width); a wider vectorization
//!   factor is split into several calls ([`LibmvecVariant::calls`]).
//!
//! The tables are the one place to extend when a new function is mapped.
//! The libmvec table is the exported symbol list of glibc 2.3x's
//! `libmvec.so.1` (`nm -D libmvec.so.1 | grep ZGV`), minus `sincos` (it
//! returns through pointers).

use lanewise_ir::vfabi::Isa;
use lanewise_ir::{FastMathFlags, Type};

/// How calls to math functions are widened.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum VectorMath {
    /// Bit-exact with the scalar code: libm calls are duplicated per lane
    /// (elementwise LLVM intrinsics are still widened: their vector forms are
    /// exact).
    #[default]
    Exact,
    /// Each call as its fast-math flags allow: libmvec where the call
    /// carries `afn` (approximate functions: clang sets it under
    /// `-ffast-math`, `-funsafe-math-optimizations`, `-fapprox-func` and
    /// `#pragma float_control`), exact otherwise. The IR says what the user
    /// allowed, call by call.
    Auto,
    /// Use glibc's libmvec variants where one exists for the ISA and element
    /// type (up to 4 ulp from the scalar libm; `errno` is not set).
    Libmvec,
}

impl VectorMath {
    /// Whether a math call with fast-math `flags` may become a libmvec call
    /// (up to 4 ulp from the scalar libm).
    pub fn allows_libmvec(self, flags: FastMathFlags) -> bool {
        match self {
            VectorMath::Exact => false,
            VectorMath::Auto => flags.afn,
            VectorMath::Libmvec => true,
        }
    }
}

/// The LLVM name suffix of a type in an overloaded intrinsic name
/// (`f32`, `i16`, `p0`, `v8f32`).
pub fn intrinsic_type_suffix(ty: &Type) -> Option<String> {
    match ty {
        Type::Int(bits) => Some(format!("i{bits}")),
        Type::F16 => Some("f16".to_owned()),
        Type::F32 => Some("f32".to_owned()),
        Type::F64 => Some("f64".to_owned()),
        Type::Ptr(space) => Some(format!("p{space}")),
        Type::Vector { elem, lanes } => Some(format!("v{lanes}{}", intrinsic_type_suffix(elem)?)),
        _ => None,
    }
}

/// One elementwise intrinsic: its name without the type suffix, the operand
/// positions that stay scalar in the vector form, and the libm function of
/// the same meaning (without the `f` of the float version), if any.
struct ElementwiseIntrinsic {
    base: &'static str,
    scalar_operands: &'static [usize],
    libm_name: Option<&'static str>,
}

const fn elementwise(base: &'static str) -> ElementwiseIntrinsic {
    ElementwiseIntrinsic { base, scalar_operands: &[], libm_name: None }
}

const fn with_scalar_flag(base: &'static str) -> ElementwiseIntrinsic {
    ElementwiseIntrinsic { base, scalar_operands: &[1], libm_name: None }
}

const fn libm(base: &'static str, libm_name: &'static str) -> ElementwiseIntrinsic {
    ElementwiseIntrinsic { base, scalar_operands: &[], libm_name: Some(libm_name) }
}

/// LLVM intrinsics overloaded on one scalar type (the result type) whose
/// vector form applies the scalar operation to each lane.
const ELEMENTWISE_INTRINSICS: &[ElementwiseIntrinsic] = &[
    // Floating point, exact.
    elementwise("llvm.sqrt"),
    elementwise("llvm.fabs"),
    elementwise("llvm.floor"),
    elementwise("llvm.ceil"),
    elementwise("llvm.trunc"),
    elementwise("llvm.round"),
    elementwise("llvm.rint"),
    elementwise("llvm.nearbyint"),
    elementwise("llvm.roundeven"),
    elementwise("llvm.fma"),
    elementwise("llvm.fmuladd"),
    elementwise("llvm.minnum"),
    elementwise("llvm.maxnum"),
    elementwise("llvm.minimum"),
    elementwise("llvm.maximum"),
    elementwise("llvm.minimumnum"),
    elementwise("llvm.maximumnum"),
    elementwise("llvm.copysign"),
    elementwise("llvm.canonicalize"),
    // Floating point, libm meaning (the vector forms expand to scalar libm calls).
    libm("llvm.sin", "sin"),
    libm("llvm.cos", "cos"),
    libm("llvm.tan", "tan"),
    libm("llvm.asin", "asin"),
    libm("llvm.acos", "acos"),
    libm("llvm.atan", "atan"),
    libm("llvm.atan2", "atan2"),
    libm("llvm.sinh", "sinh"),
    libm("llvm.cosh", "cosh"),
    libm("llvm.tanh", "tanh"),
    libm("llvm.exp", "exp"),
    libm("llvm.exp2", "exp2"),
    libm("llvm.exp10", "exp10"),
    libm("llvm.log", "log"),
    libm("llvm.log2", "log2"),
    libm("llvm.log10", "log10"),
    libm("llvm.pow", "pow"),
    // Integer.
    elementwise("llvm.ctpop"),
    with_scalar_flag("llvm.ctlz"),
    with_scalar_flag("llvm.cttz"),
    with_scalar_flag("llvm.abs"),
    elementwise("llvm.smin"),
    elementwise("llvm.smax"),
    elementwise("llvm.umin"),
    elementwise("llvm.umax"),
    elementwise("llvm.bswap"),
    elementwise("llvm.bitreverse"),
    elementwise("llvm.fshl"),
    elementwise("llvm.fshr"),
    elementwise("llvm.sadd.sat"),
    elementwise("llvm.uadd.sat"),
    elementwise("llvm.ssub.sat"),
    elementwise("llvm.usub.sat"),
    elementwise("llvm.sshl.sat"),
    elementwise("llvm.ushl.sat"),
];

/// The vector form of an elementwise intrinsic call.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VectorIntrinsic {
    /// The vector intrinsic's name (`llvm.sqrt.v8f32`).
    pub name: String,
    /// Operand positions that stay scalar (and must be uniform).
    pub scalar_operands: &'static [usize],
    /// The libm function computing the same (`sinf` for `llvm.sin.f32`).
    pub libm_name: Option<String>,
}

/// The `width`-lane form of the intrinsic `scalar_name` returning `ret_ty`,
/// if it is elementwise: `llvm.sqrt.f32` at width 8 is `llvm.sqrt.v8f32`.
pub fn vector_intrinsic(scalar_name: &str, ret_ty: &Type, width: u32) -> Option<VectorIntrinsic> {
    if !ret_ty.is_scalar() {
        return None;
    }
    let suffix = intrinsic_type_suffix(ret_ty)?;
    let base = scalar_name.strip_suffix(&suffix)?.strip_suffix('.')?;
    let entry = ELEMENTWISE_INTRINSICS.iter().find(|entry| entry.base == base)?;
    let vector_suffix = intrinsic_type_suffix(&ret_ty.vector_of(width))?;
    let libm_name = entry.libm_name.and_then(|name| match ret_ty {
        Type::F32 => Some(format!("{name}f")),
        Type::F64 => Some(name.to_owned()),
        _ => None,
    });
    Some(VectorIntrinsic {
        name: format!("{base}.{vector_suffix}"),
        scalar_operands: entry.scalar_operands,
        libm_name,
    })
}

/// The name without its type suffix of a call of an elementwise intrinsic
/// returning `ret_ty`, scalar or vector: `llvm.smax` for `llvm.smax.v16i32`
/// returning `<16 x i32>`; `None` for any other callee. The same name with
/// the suffix of another lane count computes the same per lane.
pub fn elementwise_intrinsic_base<'name>(name: &'name str, ret_ty: &Type) -> Option<&'name str> {
    let suffix = intrinsic_type_suffix(ret_ty)?;
    let base = name.strip_suffix(&suffix)?.strip_suffix('.')?;
    ELEMENTWISE_INTRINSICS.iter().any(|entry| entry.base == base).then_some(base)
}

/// Double-precision names of the one-argument functions in libmvec (the
/// single-precision ones add `f`).
const LIBMVEC_UNARY: &[&str] = &[
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "cos", "cosh", "erf", "erfc", "exp",
    "exp10", "exp2", "expm1", "log", "log10", "log1p", "log2", "sin", "sinh", "tan", "tanh",
];

/// Double-precision names of the two-argument functions in libmvec.
const LIBMVEC_BINARY: &[&str] = &["atan2", "hypot", "pow"];

/// A libmvec function implementing a scalar libm call at a vectorization factor.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LibmvecVariant {
    /// The vector function (`_ZGVdN8v_sinf`).
    pub name: String,
    /// Lanes of one call (the ISA's register width in elements).
    pub lanes: u32,
    /// Number of calls that together cover the vectorization factor.
    pub calls: u32,
    /// Number of (vector) arguments.
    pub arity: usize,
}

/// The libmvec width of `elem` vectors for `isa` (one register).
pub fn libmvec_lanes(isa: Isa, elem: &Type) -> Option<u32> {
    let element_bits = match elem {
        Type::F32 => 32,
        Type::F64 => 64,
        _ => return None,
    };
    Some(isa.register_bits() / element_bits)
}

/// The libmvec variant for the scalar libm function `scalar_name` (`sinf`,
/// `pow`, ...) returning `ret_ty`, at `width` lanes for `isa`: the variant of
/// exactly that width, or (when `width` is a power-of-two multiple of the
/// ISA's width) that many calls of the ISA's variant.
pub fn libmvec_variant(
    scalar_name: &str,
    ret_ty: &Type,
    isa: Isa,
    width: u32,
) -> Option<LibmvecVariant> {
    let (double_name, elem) = if is_libmvec_function(scalar_name) {
        (scalar_name, Type::F64)
    } else {
        let double_name = scalar_name.strip_suffix('f')?;
        is_libmvec_function(double_name).then_some((double_name, Type::F32))?
    };
    if *ret_ty != elem {
        return None;
    }
    let arity = if LIBMVEC_BINARY.contains(&double_name) { 2 } else { 1 };
    let lanes = libmvec_lanes(isa, &elem)?;
    if width < lanes || !width.is_multiple_of(lanes) || !(width / lanes).is_power_of_two() {
        return None;
    }
    let params = "v".repeat(arity);
    Some(LibmvecVariant {
        name: format!("_ZGV{}N{lanes}{params}_{scalar_name}", isa.letter()),
        lanes,
        calls: width / lanes,
        arity,
    })
}

fn is_libmvec_function(double_name: &str) -> bool {
    LIBMVEC_UNARY.contains(&double_name) || LIBMVEC_BINARY.contains(&double_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intrinsic_names_are_mangled_like_llvm() {
        let sqrt = vector_intrinsic("llvm.sqrt.f32", &Type::F32, 8).unwrap();
        assert_eq!(sqrt.name, "llvm.sqrt.v8f32");
        assert!(sqrt.scalar_operands.is_empty());
        assert_eq!(vector_intrinsic("llvm.fma.f64", &Type::F64, 4).unwrap().name, "llvm.fma.v4f64");
        let ctlz = vector_intrinsic("llvm.ctlz.i8", &Type::I8, 16).unwrap();
        assert_eq!(ctlz.name, "llvm.ctlz.v16i8");
        assert_eq!(ctlz.scalar_operands, &[1]);
        let saturating = vector_intrinsic("llvm.sadd.sat.i32", &Type::I32, 4).unwrap();
        assert_eq!(saturating.name, "llvm.sadd.sat.v4i32");
        let sine = vector_intrinsic("llvm.sin.f32", &Type::F32, 8).unwrap();
        assert_eq!(sine.libm_name.as_deref(), Some("sinf"));
        assert_eq!(intrinsic_type_suffix(&Type::PTR.vector_of(4)).unwrap(), "v4p0");
        let i32x16 = Type::I32.vector_of(16);
        assert_eq!(elementwise_intrinsic_base("llvm.smax.v16i32", &i32x16), Some("llvm.smax"));
        assert_eq!(elementwise_intrinsic_base("llvm.smax.v8i32", &i32x16), None);
        assert_eq!(elementwise_intrinsic_base("llvm.vector.reduce.or.v16i1", &Type::BOOL), None);
    }

    #[test]
    fn non_elementwise_intrinsics_have_no_vector_form() {
        assert!(vector_intrinsic("llvm.memcpy.p0.p0.i64", &Type::Void, 8).is_none());
        assert!(vector_intrinsic("llvm.sqrt.f64", &Type::F32, 8).is_none());
        assert!(vector_intrinsic("sqrtf", &Type::F32, 8).is_none());
    }

    #[test]
    fn libmvec_variants_exist_per_isa_width() {
        let variant = |name: &str, ty: &Type, isa, width| {
            libmvec_variant(name, ty, isa, width).map(|variant| (variant.name, variant.calls))
        };
        assert_eq!(variant("sinf", &Type::F32, Isa::Avx2, 8), Some(("_ZGVdN8v_sinf".into(), 1)));
        assert_eq!(variant("sin", &Type::F64, Isa::Avx2, 4), Some(("_ZGVdN4v_sin".into(), 1)));
        assert_eq!(variant("sin", &Type::F64, Isa::Sse, 2), Some(("_ZGVbN2v_sin".into(), 1)));
        assert_eq!(
            variant("sinf", &Type::F32, Isa::Avx512, 16),
            Some(("_ZGVeN16v_sinf".into(), 1))
        );
        assert_eq!(variant("powf", &Type::F32, Isa::Sse, 4), Some(("_ZGVbN4vv_powf".into(), 1)));
        assert_eq!(variant("erf", &Type::F64, Isa::Avx, 4), Some(("_ZGVcN4v_erf".into(), 1)));
        assert_eq!(variant("erff", &Type::F32, Isa::Avx, 8), Some(("_ZGVcN8v_erff".into(), 1)));
        // Wider factors are split; narrower ones have no variant.
        assert_eq!(variant("expf", &Type::F32, Isa::Sse, 8), Some(("_ZGVbN4v_expf".into(), 2)));
        assert_eq!(variant("expf", &Type::F32, Isa::Avx2, 4), None);
        // Not in libmvec, or wrong type.
        assert_eq!(variant("fmodf", &Type::F32, Isa::Avx2, 8), None);
        assert_eq!(variant("sinf", &Type::F64, Isa::Avx2, 8), None);
    }
}

/// The LLVM intrinsic that computes exactly what the libm function `name`
/// returns (correctly rounded or exact operations: the results are
/// bit-identical; `fmin`/`fmax` are left out, their zero signs may differ),
/// e.g. `sqrtf` → `llvm.sqrt.f32`. The libm function may also set `errno`
/// (`sqrt` of a negative number), the intrinsic does not.
pub fn libm_intrinsic_equivalent(name: &str, ret_ty: &Type) -> Option<String> {
    let (double_name, elem, suffix) = match name.strip_suffix('f') {
        Some(double_name) if *ret_ty == Type::F32 => (double_name, Type::F32, "f32"),
        _ if *ret_ty == Type::F64 => (name, Type::F64, "f64"),
        _ => return None,
    };
    debug_assert_eq!(&elem, ret_ty);
    let base = match double_name {
        "sqrt" => "sqrt",
        "fabs" => "fabs",
        "floor" => "floor",
        "ceil" => "ceil",
        "trunc" => "trunc",
        "round" => "round",
        "rint" => "rint",
        "nearbyint" => "nearbyint",
        "copysign" => "copysign",
        "fma" => "fma",
        _ => return None,
    };
    Some(format!("llvm.{base}.{suffix}"))
}

#[cfg(test)]
mod libm_equivalent_tests {
    use super::*;

    #[test]
    fn libm_functions_map_to_exact_intrinsics() {
        assert_eq!(
            libm_intrinsic_equivalent("sqrtf", &Type::F32).as_deref(),
            Some("llvm.sqrt.f32")
        );
        assert_eq!(libm_intrinsic_equivalent("sqrt", &Type::F64).as_deref(), Some("llvm.sqrt.f64"));
        assert_eq!(libm_intrinsic_equivalent("fmaf", &Type::F32).as_deref(), Some("llvm.fma.f32"));
        // fmin/fmax may order -0 and +0 differently from llvm.minnum/maxnum.
        assert_eq!(libm_intrinsic_equivalent("fmaxf", &Type::F32), None);
        assert_eq!(libm_intrinsic_equivalent("sinf", &Type::F32), None);
        // `floorf` returning a double is not the libm function.
        assert_eq!(libm_intrinsic_equivalent("floorf", &Type::F64), None);
    }
}
