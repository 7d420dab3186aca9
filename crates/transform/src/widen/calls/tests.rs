//! Variant selection (shapes, masks, ISA, parts) and the widened calls.

use lanewise_analysis::{Shape, ShapeInfo, ValueShape};
use lanewise_ir::vfabi::{Isa, ParamKind, ParamSpec, VariantName};
use lanewise_ir::{
    verify_function, CallEffects, Callee, DataLayout, Function, FunctionBuilder, InstData, Type,
};

use super::*;
use crate::predicates::BlockPredicates;
use crate::widen::{widen_function_with_stats, WidenConfig};

fn variants(names: &[&str]) -> Vec<VariantName> {
    names.iter().map(|name| VariantName::parse(name).unwrap()).collect()
}

fn varying() -> ArgShape {
    ArgShape::Varying { all_lanes_align: 1 }
}

fn uniform() -> ArgShape {
    ArgShape::Uniform { align: 1, constant: None }
}

fn site<'a>(
    arg_types: &'a [Type],
    arg_shapes: &'a [ArgShape],
    ret_ty: &'a Type,
    under_mask: bool,
    isa: Isa,
    width: u32,
) -> CallSite<'a> {
    CallSite { arg_types, arg_shapes, ret_ty, under_mask, isa, width, adapter: false }
}

fn chosen(all: &[VariantName], site: &CallSite<'_>) -> Option<(String, u32)> {
    select_variant(all, site).map(|choice| (choice.variant.mangle(), choice.calls))
}

/// clang's full set for `float f(float)`.
const FLOAT_SET: &[&str] = &[
    "_ZGVbM4v_f",
    "_ZGVbN4v_f",
    "_ZGVcM8v_f",
    "_ZGVcN8v_f",
    "_ZGVdM8v_f",
    "_ZGVdN8v_f",
    "_ZGVeM16v_f",
    "_ZGVeN16v_f",
];

#[test]
fn the_callers_isa_and_width_are_preferred_and_masks_need_masked_variants() {
    let all = variants(FLOAT_SET);
    let types = [Type::F32];
    let shapes = [varying()];
    let ret = Type::F32;
    let at =
        |under_mask, isa, width| chosen(&all, &site(&types, &shapes, &ret, under_mask, isa, width));
    assert_eq!(at(false, Isa::Avx2, 8), Some(("_ZGVdN8v_f".into(), 1)));
    assert_eq!(at(true, Isa::Avx2, 8), Some(("_ZGVdM8v_f".into(), 1)));
    assert_eq!(at(false, Isa::Sse, 4), Some(("_ZGVbN4v_f".into(), 1)));
    assert_eq!(at(false, Isa::Avx, 8), Some(("_ZGVcN8v_f".into(), 1)));
    // 16 lanes at AVX2: two calls of the 8-lane AVX2 variant, never AVX-512.
    assert_eq!(at(false, Isa::Avx2, 16), Some(("_ZGVdN8v_f".into(), 2)));
    assert_eq!(at(true, Isa::Avx512, 16), Some(("_ZGVeM16v_f".into(), 1)));
    // 4 lanes at AVX2: the SSE variant.
    assert_eq!(at(false, Isa::Avx2, 4), Some(("_ZGVbN4v_f".into(), 1)));
    // No variant narrow enough for 2 lanes (wider ones would need padding).
    assert_eq!(at(false, Isa::Avx2, 2), None);
}

