//! `#pragma omp simd` loops (`Options::simd_loops`): the orchestration of
//! `lanewise_transform::loop_vectorize` over an LLVM module.
//!
//! For every defined function with a loop that clang marked
//! (`llvm.loop.vectorize.enable`) and LLVM's loop vectorizer left scalar:
//! lift it (the canonical lift of the whole-function pipeline), then for each
//! outermost marked loop: plan it, outline its body, run the whole-function
//! pipeline ([`super::widen_variant`]) on the body for an unmasked and a
//! masked variant of width W, add both as internal `alwaysinline` functions
//! (no vector ABI: only this module calls them), choose the tail
//! (`loop_vectorize::tail`: the masked call, a scalar remainder loop calling
//! the body `B` itself, added as `<B>.scalar`, or a run-time choice; the
//! masked variant is dropped when no tail calls it; `Options::simd_tail`
//! forces one form), and rewrite the loop into a chunk loop plus that tail.
//! When at least one loop was rewritten, the rewritten function replaces
//! the original's body in place (`LlvmModule::replace_function_body`),
//! keeping its linkage, attributes and debug subprogram; its instructions
//! lose their metadata (TBAA, debug locations), which only costs
//! optimization and line tables.
//!
//! Every loop gets a remark: `Passed` ("vectorized loop at W=8 (masked
//! tail, 2 reductions)", "... (scalar remainder, ...)", "... (masked tail
//! or scalar remainder (run-time choice at 3 iterations), ...)", "...,
//! 1 divergent loop narrowed)") or `Missed` with the reason. The divergent
//! loops of the bodies are narrowed (`crate::finish_variant`) after the
//! cost models have weighed the bodies without their narrow copies. A refusal never changes the function.
//! W is the data profile's (`DataProfile::choose_width`), doubled (and the
//! variant widened again) on AVX-512 for inner loops whose data-dependent
//! loads narrowing cannot take, and from 32 to 64 for bodies whose inner
//! loop waits on a recurrence (`loop_vectorize::latency`; the remark says
//! "W doubled").
//! Functions that already hold vector code (a loop LLVM did vectorize) are
//! lifted without the scalarizer
//! (`lift_canonical` with `Scalarize::No`), so LLVM's vector code
//! round-trips unchanged and only the outlined (scalar) loop body is
//! widened; a loop body that itself holds vector code is refused.
//! C++ exception handling (`invoke`, landing pads: a `std::vector` or a
//! `try` block around the loop) lifts and lowers back with the function's
//! personality; in a loop body, an `invoke` whose landing pad lies outside
//! the loop becomes a call (`loop_vectorize::exceptions`), a catch inside
//! the body is refused.
//!
//! Profitability (`Options::simd_loops_cost`, on by default): after the
//! unmasked variant is widened, `loop_vectorize::profit` compares its
//! estimated cost per lane with the scalar body's; a loop whose inner loop
//! gathers or scatters on every iteration and whose vector form the model
//! finds clearly slower is refused (`Missed`: "not profitable: ..."), before
//! anything is added to the module.
//!
//! W: the `vectorize.width` hint (simdlen) if given, else the cheapest per
//! lane for the body's data profile on the ISA's registers
//! (`loop_vectorize::width`): the register width divided by the widest data
//! type (8 x 32-bit on AVX2, 16 on AVX-512F, 4 on SSE) unless narrower data
//! dominates the work, as a `float` inner loop next to a few `double`
//! accumulations does. Pointers and `i64` index arithmetic are not data (an
//! i64 inner counter halving W made gcd_pairs 0.8x instead of 1.14x). The ISA
//! is the best the function's `target-features` allow.

use std::collections::HashSet;

