//! Text form of the IR, used by `--dump-after`, diagnostics and tests.
//!
//! The syntax is LLVM's where LLVM has the instruction, with Cranelift-style
//! entity names (`v3`, `block2`) so that a dump names exactly the ids the
//! analyses print:
//!
//! ```text
//! function @saxpy(float v0, <8 x float> v1, ptr v2, <8 x i1> v3) -> <8 x float> {
//! block0: ; entry
//!   v4 = splat float v0 to <8 x float>
//!   v6 = masked_load <8 x float>, ptr v2, <8 x i1> v3, <8 x float> zeroinitializer, align 4
//!   v7 = fmul fast <8 x float> v4, v1
//!   v8 = fadd fast <8 x float> v7, v6 ; %result
//!   ret <8 x float> v8
//! }
//! ```
//!
//! (`v5` is the `zeroinitializer` constant, printed where it is used.)
//!
//! - Constants are printed inline where they are used: `42`, `-1`, `true`,
//!   `1.5` (floats in the shortest decimal that reads back to the same bits;
//!   infinities and NaNs in hex, `0x7FC00000`; halves as `0xH3C00`), `null`,
//!   `undef`, `poison`, `zeroinitializer`, `@symbol`, and aggregates as
//!   `<1, 2, 3>` (vectors), `[1, 2]` (arrays), `{ 1, 2 }` (structs).
//! - A block's input name, if any, follows its label as a comment, and an
//!   instruction result's input name follows the instruction (`; %sum`).
//! - Operations LLVM spells as intrinsic calls have their own mnemonics:
//!   `splat`, `masked_load`, `masked_store`, `gather`, `scatter`. A call's
//!   [`CallEffects`] prints as `memory(none)` (pure) or `memory(read)`.
//! - [`display_function_with_errors`] interleaves verifier errors with the
//!   text, Cranelift style: a `; error: ...` line after the offending
//!   instruction (or block label, or function header).
//!
//! The printer never panics, even on a function the verifier rejects (ids
//! past the end of their arena print as `<invalid inst7>` or with type
//! `<invalid>`): it is the tool for looking at broken IR.

use std::fmt::{self, Write};

use crate::dfg::{sign_extend, Constant, ValueDef};
use crate::entities::{Block, Inst, Value};
use crate::function::Function;
use crate::instructions::{
    ArithFlags, AtomicAttrs, AtomicOrdering, CallEffects, Callee, CastFlags, FastMathFlags,
    InstData, LandingPadClause, SyncScope, UnaryOp,
};
use crate::types::Type;
use crate::verifier::{VerifierError, VerifierErrors};

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_function(f, self, &[])
    }
}

/// The text of one instruction, without indentation or comment:
/// `v5 = fadd float v3, v4`. Used by diagnostics.
pub fn display_inst(func: &Function, inst: Inst) -> String {
    let mut text = String::new();
    // Writing into a `String` cannot fail.
    let _ = write_inst(&mut text, func, inst);
    text
}

/// The text of `func` with each of `errors` printed as a `; error: ...` line
/// after the instruction, block label or function header it names.
pub fn display_function_with_errors(func: &Function, errors: &VerifierErrors) -> String {
    let mut text = String::new();
    let _ = write_function(&mut text, func, &errors.0);
    text
}

/// Where an error is printed: after an instruction, a block label or the header.
#[derive(PartialEq)]
enum Anchor {
    Inst(Inst),
    Block(Block),
    Function,
}

fn write_function(out: &mut dyn Write, func: &Function, errors: &[VerifierError]) -> fmt::Result {
    // Errors about entities that are not printed go to the nearest printed
    // enclosing place (ultimately the header).
    let printed_blocks = func.layout.blocks();
    let anchors: Vec<Anchor> = errors
        .iter()
        .map(|error| match (error.inst, error.block) {
            (Some(inst), _) if is_printed_inst(func, inst) => Anchor::Inst(inst),
            (_, Some(block)) if printed_blocks.contains(&block) => Anchor::Block(block),
            _ => Anchor::Function,
        })
        .collect();
    let write_errors_at = |out: &mut dyn Write, anchor: Anchor| -> fmt::Result {
        for (error, error_anchor) in errors.iter().zip(&anchors) {
            if *error_anchor == anchor {
                writeln!(out, "; error: {}", error.message)?;
            }
        }
        Ok(())
    };

    write!(out, "function @{}(", func.name)?;
    for (index, param) in func.params.iter().enumerate() {
        if index > 0 {
            write!(out, ", ")?;
        }
        write!(out, "{} {}", param.ty, param.value)?;
    }
    write!(out, ") -> {}", func.ret_ty)?;
    if let Some(personality) = &func.personality {
        write!(out, " personality @{personality}")?;
    }
    writeln!(out, " {{")?;
    write_errors_at(out, Anchor::Function)?;

    for (position, &block) in printed_blocks.iter().enumerate() {
        if position > 0 {
            writeln!(out)?;
        }
        write!(out, "{block}:")?;
        if let Some(Some(name)) = func.dfg.blocks.get(block).map(|data| &data.name) {
            write!(out, " ; {name}")?;
        }
        writeln!(out)?;
        write_errors_at(out, Anchor::Block(block))?;
        for &inst in func.layout.block_insts(block) {
            write!(out, "  ")?;
            write_inst(out, func, inst)?;
            let result = func.dfg.results[inst];
            if let Some(Some(name)) = result.map(|value| &func.dfg.value_names[value]) {
                write!(out, " ; %{name}")?;
            }
            if let Some(hints) = func.loop_hints.get(&inst) {
                write!(out, " ; {hints}")?;
            }
            writeln!(out)?;
            write_errors_at(out, Anchor::Inst(inst))?;
        }
    }
    writeln!(out, "}}")
}