#[test]
fn older_isas_serve_in_parts_and_newer_ones_never() {
    let sse_only = variants(&["_ZGVbN4v_f", "_ZGVbM4v_f"]);
    let types = [Type::F32];
    let shapes = [varying()];
    let ret = Type::F32;
    let s = site(&types, &shapes, &ret, true, Isa::Avx2, 8);
    assert_eq!(chosen(&sse_only, &s), Some(("_ZGVbM4v_f".into(), 2)));
    let avx512_only = variants(&["_ZGVeN16v_f", "_ZGVeN8v_f"]);
    assert_eq!(chosen(&avx512_only, &site(&types, &shapes, &ret, false, Isa::Avx2, 8)), None);
    // Without a mask a masked variant is fine (all-true mask), N preferred.
    let masked_only = variants(&["_ZGVdM8v_f"]);
    assert_eq!(
        chosen(&masked_only, &site(&types, &shapes, &ret, false, Isa::Avx2, 8)),
        Some(("_ZGVdM8v_f".into(), 1))
    );
    // Under a mask, an unmasked variant is never used.
    let unmasked_only = variants(&["_ZGVdN8v_f"]);
    assert_eq!(chosen(&unmasked_only, &site(&types, &shapes, &ret, true, Isa::Avx2, 8)), None);
}

#[test]
fn an_adapter_calls_a_wider_masked_variant_of_any_isa_once() {
    let shared = variants(&["_ZGVeM16v_f"]);
    let types = [Type::F32];
    let shapes = [varying()];
    let ret = Type::F32;
    let adapter = |under_mask, isa, width| CallSite {
        adapter: true,
        ..site(&types, &shapes, &ret, under_mask, isa, width)
    };
    // An SSE adapter of 4 lanes: one padded call of the AVX-512 body.
    assert_eq!(chosen(&shared, &adapter(false, Isa::Sse, 4)), Some(("_ZGVeM16v_f".into(), 1)));
    assert_eq!(chosen(&shared, &adapter(true, Isa::Avx2, 8)), Some(("_ZGVeM16v_f".into(), 1)));
    // 32 lanes: two calls.
    assert_eq!(chosen(&shared, &adapter(false, Isa::Avx512, 32)), Some(("_ZGVeM16v_f".into(), 2)));
    // Not for ordinary callers, and never an unmasked body with padding.
    assert_eq!(chosen(&shared, &site(&types, &shapes, &ret, false, Isa::Avx512, 8)), None);
    let unmasked = variants(&["_ZGVeN16v_f"]);
    assert_eq!(chosen(&unmasked, &adapter(false, Isa::Avx512, 8)), None);
}

#[test]
fn parameters_must_accept_the_argument_shapes() {
    // float g(float *p, int n, float x): linear(p:1) uniform(n), and a
    // variant taking everything as vectors.
    let all = variants(&["_ZGVdN8l4uv_g", "_ZGVdN8vvv_g"]);
    let types = [Type::PTR, Type::I32, Type::F32];
    let ret = Type::F32;
    let linear_pointer = ArgShape::Strided { stride: 4, align: 16 };
    let fits = [linear_pointer, uniform(), varying()];
    assert_eq!(
        chosen(&all, &site(&types, &fits, &ret, false, Isa::Avx2, 8)),
        Some(("_ZGVdN8l4uv_g".into(), 1)),
        "both fit; the first of equal rank is kept"
    );
    // A pointer strided by 8 bytes is not linear(p:1) for floats: only `vvv`.
    let wrong_stride = [ArgShape::Strided { stride: 8, align: 16 }, uniform(), varying()];
    assert_eq!(
        chosen(&all, &site(&types, &wrong_stride, &ret, false, Isa::Avx2, 8)),
        Some(("_ZGVdN8vvv_g".into(), 1))
    );
    // A varying `n` does not fit `u`.
    let linear_only = variants(&["_ZGVdN8l4uv_g"]);
    let varying_n = [linear_pointer, varying(), varying()];
    assert_eq!(chosen(&linear_only, &site(&types, &varying_n, &ret, false, Isa::Avx2, 8)), None);
    // Negative steps.
    let backwards = variants(&["_ZGVdN8ln4uv_g"]);
    let down = [ArgShape::Strided { stride: -4, align: 4 }, uniform(), varying()];
    assert!(chosen(&backwards, &site(&types, &down, &ret, false, Isa::Avx2, 8)).is_some());
}

