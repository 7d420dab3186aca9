//! `--variants shared` ([`VariantSelection::Shared`](crate::VariantSelection::Shared), the default of
//! `lanewise cc` and the plugin): every variant the `_ZGV` attributes name
//! exists, but only those the module calls get bodies of their own; the
//! others are adapters over one shared body per function.
//!
//! A `declare simd` function gets four to ten variants (b, c, d, e; masked
//! and not; GCC's names of the AVX ones), all of which another file may
//! call, as the vector function ABI promises. Built in full, each costs
//! about as much to optimize and compile as the scalar function, which put
//! the plugin at 1.55x clang's compile time on tests/programs and
//! bench/kernels. Here the variants the module's own loops (or its other
//! variants) call are built in full first (the referenced ones); then per
//! function and list of parameter kinds, one *shared body*: the masked
//! variant at the widest ISA the function's target features enable, at the
//! widest width requested there (internal and `noinline` unless an
//! attribute names it). Every other variant is an *adapter*: a function
//! whose body is one call of the scalar function, widened with the shared
//! body as that callee's only variant (`WidenConfig::adapter`), so the
//! widener calls it on the adapter's lanes in parts (W/k lanes each) or
//! once, padded with inactive lanes, with the usual ABI lowering on both
//! sides (`widen/calls.rs`). A caller in another file gets vector code at
//! the shared body's width.
//!
//! Built in full instead: a variant whose adapter would call per lane (a
//! `linear` step held in a variable); every variant of a function whose
//! masked body would call per lane a function that has unmasked variants
//! only (an unmasked variant would run in inactive lanes); every variant of
//! a function `lanewise cc` names in `Options::full_variants` (another file
//! of the command declares it: its loops may call any variant).

use lanewise_ir::vfabi::{Isa, VariantName};
use lanewise_ir::{CallEffects, Callee, DataLayout, Function, FunctionBuilder, InstData};
use lanewise_llvm::LlvmModule;
use lanewise_transform::dynamic_variants::{PerLaneForm, SafetyNetMode};
use lanewise_transform::widen::CalleeVariants;

use crate::{
    has_target_feature, lift, variant_calls, vectorize_variant, widen_variant_once, Error, Options,
    ProducedFunction, Report, VariantBody,
};

/// [`VariantSelection::Shared`](crate::VariantSelection::Shared): the variants of `scalar_name` not yet
/// defined (those the module calls were built in full before), including
/// GCC's names of the AVX ones, as adapters over a shared body per list
/// of parameter kinds; those no adapter can serve get bodies of their own.
pub(crate) fn vectorize_shared(
    module: &mut LlvmModule<'_>,
    scalar_name: &str,
    requested: Vec<VariantName>,
    data_layout: &DataLayout,
    options: &Options,
    report: &mut Report,
) -> Result<Vec<String>, Error> {
    let mut wanted: Vec<VariantName> = Vec::new();
    let signature = module.function_signature(scalar_name).ok();
    for variant in requested {
        let twin = signature
            .as_ref()
            .and_then(|(params, ret)| variant_calls::gcc_avx_twin(&variant, params, ret));
        for variant in std::iter::once(variant).chain(twin) {
            if !wanted.contains(&variant) {
                wanted.push(variant);
            }
        }
    }
    let exported: Vec<String> = wanted.iter().map(VariantName::mangle).collect();
    let every_variant = wanted.clone();
    wanted.retain(|variant| !module.defines_function(&variant.mangle()));
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let scalar = lift(module, scalar_name, options, report)?;
    let target_features = module.function_target_features(scalar_name);
    // A masked body calls a function whose variants are all unmasked once
    // per active lane (an unmasked variant would run in inactive lanes):
    // then every variant gets a body of its own, as with `all`.
    let callees = variant_calls::callee_variant_table(module);
    let calls_unmasked_only = calls_of(&scalar).any(|callee| {
        callees.get(callee).is_some_and(|variants| variants.iter().all(|variant| !variant.masked))
    });
    let full = calls_unmasked_only || options.full_variants.iter().any(|name| name == scalar_name);
    let mut produced_names = Vec::new();
    let build_full = |module: &mut LlvmModule<'_>, variant: &VariantName, report: &mut Report| {
        let name = variant.mangle();
        let produced = vectorize_variant(
            module,
            &scalar,
            variant,
            &name,
            VariantBody::Full,
            data_layout,
            options,
        )?;
        report.functions.push(produced);
        Ok::<String, Error>(name)
    };
    while let Some(first) = wanted.first().cloned() {
        let (group, rest): (Vec<VariantName>, Vec<VariantName>) =
            wanted.into_iter().partition(|variant| variant.params == first.params);
        wanted = rest;
        // Chosen among all the variants of the group, built already or not.
        let kin: Vec<VariantName> = every_variant
            .iter()
            .filter(|variant| variant.params == first.params)
            .cloned()
            .collect();
        let shared = if full { None } else { shared_body(&kin, &target_features) };
        let Some(shared) = shared else {
            for variant in &group {
                produced_names.push(build_full(module, variant, report)?);
            }
            continue;
        };
        let shared_name = shared.mangle();
        if !module.defines_function(&shared_name) {
            produced_names.push(build_full(module, &shared, report)?);
            if !exported.contains(&shared_name) {
                module.make_internal(&shared_name)?;
            }
            // Only adapters call it: a copy of it in each of them would
            // only cost compile time.
            module.make_noinline(&shared_name)?;
        }
        for variant in group.iter().filter(|variant| **variant != shared) {
            let name = variant.mangle();
            let adapter = vectorize_variant(
                module,
                &scalar,
                variant,
                &name,
                VariantBody::Adapter(&shared),
                data_layout,
                options,
            );
            match adapter {
                Ok(produced) => {
                    report.functions.push(produced);
                    produced_names.push(name);
                }
                Err(_) => produced_names.push(build_full(module, variant, report)?),
            }
        }
    }
    Ok(produced_names)
}

