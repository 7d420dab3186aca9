//! Tests of the bridge on hand-written LLVM IR: parsing errors, what lifting
//! produces for each kind of instruction and constant, what is rejected, and
//! how lowering builds vector functions (masked intrinsics, attributes).

use lanewise_ir::{
    BinaryOp, Block, CallEffects, Callee, CastOp, Constant, Function, InstData, Type, Value,
    ValueDef,
};
use lanewise_llvm::{with_module_from_bytes, BridgeError, LlvmModule};

/// Runs `body` on the module parsed from `text`, panicking on parse errors.
fn with_text<R>(text: &str, body: impl FnOnce(&mut LlvmModule<'_>) -> Result<R, BridgeError>) -> R {
    with_module_from_bytes(text.as_bytes(), "test.ll", body)
        .unwrap_or_else(|error| panic!("{error}"))
}

/// The instructions of `func` in layout order.
fn insts(func: &Function) -> Vec<&InstData> {
    func.layout.insts().map(|inst| func.dfg.inst(inst)).collect()
}

fn constant(func: &Function, value: Value) -> Option<&Constant> {
    match func.dfg.value_def(value) {
        ValueDef::Const(constant) => Some(constant),
        _ => None,
    }
}

#[test]
fn garbage_is_a_parse_error_naming_the_input() {
    let result = with_module_from_bytes(b"\x00\x01garbage\xff not llvm", "junk.bc", |_| Ok(()));
    match result {
        Err(BridgeError::Parse { path, message }) => {
            assert_eq!(path, "junk.bc");
            assert!(!message.is_empty());
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
    let text_error = with_module_from_bytes(b"define i32 @f( {", "bad.ll", |_| Ok(()));
    assert!(matches!(text_error, Err(BridgeError::Parse { .. })), "{text_error:?}");
}

#[test]
fn a_missing_file_is_a_read_error() {
    let result = lanewise_llvm::with_module(std::path::Path::new("/nonexistent/x.ll"), |_| Ok(()));
    assert!(
        matches!(result, Err(BridgeError::Read { ref path, .. }) if path == "/nonexistent/x.ll"),
        "{result:?}"
    );
}

#[test]
fn bitcode_round_trips_through_write_and_parse() {
    let text = "define i32 @f(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n";
    let dir = std::env::temp_dir().join(format!("lanewise-bridge-bc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f.bc");
    with_text(text, |module| module.write(&path, lanewise_llvm::OutputFormat::Bitcode));
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..2], b"BC");
    let names =
        with_module_from_bytes(&bytes, "f.bc", |module| Ok(module.defined_function_names()))
            .unwrap();
    assert_eq!(names, vec!["f".to_owned()]);
    let ll_path = dir.join("f.ll");
    with_text(text, |module| module.write(&ll_path, lanewise_llvm::OutputFormat::Text));
    assert!(std::fs::read_to_string(&ll_path).unwrap().contains("add i32 %x, 1"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn defined_functions_list_zgv_attributes_in_order() {
    let text = r#"
define void @saxpy(float %a, ptr %x, ptr %y) #0 {
  ret void
}
define i32 @plain(i32 %x) {
  ret i32 %x
}
declare float @sinf(float)
attributes #0 = { nounwind "_ZGVbN4vvv_saxpy" "_ZGVdN8vvv_saxpy" "target-cpu"="x86-64" }
"#;
    let infos = with_text(text, |module| Ok(module.defined_functions()));
    assert_eq!(infos.len(), 2);
    assert_eq!(infos[0].name, "saxpy");
    let mut variants = infos[0].variant_names.clone();
    variants.sort();
    assert_eq!(variants, vec!["_ZGVbN4vvv_saxpy".to_owned(), "_ZGVdN8vvv_saxpy".to_owned()]);
    assert_eq!(infos[1].name, "plain");
    assert!(infos[1].variant_names.is_empty());
}

#[test]
fn data_layout_comes_from_the_module() {
    let x86 = "target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128\"\n";
    let layout = with_text(x86, |module| Ok(module.data_layout()));
    assert_eq!(layout.pointer_bytes, 8);
    assert_eq!(layout.i64_align, 8);
    let small = "target datalayout = \"e-p:32:32-i64:32\"\n";
    let layout = with_text(small, |module| Ok(module.data_layout()));
    assert_eq!(layout.pointer_bytes, 4);
    assert_eq!(layout.i64_align, 4);
}

#[test]
fn arithmetic_flags_names_and_constants_are_lifted() {
    let text = r#"
define float @f(i32 %a, i8 %b, float %x, i128 %w) {
entry:
  %sum = add nuw nsw i32 %a, 5
  %q = udiv exact i32 %sum, 4
  %o = or disjoint i32 %q, 1
  %z = zext nneg i8 %b to i32
  %t = trunc nuw nsw i32 %o to i16
  %m = fmul fast float %x, 0x7FF8000020000000
  %n = fneg nnan float %m
  %c = fcmp ninf olt float %n, 1.000000e+00
  %big = add i128 %w, -2
  %h = fpext half 0xH3C00 to float
  %s = select i1 %c, float %h, float 2.500000e+00
  ret float %s
}
"#;
    let func = with_text(text, |module| module.lift("f"));
    assert_eq!(func.name, "f");
    assert_eq!(func.params.len(), 4);
    assert_eq!(func.params[3].ty, Type::Int(128));
    assert_eq!(func.dfg.value_names[func.param_value(0)].as_deref(), Some("a"));
    let entry = func.entry_block().unwrap();
    assert_eq!(func.dfg.blocks[entry].name.as_deref(), Some("entry"));
    let all = insts(&func);
    assert_eq!(all.len(), 12);

    let InstData::Binary { op: BinaryOp::Add, rhs, flags, .. } = all[0] else {
        panic!("{:?}", all[0])
    };
    assert!(flags.nuw && flags.nsw && !flags.exact);
    assert_eq!(constant(&func, *rhs), Some(&Constant::Int(5)));
    let InstData::Binary { op: BinaryOp::UDiv, flags, .. } = all[1] else { panic!() };
    assert!(flags.exact);
    let InstData::Binary { op: BinaryOp::Or, flags, .. } = all[2] else { panic!() };
    assert!(flags.disjoint);
    let InstData::Cast { op: CastOp::ZExt, flags, to, .. } = all[3] else { panic!() };
    assert!(flags.nneg);
    assert_eq!(*to, Type::I32);
    let InstData::Cast { op: CastOp::Trunc, flags, .. } = all[4] else { panic!() };
    assert!(flags.nuw && flags.nsw);
    let InstData::Binary { op: BinaryOp::FMul, rhs, flags, .. } = all[5] else { panic!() };
    assert!(flags.fast_math.reassoc && flags.fast_math.nnan && flags.fast_math.afn);
    // A float NaN with a payload keeps its exact bits.
    assert_eq!(constant(&func, *rhs), Some(&Constant::Float(0x7FC0_0001)));
    let InstData::Unary { flags, .. } = all[6] else { panic!() };
    assert!(flags.fast_math.nnan && !flags.fast_math.ninf);
    let InstData::Fcmp { flags, rhs, .. } = all[7] else { panic!() };
    assert!(flags.ninf);
    assert_eq!(constant(&func, *rhs), Some(&Constant::Float(1.0f32.to_bits().into())));
    let InstData::Binary { rhs, .. } = all[8] else { panic!() };
    assert_eq!(constant(&func, *rhs), Some(&Constant::Int(u128::MAX - 1)));
    let InstData::Cast { arg, .. } = all[9] else { panic!() };
    assert_eq!(constant(&func, *arg), Some(&Constant::Float(0x3C00)));
    assert_eq!(func.dfg.value_type(*arg), &Type::F16);
    let sum = func.dfg.result(func.layout.block_insts(entry)[0]).unwrap();
    assert_eq!(func.dfg.value_names[sum].as_deref(), Some("sum"));
    assert!(matches!(all[11], InstData::Return { value: Some(_) }));
    lanewise_ir::verify_function(&func).unwrap();
}

#[test]
fn memory_control_flow_and_aggregates_are_lifted() {
    let text = r#"
%pair = type { i32, [2 x float] }
@table = global [4 x i32] [i32 1, i32 2, i32 3, i32 4]

define i32 @g(ptr %p, i32 %n, <4 x float> %v) {
entry:
  %slot = alloca %pair, align 8
  %e = getelementptr inbounds %pair, ptr %slot, i64 0, i32 1, i64 1
  store volatile float 1.0, ptr %e, align 4
  %ld = load i32, ptr getelementptr inbounds ([4 x i32], ptr @table, i64 0, i64 2), align 4
  %agg = insertvalue { i32, float } poison, i32 %ld, 0
  %f0 = extractvalue { i32, float } %agg, 0
  %lane = extractelement <4 x float> %v, i32 2
  %ins = insertelement <4 x float> %v, float %lane, i64 0
  %sh = shufflevector <4 x float> %ins, <4 x float> zeroinitializer, <4 x i32> <i32 0, i32 poison, i32 5, i32 3>
  %fr = freeze i32 %n
  switch i32 %fr, label %other [ i32 0, label %zero
                                 i32 7, label %other ]
zero:
  br label %join
other:
  %cmp = icmp slt i32 %f0, %n
  br i1 %cmp, label %join, label %exit
join:
  %phi = phi i32 [ 1, %zero ], [ %f0, %other ]
  br label %exit
exit:
  %r = phi i32 [ %phi, %join ], [ ptrtoint (ptr @table to i32), %other ]
  ret i32 %r
}
"#;
    let func = with_text(text, |module| module.lift("g"));
    let entry = func.entry_block().unwrap();
    let entry_insts: Vec<&InstData> =
        func.layout.block_insts(entry).iter().map(|inst| func.dfg.inst(*inst)).collect();
    // The two constant expressions are materialized first in the entry block.
    let InstData::Gep { source_ty, base, inbounds, .. } = entry_insts[0] else {
        panic!("{:?}", entry_insts[0])
    };
    assert!(*inbounds);
    assert_eq!(*source_ty, Type::Array { elem: Box::new(Type::I32), len: 4 });
    assert_eq!(constant(&func, *base), Some(&Constant::Symbol("table".to_owned())));
    assert!(
        matches!(entry_insts[1], InstData::Cast { op: CastOp::PtrToInt, .. }),
        "{:?}",
        entry_insts[1]
    );
    let InstData::Alloca { ty, align, .. } = entry_insts[2] else { panic!() };
    assert_eq!(*align, 8);
    // Named structs are lifted structurally.
    assert_eq!(
        *ty,
        Type::Struct {
            fields: vec![Type::I32, Type::Array { elem: Box::new(Type::F32), len: 2 }],
            packed: false
        }
    );
    let InstData::Store { volatile, align, .. } = entry_insts[4] else { panic!() };
    assert!(*volatile);
    assert_eq!(*align, 4);
    let InstData::Shuffle { mask, .. } = entry_insts[10] else { panic!("{:?}", entry_insts[10]) };
    assert_eq!(mask, &vec![0, -1, 5, 3]);
    let InstData::Switch { cases, default, .. } = entry_insts[12] else { panic!() };
    assert_eq!(cases.len(), 2);
    assert_eq!(cases[0].0, 0);
    assert_eq!(cases[1].0, 7);
    assert_eq!(func.block_name(*default), "other");
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    let exit = blocks[4];
    let InstData::Phi { incoming, .. } = func.dfg.inst(func.layout.block_insts(exit)[0]) else {
        panic!()
    };
    assert_eq!(incoming.len(), 2);
    assert_eq!(func.block_name(incoming[1].0), "other");
    lanewise_ir::verify_function(&func).unwrap();
}

#[test]
fn calls_keep_names_and_effects() {
    let text = r#"
declare float @llvm.fmuladd.f32(float, float, float)
declare float @pure(float) memory(none)
declare float @reader(ptr) memory(argmem: read)
declare void @writer(ptr)
declare i32 @printf(ptr, ...)
declare void @llvm.assume(i1)
@fmt = constant [3 x i8] c"%d\00"

define float @h(float %x, ptr %p, ptr %fp) {
  %a = call float @llvm.fmuladd.f32(float %x, float %x, float 1.0)
  %b = call nnan float @pure(float %a)
  %c = call float @reader(ptr %p)
  call void @writer(ptr %p)
  %d = call float %fp(float %c) memory(read)
  %e = call i32 (ptr, ...) @printf(ptr @fmt, i32 3)
  call void @llvm.assume(i1 true)
  ret float %d
}
"#;
    let func = with_text(text, |module| module.lift("h"));
    let calls: Vec<(&Callee, CallEffects)> = insts(&func)
        .into_iter()
        .filter_map(|data| match data {
            InstData::Call { callee, effects, .. } => Some((callee, *effects)),
            _ => None,
        })
        .collect();
    // The assumption is dropped.
    assert_eq!(calls.len(), 6);
    assert_eq!(calls[0], (&Callee::Direct("llvm.fmuladd.f32".to_owned()), CallEffects::Pure));
    assert_eq!(calls[1], (&Callee::Direct("pure".to_owned()), CallEffects::Pure));
    assert_eq!(calls[2], (&Callee::Direct("reader".to_owned()), CallEffects::ReadOnly));
    assert_eq!(calls[3], (&Callee::Direct("writer".to_owned()), CallEffects::SideEffects));
    assert!(matches!(calls[4], (Callee::Indirect(_), CallEffects::ReadOnly)));
    assert_eq!(calls[5], (&Callee::Direct("printf".to_owned()), CallEffects::SideEffects));
    let InstData::Call { flags, .. } = insts(&func)[1] else { panic!() };
    assert!(flags.nnan);
}

/// Inline assembly lifts into `Callee::InlineAsm` with its template,
/// constraints and flags, and lowers back to the same call (issue 14: asm
/// elsewhere in a function must not keep its `omp simd` loops scalar).
#[test]
fn inline_assembly_round_trips() {
    let text = r#"
define i32 @timed(i32 %x, ptr %cell) {
  %t = call i64 asm sideeffect "rdtsc", "=A,~{dirflag},~{fpsr},~{flags}"()
  %k = call i32 asm sideeffect inteldialect "mov $0, $1", "=r,r"(i32 %x)
  call void asm sideeffect "addl $1, $0", "=*m,r,*m"(ptr elementtype(i32) %cell, i32 %k, ptr elementtype(i32) %cell)
  ret i32 %k
}
"#;
    let func = with_text(text, |module| module.lift("timed"));
    let asms: Vec<&lanewise_ir::InlineAsm> = insts(&func)
        .into_iter()
        .filter_map(|data| match data {
            InstData::Call { callee: Callee::InlineAsm(asm), .. } => Some(&**asm),
            _ => None,
        })
        .collect();
    assert_eq!(asms.len(), 3);
    assert_eq!(asms[0].asm, "rdtsc");
    assert_eq!(asms[0].constraints, "=A,~{dirflag},~{fpsr},~{flags}");
    assert!(asms[0].side_effects && !asms[0].intel_dialect && !asms[0].can_unwind);
    assert!(asms[1].intel_dialect);
    assert!(asms[1].element_types.is_empty());
    // Indirect (memory) operands keep their `elementtype`.
    assert_eq!(asms[2].element_types, [Some(Type::I32), None, Some(Type::I32)]);
    // Lowered back (under another name) and printed by LLVM, the calls are
    // the same.
    let lowered = with_module_from_bytes(text.as_bytes(), "asm.ll", |module| {
        let mut func = module.lift("timed")?;
        func.name = "timed.copy".to_owned();
        module.add_internal_function(&func, "timed", &[])?;
        module.function_text("timed.copy")
    })
    .unwrap();
    assert!(
        lowered.contains(r#"call i64 asm sideeffect "rdtsc", "=A,~{dirflag},~{fpsr},~{flags}"()"#),
        "{lowered}"
    );
    assert!(
        lowered.contains(r#"asm sideeffect inteldialect "mov $0, $1", "=r,r"(i32"#),
        "{lowered}"
    );
    assert!(
        lowered.contains(
            r#""=*m,r,*m"(ptr elementtype(i32) %cell, i32 %k, ptr elementtype(i32) %cell)"#
        ),
        "{lowered}"
    );
}

fn expect_unsupported(text: &str, function: &str, inst_fragment: &str, message_fragment: &str) {
    let result = with_module_from_bytes(text.as_bytes(), "test.ll", |module| module.lift(function));
    match result {
        Err(BridgeError::Unsupported { function: name, block, inst, message }) => {
            assert_eq!(name, function);
            assert_eq!(block, "body");
            assert!(inst.contains(inst_fragment), "instruction text `{inst}`");
            assert!(message.contains(message_fragment), "message `{message}`");
            let shown =
                BridgeError::Unsupported { function: name, block, inst, message }.to_string();
            assert!(shown.contains(function) && shown.contains("body"), "{shown}");
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

/// C++ exception handling around a loop: invokes (direct with a `fastcc`
/// callee and `signext` result, and indirect), landing pads with cleanup,
/// catch and filter clauses meeting in a `{ ptr, i32 }` phi, `resume`.
const EXCEPTIONS: &str = r#"
@_ZTIi = external constant ptr
declare fastcc signext i16 @checked(i32)
declare void @release(ptr) nounwind
declare i32 @__gxx_personality_v0(...)
define i32 @guarded(ptr %callback, i32 %x) personality ptr @__gxx_personality_v0 {
entry:
  %code = invoke fastcc signext i16 @checked(i32 %x)
          to label %called unwind label %lpad.first
called:
  invoke void %callback(ptr null)
          to label %done unwind label %lpad.second
done:
  %wide = sext i16 %code to i32
  ret i32 %wide
lpad.first:
  %first = landingpad { ptr, i32 }
          catch ptr @_ZTIi
          filter [1 x ptr] [ptr @_ZTIi]
  br label %rethrow
lpad.second:
  %second = landingpad { ptr, i32 }
          cleanup
  call void @release(ptr %callback)
  br label %rethrow
rethrow:
  %in.flight = phi { ptr, i32 } [ %first, %lpad.first ], [ %second, %lpad.second ]
  resume { ptr, i32 } %in.flight
}
"#;

#[test]
fn exception_handling_lifts_and_lowers_back() {
    let (lifted, text) = with_text(EXCEPTIONS, |module| {
        let lifted = module.lift("guarded")?;
        let mut copy = lifted.clone();
        copy.name = "guarded.roundtrip".to_owned();
        module.add_vector_function(&copy, "guarded", &[])?;
        module.verify()?;
        Ok((lifted, module.function_text("guarded.roundtrip")?))
    });
    lanewise_ir::verify_function(&lifted).unwrap();
    assert_eq!(lifted.personality.as_deref(), Some("__gxx_personality_v0"));
    let block_named = |name: &str| {
        lifted.layout.blocks().iter().copied().find(|b| lifted.block_name(*b) == name).unwrap()
    };
    let invokes: Vec<&InstData> =
        insts(&lifted).into_iter().filter(|data| matches!(data, InstData::Invoke { .. })).collect();
    match invokes[..] {
        [InstData::Invoke {
            callee: Callee::Direct(first_callee),
            ret_ty: Type::Int(16),
            normal_dest: first_normal,
            unwind_dest: first_unwind,
            ..
        }, InstData::Invoke {
            callee: Callee::Indirect(_),
            ret_ty: Type::Void,
            normal_dest: second_normal,
            unwind_dest: second_unwind,
            ..
        }] => {
            assert_eq!(first_callee, "checked");
            assert_eq!(*first_normal, block_named("called"));
            assert_eq!(*first_unwind, block_named("lpad.first"));
            assert_eq!(*second_normal, block_named("done"));
            assert_eq!(*second_unwind, block_named("lpad.second"));
        }
        _ => panic!("{invokes:?}"),
    }
    let pads: Vec<(bool, Vec<bool>)> = insts(&lifted)
        .into_iter()
        .filter_map(|data| match data {
            InstData::LandingPad { ty, cleanup, clauses } => {
                assert_eq!(*ty, Type::Struct { fields: vec![Type::PTR, Type::I32], packed: false });
                let filters = clauses
                    .iter()
                    .map(|clause| matches!(clause, lanewise_ir::LandingPadClause::Filter(_)))
                    .collect();
                Some((*cleanup, filters))
            }
            _ => None,
        })
        .collect();
    assert_eq!(pads, vec![(false, vec![false, true]), (true, vec![])]);
    assert!(insts(&lifted).iter().any(|data| matches!(data, InstData::Resume { .. })));

    // Lowered back: the personality, both destinations, the callee's calling
    // convention and extension attribute, the clauses.
    assert!(text.contains("personality ptr @__gxx_personality_v0"), "{text}");
    assert!(text.contains("invoke fastcc signext i16 @checked(i32 %x)"), "{text}");
    assert!(text.contains("to label %called unwind label %lpad.first"), "{text}");
    assert!(text.contains("invoke void %callback(ptr null)"), "{text}");
    assert!(text.contains("catch ptr @_ZTIi"), "{text}");
    assert!(text.contains("filter [1 x ptr] [ptr @_ZTIi]"), "{text}");
    assert!(text.contains("cleanup"), "{text}");
    assert!(
        text.contains("phi { ptr, i32 } [ %first, %lpad.first ], [ %second, %lpad.second ]"),
        "{text}"
    );
    assert!(text.contains("resume { ptr, i32 } %in.flight"), "{text}");
}

#[test]
fn unsupported_instructions_are_errors_naming_function_block_and_instruction() {
    // atomicrmw and cmpxchg lift; operations newer than LLVM 14's set and
    // target-specific sync scopes do not.
    expect_unsupported(
        "define i32 @atomic(ptr %p) {\nbody:\n  %old = atomicrmw usub_sat ptr %p, i32 1 seq_cst\n  ret i32 %old\n}\n",
        "atomic",
        "atomicrmw usub_sat ptr %p, i32 1 seq_cst",
        "`usub_sat` is not supported",
    );
    expect_unsupported(
        "define i32 @atomic(ptr %p) {\nbody:\n  %old = atomicrmw add ptr %p, i32 1 syncscope(\"agent\") monotonic\n  ret i32 %old\n}\n",
        "atomic",
        "syncscope(\"agent\")",
        "synchronization scope",
    );
    expect_unsupported(
        "define <2 x half> @atomic(ptr %p, <2 x half> %v) {\nbody:\n  %old = atomicrmw fadd ptr %p, <2 x half> %v monotonic, align 4\n  ret <2 x half> %old\n}\n",
        "atomic",
        "atomicrmw fadd ptr %p, <2 x half> %v",
        "on a vector",
    );
    // Windows exception handling (funclets): the Itanium instructions lift,
    // these do not.
    expect_unsupported(
        r#"
declare void @may_throw()
declare i32 @__CxxFrameHandler3(...)
define void @funclets() personality ptr @__CxxFrameHandler3 {
entry:
  invoke void @may_throw() to label %ok unwind label %body
ok:
  ret void
body:
  %switch = catchswitch within none [label %handler] unwind to caller
handler:
  %pad = catchpad within %switch [ptr null, i32 64, ptr null]
  catchret from %pad to label %ok
}
"#,
        "funclets",
        "catchswitch within none",
        "token",
    );
    expect_unsupported(
        "define i32 @ld(ptr %p) {\nbody:\n  %v = load atomic i32, ptr %p acquire, align 4\n  ret i32 %v\n}\n",
        "ld",
        "load atomic",
        "atomic",
    );
    expect_unsupported(
        "define double @ext(double %x) {\nbody:\n  %y = fpext double %x to x86_fp80\n  %z = fptrunc x86_fp80 %y to double\n  ret double %z\n}\n",
        "ext",
        "fpext double %x to x86_fp80",
        "x86_fp80",
    );
    expect_unsupported(
        "declare i32 @callee(i32)\ndefine i32 @tail(i32 %x) {\nbody:\n  %r = musttail call i32 @callee(i32 %x)\n  ret i32 %r\n}\n",
        "tail",
        "musttail call i32 @callee",
        "musttail",
    );
    expect_unsupported(
        "define i32 @va(ptr %ap) {\nbody:\n  %v = va_arg ptr %ap, i32\n  ret i32 %v\n}\n",
        "va",
        "va_arg ptr %ap, i32",
        "vaarg",
    );
    expect_unsupported(
        "define void @sc(ptr %p) {\nbody:\n  %v = load <vscale x 4 x i32>, ptr %p\n  ret void\n}\n",
        "sc",
        "load <vscale x 4 x i32>",
        "vscale",
    );
    expect_unsupported(
        "declare void @f() \ndefine void @bundle() {\nbody:\n  call void @f() [ \"deopt\"(i32 1) ]\n  ret void\n}\n",
        "bundle",
        "deopt",
        "operand bundles",
    );
}

#[test]
fn signatures_outside_the_type_system_are_function_errors() {
    let result = with_module_from_bytes(
        b"define x86_fp80 @ext(x86_fp80 %x) {\n  ret x86_fp80 %x\n}\n",
        "t.ll",
        |module| module.lift("ext"),
    );
    assert!(
        matches!(&result, Err(BridgeError::Function { function, message })
            if function == "ext" && message.contains("x86_fp80")),
        "{result:?}"
    );
    let variadic = with_module_from_bytes(
        b"define void @v(i32 %n, ...) {\n  ret void\n}\n",
        "t.ll",
        |module| module.lift("v"),
    );
    assert!(matches!(&variadic, Err(BridgeError::Function { .. })), "{variadic:?}");
    let missing = with_module_from_bytes(b"declare void @d()\n", "t.ll", |module| module.lift("d"));
    assert!(
        matches!(&missing, Err(BridgeError::UnknownFunction(name)) if name == "d"),
        "{missing:?}"
    );
}

#[test]
fn constant_expressions_inside_aggregates_are_built_in_the_entry_block() {
    let text = r#"
@g = global i32 0
@h = global [2 x i32] zeroinitializer

define void @k(ptr %p, ptr %q) {
entry:
  store <2 x i64> <i64 ptrtoint (ptr @g to i64), i64 1>, ptr %p, align 16
  store { ptr, <2 x ptr>, [2 x i8] } { ptr getelementptr inbounds ([2 x i32], ptr @h, i64 0, i64 1), <2 x ptr> <ptr @g, ptr null>, [2 x i8] c"a\00" }, ptr %q, align 8
  ret void
}
"#;
    let (lifted, lowered_text) = with_text(text, |module| {
        let mut lifted = module.lift("k")?;
        lanewise_ir::verify_function(&lifted).map_err(|errors| BridgeError::Function {
            function: "k".to_owned(),
            message: errors.to_string(),
        })?;
        let original = lifted.clone();
        lifted.name = "k.roundtrip".to_owned();
        module.add_vector_function(&lifted, "k", &[])?;
        module.verify()?;
        Ok((original, module.function_text("k.roundtrip")?))
    });
    let opcodes: Vec<&str> = insts(&lifted).iter().map(|data| data.opcode_name()).collect();
    assert_eq!(
        opcodes,
        vec![
            "ptrtoint",
            "insertelement",
            "insertelement",
            "getelementptr",
            "insertvalue",
            "insertvalue",
            "insertvalue",
            "store",
            "store",
            "ret"
        ]
    );
    // The pointer vector and the byte array stay constants.
    let InstData::InsertValue { value, .. } = insts(&lifted)[5] else { panic!() };
    let Some(Constant::Aggregate(elements)) = constant(&lifted, *value) else { panic!() };
    assert_eq!(constant(&lifted, elements[0]), Some(&Constant::Symbol("g".to_owned())));
    assert_eq!(constant(&lifted, elements[1]), Some(&Constant::Null));
    assert!(
        lowered_text.contains("ptrtoint (ptr @g to i64)")
            || lowered_text.contains("ptrtoint ptr @g")
    );
}

/// LLVM 22 expands masked gathers into per-lane loads on AVX2 targets
/// without fast gathers and keeps `vpgatherdd` on the others; the probe of
/// `expands_masked_gathers` reads that from the code generator.
#[test]
fn the_gather_probe_knows_which_targets_expand_gathers() {
    let cases = [
        ("x86-64-v3", None, "", true),
        ("znver3", None, "", true),
        ("haswell", None, "", true),
        ("skylake", None, "", false),
        ("x86-64-v4", None, "", false),
        // A variant adds AVX2 to a function built for plain x86-64: generic
        // tuning, so expanded; with `tune-cpu` skylake, a gather.
        ("x86-64", None, "+avx2", true),
        ("x86-64", Some("skylake"), "+avx2", false),
        // Without AVX2 there is no gather instruction at all.
        ("x86-64", None, "", true),
    ];
    for (cpu, tune, isa_feature, expected) in cases {
        let tune_attribute =
            tune.map(|tune| format!(" \"tune-cpu\"=\"{tune}\"")).unwrap_or_default();
        let text = format!(
            "target triple = \"x86_64-unknown-linux-gnu\"\n\
             define void @f() #0 {{\n  ret void\n}}\n\
             attributes #0 = {{ \"target-cpu\"=\"{cpu}\"{tune_attribute} }}\n"
        );
        let features: Vec<&str> = [isa_feature].into_iter().filter(|f| !f.is_empty()).collect();
        let expands = with_text(&text, |module| module.expands_masked_gathers("f", &features));
        assert_eq!(expands, expected, "target-cpu {cpu}, tune-cpu {tune:?}, {features:?}");
    }
}
