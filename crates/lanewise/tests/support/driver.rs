//! Generates the C driver of one differential test: a table of variants with
//! their parameter shapes, a shim calling the scalar function with one lane's
//! values, and a shim calling each vector variant, either directly through the
//! C ABI (vector types) or through an IR wrapper that takes every
//! argument in memory (see `harness_module`). The generic trial loop is in
//! `driver_runtime.c`. The C ABI shims of each ISA live in their own file,
//! compiled with that ISA's `-m` flag: clang picks the registers of vector
//! arguments from the translation unit's features, and ignores a function's
//! `target` attribute for that (it passed a 256-bit argument in memory from a
//! `target("avx")` function of an SSE2 file).
//!
//! The C ABI calls follow the x86 vector function ABI as GCC implements it:
//! a vector argument wider than one register of the ISA is passed as several
//! register-sized chunks (lanes 0.. first); a vector return value wider than a
//! register is returned as a struct of chunks, i.e. in memory. For AVX (`c`),
//! which has no 256-bit integer instructions, integer and pointer vectors use
//! 128-bit registers and only floating-point vectors use 256-bit ones. The same source
//! compiles with clang-22 (`ext_vector_type`) and gcc (`vector_size`).

use std::fmt::Write;

use super::llvm_text::{IrParam, IrType};
use super::variant_name::{ParamKind, VariantName};

/// The scalar function a variant vectorizes, as read from the scalar module.
#[derive(Clone, Debug)]
pub struct ScalarSignature {
    pub name: String,
    pub return_type: IrType,
    pub return_attributes: Vec<String>,
    pub params: Vec<IrParam>,
}

/// How return values are compared (from `// lanewise-test:` lines of the kernel).
#[derive(Copy, Clone, Debug, Default)]
pub struct CompareOptions {
    /// Float lanes may differ by this many units in the last place.
    pub ulp: u32,
    /// NaN results must have the same bits (up to the quiet bit, and unless
    /// the lane had two or more NaN arguments). Default: any NaN matches any
    /// NaN, since LLVM leaves the payload and sign of a NaN result
    /// nondeterministic when several operands may be NaN (memory holds NaNs
    /// too), so scalar and vector code may legally differ there.
    pub nan_bits: bool,
}

/// How the driver reaches a variant.
#[derive(Clone, Debug)]
pub enum CallPath {
    /// Declared in C with vector types and called directly.
    CAbi,
    /// Called through `void SYMBOL(ptr arg0, ..., [ptr mask,] ptr ret)`.
    IrWrapper { symbol: String, description: String },
}

/// One entry of the driver's variant table.
#[derive(Clone, Debug)]
pub struct DriverVariant {
    pub display_name: String,
    pub variant: VariantName,
    pub path: CallPath,
    pub needs_avx512: bool,
    pub skip_reason: Option<String>,
}

/// The C view of a scalar LLVM type.
#[derive(Clone, Debug)]
pub struct CValueType {
    pub c_type: &'static str,
    /// Element type in a vector (pointers travel as 64-bit integers).
    pub c_vector_element: Option<&'static str>,
    pub lw_type: &'static str,
    pub size: u32,
}

impl CValueType {
    /// Floating-point lanes travel in the float registers of an ISA (see
    /// [`VariantName::register_bytes_for`]).
    pub fn is_float(&self) -> bool {
        matches!(self.lw_type, "LW_F16" | "LW_F32" | "LW_F64")
    }
}