use lanewise_analysis::loops::LoopInfo;
use lanewise_analysis::{ControlFlowGraph, DominatorTree};
use lanewise_ir::vfabi::{Isa, ParamKind, ParamSpec, VariantName};
use lanewise_ir::{DataLayout, Function};
use lanewise_llvm::{LlvmModule, SimdLoopFunction};
use lanewise_transform::loop_vectorize::conditional_lastprivate::simplify_conditional_lastprivate;
use lanewise_transform::loop_vectorize::narrow::narrow_truncated_phis;
use lanewise_transform::loop_vectorize::recurrence::rematerialize_load_recurrences;
use lanewise_transform::loop_vectorize::{
    choose_tail, find_simd_loops, outline_loop_body, plan_simd_loop, rewrite_loop,
    scalar_remainder_body, widen_truncated_exit_test, LoopCallTargets, SimdLoopCandidate,
    TailCosts,
};
use lanewise_transform::loop_vectorize::{latency, profit};

use crate::pass_times::time;
use crate::{
    check, finish_variant, lift_canonical, widen_masks_below_avx512vl, widen_variant, Error,
    Options, Pass, Remark, RemarkKind, Report, Scalarize,
};

/// Vectorizes the marked loops of every function of `module`; returns the
/// names of the functions added (the vectorized bodies). Refusals become
/// `Missed` remarks; errors of Lanewise itself (a verifier) fail the run
/// unless `options.keep_going`.
pub(crate) fn vectorize_simd_loops(
    module: &mut LlvmModule<'_>,
    data_layout: &DataLayout,
    options: &Options,
    report: &mut Report,
) -> Result<Vec<String>, Error> {
    let mut produced = Vec::new();
    for function in module.simd_loop_functions() {
        let missed = |message: String| Remark {
            kind: RemarkKind::Missed,
            function: function.name.clone(),
            location: String::new(),
            message,
        };
        match vectorize_function_loops(module, &function, data_layout, options, report) {
            Ok(names) => produced.extend(names),
            Err(error) if error.is_internal() && !options.keep_going => return Err(error),
            Err(error) => report.remarks.push(missed(format!("loop not vectorized: {error}"))),
        }
    }
    Ok(produced)
}

/// The ISA the function's `target-features` allow at best.
fn best_isa(target_features: &str) -> Isa {
    let has = |feature: &str| target_features.split(',').any(|entry| entry == feature);
    if has("+avx512f") {
        Isa::Avx512
    } else if has("+avx2") {
        Isa::Avx2
    } else if has("+avx") {
        Isa::Avx
    } else {
        Isa::Sse
    }
}