#[test]
fn alignment_claims_must_be_proven() {
    let aligned = variants(&["_ZGVdN8ua32v_h"]);
    let types = [Type::PTR, Type::F32];
    let ret = Type::F32;
    let proven = [ArgShape::Uniform { align: 64, constant: None }, varying()];
    let unproven = [ArgShape::Uniform { align: 16, constant: None }, varying()];
    assert!(chosen(&aligned, &site(&types, &proven, &ret, false, Isa::Avx2, 8)).is_some());
    assert_eq!(chosen(&aligned, &site(&types, &unproven, &ret, false, Isa::Avx2, 8)), None);
    // Called in two parts, a linear pointer's second part starts 16 bytes on:
    // a 32-byte claim holds for lane 0 only and is refused.
    let linear_aligned = variants(&["_ZGVbN4l4a32v_k"]);
    let strided = [ArgShape::Strided { stride: 4, align: 64 }, varying()];
    assert_eq!(
        chosen(&linear_aligned, &site(&types, &strided, &ret, false, Isa::Sse, 4)),
        Some(("_ZGVbN4l4a32v_k".into(), 1))
    );
    assert_eq!(chosen(&linear_aligned, &site(&types, &strided, &ret, false, Isa::Sse, 8)), None);
}

#[test]
fn variable_steps_need_the_constant_step_argument() {
    // int m(int i, int s): linear(i:s) uniform(s).
    let all = variants(&["_ZGVbN4ls1u_m"]);
    let types = [Type::I32, Type::I32];
    let ret = Type::I32;
    let matching = [
        ArgShape::Strided { stride: 3, align: 1 },
        ArgShape::Uniform { align: 1, constant: Some(3) },
    ];
    let other = [
        ArgShape::Strided { stride: 3, align: 1 },
        ArgShape::Uniform { align: 1, constant: Some(2) },
    ];
    let unknown = [ArgShape::Strided { stride: 3, align: 1 }, uniform()];
    assert!(chosen(&all, &site(&types, &matching, &ret, false, Isa::Sse, 4)).is_some());
    assert_eq!(chosen(&all, &site(&types, &other, &ret, false, Isa::Sse, 4)), None);
    assert_eq!(chosen(&all, &site(&types, &unknown, &ret, false, Isa::Sse, 4)), None);
}

// ----- The widened calls -----

/// `ret f(x)` for `float`-typed `x`, optionally in a block with a varying
/// predicate (the function's parameter `c`).
fn calling_function(ret_ty: Type, arg_ty: Type, masked_block: bool) -> (Function, BlockPredicates) {
    let mut params = vec![arg_ty.clone()];
    if masked_block {
        params.push(Type::BOOL);
    }
    let mut func = Function::new("caller", params, ret_ty.clone());
    let x = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let call = b.call(Callee::Direct("f".into()), vec![x], ret_ty, CallEffects::SideEffects);
    let result = b.func.dfg.result(call).unwrap();
    b.ret(Some(result));
    let mut predicates = BlockPredicates::all_active();
    if masked_block {
        predicates.set(entry, Some(func.param_value(1)));
    }
    (func, predicates)
}

fn widen_with_variants(
    func: &Function,
    predicates: &BlockPredicates,
    width: u32,
    isa: Isa,
    names: &[&str],
) -> (Function, CallStats) {
    let kinds = vec![ParamSpec { kind: ParamKind::Vector, align: None }; func.params.len()];
    let mut config = WidenConfig::new("vec", width, isa, kinds);
    config.callee_variants.insert("f".into(), variants(names));
    let mut info = ShapeInfo::default();
    for (value, _) in func.dfg.values.iter() {
        info.shapes[value] = ValueShape { shape: Shape::Varying, align: 1 };
    }
    let widened =
        widen_function_with_stats(func, &info, &DataLayout::default(), &config, predicates)
            .unwrap_or_else(|error| panic!("widening failed: {error}"));
    verify_function(&widened.function)
        .unwrap_or_else(|errors| panic!("{errors}\n{}", widened.function));
    (widened.function, widened.calls)
}