pub fn c_value_type(ty: &IrType, attributes: &[String]) -> Result<CValueType, String> {
    let zero_extended = attributes.iter().any(|word| word == "zeroext");
    let value = |c_type, element, lw_type, size| CValueType {
        c_type,
        c_vector_element: element,
        lw_type,
        size,
    };
    Ok(match ty {
        // `_Bool` lanes travel as bytes holding 0 or 1 (GCC's callers of
        // `_ZGVdN32v_f` for a `_Bool f(...)` pass and read `<32 x i8>`).
        IrType::Int(1) => value("_Bool", Some("uint8_t"), "LW_BOOL", 1),
        IrType::Int(8) if zero_extended => value("uint8_t", Some("uint8_t"), "LW_I8", 1),
        IrType::Int(8) => value("int8_t", Some("int8_t"), "LW_I8", 1),
        IrType::Int(16) if zero_extended => value("uint16_t", Some("uint16_t"), "LW_I16", 2),
        IrType::Int(16) => value("int16_t", Some("int16_t"), "LW_I16", 2),
        IrType::Int(32) if zero_extended => value("uint32_t", Some("uint32_t"), "LW_I32", 4),
        IrType::Int(32) => value("int32_t", Some("int32_t"), "LW_I32", 4),
        IrType::Int(64) => value("int64_t", Some("int64_t"), "LW_I64", 8),
        IrType::Half => value("_Float16", Some("_Float16"), "LW_F16", 2),
        IrType::Float => value("float", Some("float"), "LW_F32", 4),
        IrType::Double => value("double", Some("double"), "LW_F64", 8),
        IrType::Ptr => value("void *", Some("uint64_t"), "LW_PTR", 8),
        other => return Err(format!("the harness does not support scalar type `{other}`")),
    })
}

/// Checks that a variant name fits the scalar function it belongs to.
pub fn check_variant_fits(variant: &VariantName, scalar: &ScalarSignature) -> Result<(), String> {
    if variant.params.len() != scalar.params.len() {
        return Err(format!(
            "{} names {} parameters but @{} has {}",
            variant.full_name,
            variant.params.len(),
            scalar.name,
            scalar.params.len()
        ));
    }
    if matches!(scalar.return_type, IrType::Ptr) {
        return Err(format!(
            "@{} returns a pointer; the harness does not compare pointer returns",
            scalar.name
        ));
    }
    for (index, param) in variant.params.iter().enumerate() {
        let value = c_value_type(&scalar.params[index].ty, &scalar.params[index].attributes)?;
        if param.kind == ParamKind::Varying && value.c_vector_element.is_none() {
            return Err(format!(
                "{}: varying parameter {index} of type {} is not supported",
                variant.full_name, value.c_type
            ));
        }
        if let ParamKind::LinearVariableStep { step_param } = param.kind {
            let is_uniform_integer =
                variant.params.get(step_param).is_some_and(|step| step.kind == ParamKind::Uniform)
                    && matches!(scalar.params[step_param].ty, IrType::Int(_));
            if !is_uniform_integer || matches!(scalar.params[index].ty, IrType::Ptr) {
                return Err(format!(
                    "{}: unsupported variable linear step on parameter {index}",
                    variant.full_name
                ));
            }
        }
    }
    Ok(())
}

/// The driver's C sources: the main file, and one file per ISA holding the
/// C ABI call shims, to be compiled with that ISA's `-m` flag (clang decides
/// how vectors are passed from the translation unit's features, not from a
/// function's `target` attribute).
pub struct DriverSources {
    pub main: String,
    /// (ISA letter, source).
    pub per_isa: Vec<(char, String)>,
}

/// The compiler flag that enables an ISA for a whole translation unit.
pub fn isa_compiler_flag(isa: char) -> &'static str {
    match isa {
        'b' => "-msse2",
        'c' => "-mavx",
        'd' => "-mavx2",
        _ => "-mavx512f",
    }
}

const ISA_FILE_PROLOGUE: &str = "#include <stdint.h>\n#include <string.h>\n#ifdef __clang__\n#define LW_VECTOR_TYPE(ELEMENT, LANES, BYTES) __attribute__((ext_vector_type(LANES)))\n#else\n#define LW_VECTOR_TYPE(ELEMENT, LANES, BYTES) __attribute__((vector_size(BYTES)))\n#endif\n";