/// All marked loops of one function. Returns the added functions; on any
/// error after the first added function, they are deleted again.
fn vectorize_function_loops(
    module: &mut LlvmModule<'_>,
    function: &SimdLoopFunction,
    data_layout: &DataLayout,
    options: &Options,
    report: &mut Report,
) -> Result<Vec<String>, Error> {
    // Vector code elsewhere in the function (a loop LLVM vectorized) is
    // lifted as it is, not scalarized: only the outlined loop body is widened.
    let scalarize = if function.has_vector_code { Scalarize::No } else { Scalarize::Yes };
    let mut lifted = lift_canonical(module, &function.name, scalarize)?;
    // A switch whose default cannot happen branches to `unreachable`; inside
    // a SIMD loop that edge would be a second loop exit.
    lanewise_transform::cfg_canon::fold_branches_to_unreachable(&mut lifted);
    crate::make_reducible(&mut lifted, report)?;
    check(&lifted, Pass::Lift, options)?;
    let mut work = lifted;
    let mut refused: HashSet<lanewise_ir::Inst> = HashSet::new();
    let mut added: Vec<String> = Vec::new();
    let mut passed = Vec::new();
    let result = (|| -> Result<(), Error> {
        loop {
            let cfg = ControlFlowGraph::compute(&work);
            let domtree = DominatorTree::compute(&work, &cfg);
            let loops = LoopInfo::compute(&work, &cfg, &domtree).map_err(|error| {
                Error::Analysis { function: work.name.clone(), message: error.to_string() }
            })?;
            let Some(candidate) = find_simd_loops(&work, &loops, &refused).into_iter().next()
            else {
                return Ok(());
            };
            // GVN's load PRE (stencils: `in[i]` carried over from the
            // previous iteration's `in[i + 1]`) back into loads; only the
            // header changes, so `loops` stays valid.
            rematerialize_load_recurrences(&mut work, &loops, &candidate);
            let location =
                candidate.hints.location.clone().unwrap_or_else(|| {
                    format!("loop at block %{}", work.block_name(candidate.header))
                });
            // clang's `lastprivate(conditional:)`: the iteration number of
            // the last assignment read from its global, which the lanes
            // share, rather than from register copies.
            if let Err(refusal) = simplify_conditional_lastprivate(&mut work, &loops, &candidate) {
                refused.insert(candidate.latch_branch);
                report.remarks.push(Remark {
                    kind: RemarkKind::Missed,
                    function: function.name.clone(),
                    location,
                    message: format!("loop not vectorized: {refusal}"),
                });
                continue;
            }
            let serial = passed.len();
            match vectorize_loop(
                module,
                &mut work,
                &loops,
                &candidate,
                serial,
                function,
                data_layout,
                options,
                report,
            ) {
                Ok((names, message)) => {
                    added.extend(names);
                    passed.push(Remark {
                        kind: RemarkKind::Passed,
                        function: function.name.clone(),
                        location,
                        message,
                    });
                }
                Err(error) if error.is_internal() && !options.keep_going => return Err(error),
                Err(error) => {
                    refused.insert(candidate.latch_branch);
                    report.remarks.push(Remark {
                        kind: RemarkKind::Missed,
                        function: function.name.clone(),
                        location,
                        message: format!("loop not vectorized: {error}"),
                    });
                }
            }
        }
    })()
    .and_then(|()| {
        if added.is_empty() {
            return Ok(());
        }
        check(&work, Pass::Lift, options)?;
        time("lower", || module.replace_function_body(&work))?;
        Ok(())
    });
    match result {
        Ok(()) => {
            if !added.is_empty() {
                report.rewritten_functions.push(work.name.clone());
            }
            report.remarks.extend(passed);
            Ok(added)
        }
        Err(error) => {
            for name in &added {
                module.delete_function(name);
            }
            report.functions.retain(|produced| !added.contains(&produced.name));
            Err(error)
        }
    }
}