fn is_printed_inst(func: &Function, inst: Inst) -> bool {
    func.layout.inst_block(inst).is_some_and(|block| func.layout.blocks().contains(&block))
}

/// Writes the text of `inst` (result and instruction, no indentation).
fn write_inst(out: &mut dyn Write, func: &Function, inst: Inst) -> fmt::Result {
    let Some(data) = func.dfg.insts.get(inst) else {
        return write!(out, "<invalid {inst}>");
    };
    if let Some(result) = func.dfg.results[inst] {
        write!(out, "{result} = ")?;
    }
    let printer = ValuePrinter { func };
    let typed = |value: Value| printer.typed(value);
    let plain = |value: Value| printer.value(value);
    let align = |align: u32| if align > 0 { format!(", align {align}") } else { String::new() };
    match data {
        InstData::Binary { op, lhs, rhs, flags } => {
            write!(out, "{}{} {}, {}", op.name(), arith_flags(flags), typed(*lhs), plain(*rhs))
        }
        InstData::Unary { op: UnaryOp::FNeg, arg, flags } => {
            write!(out, "fneg{} {}", arith_flags(flags), typed(*arg))
        }
        InstData::Icmp { pred, lhs, rhs } => {
            write!(out, "icmp {} {}, {}", pred.name(), typed(*lhs), plain(*rhs))
        }
        InstData::Fcmp { pred, lhs, rhs, flags } => write!(
            out,
            "fcmp{} {} {}, {}",
            fast_math_flags(flags),
            pred.name(),
            typed(*lhs),
            plain(*rhs)
        ),
        InstData::Select { cond, if_true, if_false, flags } => write!(
            out,
            "select{} {}, {}, {}",
            fast_math_flags(flags),
            typed(*cond),
            typed(*if_true),
            typed(*if_false)
        ),
        InstData::Cast { op, arg, to, flags } => {
            write!(out, "{}{} {} to {to}", op.name(), cast_flags(flags), typed(*arg))
        }
        InstData::Phi { ty, incoming } => {
            write!(out, "phi {ty}")?;
            for (index, (block, value)) in incoming.iter().enumerate() {
                let separator = if index > 0 { "," } else { "" };
                write!(out, "{separator} [ {}, {block} ]", plain(*value))?;
            }
            Ok(())
        }
        InstData::Load { ty, addr, align: alignment, volatile } => write!(
            out,
            "load{} {ty}, {}{}",
            if *volatile { " volatile" } else { "" },
            typed(*addr),
            align(*alignment)
        ),
        InstData::Store { value, addr, align: alignment, volatile } => write!(
            out,
            "store{} {}, {}{}",
            if *volatile { " volatile" } else { "" },
            typed(*value),
            typed(*addr),
            align(*alignment)
        ),
        InstData::Gep { source_ty, base, indices, inbounds } => {
            let inbounds = if *inbounds { " inbounds" } else { "" };
            write!(out, "getelementptr{inbounds} {source_ty}, {}", typed(*base))?;
            for index in indices {
                write!(out, ", {}", typed(*index))?;
            }
            Ok(())
        }
        InstData::Alloca { ty, count, align: alignment } => {
            write!(out, "alloca {ty}, {}{}", typed(*count), align(*alignment))
        }
        InstData::ExtractValue { aggregate, indices } => {
            write!(out, "extractvalue {}{}", typed(*aggregate), index_list(indices))
        }
        InstData::InsertValue { aggregate, value, indices } => write!(
            out,
            "insertvalue {}, {}{}",
            typed(*aggregate),
            typed(*value),
            index_list(indices)
        ),
        InstData::ExtractElement { vector, index } => {
            write!(out, "extractelement {}, {}", typed(*vector), typed(*index))
        }
        InstData::InsertElement { vector, value, index } => {
            write!(out, "insertelement {}, {}, {}", typed(*vector), typed(*value), typed(*index))
        }
        InstData::Shuffle { lhs, rhs, mask } => {
            let mask_text: Vec<String> = mask
                .iter()
                .map(|&lane| if lane < 0 { "poison".to_owned() } else { lane.to_string() })
                .collect();
            write!(
                out,
                "shufflevector {}, {}, <{}>",
                typed(*lhs),
                typed(*rhs),
                mask_text.join(", ")
            )
        }
        InstData::Freeze { arg } => write!(out, "freeze {}", typed(*arg)),
        InstData::Call { callee, args, ret_ty, effects, flags } => {
            write!(
                out,
                "call{} {}",
                fast_math_flags(flags),
                call_text(&printer, callee, args, ret_ty, *effects)
            )
        }
        InstData::Invoke { callee, args, ret_ty, effects, normal_dest, unwind_dest } => write!(
            out,
            "invoke {} to {normal_dest} unwind {unwind_dest}",
            call_text(&printer, callee, args, ret_ty, *effects)
        ),
        InstData::LandingPad { ty, cleanup, clauses } => {
            write!(out, "landingpad {ty}")?;
            if *cleanup {
                write!(out, " cleanup")?;
            }
            for clause in clauses {
                match clause {
                    LandingPadClause::Catch(value) => write!(out, " catch {}", typed(*value))?,
                    LandingPadClause::Filter(value) => write!(out, " filter {}", typed(*value))?,
                }
            }
            Ok(())
        }
        InstData::Resume { value } => write!(out, "resume {}", typed(*value)),
        InstData::Splat { scalar, lanes } => {
            let scalar_ty = printer.type_text(*scalar);
            write!(out, "splat {} to <{lanes} x {scalar_ty}>", typed(*scalar))
        }
        InstData::MaskedLoad { ty, addr, mask, passthru, align: alignment } => write!(
            out,
            "masked_load {ty}, {}, {}, {}{}",
            typed(*addr),
            typed(*mask),
            typed(*passthru),
            align(*alignment)
        ),
        InstData::SpeculativeLoad { ty, addr } => {
            write!(out, "speculative_load {ty}, {}", typed(*addr))
        }
        InstData::MaskedStore { value, addr, mask, align: alignment } => write!(
            out,
            "masked_store {}, {}, {}{}",
            typed(*value),
            typed(*addr),
            typed(*mask),
            align(*alignment)
        ),
        InstData::Gather { ty, addrs, mask, passthru, align: alignment } => write!(
            out,
            "gather {ty}, {}, {}, {}{}",
            typed(*addrs),
            typed(*mask),
            typed(*passthru),
            align(*alignment)
        ),
        InstData::Scatter { value, addrs, mask, align: alignment } => write!(
            out,
            "scatter {}, {}, {}{}",
            typed(*value),
            typed(*addrs),
            typed(*mask),
            align(*alignment)
        ),
        InstData::AtomicRmw { op, addr, value, attrs } => write!(
            out,
            "atomicrmw{} {} {}, {}{}",
            if attrs.volatile { " volatile" } else { "" },
            op.name(),
            typed(*addr),
            typed(*value),
            atomic_suffix(attrs, None)
        ),
        InstData::CmpXchg { addr, expected, new, attrs, failure_ordering, weak } => write!(
            out,
            "cmpxchg{}{} {}, {}, {}{}",
            if *weak { " weak" } else { "" },
            if attrs.volatile { " volatile" } else { "" },
            typed(*addr),
            typed(*expected),
            typed(*new),
            atomic_suffix(attrs, Some(*failure_ordering))
        ),
        InstData::Jump { dest } => write!(out, "br {dest}"),
        InstData::Branch { cond, then_dest, else_dest } => {
            write!(out, "br {}, {then_dest}, {else_dest}", typed(*cond))
        }
        InstData::Switch { value, default, cases } => {
            let bits = func.dfg.values.get(*value).and_then(|data| data.ty.int_bits());
            write!(out, "switch {}, {default} [", typed(*value))?;
            for (index, (case, block)) in cases.iter().enumerate() {
                let separator = if index > 0 { "," } else { "" };
                let case_text = match bits {
                    Some(bits) => sign_extend(*case, bits).to_string(),
                    None => case.to_string(),
                };
                write!(out, "{separator} {case_text}: {block}")?;
            }
            write!(out, " ]")
        }
        InstData::Return { value: Some(value) } => write!(out, "ret {}", typed(*value)),
        InstData::Return { value: None } => write!(out, "ret void"),
        InstData::Unreachable => write!(out, "unreachable"),
    }
}