/// Writes the driver sources.
pub fn generate_driver(
    kernel_name: &str,
    scalars: &[ScalarSignature],
    variants: &[DriverVariant],
    options: &CompareOptions,
    trials: u32,
) -> Result<DriverSources, String> {
    let mut per_isa: Vec<(char, String)> = Vec::new();
    let mut source = String::new();
    source.push_str(include_str!("driver_runtime.c"));
    writeln!(source, "\n/* ---- generated for kernel {kernel_name} ---- */").unwrap();

    for scalar in scalars {
        let return_c = if scalar.return_type == IrType::Void {
            "void".to_owned()
        } else {
            c_value_type(&scalar.return_type, &scalar.return_attributes)?.c_type.to_owned()
        };
        let mut param_types = Vec::new();
        let mut arguments = Vec::new();
        for (index, param) in scalar.params.iter().enumerate() {
            let value = c_value_type(&param.ty, &param.attributes)?;
            param_types.push(value.c_type.to_owned());
            arguments.push(format!("*({} *)args[{index}]", value.c_type));
        }
        let param_list =
            if param_types.is_empty() { "void".to_owned() } else { param_types.join(", ") };
        writeln!(source, "extern {return_c} {}({param_list});", scalar.name).unwrap();
        writeln!(
            source,
            "static void lw_scalar_{}(unsigned char *const *args, unsigned char *ret) {{",
            scalar.name
        )
        .unwrap();
        writeln!(source, "    (void)args;").unwrap();
        if return_c == "void" {
            writeln!(source, "    (void)ret;\n    {}({});", scalar.name, arguments.join(", "))
                .unwrap();
        } else {
            writeln!(source, "    {return_c} result = {}({});", scalar.name, arguments.join(", "))
                .unwrap();
            writeln!(source, "    memcpy(ret, &result, sizeof result);").unwrap();
        }
        writeln!(source, "}}").unwrap();
    }

    let mut table = String::new();
    for (index, entry) in variants.iter().enumerate() {
        let variant = &entry.variant;
        let scalar =
            scalars.iter().find(|scalar| scalar.name == variant.scalar_name).ok_or_else(|| {
                format!("no scalar function @{} for {}", variant.scalar_name, variant.full_name)
            })?;
        check_variant_fits(variant, scalar)?;

        writeln!(source, "static const struct lw_param lw_params_{index}[] = {{").unwrap();
        for (param_index, param) in variant.params.iter().enumerate() {
            let value = c_value_type(
                &scalar.params[param_index].ty,
                &scalar.params[param_index].attributes,
            )?;
            let (kind, step, step_param) = match param.kind {
                ParamKind::Varying => ("LW_VARYING", 0, 0),
                ParamKind::Uniform => ("LW_UNIFORM", 0, 0),
                ParamKind::Linear { step } => ("LW_LINEAR", step, 0),
                ParamKind::LinearVariableStep { step_param } => {
                    ("LW_LINEAR_VARIABLE", 0, step_param)
                }
            };
            writeln!(
                source,
                "    {{{kind}, {}, {}, {step}LL, {step_param}, {}LL}},",
                value.lw_type,
                value.size,
                param.align.unwrap_or(0)
            )
            .unwrap();
        }
        if variant.params.is_empty() {
            writeln!(source, "    {{0, 0, 0, 0, 0, 0}}").unwrap();
        }
        writeln!(source, "}};").unwrap();

        match &entry.path {
            // Never called: no shim, whose declaration of the variant could
            // clash with the one of the entry that runs it.
            _ if entry.skip_reason.is_some() => {
                writeln!(
                    source,
                    "static void lw_vector_{index}(unsigned char *const *args, const unsigned char *mask, unsigned char *ret) {{ (void)args; (void)mask; (void)ret; }}"
                )
                .unwrap();
            }
            CallPath::CAbi => {
                let isa_source = match per_isa.iter_mut().find(|(isa, _)| *isa == variant.isa) {
                    Some((_, isa_source)) => isa_source,
                    None => {
                        per_isa.push((variant.isa, ISA_FILE_PROLOGUE.to_owned()));
                        &mut per_isa.last_mut().unwrap().1
                    }
                };
                write_c_abi_shim(isa_source, index, variant, scalar)?;
                writeln!(
                    source,
                    "void lw_vector_{index}(unsigned char *const *args, const unsigned char *mask, unsigned char *ret);"
                )
                .unwrap();
            }
            CallPath::IrWrapper { symbol, .. } => {
                let mut params: Vec<&str> = vec!["void *"; variant.params.len()];
                if variant.masked {
                    params.push("const void *");
                }
                params.push("void *");
                writeln!(source, "extern void {symbol}({});", params.join(", ")).unwrap();
                writeln!(
                    source,
                    "static void lw_vector_{index}(unsigned char *const *args, const unsigned char *mask, unsigned char *ret) {{"
                )
                .unwrap();
                let mut arguments: Vec<String> =
                    (0..variant.params.len()).map(|p| format!("args[{p}]")).collect();
                if variant.masked {
                    arguments.push("mask".to_owned());
                } else {
                    writeln!(source, "    (void)mask;").unwrap();
                }
                arguments.push("ret".to_owned());
                writeln!(source, "    {symbol}({});\n}}", arguments.join(", ")).unwrap();
            }
        }

        let (return_lw, return_size) = if scalar.return_type == IrType::Void {
            ("LW_I8", 0)
        } else {
            let value = c_value_type(&scalar.return_type, &scalar.return_attributes)?;
            (value.lw_type, value.size)
        };
        let how = match &entry.path {
            CallPath::CAbi => {
                format!("C ABI, caller compiled with {}", isa_compiler_flag(variant.isa))
            }
            CallPath::IrWrapper { description, .. } => description.clone(),
        };
        let skip = match &entry.skip_reason {
            Some(reason) => c_string(reason),
            None => "NULL".to_owned(),
        };
        writeln!(
            table,
            "    {{{}, {}, {}, {}, {}, {}, {skip}, {}, lw_params_{index}, {return_lw}, {return_size}, {}, {}, lw_scalar_{}, lw_vector_{index}}},",
            c_string(&entry.display_name),
            c_string(kernel_name),
            c_string(&how),
            variant.width,
            variant.masked as u32,
            entry.needs_avx512 as u32,
            variant.params.len(),
            options.ulp,
            !options.nan_bits as u32,
            scalar.name
        )
        .unwrap();
    }

    if variants.is_empty() {
        writeln!(source, "int main(void) {{ printf(\"no variants\\n\"); return 0; }}").unwrap();
    } else {
        writeln!(source, "static const struct lw_variant lw_variants[] = {{\n{table}}};").unwrap();
        writeln!(
            source,
            "int main(void) {{ return lw_main(lw_variants, {}, {trials}); }}",
            variants.len()
        )
        .unwrap();
    }
    Ok(DriverSources { main: source, per_isa })
}

