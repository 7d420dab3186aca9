//! The x86 Vector Function ABI: names and parameter kinds of vector variants.
//!
//! clang puts one string attribute `_ZGV<isa><mask><vlen><params>_<name>` on a
//! function for each variant `#pragma omp declare simd` asks for; GCC uses the
//! same names. `<isa>` is `b` (SSE, 128-bit), `c` (AVX), `d` (AVX2, 256-bit)
//! or `e` (AVX-512); `<mask>` is `N` (no mask) or `M` (mask as last argument);
//! each parameter is `v` (varying: a vector), `u` (uniform: a scalar), `l`,
//! `l<k>` or `ln<k>` (linear with constant step: a scalar, lane i sees
//! `value + i*k`; for pointers `k` is in bytes), `ls<p>` (linear with the step
//! held in uniform parameter `p`), optionally followed by `a<n>` (the argument
//! is aligned to `n` bytes). The same letters form the `--shapes` string of
//! explicit mode, without isa, mask and width.
//!
//! Parsing validates what the ABI requires and code generation relies on:
//! the vector length is a power of two from 1 to [`MAX_WIDTH`] (LLVM's x86
//! back end aborts on `<65536 x float>` and gives `<3 x float>` no ABI of the
//! vendors'), steps fit in `i64`, and an `ls<p>` step names another
//! parameter, which is uniform (as LLVM's own VFABI demangler checks).

use std::fmt;

/// The largest vector length (lanes) Lanewise produces: 64 lanes of bytes
/// fill one AVX-512 register; wider variants would be many registers per value.
pub const MAX_WIDTH: u32 = 64;

/// Whether `width` is a vector length Lanewise produces: a power of two from
/// 1 to [`MAX_WIDTH`].
pub fn is_supported_width(width: u32) -> bool {
    width.is_power_of_two() && width <= MAX_WIDTH
}

/// The instruction set a variant is compiled for.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Isa {
    /// `b`: SSE2, 128-bit registers.
    Sse,
    /// `c`: AVX, 256-bit registers.
    Avx,
    /// `d`: AVX2, 256-bit registers.
    Avx2,
    /// `e`: AVX-512F, 512-bit registers.
    Avx512,
}

impl Isa {
    pub fn from_letter(letter: char) -> Option<Isa> {
        match letter {
            'b' => Some(Isa::Sse),
            'c' => Some(Isa::Avx),
            'd' => Some(Isa::Avx2),
            'e' => Some(Isa::Avx512),
            _ => None,
        }
    }

    pub fn letter(self) -> char {
        match self {
            Isa::Sse => 'b',
            Isa::Avx => 'c',
            Isa::Avx2 => 'd',
            Isa::Avx512 => 'e',
        }
    }

    /// Width of the vector registers in bits.
    pub fn register_bits(self) -> u32 {
        match self {
            Isa::Sse => 128,
            Isa::Avx | Isa::Avx2 => 256,
            Isa::Avx512 => 512,
        }
    }

    /// The LLVM target features the variant needs on top of the scalar
    /// function's own.
    ///
    /// AVX-512 means x86-64-v4's set (F, CD, VL, BW, DQ), which every
    /// AVX-512 processor since Skylake-SP has (not the Xeon Phi). AVX-512F
    /// alone is also a combination LLVM 22's code generator handles badly:
    /// on a module built for `-march=x86-64-v2` it looped forever selecting
    /// instructions for an `e` variant (fuzz seed 20333,
    /// tests/regressions/llc-avx512f-only-hang.ll).
    pub fn target_features(self) -> &'static [&'static str] {
        match self {
            Isa::Sse => &["+sse2"],
            Isa::Avx => &["+sse2", "+avx"],
            Isa::Avx2 => &["+sse2", "+avx", "+avx2"],
            Isa::Avx512 => &[
                "+sse2",
                "+avx",
                "+avx2",
                "+avx512f",
                "+avx512cd",
                "+avx512vl",
                "+avx512bw",
                "+avx512dq",
            ],
        }
    }
}