/// `ret_ty callee(args)` and the effects of a call or invoke.
fn call_text(
    printer: &ValuePrinter<'_>,
    callee: &Callee,
    args: &[Value],
    ret_ty: &Type,
    effects: CallEffects,
) -> String {
    let callee_text = match callee {
        Callee::Direct(name) => format!("@{name}"),
        Callee::Indirect(pointer) => printer.value(*pointer),
        Callee::InlineAsm(asm) => {
            format!("asm {:?}, {:?}", asm.asm, asm.constraints)
        }
    };
    let args_text: Vec<String> = args.iter().map(|arg| printer.typed(*arg)).collect();
    let effects_text = match effects {
        CallEffects::Pure => " memory(none)",
        CallEffects::ReadOnly => " memory(read)",
        CallEffects::SideEffects => "",
    };
    format!("{ret_ty} {callee_text}({}){effects_text}", args_text.join(", "))
}

/// Formats operands: constants inline, other values by id.
struct ValuePrinter<'f> {
    func: &'f Function,
}

/// Aggregate constants deeper than this print as `...` (a guard against
/// cyclic garbage, which a real constant never is).
const MAX_CONSTANT_DEPTH: u32 = 16;

impl ValuePrinter<'_> {
    /// `float v3`, `i32 42`.
    fn typed(&self, value: Value) -> String {
        format!("{} {}", self.type_text(value), self.value(value))
    }

    fn type_text(&self, value: Value) -> String {
        match self.func.dfg.values.get(value) {
            Some(data) => data.ty.to_string(),
            None => "<invalid>".to_owned(),
        }
    }

    fn value(&self, value: Value) -> String {
        self.value_at_depth(value, 0)
    }

    fn value_at_depth(&self, value: Value, depth: u32) -> String {
        match self.func.dfg.values.get(value) {
            Some(data) => match &data.def {
                ValueDef::Const(constant) => self.constant(constant, &data.ty, depth),
                ValueDef::Param(_) | ValueDef::Result(_) => value.to_string(),
            },
            None => value.to_string(),
        }
    }

    fn constant(&self, constant: &Constant, ty: &Type, depth: u32) -> String {
        match constant {
            Constant::Int(raw) => match ty.int_bits() {
                Some(1) => if *raw & 1 == 1 { "true" } else { "false" }.to_owned(),
                Some(bits) => sign_extend(*raw, bits).to_string(),
                None => raw.to_string(),
            },
            Constant::Float(bits) => float_text(*bits, ty.scalar_type()),
            Constant::Null => "null".to_owned(),
            Constant::Undef => "undef".to_owned(),
            Constant::Poison => "poison".to_owned(),
            Constant::Zero => "zeroinitializer".to_owned(),
            Constant::Symbol(name) => format!("@{name}"),
            Constant::Aggregate(elements) => {
                if depth >= MAX_CONSTANT_DEPTH {
                    return "...".to_owned();
                }
                let elements: Vec<String> = elements
                    .iter()
                    .map(|element| self.value_at_depth(*element, depth + 1))
                    .collect();
                let elements = elements.join(", ");
                match ty {
                    Type::Vector { .. } => format!("<{elements}>"),
                    Type::Array { .. } => format!("[{elements}]"),
                    Type::Struct { packed: true, .. } => format!("<{{ {elements} }}>"),
                    _ => format!("{{ {elements} }}"),
                }
            }
        }
    }
}