/// One loop: plan, outline, vectorize the body twice, rewrite. Returns the
/// added functions and the `Passed` message.
#[allow(clippy::too_many_arguments)]
fn vectorize_loop(
    module: &mut LlvmModule<'_>,
    work: &mut Function,
    loops: &LoopInfo,
    candidate: &SimdLoopCandidate,
    serial: usize,
    function: &SimdLoopFunction,
    data_layout: &DataLayout,
    options: &Options,
    report: &mut Report,
) -> Result<(Vec<String>, String), Error> {
    let target_features = function.target_features.as_str();
    let isa = best_isa(target_features);
    let function_name = work.name.clone();
    let refusal = |message: String| Error::Analysis { function: function_name.clone(), message };
    // `parallel for simd` under -fopenmp tests the truncated counter.
    widen_truncated_exit_test(work, loops, candidate);
    let plan = time("simd loops: plan", || plan_simd_loop(work, loops, candidate))
        .map_err(|r| refusal(r.message))?;
    let forced_width = candidate.hints.width.filter(|width| *width >= 2);
    let mut width =
        forced_width.unwrap_or_else(|| plan.data_profile.choose_width(isa.register_bits()));
    if width > 64 {
        return Err(refusal(format!("vectorize.width {width} is wider than 64 lanes")));
    }
    let body_name = format!("{}.lanewise.loop{serial}", work.name);
    let body = time("simd loops: outline", || {
        let mut body = outline_loop_body(work, &plan, &body_name, data_layout);
        // indvars' i64 counters used as i32 after an inner loop: track the i32.
        narrow_truncated_phis(&mut body);
        body
    });
    check(&body, Pass::Lift, options)?;
    // Lifted with the scalarizer, the body holds short vectors only where
    // they cross a call or a phi the scalarizer left whole; widening packs
    // those (`widen::short_vectors`). Lifted keeping LLVM's vector code, a
    // vector in the body is LLVM's vectorizer's work: refused.
    if function.has_vector_code && holds_vector_values(&body) {
        return Err(refusal(
            "the loop body already holds vector code (LLVM vectorized part of it)".to_owned(),
        ));
    }
    let params: Vec<ParamSpec> = plan
        .body_param_steps()
        .into_iter()
        .map(|step| ParamSpec {
            kind: match step {
                Some(step) => ParamKind::Linear { step },
                None => ParamKind::Uniform,
            },
            align: None,
        })
        .collect();

    let mut names: Vec<String> = Vec::new();
    let mut mask_param_types = Vec::new();
    let mut masked_body = None;
    let mut narrowed_loops = 0;
    let mut exit_stable_loops = 0;
    let mut not_narrowed: Vec<(String, String)> = Vec::new();
    let mut may_double_width =
        forced_width.is_none() && plan.data_profile.has_data_dependent_loads();
    let mut may_double_for_latency = forced_width.is_none() && isa.register_bits() == 512;
    let mut latency_note = None;
    let mut masked = false;
    loop {
        let name = format!("{body_name}.x{width}{}", if masked { ".masked" } else { "" });
        let variant = VariantName {
            isa,
            masked,
            width,
            params: params.clone(),
            scalar_name: body_name.clone(),
        };
        // widen_variant adds the entry-mask parameter of the masked variant.
        let callee_variants =
            time("callee variant table", || crate::variant_calls::callee_variant_table(module));
        let (mut vector, mut produced) = widen_variant(
            &body,
            &variant,
            &name,
            data_layout,
            &callee_variants,
            target_features,
            options,
            // The outlined body reads its iteration through the SPMD
            // builtins: it cannot run per lane.
            crate::SafetyNetMode::Off,
            lanewise_transform::dynamic_variants::PerLaneForm::ScalarCalls,
        )?;
        // The cost models weigh the vector body without narrow copies of
        // its divergent loops (they count every loop once).
        let mut estimated = vector.clone();
        widen_masks_below_avx512vl(&mut estimated, isa, target_features);
        // An inner loop bound by the latency of its recurrence: twice the
        // lanes in about the same time (`loop_vectorize::latency`). From
        // two registers of 32-bit lanes to four only: W = 16 on AVX-512
        // means 64-bit data or byte accesses, which twice the lanes made
        // slower (double_math 0.93x, string_lengths 0.65x).
        if !masked && may_double_for_latency && width == 32 {
            may_double_for_latency = false;
            let loop_latency = latency::latency_bound(&estimated, isa.register_bits());
            if let Some(loop_latency) = loop_latency.filter(|l| l.is_latency_bound()) {
                latency_note = Some(format!(
                    "W doubled: an inner loop waits on a {}-cycle recurrence, its \
                     instructions take {} cycles",
                    loop_latency.recurrence_cycles, loop_latency.throughput_cycles
                ));
                may_double_width = false;
                width *= 2;
                continue;
            }
        }
        if masked {
            mask_param_types =
                vector.params[body.params.len()..].iter().map(|param| param.ty.clone()).collect();
            masked_body = Some(estimated);
        } else if options.simd_loops_cost {
            // Gathers in inner loops can make the vector body slower than
            // the scalar one (loop_vectorize::profit): then the loop stays.
            let estimate = profit::estimate(&body, &estimated, width, isa.register_bits());
            if let Some(estimate) = estimate.filter(|estimate| estimate.is_unprofitable()) {
                return Err(refusal(estimate.refusal_message()));
            }
        }
        let expands_gathers = crate::variant::expands_gathers(module, &work.name, isa, options);
        let left_wide = finish_variant(
            &mut vector,
            &mut produced,
            isa,
            target_features,
            expands_gathers,
            data_layout,
            options,
        )?;
        // An inner loop whose loads wait for the previous iteration's data
        // (a binary search) and that narrowing cannot take: twice the lanes
        // (four registers per value) hide more of the load latency instead
        // (table_lookup_gather 1.12x faster; where narrowing takes such a
        // loop, tests/programs/narrowed_lanes, narrowing is worth 1.4x).
        if !masked && may_double_width && !left_wide.is_empty() && width * 2 <= 64 {
            may_double_width = false;
            width *= 2;
            continue;
        }
        let added = time("lower", || {
            module.add_internal_function(
                &vector,
                &work.name,
                &crate::variant::lowering_features(isa, &produced.memory),
            )
        });
        if let Err(error) = added {
            for name in &names {
                module.delete_function(name);
            }
            return Err(error.into());
        }
        if !masked {
            narrowed_loops = produced.loops.narrowed;
            exit_stable_loops = produced.loops.exit_stable;
            not_narrowed = left_wide;
        }
        report.functions.push(produced);
        names.push(name);
        if masked {
            break;
        }
        masked = true;
    }
    // The tail: the masked call, the scalar remainder or a run-time choice
    // (`loop_vectorize::tail`).
    let masked_body = masked_body.expect("the masked variant was produced");
    let scalar = scalar_remainder_body(&body, &format!("{body_name}.scalar"));
    let targets = LoopCallTargets {
        width,
        unmasked: names[0].clone(),
        masked: names[1].clone(),
        scalar: scalar.name.clone(),
        mask_param_types,
    };
    let slots = plan.slot_count();
    let costs = TailCosts::estimate(&scalar, &masked_body, isa.register_bits(), slots);
    let form = choose_tail(options.simd_tail, &costs, width);
    if form.runs_scalar() {
        let added = check(&scalar, Pass::Lift, options).and_then(|()| {
            time("lower", || module.add_internal_function(&scalar, &work.name, &[]))
                .map_err(Error::from)
        });
        if let Err(error) = added {
            for name in &names {
                module.delete_function(name);
            }
            return Err(error);
        }
        names.push(scalar.name.clone());
    }
    if !form.calls_masked() {
        module.delete_function(&targets.masked);
        report.functions.retain(|produced| produced.name != targets.masked);
        names.retain(|name| *name != targets.masked);
    }
    let rewritten =
        time("simd loops: rewrite", || rewrite_loop(work, &plan, &targets, form, data_layout));
    if let Err(refused) = rewritten {
        for name in &names {
            module.delete_function(name);
        }
        return Err(refusal(refused.message));
    }
    let mut details = vec![form.to_string()];
    if !plan.reductions.is_empty() {
        details.push(format!(
            "{} reduction{} ({})",
            plan.reductions.len(),
            if plan.reductions.len() == 1 { "" } else { "s" },
            plan.reductions
                .iter()
                .map(|r| if r.scan { format!("{} scan", r.kind) } else { r.kind.to_string() })
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !plan.last_private.is_empty() {
        details.push(format!("{} lastprivate", plan.last_private.len()));
    }
    if plan.inductions.len() > 1 {
        details.push(format!("{} linear", plan.inductions.len() - 1));
    }
    details.extend(latency_note);
    if narrowed_loops > 0 {
        details.push(format!(
            "{narrowed_loops} divergent loop{} narrowed",
            if narrowed_loops == 1 { "" } else { "s" }
        ));
    }
    if exit_stable_loops > 0 {
        details.push(format!(
            "{exit_stable_loops} exit-stable divergent loop{} (no trackers)",
            if exit_stable_loops == 1 { "" } else { "s" }
        ));
    }
    // Where narrowing applies (AVX-512), why a divergent loop kept its width.
    for (header, reason) in &not_narrowed {
        details.push(format!("divergent loop at %{header} not narrowed: {reason}"));
    }
    Ok((names, format!("vectorized loop at W={width} ({})", details.join(", "))))
}

/// Whether a parameter, instruction result or operand of `function` has a
/// vector type: widening works on scalar code only, so such a loop body is refused.
fn holds_vector_values(function: &Function) -> bool {
    function.params.iter().any(|param| param.ty.is_vector())
        || function.layout.insts().any(|inst| {
            let is_vector = |value| function.dfg.value_type(value).is_vector();
            function.dfg.result(inst).is_some_and(is_vector)
                || function.dfg.inst(inst).operands().into_iter().any(is_vector)
        })
}