/// The calls of `func`: callee, argument types, result type.
/// The calls of user functions (not of LLVM intrinsics such as the
/// `any` test that guards masked calls).
fn calls_of(func: &Function) -> Vec<(String, Vec<Type>, Type)> {
    func.layout
        .insts()
        .filter_map(|inst| match func.dfg.inst(inst) {
            InstData::Call { callee: Callee::Direct(name), args, ret_ty, .. }
                if !name.starts_with("llvm.") =>
            {
                Some((
                    name.clone(),
                    args.iter().map(|arg| func.dfg.value_type(*arg).clone()).collect(),
                    ret_ty.clone(),
                ))
            }
            _ => None,
        })
        .collect()
}

/// Whether a masked variant call runs behind an `any(mask)` test.
fn masked_call_is_guarded(func: &Function) -> bool {
    func.layout.insts().any(|inst| {
        func.dfg.callee_name(inst).is_some_and(|name| name.starts_with("llvm.vector.reduce.or"))
    })
}

#[test]
fn an_unmasked_call_uses_the_variant_once() {
    let (func, predicates) = calling_function(Type::F32, Type::F32, false);
    let (vector, stats) = widen_with_variants(&func, &predicates, 8, Isa::Avx2, FLOAT_SET);
    let v8f32 = Type::F32.vector_of(8);
    assert_eq!(calls_of(&vector), vec![("_ZGVdN8v_f".into(), vec![v8f32.clone()], v8f32)]);
    assert_eq!(
        stats,
        CallStats { vector_variant: 1, per_lane: 0, packed_math_groups: 0, exact_vector_math: 0 }
    );
}

#[test]
fn a_masked_call_passes_the_mask_as_one_or_zero_of_the_characteristic_type() {
    let (func, predicates) = calling_function(Type::F32, Type::F32, true);
    let (vector, _) = widen_with_variants(&func, &predicates, 8, Isa::Avx2, FLOAT_SET);
    let v8f32 = Type::F32.vector_of(8);
    assert_eq!(
        calls_of(&vector),
        vec![("_ZGVdM8v_f".into(), vec![v8f32.clone(), v8f32.clone()], v8f32)]
    );
    // No call when no lane is active (a recursive variant would never stop).
    assert!(masked_call_is_guarded(&vector), "{vector}");
    // The mask argument is uitofp of the <8 x i1> block mask: 1.0 or 0.0.
    let call = vector
        .layout
        .insts()
        .find(|inst| vector.dfg.callee_name(*inst).is_some_and(|name| name == "_ZGVdM8v_f"))
        .unwrap();
    let InstData::Call { args, .. } = vector.dfg.inst(call) else { unreachable!() };
    let mask_def = vector.dfg.defining_inst(args[1]).unwrap();
    assert!(matches!(vector.dfg.inst(mask_def), InstData::Cast { op: CastOp::UIToFP, .. }));

    // AVX-512 masks are integer bit masks: one i16 for 16 floats.
    let (vector, _) = widen_with_variants(&func, &predicates, 16, Isa::Avx512, FLOAT_SET);
    let v16f32 = Type::F32.vector_of(16);
    assert_eq!(
        calls_of(&vector),
        vec![("_ZGVeM16v_f".into(), vec![v16f32.clone(), Type::Int(16)], v16f32)]
    );
}

#[test]
fn without_a_fitting_variant_the_call_runs_per_lane() {
    let (func, predicates) = calling_function(Type::F32, Type::F32, true);
    let (vector, stats) = widen_with_variants(&func, &predicates, 8, Isa::Avx2, &["_ZGVdN8v_f"]);
    // One call site, in a loop over the active lanes (`widen::lane_loops`).
    assert_eq!(calls_of(&vector).iter().filter(|(name, ..)| name == "f").count(), 1);
    assert!(vector
        .layout
        .blocks()
        .iter()
        .any(|block| vector.block_name(*block).ends_with(".lane")));
    assert_eq!(
        stats,
        CallStats { vector_variant: 0, per_lane: 1, packed_math_groups: 0, exact_vector_math: 0 }
    );
}

