//! Builds the module the driver links against: the module lanewise wrote,
//! unchanged, plus
//! - IR wrappers `void @lwtest_wrap_*(ptr arg0, ..., [ptr mask,] ptr ret)`
//!   that load every argument from memory, call a variant with the IR
//!   signature lanewise gave it (so caller and callee both use LLVM's own
//!   calling convention) and store the result; they carry the callee's target
//!   features, since the features decide which registers carry vectors;
//! - for each AVX-512 (`e`) variant, a clone `@lwtest_noavx512_*` of its body
//!   whose target features lose `+avx512*`: LLVM then legalizes the 512-bit
//!   vectors into AVX2 halves, so the W-lane logic of the variant can run on a
//!   machine without AVX-512 (through a wrapper with the same features).

use std::fmt::Write;

use super::driver::{c_value_type, ScalarSignature};
use super::llvm_text::{IrFunction, IrModule, IrType};
use super::variant_name::{ParamKind, VariantName};

/// A wrapper to generate.
pub struct WrapperRequest<'a> {
    pub wrapper_symbol: String,
    /// The function to call: a variant of the module or one of its clones.
    pub callee_symbol: String,
    pub callee: &'a IrFunction,
    pub variant: &'a VariantName,
    pub scalar: &'a ScalarSignature,
    /// `"target-cpu"`, `"target-features"` and `"min-legal-vector-width"` of the callee.
    pub target_attributes: String,
}

/// Text appended to the module.
#[derive(Default)]
pub struct HarnessAdditions {
    pub text: String,
    next_group: u32,
    /// A wrapper copies a result returned in memory with `llvm.memcpy`.
    needs_memcpy_declaration: bool,
}

impl HarnessAdditions {
    pub fn new(module: &IrModule) -> HarnessAdditions {
        HarnessAdditions {
            text: String::new(),
            next_group: module.next_free_attribute_group() + 100,
            needs_memcpy_declaration: false,
        }
    }

    /// The text to append to the module: the additions and the declarations they need.
    pub fn finish(&self, module_text: &str) -> String {
        let mut text = self.text.clone();
        if self.needs_memcpy_declaration && !module_text.contains("@llvm.memcpy.p0.p0.i64(") {
            text.push_str("\ndeclare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n");
        }
        text
    }

    fn new_group(&mut self, body: &str) -> u32 {
        let group = self.next_group;
        self.next_group += 1;
        writeln!(self.text, "attributes #{group} = {{ {body} }}").unwrap();
        group
    }

    /// Clones an `e` variant as `@lwtest_noavx512_<name>` without AVX-512
    /// features. Returns the clone's symbol and target attributes, or why the
    /// clone cannot run without AVX-512.
    pub fn add_clone_without_avx512(
        &mut self,
        module: &IrModule,
        variant_function: &IrFunction,
    ) -> Result<(String, String), String> {
        let body = module.function_body_lines(variant_function);
        for line in &body[1..] {
            if line.contains("llvm.x86.avx512") {
                return Err("its body uses AVX-512 intrinsics".to_owned());
            }
            if line.contains(" asm \"") && line.contains("\"=v,") {
                return Err("its body loads a zmm register in inline assembly".to_owned());
            }
            if let Some(position) = line.find("@_ZGVe") {
                let callee: String = line[position..].chars().take_while(|c| *c != '(').collect();
                return Err(format!("it calls {callee}, an AVX-512 vector function"));
            }
        }
        let group_body: String = variant_function
            .attribute_groups
            .iter()
            .filter_map(|group| module.attribute_groups.get(group))
            .cloned()
            .collect::<Vec<_>>()
            .join(" ");
        let stripped_group = strip_avx512(&group_body);
        let clone_group = self.new_group(&stripped_group);
        let clone_symbol = format!("lwtest_noavx512_{}", variant_function.name);
        let mut define_line = body[0].clone();
        let quoted = format!("@\"{}\"(", variant_function.name);
        let plain = format!("@{}(", variant_function.name);
        define_line = if define_line.contains(&quoted) {
            define_line.replacen(&quoted, &format!("@{clone_symbol}("), 1)
        } else {
            define_line.replacen(&plain, &format!("@{clone_symbol}("), 1)
        };
        // the attribute group references come after the parameter list
        let close = define_line.rfind(')').unwrap_or(0);
        let (head, tail) = define_line.split_at(close);
        let tail: Vec<String> =
            tail.split(' ')
                .filter(|word| !word.starts_with("comdat"))
                .map(|word| {
                    if word.starts_with('#') {
                        format!("#{clone_group}")
                    } else {
                        word.to_owned()
                    }
                })
                .collect();
        define_line = format!("{head}{}", tail.join(" "));
        define_line = define_line
            .replacen("define ", "define internal ", 1)
            .replace("internal internal", "internal");
        for linkage in [" dso_local", " dllexport"] {
            define_line = define_line.replacen(linkage, "", 1);
        }
        writeln!(self.text, "\n{define_line}").unwrap();
        for line in &body[1..] {
            writeln!(self.text, "{line}").unwrap();
        }
        Ok((clone_symbol, target_attributes_of(&stripped_group)))
    }

