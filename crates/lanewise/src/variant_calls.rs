//! Calls between vector variants, and calls that LLVM's own loop vectorizer
//! may turn into calls of our variants (issue 5, item 3).
//!
//! [`callee_variant_table`] collects what the widener needs to call a
//! `declare simd` function's variant instead of the scalar function per lane
//! (`lanewise_transform::widen::calls`): every function of the module,
//! defined or only declared, with its `_ZGV` attributes.
//!
//! [`annotate_variant_calls`] (with [`crate::Options::annotate_variants`])
//! attaches LLVM's `vector-function-abi-variant` call-site attribute to the
//! calls of such functions in the scalar code, naming each variant as
//! `_ZGV<isa><mask><vlen><params>_<scalar>(<vector>)` (the format of LLVM's
//! `VFABIDemangler`), and declares variants that are not in the module
//! (kept in `@llvm.compiler.used`, else GlobalOpt deletes them first), so
//! that clang's loop vectorizer (which only uses mapped and declared
//! variants) can call them. LLVM calls a variant with its own calling
//! convention for the IR types, so only variants whose GCC/x86 vector ABI
//! is exactly that are named: unmasked (LLVM passes masks as `<N x i1>`,
//! the ABI as a vector of the characteristic type), every vector parameter
//! and the result in one register (no parts, no result through memory, no
//! 128-bit integer halves on AVX, no short vectors as integers, no boolean
//! bytes: `lanewise_transform::abi::is_llvm_native_signature`), and no
//! `ls` (variable step) parameter. LLVM does not check the ISA of a
//! mapping, so each call lists only the variants whose ISA the calling
//! function's `target-features` enable, newest first (LLVM takes the first
//! mapping of a width). A function whose calls get a mapping gets a
//! `min-legal-vector-width` of at least the mapped variants' widest vector:
//! with 256-bit tuning (x86-64-v4, Intel AVX-512 CPUs) LLVM would otherwise
//! pass the `<16 x float>` of `_ZGVeN16v_f` in two ymm registers.

use lanewise_ir::vfabi::{Isa, ParamKind, VariantName};
use lanewise_ir::Type;
use lanewise_llvm::{CallAnnotation, LlvmModule};
use lanewise_transform::abi::is_llvm_native_signature;
use lanewise_transform::widen::masked::characteristic_type;
use lanewise_transform::widen::CalleeVariants;

use crate::Error;

/// The call-site attribute LLVM's loop vectorizer reads.
pub const VECTOR_FUNCTION_ABI_VARIANT: &str = "vector-function-abi-variant";

/// The parsed variants of every function of `module` that has `_ZGV`
/// attributes. Names that do not parse, name another function, or do not
/// spell back exactly (so the symbol called would differ) are left out. An
/// AVX variant that GCC names otherwise ([`gcc_avx_twin`]) is listed under
/// GCC's name: both compilers define that one (Lanewise defines the twin
/// too), so a caller links and vectorizes against either.
pub(crate) fn callee_variant_table(module: &LlvmModule<'_>) -> CalleeVariants {
    let mut table = CalleeVariants::new();
    for info in module.functions_with_variants() {
        let signature = module.function_signature(&info.name).ok();
        let variants: Vec<VariantName> = info
            .variant_names
            .iter()
            .filter_map(|name| {
                VariantName::parse(name).ok().filter(|parsed| parsed.mangle() == *name)
            })
            .filter(|variant| variant.scalar_name == info.name)
            .map(|variant| {
                let twin = signature
                    .as_ref()
                    .and_then(|(params, ret)| gcc_avx_twin(&variant, params, ret));
                twin.unwrap_or(variant)
            })
            .collect();
        if !variants.is_empty() {
            table.insert(info.name, variants);
        }
    }
    table
}