/// A float constant: the shortest decimal that reads back to the same value
/// when that is finite, else the bit pattern in hex (as LLVM does).
fn float_text(bits: u64, ty: &Type) -> String {
    match ty {
        Type::F32 => {
            let value = f32::from_bits(bits as u32);
            if value.is_finite() {
                format!("{value:?}")
            } else {
                format!("0x{:08X}", bits as u32)
            }
        }
        Type::F64 => {
            let value = f64::from_bits(bits);
            if value.is_finite() {
                format!("{value:?}")
            } else {
                format!("0x{bits:016X}")
            }
        }
        Type::F16 => format!("0xH{:04X}", bits as u16),
        _ => format!("0x{bits:X}"),
    }
}

/// `, 0, 1` for extractvalue/insertvalue.
fn index_list(indices: &[u32]) -> String {
    indices.iter().map(|index| format!(", {index}")).collect()
}

/// Integer flags then fast-math flags, each preceded by a space.
fn arith_flags(flags: &ArithFlags) -> String {
    let mut text = String::new();
    for (set, name) in [
        (flags.nuw, "nuw"),
        (flags.nsw, "nsw"),
        (flags.exact, "exact"),
        (flags.disjoint, "disjoint"),
    ] {
        if set {
            text.push(' ');
            text.push_str(name);
        }
    }
    text.push_str(&fast_math_flags(&flags.fast_math));
    text
}

/// Fast-math flags in LLVM's order, or ` fast` when all are set.
fn fast_math_flags(flags: &FastMathFlags) -> String {
    let all = [
        (flags.reassoc, "reassoc"),
        (flags.nnan, "nnan"),
        (flags.ninf, "ninf"),
        (flags.nsz, "nsz"),
        (flags.arcp, "arcp"),
        (flags.contract, "contract"),
        (flags.afn, "afn"),
    ];
    if all.iter().all(|(set, _)| *set) {
        return " fast".to_owned();
    }
    all.iter().filter(|(set, _)| *set).map(|(_, name)| format!(" {name}")).collect()
}

fn cast_flags(flags: &CastFlags) -> String {
    [(flags.nuw, " nuw"), (flags.nsw, " nsw"), (flags.nneg, " nneg")]
        .iter()
        .filter(|(set, _)| *set)
        .map(|(_, name)| *name)
        .collect()
}