    /// Adds a wrapper; errors say how the callee's IR signature disagrees with its name.
    pub fn add_wrapper(&mut self, request: &WrapperRequest) -> Result<(), String> {
        let variant = request.variant;
        let scalar = request.scalar;
        let callee = request.callee;
        let width = variant.width;
        let mismatch = |why: String| {
            format!(
                "the IR signature of @{} does not match its vector function ABI name: {why}",
                callee.name
            )
        };
        let mut body = String::new();
        let mut call_arguments = Vec::new();
        let mut cursor = 0usize;
        // A result too wide for registers comes back in memory: the caller
        // passes the address first and the callee returns it (the x86-64
        // convention, which lanewise writes as `ptr f(ptr, ...)`).
        let returns_in_memory = scalar.return_type != IrType::Void
            && scalar.return_type != IrType::Ptr
            && callee.return_type == IrType::Ptr
            && callee.params.first().is_some_and(|param| param.ty == IrType::Ptr);
        if returns_in_memory {
            let lane_size = c_value_type(&scalar.return_type, &scalar.return_attributes)?.size;
            writeln!(body, "  %result.memory = alloca [{} x i8], align 64", width * lane_size)
                .unwrap();
            call_arguments.push(format!("ptr {}%result.memory", callee.params[0].abi_attributes()));
            cursor = 1;
        }
        for (param_index, param) in variant.params.iter().enumerate() {
            let scalar_param = &scalar.params[param_index];
            if param.kind == ParamKind::Varying {
                let lane_size = c_value_type(&scalar_param.ty, &scalar_param.attributes)?.size;
                let total = width * lane_size;
                let mut loaded = 0;
                let mut chunk = 0;
                while loaded < total {
                    let ir_param = callee.params.get(cursor).ok_or_else(|| {
                        mismatch(format!("too few parameters for varying parameter {param_index}"))
                    })?;
                    check_lane_type(&ir_param.ty, &scalar_param.ty)
                        .map_err(|why| mismatch(format!("parameter {cursor}: {why}")))?;
                    let size = ir_param.ty.byte_size().unwrap_or(0);
                    writeln!(body, "  %a{param_index}.{chunk} = getelementptr i8, ptr %arg{param_index}, i64 {loaded}").unwrap();
                    writeln!(
                        body,
                        "  %x{param_index}.{chunk} = load {}, ptr %a{param_index}.{chunk}, align 1",
                        ir_param.ty
                    )
                    .unwrap();
                    call_arguments.push(format!(
                        "{} {}%x{param_index}.{chunk}",
                        ir_param.ty,
                        ir_param.abi_attributes()
                    ));
                    loaded += size;
                    chunk += 1;
                    cursor += 1;
                }
                if loaded != total {
                    return Err(mismatch(format!(
                        "varying parameter {param_index} takes {loaded} bytes of IR parameters, expected {total}"
                    )));
                }
            } else {
                let ir_param = callee.params.get(cursor).ok_or_else(|| {
                    mismatch(format!("no IR parameter for parameter {param_index}"))
                })?;
                if ir_param.ty != scalar_param.ty {
                    return Err(mismatch(format!(
                        "parameter {param_index} is {} but the scalar function's is {}",
                        ir_param.ty, scalar_param.ty
                    )));
                }
                writeln!(
                    body,
                    "  %x{param_index} = load {}, ptr %arg{param_index}, align 1",
                    ir_param.ty
                )
                .unwrap();
                call_arguments.push(format!(
                    "{} {}%x{param_index}",
                    ir_param.ty,
                    ir_param.abi_attributes()
                ));
                cursor += 1;
            }
        }
        if variant.masked {
            let cdt_bits = characteristic_bits(variant, scalar)?;
            let (arguments, used) =
                mask_arguments(callee, cursor, width, cdt_bits, variant.isa, &mut body)
                    .map_err(&mismatch)?;
            call_arguments.extend(arguments);
            cursor += used;
        }
        if cursor != callee.params.len() {
            return Err(mismatch(format!(
                "{} IR parameters, expected {cursor}",
                callee.params.len()
            )));
        }
        let call = format!("@{}({})", request.callee_symbol, call_arguments.join(", "));
        if scalar.return_type == IrType::Void {
            if callee.return_type != IrType::Void {
                return Err(mismatch(format!(
                    "returns {} but the scalar function returns void",
                    callee.return_type
                )));
            }
            writeln!(body, "  call void {call}").unwrap();
        } else if returns_in_memory {
            let lane_size = c_value_type(&scalar.return_type, &scalar.return_attributes)?.size;
            writeln!(body, "  %result.address = call ptr {call}").unwrap();
            writeln!(
                body,
                "  call void @llvm.memcpy.p0.p0.i64(ptr %ret, ptr %result.memory, i64 {}, i1 false)",
                width * lane_size
            )
            .unwrap();
            self.needs_memcpy_declaration = true;
        } else {
            let lane_size = c_value_type(&scalar.return_type, &scalar.return_attributes)?.size;
            let expected = width * lane_size;
            if callee.return_type.byte_size() != Some(expected) {
                return Err(mismatch(format!(
                    "returns {} but {width} lanes of {} take {expected} bytes",
                    callee.return_type, scalar.return_type
                )));
            }
            check_return_lanes(&callee.return_type, &scalar.return_type)
                .map_err(|why| mismatch(format!("return type: {why}")))?;
            writeln!(
                body,
                "  %result = call {}{} {call}",
                callee.return_abi_attributes(),
                callee.return_type
            )
            .unwrap();
            writeln!(body, "  store {} %result, ptr %ret, align 1", callee.return_type).unwrap();
        }
        let group = self.new_group(&format!("noinline nounwind {}", request.target_attributes));
        let mut params: Vec<String> =
            (0..variant.params.len()).map(|index| format!("ptr %arg{index}")).collect();
        if variant.masked {
            params.push("ptr %mask".to_owned());
        }
        params.push("ptr %ret".to_owned());
        writeln!(
            self.text,
            "\ndefine void @{}({}) #{group} {{\nentry:\n{body}  ret void\n}}",
            request.wrapper_symbol,
            params.join(", ")
        )
        .unwrap();
        Ok(())
    }
}