/// How one parameter varies across lanes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ParamKind {
    /// `v`: every lane has its own value; passed as a vector.
    Vector,
    /// `u`: the same value in every lane; passed as a scalar.
    Uniform,
    /// `l<k>`: lane i sees `arg + i*k` (bytes for pointers); passed as a scalar.
    Linear { step: i64 },
    /// `ls<p>`: like `Linear` with the step held in uniform parameter `p`.
    LinearVariableStep { step_param: u32 },
    /// `R<k>`: a C++ reference `linear(ref(x))`, whose address is linear:
    /// lane i's reference is `arg + i*k` bytes; passed as a scalar pointer
    /// (lane 0's), which makes it a pointer `l<k>` under another letter.
    LinearRef { step: i64 },
}

impl ParamKind {
    /// The constant step of a linear parameter (`l<k>`, `ln<k>`, `R<k>`).
    pub fn linear_step(self) -> Option<i64> {
        match self {
            ParamKind::Linear { step } | ParamKind::LinearRef { step } => Some(step),
            _ => None,
        }
    }
}

/// One parameter of a variant: its kind and a known alignment in bytes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct ParamSpec {
    pub kind: ParamKind,
    pub align: Option<u64>,
}

/// A parsed `_ZGV` name.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VariantName {
    pub isa: Isa,
    pub masked: bool,
    pub width: u32,
    pub params: Vec<ParamSpec>,
    pub scalar_name: String,
}

/// Why a `_ZGV` name or a shape string could not be parsed.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum VfabiError {
    #[error(
        "`{0}` is not a vector function ABI name (expected _ZGV<isa><N|M><vlen><params>_<name>)"
    )]
    NotAVariantName(String),
    #[error("unknown ISA letter `{letter}` in `{name}` (expected b, c, d or e)")]
    UnknownIsa { name: String, letter: char },
    #[error("vector length {width} in `{name}` is not a power of two from 1 to {MAX_WIDTH}")]
    UnsupportedWidth { name: String, width: String },
    #[error("bad parameter shapes `{shapes}` at position {position}: {reason}")]
    BadShapes { shapes: String, position: usize, reason: &'static str },
    #[error("bad parameter shapes `{shapes}`: parameter {param} is `ls{step_param}`: {reason}")]
    BadStepParam { shapes: String, param: usize, step_param: u64, reason: &'static str },
}

impl VariantName {
    /// Parses `_ZGV<isa><mask><vlen><params>_<name>`.
    pub fn parse(name: &str) -> Result<VariantName, VfabiError> {
        let not_a_name = || VfabiError::NotAVariantName(name.to_owned());
        let rest = name.strip_prefix("_ZGV").ok_or_else(not_a_name)?;
        let mut chars = rest.chars();
        let isa_letter = chars.next().ok_or_else(not_a_name)?;
        let isa = Isa::from_letter(isa_letter)
            .ok_or(VfabiError::UnknownIsa { name: name.to_owned(), letter: isa_letter })?;
        let masked = match chars.next() {
            Some('N') => false,
            Some('M') => true,
            _ => return Err(not_a_name()),
        };
        let rest = chars.as_str();
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return Err(not_a_name());
        }
        let unsupported_width = || VfabiError::UnsupportedWidth {
            name: name.to_owned(),
            width: rest[..digits].to_owned(),
        };
        let width: u32 = rest[..digits].parse().map_err(|_| unsupported_width())?;
        if !is_supported_width(width) {
            return Err(unsupported_width());
        }
        let rest = &rest[digits..];
        let underscore = rest.find('_').ok_or_else(not_a_name)?;
        let params = parse_shapes(&rest[..underscore])?;
        let scalar_name = rest[underscore + 1..].to_owned();
        if scalar_name.is_empty() {
            return Err(not_a_name());
        }
        Ok(VariantName { isa, masked, width, params, scalar_name })
    }

    /// The mangled name.
    pub fn mangle(&self) -> String {
        let mask = if self.masked { 'M' } else { 'N' };
        let shapes = format_shapes(&self.params);
        format!("_ZGV{}{mask}{}{shapes}_{}", self.isa.letter(), self.width, self.scalar_name)
    }
}

impl fmt::Display for VariantName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.mangle())
    }
}

