//! The harness's own parser of x86 vector function ABI names
//! (`_ZGV<isa><mask><vlen><params>_<name>`).
//!
//! It is deliberately independent of `lanewise_ir::vfabi`: the harness checks
//! the compiler, so it must not share the compiler's reading of the names.

/// How one parameter varies across lanes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ParamKind {
    /// `v`: one value per lane, passed as a vector.
    Varying,
    /// `u`: one value for all lanes, passed as a scalar.
    Uniform,
    /// `l`, `l<k>`, `ln<k>`: lane i sees `value + i*step` (bytes for pointers).
    Linear { step: i64 },
    /// `ls<p>`: the step is the value of uniform parameter `p`.
    LinearVariableStep { step_param: usize },
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct ParamSpec {
    pub kind: ParamKind,
    pub align: Option<u64>,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VariantName {
    pub full_name: String,
    /// `b`, `c`, `d` or `e`.
    pub isa: char,
    pub masked: bool,
    pub width: u32,
    pub params: Vec<ParamSpec>,
    pub scalar_name: String,
}

impl VariantName {
    /// Bytes of the vector register that carries lanes of integer or of
    /// floating-point type: AVX (`c`) passes integer vectors in 128-bit
    /// registers (it has no 256-bit integer instructions), as GCC does.
    pub fn register_bytes_for(&self, is_float: bool) -> u32 {
        match self.isa {
            'b' => 16,
            'c' if is_float => 32,
            'c' => 16,
            'd' => 32,
            _ => 64,
        }
    }

    pub fn parse(name: &str) -> Result<VariantName, String> {
        let error = |why: &str| format!("`{name}` is not a vector function ABI name: {why}");
        let rest = name.strip_prefix("_ZGV").ok_or_else(|| error("no _ZGV prefix"))?;
        let bytes = rest.as_bytes();
        let mut position = 0;
        let isa = *bytes.first().ok_or_else(|| error("no ISA letter"))? as char;
        if !matches!(isa, 'b' | 'c' | 'd' | 'e') {
            return Err(error("ISA letter is not b, c, d or e"));
        }
        position += 1;
        let masked = match bytes.get(position) {
            Some(b'N') => false,
            Some(b'M') => true,
            _ => return Err(error("mask letter is not N or M")),
        };
        position += 1;
        let width = read_number(bytes, &mut position).ok_or_else(|| error("no vector length"))?;
        if width == 0 || width > 64 {
            return Err(error("vector length out of range 1..=64"));
        }
        let mut params = Vec::new();
        while position < bytes.len() && bytes[position] != b'_' {
            let letter = bytes[position];
            position += 1;
            let kind = match letter {
                b'v' => ParamKind::Varying,
                b'u' => ParamKind::Uniform,
                b'l' => match bytes.get(position) {
                    Some(b'n') => {
                        position += 1;
                        let step = read_number(bytes, &mut position)
                            .ok_or_else(|| error("`ln` without a step"))?;
                        ParamKind::Linear { step: -(step as i64) }
                    }
                    Some(b's') => {
                        position += 1;
                        let step_param = read_number(bytes, &mut position)
                            .ok_or_else(|| error("`ls` without a parameter position"))?;
                        ParamKind::LinearVariableStep { step_param: step_param as usize }
                    }
                    _ => ParamKind::Linear {
                        step: read_number(bytes, &mut position).unwrap_or(1) as i64,
                    },
                },
                _ => {
                    return Err(error(&format!(
                        "unsupported parameter letter `{}`",
                        letter as char
                    )))
                }
            };
            let mut align = None;
            if bytes.get(position) == Some(&b'a') {
                position += 1;
                align = Some(
                    read_number(bytes, &mut position)
                        .ok_or_else(|| error("`a` without a number"))?,
                );
            }
            params.push(ParamSpec { kind, align });
        }
        if bytes.get(position) != Some(&b'_') || position + 1 >= bytes.len() {
            return Err(error("no `_<name>` after the parameters"));
        }
        Ok(VariantName {
            full_name: name.to_owned(),
            isa,
            masked,
            width: width as u32,
            params,
            scalar_name: rest[position + 1..].to_owned(),
        })
    }
}

fn read_number(bytes: &[u8], position: &mut usize) -> Option<u64> {
    let start = *position;
    while *position < bytes.len() && bytes[*position].is_ascii_digit() {
        *position += 1;
    }
    std::str::from_utf8(&bytes[start..*position]).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_linear_uniform_aligned_and_variable_steps() {
        let name = VariantName::parse("_ZGVbN2l16ln4ua64_b").unwrap();
        assert_eq!(name.isa, 'b');
        assert!(!name.masked);
        assert_eq!(name.width, 2);
        assert_eq!(name.scalar_name, "b");
        assert_eq!(name.params[0].kind, ParamKind::Linear { step: 16 });
        assert_eq!(name.params[1].kind, ParamKind::Linear { step: -4 });
        assert_eq!(name.params[2], ParamSpec { kind: ParamKind::Uniform, align: Some(64) });
        let variable = VariantName::parse("_ZGVeM16ls1u_a_b").unwrap();
        assert!(variable.masked);
        assert_eq!(variable.params[0].kind, ParamKind::LinearVariableStep { step_param: 1 });
        assert_eq!(variable.scalar_name, "a_b");
        assert!(VariantName::parse("_ZGVxN4v_f").is_err());
        assert!(VariantName::parse("_ZGVbN4v").is_err());
    }
}