/// Bits of the characteristic data type (x86 vector function ABI, GCC's
/// rules): the return type if not void, else the type of the first varying
/// parameter, else `int`; pointers count as 64 bits, `bool` as 8.
fn characteristic_bits(variant: &VariantName, scalar: &ScalarSignature) -> Result<u32, String> {
    if scalar.return_type != IrType::Void {
        return Ok(c_value_type(&scalar.return_type, &scalar.return_attributes)?.size * 8);
    }
    for (spec, param) in variant.params.iter().zip(&scalar.params) {
        if spec.kind == ParamKind::Varying {
            return Ok(c_value_type(&param.ty, &param.attributes)?.size * 8);
        }
    }
    Ok(32)
}

/// Loads the mask (one byte per lane at `%mask`, nonzero = active) and
/// converts it to the mask parameters of `callee` starting at IR parameter
/// `first`: vectors of the characteristic type (`b`, `c`, `d`; all-ones
/// lanes for active, possibly split into register-sized chunks), or integer
/// bit masks (`e`: lane i in bit i, one integer per 512 bits of
/// characteristic-type lanes); below `e`, a vector of at most 32 bits
/// travels as an integer (`<4 x i8>` as `i32`, the psABI's INTEGER class).
/// Returns the call arguments and how many IR parameters they fill.
fn mask_arguments(
    callee: &IrFunction,
    first: usize,
    width: u32,
    cdt_bits: u32,
    isa: char,
    body: &mut String,
) -> Result<(Vec<String>, usize), String> {
    let mut arguments = Vec::new();
    let mut lane = 0u32;
    let mut cursor = first;
    while lane < width {
        let param = callee.params.get(cursor).ok_or_else(|| {
            format!("the mask parameters cover {lane} of {width} lanes, then the parameters end")
        })?;
        let chunk = cursor - first;
        let value = match &param.ty {
            IrType::Vector { lanes, element } => {
                let lanes = *lanes;
                if lane + lanes > width {
                    return Err(format!("the mask parameter {} has too many lanes", param.ty));
                }
                load_mask_bits(body, chunk, lane, lanes);
                match **element {
                    IrType::Int(1) => format!("%mask.bits.{chunk}"),
                    IrType::Int(bits) => {
                        writeln!(body, "  %mask.wide.{chunk} = sext <{lanes} x i1> %mask.bits.{chunk} to <{lanes} x i{bits}>").unwrap();
                        format!("%mask.wide.{chunk}")
                    }
                    IrType::Half | IrType::Float | IrType::Double => {
                        let bits = element.byte_size().unwrap() * 8;
                        writeln!(body, "  %mask.wide.{chunk} = sext <{lanes} x i1> %mask.bits.{chunk} to <{lanes} x i{bits}>").unwrap();
                        writeln!(body, "  %mask.cast.{chunk} = bitcast <{lanes} x i{bits}> %mask.wide.{chunk} to {}", param.ty).unwrap();
                        format!("%mask.cast.{chunk}")
                    }
                    ref other => return Err(format!("unsupported mask element type {other}")),
                }
            }
            IrType::Int(bits) if isa != 'e' => {
                // A short vector of characteristic-type lanes, all ones
                // where active.
                let bits = *bits;
                let lanes = bits / cdt_bits.max(1);
                if lanes == 0 || lane + lanes > width {
                    return Err(format!("the mask parameter i{bits} does not hold whole lanes"));
                }
                load_mask_bits(body, chunk, lane, lanes);
                writeln!(body, "  %mask.wide.{chunk} = sext <{lanes} x i1> %mask.bits.{chunk} to <{lanes} x i{cdt_bits}>").unwrap();
                writeln!(body, "  %mask.cast.{chunk} = bitcast <{lanes} x i{cdt_bits}> %mask.wide.{chunk} to i{bits}").unwrap();
                format!("%mask.cast.{chunk}")
            }
            IrType::Int(bits) => {
                let bits = *bits;
                let lanes = (512 / cdt_bits.max(1)).max(1).min(width - lane);
                if bits < lanes {
                    return Err(format!(
                        "the mask parameter is i{bits}, too narrow for {lanes} lanes"
                    ));
                }
                load_mask_bits(body, chunk, lane, lanes);
                writeln!(
                    body,
                    "  %mask.int.{chunk} = bitcast <{lanes} x i1> %mask.bits.{chunk} to i{lanes}"
                )
                .unwrap();
                if bits > lanes {
                    writeln!(
                        body,
                        "  %mask.zext.{chunk} = zext i{lanes} %mask.int.{chunk} to i{bits}"
                    )
                    .unwrap();
                    format!("%mask.zext.{chunk}")
                } else {
                    format!("%mask.int.{chunk}")
                }
            }
            other => {
                return Err(format!("the mask parameter is {other}, not a vector or an integer"))
            }
        };
        arguments.push(format!("{} {}{value}", param.ty, param.abi_attributes()));
        lane += match &param.ty {
            IrType::Vector { lanes, .. } => *lanes,
            IrType::Int(bits) if isa != 'e' => bits / cdt_bits.max(1),
            _ => (512 / cdt_bits.max(1)).max(1).min(width - lane),
        };
        cursor += 1;
    }
    Ok((arguments, cursor - first))
}