/// Parses a sequence of parameter shapes (`vul4a16ls0`).
pub fn parse_shapes(shapes: &str) -> Result<Vec<ParamSpec>, VfabiError> {
    let bytes = shapes.as_bytes();
    let error = |position: usize, reason: &'static str| VfabiError::BadShapes {
        shapes: shapes.to_owned(),
        position,
        reason,
    };
    // `Ok(None)`: no digits; `Err`: digits that overflow a u64.
    let number_at = |start: usize| -> Result<(Option<u64>, usize), VfabiError> {
        let end = start + bytes[start..].iter().take_while(|byte| byte.is_ascii_digit()).count();
        if end == start {
            return Ok((None, end));
        }
        let value = shapes[start..end].parse().map_err(|_| error(start, "number too large"))?;
        Ok((Some(value), end))
    };
    let mut params = Vec::new();
    let mut position = 0;
    while position < bytes.len() {
        let start = position;
        let kind = match bytes[position] {
            b'v' => {
                position += 1;
                ParamKind::Vector
            }
            b'u' => {
                position += 1;
                ParamKind::Uniform
            }
            b'l' => {
                position += 1;
                if bytes.get(position) == Some(&b's') {
                    let (param, end) = number_at(position + 1)?;
                    let param =
                        param.ok_or_else(|| error(start, "`ls` needs a parameter number"))?;
                    position = end;
                    let step_param = u32::try_from(param)
                        .map_err(|_| error(start, "`ls` names no parameter"))?;
                    ParamKind::LinearVariableStep { step_param }
                } else {
                    let negative = bytes.get(position) == Some(&b'n');
                    if negative {
                        position += 1;
                    }
                    let (step, end) = number_at(position)?;
                    if negative && step.is_none() {
                        return Err(error(start, "`ln` needs a step"));
                    }
                    position = end;
                    let step = i64::try_from(step.unwrap_or(1))
                        .map_err(|_| error(start, "linear step does not fit in 64 bits"))?;
                    ParamKind::Linear { step: if negative { -step } else { step } }
                }
            }
            b'R' => {
                let (step, end) = number_at(position + 1)?;
                position = end;
                let step = i64::try_from(step.unwrap_or(1))
                    .map_err(|_| error(start, "linear step does not fit in 64 bits"))?;
                ParamKind::LinearRef { step }
            }
            b'L' | b'U' => {
                return Err(error(
                    start,
                    "linear(val(...)) and linear(uval(...)) of references (`L`, `U`) are not \
                     supported",
                ))
            }
            _ => return Err(error(start, "expected v, u, l or R")),
        };
        let mut align = None;
        if bytes.get(position) == Some(&b'a') {
            let (value, end) = number_at(position + 1)?;
            let value = value.ok_or_else(|| error(position, "`a` needs an alignment"))?;
            if value == 0 || !value.is_power_of_two() {
                return Err(error(position, "alignment must be a power of two"));
            }
            align = Some(value);
            position = end;
        }
        params.push(ParamSpec { kind, align });
    }
    check_step_params(shapes, &params)?;
    Ok(params)
}

/// An `ls<p>` step must be held in another parameter that exists and is
/// uniform (the Vector Function ABI's rule; LLVM's demangler enforces it
/// too): every lane needs the same step, and lane 0's value of the linear
/// parameter cannot be its own step.
fn check_step_params(shapes: &str, params: &[ParamSpec]) -> Result<(), VfabiError> {
    for (index, param) in params.iter().enumerate() {
        let ParamKind::LinearVariableStep { step_param } = param.kind else { continue };
        let error = |reason| VfabiError::BadStepParam {
            shapes: shapes.to_owned(),
            param: index,
            step_param: u64::from(step_param),
            reason,
        };
        let Some(step) = params.get(step_param as usize) else {
            return Err(error("there is no such parameter"));
        };
        if step_param as usize == index {
            return Err(error("a linear parameter cannot be its own step"));
        }
        if step.kind != ParamKind::Uniform {
            return Err(error("the step parameter must be uniform (`u`)"));
        }
    }
    Ok(())
}