/// A C string literal.
fn c_string(text: &str) -> String {
    let mut literal = String::from("\"");
    for character in text.chars() {
        match character {
            '"' | '\\' => {
                literal.push('\\');
                literal.push(character);
            }
            '\n' => literal.push_str("\\n"),
            _ => literal.push(character),
        }
    }
    literal.push('"');
    literal
}

/// Register-sized chunks of a vector of `lanes` values of `element_size` bytes.
fn chunking(lanes: u32, element_size: u32, register_bytes: u32) -> (u32, u32) {
    let total = lanes * element_size;
    if total <= register_bytes {
        (1, lanes)
    } else {
        (total / register_bytes, register_bytes / element_size)
    }
}

fn write_c_abi_shim(
    source: &mut String,
    index: usize,
    variant: &VariantName,
    scalar: &ScalarSignature,
) -> Result<(), String> {
    if variant.masked {
        return Err(format!(
            "{}: masked variants are only called through IR wrappers",
            variant.full_name
        ));
    }
    let width = variant.width;
    let mut declared_params = Vec::new();
    let mut body = String::new();
    let mut call_arguments = Vec::new();
    for (param_index, param) in variant.params.iter().enumerate() {
        let value =
            c_value_type(&scalar.params[param_index].ty, &scalar.params[param_index].attributes)?;
        if param.kind == ParamKind::Varying {
            let element = value.c_vector_element.unwrap();
            let (chunks, lanes_per_chunk) =
                chunking(width, value.size, variant.register_bytes_for(value.is_float()));
            let type_name = format!("lw_v{index}_p{param_index}");
            let chunk_bytes = lanes_per_chunk * value.size;
            writeln!(
                source,
                "typedef {element} {type_name} LW_VECTOR_TYPE({element}, {lanes_per_chunk}, {chunk_bytes});"
            )
            .unwrap();
            for chunk in 0..chunks {
                declared_params.push(type_name.clone());
                writeln!(body, "    {type_name} p{param_index}_{chunk};").unwrap();
                writeln!(
                    body,
                    "    memcpy(&p{param_index}_{chunk}, args[{param_index}] + {}, {chunk_bytes});",
                    chunk * chunk_bytes
                )
                .unwrap();
                call_arguments.push(format!("p{param_index}_{chunk}"));
            }
        } else {
            declared_params.push(value.c_type.to_owned());
            call_arguments.push(format!("*({} *)args[{param_index}]", value.c_type));
        }
    }
    let return_declaration;
    let mut store = String::new();
    if scalar.return_type == IrType::Void {
        return_declaration = "void".to_owned();
    } else {
        let value = c_value_type(&scalar.return_type, &scalar.return_attributes)?;
        let element = value.c_vector_element.ok_or_else(|| {
            format!("{}: return type {} cannot be a vector", variant.full_name, value.c_type)
        })?;
        let (chunks, lanes_per_chunk) =
            chunking(width, value.size, variant.register_bytes_for(value.is_float()));
        let chunk_bytes = lanes_per_chunk * value.size;
        let chunk_type = format!("lw_v{index}_r");
        writeln!(source, "typedef {element} {chunk_type} LW_VECTOR_TYPE({element}, {lanes_per_chunk}, {chunk_bytes});")
            .unwrap();
        if chunks == 1 {
            return_declaration = chunk_type;
        } else {
            // wider than a register: a struct of chunks, returned in memory (as GCC does)
            let fields: String =
                (0..chunks).map(|chunk| format!(" {chunk_type} c{chunk};")).collect();
            writeln!(source, "struct lw_r{index} {{{fields} }};").unwrap();
            return_declaration = format!("struct lw_r{index}");
        }
        writeln!(store, "    memcpy(ret, &result, {});", width * value.size).unwrap();
    }
    let param_list =
        if declared_params.is_empty() { "void".to_owned() } else { declared_params.join(", ") };
    writeln!(source, "extern {return_declaration} {}({param_list});", variant.full_name).unwrap();
    writeln!(
        source,
        "void lw_vector_{index}(unsigned char *const *args, const unsigned char *mask, unsigned char *ret) {{"
    )
    .unwrap();
    writeln!(source, "    (void)mask; (void)args;").unwrap();
    source.push_str(&body);
    if return_declaration == "void" {
        writeln!(
            source,
            "    (void)ret;\n    {}({});",
            variant.full_name,
            call_arguments.join(", ")
        )
        .unwrap();
    } else {
        writeln!(
            source,
            "    {return_declaration} result = {}({});",
            variant.full_name,
            call_arguments.join(", ")
        )
        .unwrap();
        source.push_str(&store);
    }
    writeln!(source, "}}").unwrap();
    Ok(())
}