/// `%mask.bits.<chunk>`: `<lanes x i1>` of the mask bytes of lanes `first ..`.
fn load_mask_bits(body: &mut String, chunk: usize, first: u32, lanes: u32) {
    writeln!(body, "  %mask.ptr.{chunk} = getelementptr i8, ptr %mask, i64 {first}").unwrap();
    writeln!(body, "  %mask.bytes.{chunk} = load <{lanes} x i8>, ptr %mask.ptr.{chunk}, align 1")
        .unwrap();
    writeln!(
        body,
        "  %mask.bits.{chunk} = icmp ne <{lanes} x i8> %mask.bytes.{chunk}, zeroinitializer"
    )
    .unwrap();
}

/// The lanes of a vector (or of every vector in a struct/array) must have the scalar's type.
fn check_lane_type(ir_type: &IrType, scalar: &IrType) -> Result<(), String> {
    match ir_type {
        IrType::Vector { element, .. } if **element == *scalar => Ok(()),
        IrType::Vector { element, .. }
            if *scalar == IrType::Ptr && **element == IrType::Int(64) =>
        {
            Ok(())
        }
        // `_Bool` lanes: a byte each.
        IrType::Vector { element, .. }
            if *scalar == IrType::Int(1) && **element == IrType::Int(8) =>
        {
            Ok(())
        }
        // vectors of 2 to 8 bytes are classified INTEGER by the SysV ABI:
        // LLVM signatures carry them as one integer of the same size
        IrType::Int(bits)
            if matches!(scalar, IrType::Int(_) | IrType::Half)
                && scalar.byte_size().is_some_and(|lane| lane * 8 < *bits) =>
        {
            Ok(())
        }
        other => Err(format!("{other} is not a vector of {scalar}")),
    }
}