/// The inverse of [`parse_shapes`].
pub fn format_shapes(params: &[ParamSpec]) -> String {
    let mut text = String::new();
    for param in params {
        match param.kind {
            ParamKind::Vector => text.push('v'),
            ParamKind::Uniform => text.push('u'),
            ParamKind::Linear { step: 1 } => text.push('l'),
            ParamKind::Linear { step } if step < 0 => text.push_str(&format!("ln{}", -step)),
            ParamKind::Linear { step } => text.push_str(&format!("l{step}")),
            ParamKind::LinearVariableStep { step_param } => {
                text.push_str(&format!("ls{step_param}"))
            }
            ParamKind::LinearRef { step } => text.push_str(&format!("R{step}")),
        }
        if let Some(align) = param.align {
            text.push_str(&format!("a{align}"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_clang_names() {
        let name = VariantName::parse("_ZGVdN8ul4va32_ld").unwrap();
        assert_eq!(name.isa, Isa::Avx2);
        assert!(!name.masked);
        assert_eq!(name.width, 8);
        assert_eq!(name.scalar_name, "ld");
        assert_eq!(
            name.params,
            vec![
                ParamSpec { kind: ParamKind::Uniform, align: None },
                ParamSpec { kind: ParamKind::Linear { step: 4 }, align: None },
                ParamSpec { kind: ParamKind::Vector, align: Some(32) },
            ]
        );
        assert_eq!(name.mangle(), "_ZGVdN8ul4va32_ld");
    }

    #[test]
    fn parses_negative_and_variable_steps() {
        let params = parse_shapes("ln2ls3lu").unwrap();
        assert_eq!(params[0].kind, ParamKind::Linear { step: -2 });
        assert_eq!(params[1].kind, ParamKind::LinearVariableStep { step_param: 3 });
        assert_eq!(params[2].kind, ParamKind::Linear { step: 1 });
        assert_eq!(format_shapes(&params), "ln2ls3lu");
    }

    #[test]
    fn scalar_names_may_contain_underscores() {
        let name = VariantName::parse("_ZGVeM16v__Z3fooi").unwrap();
        assert_eq!(name.scalar_name, "_Z3fooi");
        assert!(name.masked);
    }

    #[test]
    fn rejects_malformed_names_and_shapes() {
        assert!(VariantName::parse("foo").is_err());
        assert!(VariantName::parse("_ZGVxN4v_f").is_err());
        assert!(VariantName::parse("_ZGVbN0v_f").is_err());
        assert!(VariantName::parse("_ZGVbN4v_").is_err());
        assert!(parse_shapes("vq").is_err());
        assert!(parse_shapes("va3").is_err());
        assert!(parse_shapes("ls").is_err());
    }

    #[test]
    fn rejects_widths_the_back_end_cannot_take() {
        for name in ["_ZGVdN3v_f", "_ZGVdN65536v_f", "_ZGVdN128v_f", "_ZGVdN99999999999v_f"] {
            let error = VariantName::parse(name).unwrap_err();
            assert!(matches!(error, VfabiError::UnsupportedWidth { .. }), "{name}: {error}");
        }
        assert_eq!(
            VariantName::parse("_ZGVdN3v_f").unwrap_err().to_string(),
            "vector length 3 in `_ZGVdN3v_f` is not a power of two from 1 to 64"
        );
        for width in [1, 2, 4, 8, 16, 32, 64] {
            assert!(VariantName::parse(&format!("_ZGVeN{width}v_f")).is_ok());
        }
    }

    #[test]
    fn rejects_steps_that_overflow() {
        assert_eq!(
            parse_shapes("vl99999999999999999999").unwrap_err().to_string(),
            "bad parameter shapes `vl99999999999999999999` at position 2: number too large"
        );
        assert!(parse_shapes("l9223372036854775808").is_err());
        assert_eq!(
            parse_shapes("ln9223372036854775807").unwrap()[0].kind,
            ParamKind::Linear { step: -i64::MAX }
        );
        assert!(parse_shapes("va99999999999999999999").is_err());
        assert!(parse_shapes("uls4294967296").is_err());
    }

    #[test]
    fn variable_steps_name_another_uniform_parameter() {
        let reason = |shapes: &str| match parse_shapes(shapes) {
            Err(VfabiError::BadStepParam { reason, .. }) => reason,
            other => panic!("{shapes}: {other:?}"),
        };
        assert_eq!(reason("ls0"), "a linear parameter cannot be its own step");
        assert_eq!(reason("uls2"), "there is no such parameter");
        assert_eq!(reason("vls0"), "the step parameter must be uniform (`u`)");
        assert_eq!(reason("lls0"), "the step parameter must be uniform (`u`)");
        assert!(parse_shapes("uls0").is_ok());
        assert_eq!(
            parse_shapes("ls0").unwrap_err().to_string(),
            "bad parameter shapes `ls0`: parameter 0 is `ls0`: a linear parameter cannot be its \
             own step"
        );
    }
}