/// GCC's name for an AVX (`c`) variant whose characteristic data type is an
/// integer or a pointer, if it differs from clang's: GCC sizes such clones
/// for 128-bit vectors (AVX has no 256-bit integer instructions), clang for
/// 256 bits, so `int f(int)` gets `_ZGVcN4v_f` from GCC and `_ZGVcN8v_f`
/// from clang's attributes. Only variants at clang's default width have one
/// (with `simdlen`, both compilers use the given width).
pub(crate) fn gcc_avx_twin(
    variant: &VariantName,
    param_types: &[Type],
    ret_ty: &Type,
) -> Option<VariantName> {
    if variant.isa != Isa::Avx || variant.params.len() != param_types.len() {
        return None;
    }
    let characteristic = characteristic_type(ret_ty, param_types, &variant.params);
    let bits = match characteristic {
        Type::Int(bits) => bits,
        _ => return None,
    };
    if variant.width != 256 / bits {
        return None;
    }
    Some(VariantName { width: 128 / bits, ..variant.clone() })
}

/// The variant's own signature (vector parameters and result as `<W x T>`),
/// if the scalar signature has one.
fn vector_signature(
    variant: &VariantName,
    params: &[Type],
    ret: &Type,
) -> Option<(Vec<Type>, Type)> {
    if variant.params.len() != params.len() {
        return None;
    }
    let mut vector_params = Vec::new();
    for (spec, ty) in variant.params.iter().zip(params) {
        vector_params.push(match spec.kind {
            ParamKind::Vector if ty.is_scalar() => ty.vector_of(variant.width),
            ParamKind::Vector | ParamKind::LinearVariableStep { .. } => return None,
            ParamKind::Uniform | ParamKind::Linear { .. } | ParamKind::LinearRef { .. } => {
                ty.clone()
            }
        });
    }
    let vector_ret = match ret {
        Type::Void => Type::Void,
        ty if ty.is_scalar() => ty.vector_of(variant.width),
        _ => return None,
    };
    Some((vector_params, vector_ret))
}

/// Annotates the calls of every `declare simd` function of `module` with the
/// variants LLVM's loop vectorizer may call (see the module docs). Returns
/// the number of calls annotated.
pub(crate) fn annotate_variant_calls(module: &mut LlvmModule<'_>) -> Result<usize, Error> {
    let mut annotated = 0;
    let mut kept = Vec::new();
    let table = callee_variant_table(module);
    let mut scalars: Vec<&String> = table.keys().collect();
    scalars.sort();
    for scalar in scalars {
        // A signature Lanewise cannot lift (a `bfloat` parameter, say) has
        // no variants to call; the function itself is refused on its own.
        let Ok((params, ret)) = module.function_signature(scalar) else { continue };
        // The newest ISA first: LLVM takes the first mapping of a width.
        let mut variants: Vec<&VariantName> = table[scalar].iter().collect();
        variants.sort_by_key(|variant| std::cmp::Reverse(variant.isa.target_features().len()));
        let mut mappings: Vec<(CallAnnotation<'_>, String)> = Vec::new();
        for variant in variants {
            // LLVM's VFABI demangler takes no name without parameters
            // (`_ZGVbN4_f`, of `f(void)`): the verifier rejects the module.
            if variant.masked || variant.params.is_empty() {
                continue;
            }
            let Some((vector_params, vector_ret)) = vector_signature(variant, &params, &ret) else {
                continue;
            };
            if !is_llvm_native_signature(&vector_params, &vector_ret, variant.isa) {
                continue;
            }
            let name = variant.mangle();
            if module.declare_function(&name, &vector_params, &vector_ret) {
                let annotation = CallAnnotation {
                    value: format!("{name}({name})"),
                    required_features: variant.isa.target_features(),
                    vector_bits: (vector_params.iter().chain([&vector_ret]))
                        .filter_map(Type::vector_bits)
                        .max()
                        .unwrap_or(0),
                };
                mappings.push((annotation, name));
            }
        }
        if !mappings.is_empty() {
            let values: Vec<CallAnnotation<'_>> =
                mappings.iter().map(|(annotation, _)| annotation.clone()).collect();
            let count = module.annotate_calls(scalar, VECTOR_FUNCTION_ABI_VARIANT, &values);
            if count > 0 {
                // Nothing but the attribute refers to the declarations:
                // GlobalOpt would delete them before the loop vectorizer runs.
                kept.extend(mappings.iter().map(|(_, name)| name.clone()));
            }
            annotated += count;
        }
    }
    module.keep_functions(&kept);
    Ok(annotated)
}