/// ` [syncscope("singlethread")] <ordering> [<failure ordering>], align N`,
/// as LLVM prints the tail of an atomic instruction.
fn atomic_suffix(attrs: &AtomicAttrs, failure: Option<AtomicOrdering>) -> String {
    let scope = match attrs.scope {
        SyncScope::System => "",
        SyncScope::SingleThread => " syncscope(\"singlethread\")",
    };
    let failure = failure.map(|ordering| format!(" {}", ordering.name())).unwrap_or_default();
    let align = if attrs.align > 0 { format!(", align {}", attrs.align) } else { String::new() };
    format!("{scope} {}{failure}{align}", attrs.ordering.name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::FunctionBuilder;
    use crate::instructions::*;
    use crate::test_functions::{counting_loop, diamond, invoke_with_landing_pad};
    use cranelift_entity::EntityRef;

    #[test]
    fn diamond_prints_exactly() {
        let mut func = diamond();
        let merged = func.dfg.result(func.layout.block_insts(Block::new(3))[0]).unwrap();
        func.dfg.value_names[merged] = Some("result".to_owned());
        let expected = "\
function @diamond(i32 v0) -> i32 {
block0: ; entry
  v2 = icmp slt i32 v0, 0
  br i1 v2, block1, block2

block1:
  v4 = sub i32 0, v0
  br block3

block2:
  v6 = add i32 v0, 1
  br block3

block3: ; join
  v7 = phi i32 [ v4, block1 ], [ v6, block2 ] ; %result
  ret i32 v7
}
";
        assert_eq!(func.to_string(), expected);
    }

    #[test]
    fn module_doc_example_is_accurate() {
        let f32x8 = Type::F32.vector_of(8);
        let params = vec![Type::F32, f32x8.clone(), Type::PTR, Type::BOOL.vector_of(8)];
        let mut func = Function::new("saxpy", params, f32x8.clone());
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        b.switch_to_block(entry);
        let values: Vec<Value> = b.func.params.iter().map(|param| param.value).collect();
        let factor = b.splat(values[0], 8);
        let zero = b.func.dfg.make_const(f32x8.clone(), Constant::Zero);
        let load = InstData::MaskedLoad {
            ty: f32x8.clone(),
            addr: values[2],
            mask: values[3],
            passthru: zero,
            align: 4,
        };
        let loaded = b.ins_value(load, f32x8.clone());
        let fast = FastMathFlags {
            nnan: true,
            ninf: true,
            nsz: true,
            arcp: true,
            contract: true,
            afn: true,
            reassoc: true,
        };
        let flags = ArithFlags { fast_math: fast, ..ArithFlags::default() };
        let product = b.ins_value(
            InstData::Binary { op: BinaryOp::FMul, lhs: factor, rhs: values[1], flags },
            f32x8.clone(),
        );
        let sum = b.ins_value(
            InstData::Binary { op: BinaryOp::FAdd, lhs: product, rhs: loaded, flags },
            f32x8,
        );
        b.func.dfg.value_names[sum] = Some("result".to_owned());
        b.ret(Some(sum));
        let expected = "\
function @saxpy(float v0, <8 x float> v1, ptr v2, <8 x i1> v3) -> <8 x float> {
block0: ; entry
  v4 = splat float v0 to <8 x float>
  v6 = masked_load <8 x float>, ptr v2, <8 x i1> v3, <8 x float> zeroinitializer, align 4
  v7 = fmul fast <8 x float> v4, v1
  v8 = fadd fast <8 x float> v7, v6 ; %result
  ret <8 x float> v8
}
";
        assert_eq!(func.to_string(), expected);
        crate::verify_function(&func).unwrap();
    }

    #[test]
    fn loop_prints_exactly() {
        let expected = "\
function @counting_loop(i32 v0) -> i32 {
block0:
  br block1

block1: ; header
  v2 = phi i32 [ 0, block0 ], [ v5, block2 ]
  v3 = icmp slt i32 v2, v0
  br i1 v3, block2, block3

block2:
  v5 = add i32 v2, 1
  br block1

block3:
  ret i32 v2
}
";
        assert_eq!(counting_loop().to_string(), expected);
    }

    #[test]
    fn exception_handling_prints_exactly() {
        let expected = "\
function @guarded(ptr v0) -> i32 personality @__gxx_personality_v0 {
block0: ; entry
  v1 = invoke i32 @may_throw(ptr v0) to block1 unwind block2

block1: ; ok
  ret i32 v1

block2: ; lpad
  v3 = landingpad { ptr, i32 } cleanup catch ptr @_ZTIi
  call void @release(ptr v0)
  resume { ptr, i32 } v3
}
";
        assert_eq!(invoke_with_landing_pad().to_string(), expected);
    }

    /// Appends `data` to the only block of `func` and returns its text.
    fn text_of(func: &mut Function, data: InstData, result_ty: Type) -> String {
        let block = func.layout.blocks()[0];
        let inst = func.append(block, data, result_ty);
        display_inst(func, inst)
    }

    fn vector_function() -> Function {
        let f32x8 = Type::F32.vector_of(8);
        let params = vec![
            Type::F32,
            Type::PTR,
            f32x8.clone(),
            Type::BOOL.vector_of(8),
            Type::PTR.vector_of(8),
        ];
        let mut func = Function::new("kernel", params, f32x8);
        let block = func.dfg.make_block(None);
        func.layout.append_block(block);
        func
    }

    #[test]
    fn vector_instructions() {
        let mut func = vector_function();
        let f32x8 = Type::F32.vector_of(8);
        let (scalar, pointer, vector, mask, pointers) = (
            func.param_value(0),
            func.param_value(1),
            func.param_value(2),
            func.param_value(3),
            func.param_value(4),
        );
        let zero = func.dfg.make_const(f32x8.clone(), Constant::Zero);
        assert_eq!(
            text_of(&mut func, InstData::Splat { scalar, lanes: 8 }, f32x8.clone()),
            "v6 = splat float v0 to <8 x float>"
        );
        let masked_load = InstData::MaskedLoad {
            ty: f32x8.clone(),
            addr: pointer,
            mask,
            passthru: zero,
            align: 4,
        };
        assert_eq!(
            text_of(&mut func, masked_load, f32x8.clone()),
            "v7 = masked_load <8 x float>, ptr v1, <8 x i1> v3, <8 x float> zeroinitializer, align 4"
        );
        let masked_store = InstData::MaskedStore { value: vector, addr: pointer, mask, align: 32 };
        assert_eq!(
            text_of(&mut func, masked_store, Type::Void),
            "masked_store <8 x float> v2, ptr v1, <8 x i1> v3, align 32"
        );
        let gather = InstData::Gather {
            ty: f32x8.clone(),
            addrs: pointers,
            mask,
            passthru: vector,
            align: 4,
        };
        assert_eq!(
            text_of(&mut func, gather, f32x8.clone()),
            "v8 = gather <8 x float>, <8 x ptr> v4, <8 x i1> v3, <8 x float> v2, align 4"
        );
        let scatter = InstData::Scatter { value: vector, addrs: pointers, mask, align: 0 };
        assert_eq!(
            text_of(&mut func, scatter, Type::Void),
            "scatter <8 x float> v2, <8 x ptr> v4, <8 x i1> v3"
        );
        let fast = FastMathFlags {
            nnan: true,
            ninf: true,
            nsz: true,
            arcp: true,
            contract: true,
            afn: true,
            reassoc: true,
        };
        let flags = ArithFlags { fast_math: fast, ..ArithFlags::default() };
        let fadd = InstData::Binary { op: BinaryOp::FAdd, lhs: vector, rhs: vector, flags };
        assert_eq!(text_of(&mut func, fadd, f32x8.clone()), "v9 = fadd fast <8 x float> v2, v2");
        let call = InstData::Call {
            callee: Callee::Direct("_ZGVdN8v_sinf".to_owned()),
            args: vec![vector],
            ret_ty: f32x8.clone(),
            effects: CallEffects::Pure,
            flags: FastMathFlags { nnan: true, afn: true, ..FastMathFlags::default() },
        };
        assert_eq!(
            text_of(&mut func, call, f32x8.clone()),
            "v10 = call nnan afn <8 x float> @_ZGVdN8v_sinf(<8 x float> v2) memory(none)"
        );
        let indirect = InstData::Call {
            callee: Callee::Indirect(pointer),
            args: vec![],
            ret_ty: Type::Void,
            effects: CallEffects::SideEffects,
            flags: FastMathFlags::default(),
        };
        assert_eq!(text_of(&mut func, indirect, Type::Void), "call void v1()");
        let shuffle = InstData::Shuffle { lhs: vector, rhs: vector, mask: vec![0, -1, 9] };
        assert_eq!(
            text_of(&mut func, shuffle, Type::F32.vector_of(3)),
            "v11 = shufflevector <8 x float> v2, <8 x float> v2, <0, poison, 9>"
        );
        let lane = func.dfg.int_const(Type::I32, 3);
        let extract = InstData::ExtractElement { vector, index: lane };
        assert_eq!(
            text_of(&mut func, extract, Type::F32),
            "v13 = extractelement <8 x float> v2, i32 3"
        );
        let insert = InstData::InsertElement { vector, value: scalar, index: lane };
        assert_eq!(
            text_of(&mut func, insert, f32x8.clone()),
            "v14 = insertelement <8 x float> v2, float v0, i32 3"
        );
        let select = InstData::Select {
            cond: mask,
            if_true: vector,
            if_false: zero,
            flags: FastMathFlags::default(),
        };
        assert_eq!(
            text_of(&mut func, select, f32x8),
            "v15 = select <8 x i1> v3, <8 x float> v2, <8 x float> zeroinitializer"
        );
    }

    #[test]
    fn atomics_print_as_llvm_does() {
        let mut func = vector_function();
        let (scalar, pointer) = (func.param_value(0), func.param_value(1));
        let attrs = AtomicAttrs {
            ordering: AtomicOrdering::AcqRel,
            scope: SyncScope::SingleThread,
            align: 4,
            volatile: true,
        };
        let rmw =
            InstData::AtomicRmw { op: AtomicRmwOp::FAdd, addr: pointer, value: scalar, attrs };
        assert_eq!(
            text_of(&mut func, rmw, Type::F32),
            "v5 = atomicrmw volatile fadd ptr v1, float v0 syncscope(\"singlethread\") acq_rel, align 4"
        );
        let expected = func.dfg.int_const(Type::I32, 3);
        let attrs = AtomicAttrs { scope: SyncScope::System, volatile: false, ..attrs };
        let cmpxchg = InstData::CmpXchg {
            addr: pointer,
            expected,
            new: expected,
            attrs: AtomicAttrs { ordering: AtomicOrdering::SeqCst, ..attrs },
            failure_ordering: AtomicOrdering::Acquire,
            weak: true,
        };
        let pair = Type::Struct { fields: vec![Type::I32, Type::BOOL], packed: false };
        assert_eq!(
            text_of(&mut func, cmpxchg, pair),
            "v7 = cmpxchg weak ptr v1, i32 3, i32 3 seq_cst acquire, align 4"
        );
    }

    #[test]
    fn scalar_instructions_and_flags() {
        let mut func = vector_function();
        let (scalar, pointer) = (func.param_value(0), func.param_value(1));
        let index = func.dfg.int_const(Type::I64, u128::MAX); // -1
        let gep = InstData::Gep {
            source_ty: Type::Struct { fields: vec![Type::I32, Type::F32], packed: false },
            base: pointer,
            indices: vec![index, index],
            inbounds: true,
        };
        assert_eq!(
            text_of(&mut func, gep, Type::PTR),
            "v6 = getelementptr inbounds { i32, float }, ptr v1, i64 -1, i64 -1"
        );
        let load = InstData::Load { ty: Type::F32, addr: pointer, align: 4, volatile: true };
        assert_eq!(
            text_of(&mut func, load, Type::F32),
            "v7 = load volatile float, ptr v1, align 4"
        );
        let store = InstData::Store { value: scalar, addr: pointer, align: 4, volatile: false };
        assert_eq!(text_of(&mut func, store, Type::Void), "store float v0, ptr v1, align 4");
        let to_int = InstData::Cast {
            op: CastOp::FPToSI,
            arg: scalar,
            to: Type::I32,
            flags: CastFlags::default(),
        };
        let as_int = {
            let block = func.layout.blocks()[0];
            let inst = func.append(block, to_int, Type::I32);
            assert_eq!(display_inst(&func, inst), "v8 = fptosi float v0 to i32");
            func.dfg.result(inst).unwrap()
        };
        let widen = InstData::Cast {
            op: CastOp::ZExt,
            arg: as_int,
            to: Type::I64,
            flags: CastFlags { nneg: true, ..CastFlags::default() },
        };
        assert_eq!(text_of(&mut func, widen, Type::I64), "v9 = zext nneg i32 v8 to i64");
        let add = InstData::Binary {
            op: BinaryOp::Add,
            lhs: as_int,
            rhs: as_int,
            flags: ArithFlags { nuw: true, nsw: true, ..ArithFlags::default() },
        };
        assert_eq!(text_of(&mut func, add, Type::I32), "v10 = add nuw nsw i32 v8, v8");
        let one = func.dfg.int_const(Type::I32, 1);
        let alloca = InstData::Alloca { ty: Type::F64, count: one, align: 8 };
        assert_eq!(text_of(&mut func, alloca, Type::PTR), "v12 = alloca double, i32 1, align 8");
        let pair = Type::Struct { fields: vec![Type::I32, Type::F32], packed: false };
        let undef_pair = func.dfg.make_const(pair.clone(), Constant::Undef);
        let insert =
            InstData::InsertValue { aggregate: undef_pair, value: scalar, indices: vec![1] };
        assert_eq!(
            text_of(&mut func, insert, pair),
            "v14 = insertvalue { i32, float } undef, float v0, 1"
        );
        let negate =
            InstData::Unary { op: UnaryOp::FNeg, arg: scalar, flags: ArithFlags::default() };
        assert_eq!(text_of(&mut func, negate, Type::F32), "v15 = fneg float v0");
        let compare = InstData::Fcmp {
            pred: FloatPredicate::Olt,
            lhs: scalar,
            rhs: scalar,
            flags: FastMathFlags { nnan: true, ..FastMathFlags::default() },
        };
        assert_eq!(text_of(&mut func, compare, Type::BOOL), "v16 = fcmp nnan olt float v0, v0");
        let freeze = InstData::Freeze { arg: scalar };
        assert_eq!(text_of(&mut func, freeze, Type::F32), "v17 = freeze float v0");
        let byte = func.dfg.int_const(Type::I8, 0xff);
        let switch = InstData::Switch {
            value: byte,
            default: Block::new(0),
            cases: vec![(0xff, Block::new(1)), (2, Block::new(2))],
        };
        assert_eq!(
            text_of(&mut func, switch, Type::Void),
            "switch i8 -1, block0 [ -1: block1, 2: block2 ]"
        );
        assert_eq!(text_of(&mut func, InstData::Unreachable, Type::Void), "unreachable");
        assert_eq!(text_of(&mut func, InstData::Return { value: None }, Type::Void), "ret void");
    }

    #[test]
    fn constants_print_inline() {
        let mut func = vector_function();
        let dfg = &mut func.dfg;
        let cases = vec![
            (dfg.int_const(Type::I32, 42), "42"),
            (dfg.int_const(Type::I32, (-7i128) as u128), "-7"),
            (dfg.int_const(Type::BOOL, 1), "true"),
            (dfg.int_const(Type::BOOL, 0), "false"),
            (dfg.make_const(Type::F32, Constant::Float(u64::from(1.5f32.to_bits()))), "1.5"),
            (dfg.make_const(Type::F32, Constant::Float(u64::from(0.1f32.to_bits()))), "0.1"),
            (dfg.make_const(Type::F64, Constant::Float(1e300f64.to_bits())), "1e300"),
            (
                dfg.make_const(Type::F32, Constant::Float(u64::from(f32::INFINITY.to_bits()))),
                "0x7F800000",
            ),
            (dfg.make_const(Type::F64, Constant::Float(f64::NAN.to_bits())), "0x7FF8000000000000"),
            (dfg.make_const(Type::F16, Constant::Float(0x3c00)), "0xH3C00"),
            (dfg.make_const(Type::PTR, Constant::Null), "null"),
            (dfg.make_const(Type::I32, Constant::Undef), "undef"),
            (dfg.make_const(Type::I32, Constant::Poison), "poison"),
            (dfg.make_const(Type::I32, Constant::Zero), "zeroinitializer"),
            (dfg.make_const(Type::PTR, Constant::Symbol("table".to_owned())), "@table"),
        ];
        let elements: Vec<Value> = (1..=3).map(|n| dfg.int_const(Type::I32, n)).collect();
        let vector = dfg.make_const(Type::I32.vector_of(3), Constant::Aggregate(elements.clone()));
        let array = dfg.make_const(
            Type::Array { elem: Box::new(Type::I32), len: 3 },
            Constant::Aggregate(elements.clone()),
        );
        let nested = dfg.make_const(
            Type::Struct { fields: vec![Type::I32, Type::I32.vector_of(3)], packed: false },
            Constant::Aggregate(vec![elements[0], vector]),
        );
        let printer = ValuePrinter { func: &func };
        for (value, text) in cases {
            assert_eq!(printer.value(value), text);
        }
        assert_eq!(printer.value(vector), "<1, 2, 3>");
        assert_eq!(printer.value(array), "[1, 2, 3]");
        assert_eq!(printer.value(nested), "{ 1, <1, 2, 3> }");
    }

    #[test]
    fn errors_are_printed_next_to_what_they_name() {
        let func = diamond();
        let branch = func.layout.block_insts(Block::new(0))[1];
        let error = |message: &str, block: Option<usize>, inst: Option<Inst>| VerifierError {
            location: String::new(),
            message: message.to_owned(),
            block: block.map(Block::new),
            inst,
        };
        let errors = VerifierErrors(vec![
            error("about the function", None, None),
            error("about block2", Some(2), None),
            error("about the branch", Some(0), Some(branch)),
            error("about a detached instruction", Some(1), Some(Inst::new(99))),
        ]);
        let expected = "\
function @diamond(i32 v0) -> i32 {
; error: about the function
block0: ; entry
  v2 = icmp slt i32 v0, 0
  br i1 v2, block1, block2
; error: about the branch

block1:
; error: about a detached instruction
  v4 = sub i32 0, v0
  br block3

block2:
; error: about block2
  v6 = add i32 v0, 1
  br block3

block3: ; join
  v7 = phi i32 [ v4, block1 ], [ v6, block2 ]
  ret i32 v7
}
";
        assert_eq!(display_function_with_errors(&func, &errors), expected);
    }

    #[test]
    fn garbage_prints_without_panicking() {
        let mut func = Function::new("garbage", vec![], Type::Void);
        let mut b = FunctionBuilder::new(&mut func);
        let block = b.create_block(None);
        b.switch_to_block(block);
        b.ins(InstData::Return { value: Some(Value::new(77)) }, Type::Void);
        b.func.layout.append_inst(Inst::new(55), block);
        let text = func.to_string();
        assert!(text.contains("  ret <invalid> v77\n"), "{text}");
        assert!(text.contains("  <invalid inst55>\n"), "{text}");
    }
}