#[test]
fn wide_results_come_back_through_a_buffer_and_avx_integers_in_halves() {
    // double f(float) at 8 lanes of AVX2: <8 x double> is returned in memory.
    let (func, predicates) = calling_function(Type::F64, Type::F32, false);
    let (vector, _) = widen_with_variants(&func, &predicates, 8, Isa::Avx2, &["_ZGVdN8v_f"]);
    let v4f64 = Type::F64.vector_of(4);
    assert_eq!(
        calls_of(&vector),
        vec![("_ZGVdN8v_f".into(), vec![Type::PTR, Type::F32.vector_of(8)], Type::PTR)]
    );
    let entry = vector.entry_block().unwrap();
    let first = vector.layout.block_insts(entry)[0];
    assert!(
        matches!(vector.dfg.inst(first), InstData::Alloca { ty, align: 32, .. } if *ty == v4f64),
        "the buffer is allocated at the top of the entry block"
    );
    let loads = vector
        .layout
        .insts()
        .filter(|inst| matches!(vector.dfg.inst(*inst), InstData::Load { ty, .. } if *ty == v4f64))
        .count();
    assert_eq!(loads, 2, "the two halves of the result are reloaded");

    // int f(int) at 8 lanes of AVX (`c`): arguments and result in 128-bit halves.
    let (func, predicates) = calling_function(Type::I32, Type::I32, true);
    let (vector, _) = widen_with_variants(&func, &predicates, 8, Isa::Avx, &["_ZGVcM8v_f"]);
    let v4i32 = Type::I32.vector_of(4);
    assert_eq!(
        calls_of(&vector),
        vec![(
            "_ZGVcM8v_f".into(),
            vec![Type::PTR, v4i32.clone(), v4i32.clone(), v4i32.clone(), v4i32],
            Type::PTR
        )],
        "buffer, two halves of x, two halves of the <8 x i32> mask"
    );
}