fn check_return_lanes(ir_type: &IrType, scalar: &IrType) -> Result<(), String> {
    match ir_type {
        IrType::Struct(fields) => {
            fields.iter().try_for_each(|field| check_lane_type(field, scalar))
        }
        IrType::Array { element, .. } => check_lane_type(element, scalar),
        other => check_lane_type(other, scalar),
    }
}

/// The callee attributes that decide its calling convention, as attribute-group text.
pub fn target_attributes_of(group_body: &str) -> String {
    let mut attributes = Vec::new();
    for key in ["target-cpu", "target-features", "min-legal-vector-width"] {
        let pattern = format!("\"{key}\"=\"");
        if let Some(start) = group_body.find(&pattern) {
            let value = &group_body[start + pattern.len()..];
            let value = &value[..value.find('"').unwrap_or(value.len())];
            attributes.push(format!("\"{key}\"=\"{value}\""));
        }
    }
    attributes.join(" ")
}

/// Removes every AVX-512 feature (and CPUs that imply them) from an attribute group.
pub fn strip_avx512(group_body: &str) -> String {
    let mut result = group_body.to_owned();
    let pattern = "\"target-features\"=\"";
    if let Some(start) = result.find(pattern) {
        let value_start = start + pattern.len();
        let value_end = value_start + result[value_start..].find('"').unwrap_or(0);
        let kept: Vec<&str> = result[value_start..value_end]
            .split(',')
            .filter(|feature| {
                !(feature.starts_with("+avx512")
                    || feature.starts_with("+evex512")
                    || feature.starts_with("+avx10")
                    || feature.starts_with("+amx"))
            })
            .collect();
        result.replace_range(value_start..value_end, &kept.join(","));
    }
    let cpu_pattern = "\"target-cpu\"=\"";
    if let Some(start) = result.find(cpu_pattern) {
        let value_start = start + cpu_pattern.len();
        let value_end = value_start + result[value_start..].find('"').unwrap_or(0);
        result.replace_range(value_start..value_end, "x86-64");
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_avx512_features_and_cpu() {
        let stripped = strip_avx512(
            "nounwind \"target-cpu\"=\"skylake-avx512\" \"target-features\"=\"+avx,+avx2,+avx512f,+evex512,+fma\" \"min-legal-vector-width\"=\"512\"",
        );
        assert_eq!(
            stripped,
            "nounwind \"target-cpu\"=\"x86-64\" \"target-features\"=\"+avx,+avx2,+fma\" \"min-legal-vector-width\"=\"512\""
        );
        assert_eq!(
            target_attributes_of(&stripped),
            "\"target-cpu\"=\"x86-64\" \"target-features\"=\"+avx,+avx2,+fma\" \"min-legal-vector-width\"=\"512\""
        );
    }
}