/// The names of the functions `func` calls directly.
fn calls_of(func: &Function) -> impl Iterator<Item = &str> {
    func.layout.insts().filter_map(|inst| match func.dfg.inst(inst) {
        InstData::Call { callee: Callee::Direct(name), .. }
        | InstData::Invoke { callee: Callee::Direct(name), .. } => Some(name.as_str()),
        _ => None,
    })
}

/// The shared body of `group` (variants with the same parameter kinds):
/// the masked variant at the widest ISA the target features enable that
/// the group has, at the group's widest width there. `None` if the group
/// has no variant at such an ISA.
fn shared_body(group: &[VariantName], target_features: &str) -> Option<VariantName> {
    let enabled = |isa: Isa| match isa {
        Isa::Sse => true,
        Isa::Avx => has_target_feature(target_features, "+avx"),
        Isa::Avx2 => has_target_feature(target_features, "+avx2"),
        Isa::Avx512 => has_target_feature(target_features, "+avx512f"),
    };
    let rank =
        |isa: Isa| [Isa::Sse, Isa::Avx, Isa::Avx2, Isa::Avx512].iter().position(|&i| i == isa);
    group
        .iter()
        .filter(|variant| enabled(variant.isa))
        .max_by_key(|variant| (rank(variant.isa), variant.width))
        .map(|variant| VariantName { masked: true, ..variant.clone() })
}

/// An adapter of `scalar` as `variant` over its `shared` body: a function
/// whose body is one call of `scalar`, widened with only `shared` to call
/// (see `WidenConfig::adapter`). An error if the widened call does not
/// call `shared` for all lanes (then the variant needs a body of its own).
pub(crate) fn widen_adapter(
    scalar: &Function,
    variant: &VariantName,
    name: &str,
    shared: &VariantName,
    data_layout: &DataLayout,
    target_features: &str,
    options: &Options,
) -> Result<(Function, ProducedFunction), Error> {
    let param_types = scalar.params.iter().map(|param| param.ty.clone()).collect();
    let mut call_of_scalar =
        Function::new(format!("{}.adapter", scalar.name), param_types, scalar.ret_ty.clone());
    let mut builder = FunctionBuilder::new(&mut call_of_scalar);
    let entry = builder.create_block(Some("entry"));
    builder.switch_to_block(entry);
    let args = builder.func.params.iter().map(|param| param.value).collect();
    let callee = Callee::Direct(scalar.name.clone());
    let call = builder.call(callee, args, scalar.ret_ty.clone(), CallEffects::SideEffects);
    let result = builder.func.dfg.result(call);
    builder.ret(result);
    let callee_variants = CalleeVariants::from([(scalar.name.clone(), vec![shared.clone()])]);
    let (vector, mut produced) = widen_variant_once(
        &call_of_scalar,
        variant,
        name,
        data_layout,
        &callee_variants,
        target_features,
        options,
        SafetyNetMode::Off,
        PerLaneForm::ScalarCalls,
        true,
    )?;
    if produced.calls.per_lane > 0 || produced.calls.vector_variant == 0 {
        return Err(Error::Variant {
            variant: name.to_owned(),
            message: format!("cannot call the shared body `{}`", shared.mangle()),
        });
    }
    produced.shared_body = Some(shared.mangle());
    Ok((vector, produced))
}
