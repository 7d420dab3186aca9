//! Lanes-independent functions: a `declare simd` function whose author
//! declares (`RV_LANES_INDEPENDENT` in `lanewise/rv.h`, clang's
//! `annotate("lanewise.lanes-independent")`, or `--lanes-independent NAME`
//! for IR without the annotation) that what each lane computes
//! and does does not depend on which lanes run together, so its SPMD
//! builtins only decide how the lanes share work. PLDI'18's lock-step tree
//! walk is the example: a child is pushed when any lane wants it, which
//! loads each node once for all lanes when the lanes' paths agree, and
//! visits the union of their paths when they do not (random queries ran at
//! 0.7x of the scalar walk).
//!
//! Such a function has a second form, its *one-lane form*: the same code
//! with the builtins' one-lane meaning (`rv_any(b) = b`,
//! `one_lane_builtins::substitute_one_lane_builtins`), in which each lane
//! walks its own path. Its variants are built next to the function's (as
//! the internal `_ZGV..._<f>.one_lane`, with the usual safety net towards
//! per-lane scalar calls), and the function's own variants get a safety
//! net that chooses, call by call, between the lock-step body and one call
//! of the one-lane variant (`dynamic_variants::safety_net`,
//! `PerLaneForm::OneLaneVariant`). Without the annotation nothing changes:
//! the builtins' W-lane meaning is what the code asks for.

use lanewise_ir::vfabi::VariantName;
use lanewise_ir::Function;
use lanewise_llvm::LlvmModule;
use lanewise_transform::dynamic_variants::SafetyNetMode;
use lanewise_transform::one_lane_builtins::substitute_one_lane_builtins;

use crate::Options;

/// The annotation that declares a function lanes-independent.
pub const LANES_INDEPENDENT: &str = "lanewise.lanes-independent";

/// The name the net's one call of the one-lane form uses for `scalar_name`
/// (a key of the callee variant table, not a function of the module).
pub(crate) fn one_lane_callee(scalar_name: &str) -> String {
    format!("{scalar_name}.one_lane")
}

/// The variant of the one-lane form that the net of `variant` calls: the
/// same ISA, width and parameters, masked (full linearization puts the
/// net's call under a mask, and a masked variant serves any call site).
pub(crate) fn one_lane_variant(variant: &VariantName) -> VariantName {
    VariantName {
        scalar_name: one_lane_callee(&variant.scalar_name),
        masked: true,
        ..variant.clone()
    }
}

/// The one-lane form of `scalar` (same name, the builtins replaced), if
/// `scalar` is declared lanes-independent (the annotation, or
/// `Options::lanes_independent`), calls SPMD builtins, and its variants get
/// safety nets (`--safety-net` not `off`, no utilization instrumentation,
/// which measures the vector body).
pub(crate) fn one_lane_form(
    module: &LlvmModule<'_>,
    scalar: &Function,
    options: &Options,
) -> Option<Function> {
    let declared = options.safety_net != SafetyNetMode::Off
        && !options.instrument_utilization
        && (options.lanes_independent.contains(&scalar.name)
            || module.annotated_functions(LANES_INDEPENDENT).contains(&scalar.name));
    if !declared {
        return None;
    }
    let mut form = scalar.clone();
    // Without a builtin there is no other form (and its own variant, whose
    // builtins are gone, ends here).
    (substitute_one_lane_builtins(&mut form) > 0).then_some(form)
}