#[test]
fn narrower_variants_are_called_on_lane_slices_in_order() {
    let (func, predicates) = calling_function(Type::F32, Type::F32, true);
    let (vector, stats) =
        widen_with_variants(&func, &predicates, 8, Isa::Avx2, &["_ZGVbM4v_f", "_ZGVbN4v_f"]);
    let v4f32 = Type::F32.vector_of(4);
    let expected = ("_ZGVbM4v_f".to_owned(), vec![v4f32.clone(), v4f32.clone()], v4f32);
    assert_eq!(calls_of(&vector), vec![expected.clone(), expected]);
    assert_eq!(stats.vector_variant, 1);
    // The first call gets lanes 0..3 of x, the second lanes 4..7.
    let slices: Vec<Vec<i32>> = vector
        .layout
        .insts()
        .filter(|inst| vector.dfg.callee_name(*inst) == Some("_ZGVbM4v_f"))
        .map(|inst| {
            let InstData::Call { args, .. } = vector.dfg.inst(inst) else { unreachable!() };
            let shuffle = vector.dfg.defining_inst(args[0]).unwrap();
            let InstData::Shuffle { mask, .. } = vector.dfg.inst(shuffle) else { panic!() };
            mask.clone()
        })
        .collect();
    assert_eq!(slices, vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
}

#[test]
fn call_lowering_splits_like_the_callee_signature() {
    // The caller side and the callee side agree on every carrier: lower a
    // function with the callee's whole signature, and a call with the same
    // whole types, and compare the callee's ABI parameters with the call's
    // arguments.
    let cases: Vec<(Vec<Type>, Type, Isa)> = vec![
        (vec![Type::F64.vector_of(8)], Type::F64.vector_of(8), Isa::Avx2),
        (vec![Type::I32.vector_of(8), Type::PTR], Type::I32.vector_of(8), Isa::Avx),
        (vec![Type::BOOL.vector_of(4)], Type::BOOL.vector_of(4), Isa::Sse),
        (vec![Type::Int(16).vector_of(2), Type::F32.vector_of(16)], Type::Void, Isa::Avx512),
    ];
    for (params, ret_ty, isa) in cases {
        let mut callee = Function::new("callee", params.clone(), ret_ty.clone());
        let mut b = FunctionBuilder::new(&mut callee);
        let entry = b.create_block(None);
        b.switch_to_block(entry);
        let poison = b.func.dfg.make_const(ret_ty.clone(), lanewise_ir::Constant::Poison);
        b.ret((ret_ty != Type::Void).then_some(poison));
        crate::abi::lower_vector_abi(&mut callee, isa);
        let callee_params: Vec<Type> = callee.params.iter().map(|p| p.ty.clone()).collect();

        let mut caller = Function::new("caller", params.clone(), Type::Void);
        let args: Vec<_> = (0..params.len()).map(|i| caller.param_value(i)).collect();
        let block = caller.dfg.make_block(None);
        caller.layout.append_block(block);
        let buffer = crate::abi::result_buffer(&ret_ty, isa).map(|(elem, count, align)| {
            let count = caller.dfg.int_const(Type::I32, u128::from(count));
            let alloca =
                caller.append(block, InstData::Alloca { ty: elem, count, align }, Type::PTR);
            caller.dfg.result(alloca).unwrap()
        });
        let call = crate::abi::VectorCall {
            callee: "callee".into(),
            isa,
            args,
            ret_ty: ret_ty.clone(),
            effects: CallEffects::Pure,
            flags: Default::default(),
        };
        let result = crate::abi::lower_vector_call(&mut caller, block, &call, buffer).unwrap();
        assert_eq!(
            result.map(|value| caller.dfg.value_type(value).clone()),
            (ret_ty != Type::Void).then(|| ret_ty.clone())
        );
        caller.append(block, InstData::Return { value: None }, Type::Void);
        verify_function(&caller).unwrap_or_else(|errors| panic!("{errors}\n{caller}"));
        let (_, call_args, call_ret) = calls_of(&caller).remove(0);
        assert_eq!(call_args, callee_params, "{params:?} -> {ret_ty} at {isa:?}");
        assert_eq!(call_ret, callee.ret_ty, "{params:?} -> {ret_ty} at {isa:?}");
    }
}

#[test]
fn llvm_native_signatures_are_recognized() {
    use crate::abi::is_llvm_native_signature;
    let v8f32 = Type::F32.vector_of(8);
    assert!(is_llvm_native_signature(&[v8f32.clone(), Type::I32], &v8f32, Isa::Avx2));
    assert!(!is_llvm_native_signature(
        &[Type::F64.vector_of(8)],
        &Type::F64.vector_of(8),
        Isa::Avx2
    ));
    assert!(!is_llvm_native_signature(&[Type::I32.vector_of(8)], &Type::Void, Isa::Avx));
    assert!(!is_llvm_native_signature(&[Type::Int(16).vector_of(2)], &Type::Void, Isa::Sse));
    assert!(!is_llvm_native_signature(&[Type::BOOL.vector_of(8)], &Type::Void, Isa::Avx2));
}

#[test]
fn values_without_a_vector_abi_select_no_variant() {
    let all = variants(&["_ZGVdN8v_f", "_ZGVdN8u_f"]);
    let odd = [Type::Int(96)];
    let ret = Type::I32;
    // An `i96` argument passed as a vector (3 register parts) has no ABI;
    // passed as a scalar (uniform) it has.
    assert_eq!(chosen(&all, &site(&odd, &[varying()], &ret, false, Isa::Avx2, 8)), None);
    assert_eq!(
        chosen(&all, &site(&odd, &[uniform()], &ret, false, Isa::Avx2, 8)),
        Some(("_ZGVdN8u_f".into(), 1))
    );
    let int = [Type::I32];
    let odd_ret = Type::Int(96);
    assert_eq!(chosen(&all, &site(&int, &[varying()], &odd_ret, false, Isa::Avx2, 8)), None);
}
