//! The pipeline of one variant, straight-line: the safety net, the memory
//! layout, BOSCC, linearization, shapes, widening ([`widen_variant_once`]),
//! then narrowing of divergent loops and mask registers ([`finish_variant`]),
//! the vector ABI and lowering into the LLVM module ([`vectorize_variant`]).

use super::*;

/// Regions that cost less than this are not worth an `any` test and a
/// branch (Shin's profitability concern, as a threshold): an instruction
/// costs 1, a gather, scatter or per-lane call W (see `boscc_region_costs`).
const BOSCC_MIN_REGION_COST: usize = 24;

/// The pipeline for one variant of one scalar function. Returns what the
/// report says about the produced function.
pub(crate) fn vectorize_variant(
    module: &mut LlvmModule<'_>,
    scalar: &Function,
    variant: &VariantName,
    name: &str,
    body: VariantBody<'_>,
    data_layout: &DataLayout,
    options: &Options,
) -> Result<ProducedFunction, Error> {
    let target_features = module.function_target_features(&scalar.name);
    let (mut vector, mut produced) = match body {
        VariantBody::Full => {
            let mut callee_variants = pass_times::time("callee variant table", || {
                variant_calls::callee_variant_table(module)
            });
            // A lanes-independent function's net calls the variant of its
            // one-lane form, built first (`lanes_independent`).
            let one_lane = add_one_lane_variant(module, scalar, variant, data_layout, options);
            let one_lane_callee = lanes_independent::one_lane_callee(&scalar.name);
            let per_lane_form = match &one_lane {
                Some((one_lane, _)) => {
                    callee_variants.insert(one_lane_callee.clone(), vec![one_lane.clone()]);
                    PerLaneForm::OneLaneVariant(&one_lane_callee)
                }
                None => PerLaneForm::ScalarCalls,
            };
            let (vector, mut produced) = widen_variant(
                scalar,
                variant,
                name,
                data_layout,
                &callee_variants,
                &target_features,
                options,
                options.safety_net,
                per_lane_form,
            )?;
            if produced.safety_net {
                produced.one_lane_variant =
                    one_lane.and_then(|(_, one_lane_produced)| one_lane_produced).map(Box::new);
            }
            (vector, produced)
        }
        VariantBody::Adapter(shared) => shared_variants::widen_adapter(
            scalar,
            variant,
            name,
            shared,
            data_layout,
            &target_features,
            options,
        )?,
    };
    if produced.safety_net && options.safety_net == SafetyNetMode::Adaptive {
        let state = safety_net_state(name);
        let name_symbol = lanewise_transform::dynamic_variants::net_name_symbol(&state);
        module.add_safety_net_state(&state, &name_symbol, name)?;
    }
    let expands_gathers = expands_gathers(module, &scalar.name, variant.isa, options);
    finish_variant(
        &mut vector,
        &mut produced,
        variant.isa,
        &target_features,
        expands_gathers,
        data_layout,
        options,
    )?;
    pass_times::time("vector abi", || lower_vector_abi(&mut vector, variant.isa));
    check(&vector, Pass::Abi, options)?;

    pass_times::time("lower", || {
        module.add_vector_function(
            &vector,
            &scalar.name,
            &lowering_features(variant.isa, &produced.memory),
        )
    })?;
    if produced.safety_net {
        module.redirect_calls(name, &per_lane_callee(&scalar.name), &scalar.name);
    }
    if wants_dump(options, Pass::Lower) {
        eprintln!("; *** IR after lower: {name} ***\n{}", module.function_text(name)?);
    }
    Ok(produced)
}

/// The variant of `scalar`'s one-lane form that `variant`'s net calls, if
/// `scalar` is lanes-independent (`lanes_independent::one_lane_form`):
/// built as an internal function unless the module has it (then its report
/// is `None`), or `None` if it cannot be built (then the variant has no
/// such net).
fn add_one_lane_variant(
    module: &mut LlvmModule<'_>,
    scalar: &Function,
    variant: &VariantName,
    data_layout: &DataLayout,
    options: &Options,
) -> Option<(VariantName, Option<ProducedFunction>)> {
    let form = lanes_independent::one_lane_form(module, scalar, options)?;
    let one_lane = lanes_independent::one_lane_variant(variant);
    let name = one_lane.mangle();
    if module.defines_function(&name) {
        return Some((one_lane, None));
    }
    // The form calls no builtin: its own variant has the usual net,
    // except when the nets are forced to their other form, which for
    // the function is this variant's vector body (so that a test of the
    // forced forms runs it).
    let masked = VariantName { masked: true, ..variant.clone() };
    let mut form_options = options.clone();
    if form_options.safety_net == SafetyNetMode::PerLane {
        form_options.safety_net = SafetyNetMode::Off;
    }
    let produced = vectorize_variant(
        module,
        &form,
        &masked,
        &name,
        VariantBody::Full,
        data_layout,
        &form_options,
    )
    .ok()?;
    module.make_internal(&name).ok()?;
    if options.cleanup {
        pass_times::time("llvm: cleanup pipeline", || module.cleanup(&[name])).ok()?;
    }
    Some((one_lane, Some(produced)))
}

/// The pipeline for one variant up to widening (no vector ABI): the vector
/// function in the Lanewise IR and what the report says about it.
/// `target_features` are those of the function the variant is added to
/// (they decide whether AVX-512 scatters may be used below AVX-512's ABI).
/// `safety_net` applies to variants with a divergent loop that may run per
/// lane; one whose per-lane form cannot be widened is produced without.
#[allow(clippy::too_many_arguments)]
pub(crate) fn widen_variant(
    scalar: &Function,
    variant: &VariantName,
    name: &str,
    data_layout: &DataLayout,
    callee_variants: &CalleeVariants,
    target_features: &str,
    options: &Options,
    safety_net: SafetyNetMode,
    per_lane_form: PerLaneForm<'_>,
) -> Result<(Function, ProducedFunction), Error> {
    let widen = |safety_net| {
        widen_variant_once(
            scalar,
            variant,
            name,
            data_layout,
            callee_variants,
            target_features,
            options,
            safety_net,
            per_lane_form,
            false,
        )
    };
    match widen(safety_net) {
        Err(_) if safety_net != SafetyNetMode::Off => widen(SafetyNetMode::Off),
        result => result,
    }
}

/// The record of `variant`'s run-time safety net (a thread-local global;
/// not named `_ZGV...`, which tools read as a vector function).
fn safety_net_state(variant: &str) -> String {
    format!("__lanewise_net.{variant}")
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn widen_variant_once(
    scalar: &Function,
    variant: &VariantName,
    name: &str,
    data_layout: &DataLayout,
    callee_variants: &CalleeVariants,
    target_features: &str,
    options: &Options,
    safety_net: SafetyNetMode,
    per_lane_form: PerLaneForm<'_>,
    adapter: bool,
) -> Result<(Function, ProducedFunction), Error> {
    let analysis_error =
        |message: String| Error::Analysis { function: scalar.name.clone(), message };
    let variant_error = |message: String| Error::Variant { variant: name.to_owned(), message };

    // A call that may throw (C++ `invoke`) cannot run for W lanes at once:
    // refused before any analysis looks at the unwind edges.
    refuse_exception_handling(scalar).map_err(|error| variant_error(error.to_string()))?;
    refuse_types_without_vector_abi(scalar, &variant.params).map_err(variant_error)?;

    // The scalar function is rewritten (masked entry, linearization) on a copy.
    let mut work = scalar.clone();
    let mut params = variant.params.clone();
    let entry_mask = variant.masked.then(|| {
        params.push(ParamSpec { kind: ParamKind::Vector, align: None });
        add_entry_mask_param(&mut work)
    });

    // Divergence analysis (shapes with sync dependence) on the scalar code.
    let divergence = |work: &Function| -> Result<(LoopInfo, DivergenceInfo), Error> {
        pass_times::time("divergence analysis", || {
            let cfg = ControlFlowGraph::compute(work);
            let domtree = DominatorTree::compute(work, &cfg);
            let postdom = PostDominatorTree::compute(work, &cfg);
            let loops = LoopInfo::compute(work, &cfg, &domtree)
                .map_err(|error| analysis_error(error.to_string()))?;
            let divergence = DivergenceInfo::compute(
                work,
                &cfg,
                &domtree,
                &postdom,
                &loops,
                data_layout,
                &params,
            )
            .map_err(|error| analysis_error(error.to_string()))?;
            Ok((loops, divergence))
        })
    };
    let analyze = |work: &Function| -> Result<(LoopInfo, DivergenceFacts), Error> {
        let (loops, divergence) = divergence(work)?;
        let facts = pass_times::time("divergence analysis", || {
            DivergenceFacts::from_divergence_info(work, &divergence, &loops)
        });
        Ok((loops, facts))
    };

    // The run-time safety net: a variant whose lanes may leave a loop at
    // different times can lose to scalar code, depending on the data, so
    // it chooses per call between its vector body and per-lane calls; a
    // lanes-independent function's body (a lock-step walk) between it and
    // its one-lane form. `--instrument-utilization` measures the vector
    // body, so it runs without the net.
    let with_safety_net = safety_net != SafetyNetMode::Off
        && !options.instrument_utilization
        && match per_lane_form {
            PerLaneForm::ScalarCalls => {
                may_run_per_lane(&work, &options.group_functions)
                    && !divergence(&work)?.1.divergent_loops().is_empty()
            }
            PerLaneForm::OneLaneVariant(_) => true,
        }
        && pass_times::time("safety net", || {
            add_safety_net(
                &mut work,
                &scalar.name,
                scalar.params.len(),
                per_lane_form,
                safety_net,
                &safety_net_state(name),
            )
        });

    // Private arrays of structs become one array per member (WPMVP'18), so
    // that each member gets its own shape. Private memory that all lanes
    // write alike (a stack pushed in lock step) stays one scalar copy
    // (WPMVP'18 2.2.2); the other private arrays accessed cell by cell get
    // one lane-interleaved buffer, so uniform indices give vector accesses
    // (and byte cells at varying indices become 4-byte cells, which x86
    // gathers and scatters move).
    let (split_structs, uniform_allocas, interleaved) =
        pass_times::time("memory layout", || -> Result<_, Error> {
            let split_structs = split_private_structs(&mut work, data_layout);
            let uniform_allocas =
                share_uniform_allocas(&mut work, |work| divergence(work).map(|(_, info)| info))?;
            let has_allocas = work
                .layout
                .insts()
                .any(|inst| matches!(work.dfg.inst(inst), InstData::Alloca { .. }));
            // Wide cells go where an index varies; `--wide-cells off` sees
            // none vary, so every array keeps its values' own size.
            let shapes = if has_allocas && options.wide_cells {
                Some(divergence(&work)?.1.shapes)
            } else {
                None
            };
            let index_varies =
                |value| shapes.as_ref().is_some_and(|shapes| !shapes.is_uniform(value));
            let interleaved =
                interleave_private_arrays(&mut work, variant.width, data_layout, &index_varies);
            Ok((split_structs, uniform_allocas, interleaved))
        })?;

    let (mut loops, mut facts) = analyze(&work)?;

    // A divergent loop nested in a divergent loop becomes one loop, in which
    // each lane waits only for the lane with the most steps. The shapes (for
    // the costs) are computed again only where such a nest exists.
    let has_divergent_nest = loops.loops().any(|outer| {
        let is_divergent = |lp| facts.divergent_loop_headers.contains(&loops.header(lp));
        matches!(loops.children(outer), [inner] if is_divergent(outer) && is_divergent(*inner))
    });
    let flattened_nests = if options.flatten_nests != FlattenNests::Off && has_divergent_nest {
        let (_, info) = divergence(&work)?;
        let profit = match options.flatten_nests {
            FlattenNests::Always => NestProfit::Always,
            _ => NestProfit::Costs(boscc_region_costs(&work, &info, variant.width).expensive),
        };
        pass_times::time("flatten nests", || {
            flatten_divergent_nests(
                &mut work,
                &facts.divergent_loop_headers,
                &options.group_functions,
                &profit,
            )
        })
        .map_err(|error| analysis_error(error.to_string()))?
    } else {
        0
    };
    if flattened_nests > 0 {
        (loops, facts) = analyze(&work)?;
    }

    // BOSCC before linearization: costly regions behind a divergent branch
    // are jumped over when no lane takes the branch towards them; the new
    // uniform branches change the facts.
    let guarded_regions = if options.boscc && options.linearize == LinearizeMode::Partial {
        let (_, info) = divergence(&work)?;
        pass_times::time("boscc: guard regions", || {
            let costs = boscc_region_costs(&work, &info, variant.width);
            guard_divergent_regions(&mut work, &facts.divergent_branches, &costs)
        })
    } else {
        0
    };
    if guarded_regions > 0 {
        (loops, facts) = analyze(&work)?;
    }

    // Linearization makes every branch uniform. Functions whose control flow
    // is already uniform skip it (unless full linearization is asked for).
    let needs_linearization = !facts.divergent_branches.is_empty()
        || entry_mask.is_some()
        || options.linearize == LinearizeMode::Full;
    let mut produced = ProducedFunction::new(name, variant);
    let predicates = if needs_linearization {
        let linearized = pass_times::time("linearize", || {
            linearize_function(&mut work, &facts, options.linearize, entry_mask)
        })
        .map_err(|error| analysis_error(error.to_string()))?;
        produced.record_linearization(&linearized, &work);
        produced.branches.regions_skipped_when_inactive = guarded_regions;
        // BOSCC: loops whose entry mask may be empty are jumped over then.
        let mut predicates = linearized.predicates;
        if options.boscc {
            produced.loops.skipped_when_inactive = pass_times::time("boscc: skip loops", || {
                skip_loops_without_active_lanes(&mut work, &mut predicates)
            });
        }
        pass_times::time("linearize: masks and empty-mask loops", || {
            mark_blocks_with_an_active_lane(&mut work, &mut predicates);
            // Loops left that may run with no active lane leave after one pass.
            let empty_mask_loops = bound_loops_without_active_lanes(&mut work, &predicates);
            produced.loops.bounded_when_inactive = empty_mask_loops.bounded;
            produced.loops.unbounded_when_inactive = empty_mask_loops.unbounded;
            // Trackers of divergent loops: one blend per iteration, not two.
            fold_nested_selects(&mut work);
        });
        check(&work, Pass::Linearize, options)?;
        predicates
    } else {
        produced.record_uniform_control_flow(&work, &loops);
        BlockPredicates::all_active()
    };

    produced.loops.flattened_nests = flattened_nests;

    // Shapes of the rewritten function: all its branches must be uniform now.
    let shapes =
        pass_times::time("shape analysis", || ShapeInfo::compute(&work, data_layout, &params))
            .map_err(|error| analysis_error(error.to_string()))?;
    check_uniform_control_flow(&work, &shapes).map_err(|error| Error::Internal {
        function: scalar.name.clone(),
        message: format!("a divergent branch survived linearization: {error}"),
    })?;

    let mut config = WidenConfig::new(name, variant.width, variant.isa, params);
    config.vector_math = options.vector_math;
    config.masked = variant.masked;
    config.instrument_utilization = options.instrument_utilization;
    config.callee_variants = callee_variants.clone();
    // Recursion runs per lane: a variant calling itself would walk the
    // union of every lane's recursion tree in lock-step (the recursive
    // `inbranch` Fibonacci of the OpenMP Examples ran 20 times longer than
    // scalar code); once the top level is vectorized, each active lane
    // calls the scalar function.
    config.callee_variants.remove(&scalar.name);
    config.native_scatter |= enables_avx512_scatters(target_features);
    config.group_functions = options.group_functions.clone();
    config.adapter = adapter;
    config.wfv_slp = options.wfv_slp;
    config.dynamic_tests = options.dynamic_tests;
    config.speculative_loads = options.speculative_loads;
    config.exact_vector_math =
        options.exact_vector_math && runs_glibc_fma_math(target_features, variant.isa);
    if with_safety_net {
        config.group_functions.extend([
            NET_BEGIN.to_owned(),
            NET_END.to_owned(),
            per_lane_callee(&scalar.name),
        ]);
    }
    let widened = pass_times::time("widen", || {
        widen_function_with_stats(&work, &shapes, data_layout, &config, &predicates)
    })
    .map_err(|error| variant_error(error.to_string()))?;
    produced.memory = widened.stats.into();
    produced.memory.interleaved_private_arrays = interleaved.interleaved;
    produced.memory.wide_cell_arrays = interleaved.wide_cells;
    produced.memory.uniform_private_arrays = uniform_allocas.len();
    produced.memory.split_private_structs = split_structs;
    produced.masked.memory = widened.stats.masked;
    produced.calls = widened.calls.into();
    produced.safety_net = with_safety_net;
    let mut vector = widened.function;
    if with_safety_net {
        pass_times::time("safety net", || read_lane_arguments_from_memory(&mut vector));
    }
    // The one-lane form exists only as a variant: a call of it left per
    // lane (no variant fit the call site) would not link.
    if let PerLaneForm::OneLaneVariant(callee) = per_lane_form {
        if vector.layout.insts().any(|inst| vector.dfg.callee_name(inst) == Some(callee)) {
            return Err(variant_error(format!(
                "the safety net cannot call a variant of `{callee}`"
            )));
        }
    }
    check(&vector, Pass::Widen, options)?;
    Ok((vector, produced))
}

/// The values a variant passes as vectors (its `v` parameters and its
/// result) must have a vector ABI ([`has_vector_abi`]: not `i96`).
fn refuse_types_without_vector_abi(scalar: &Function, params: &[ParamSpec]) -> Result<(), String> {
    for (index, (param, spec)) in scalar.params.iter().zip(params).enumerate() {
        if spec.kind == ParamKind::Vector && !has_vector_abi(&param.ty) {
            return Err(format!(
                "parameter {index} of `{}` is `{}`, which has no vector ABI (integers of 8, 16, \
                 32, 64 or 128 bits)",
                scalar.name, param.ty
            ));
        }
    }
    if !has_vector_abi(&scalar.ret_ty) {
        return Err(format!(
            "the result of `{}` is `{}`, which has no vector ABI (integers of 8, 16, 32, 64 or \
             128 bits)",
            scalar.name, scalar.ret_ty
        ));
    }
    Ok(())
}

/// The steps after widening that the cost models of `omp simd` loops do not
/// see: narrow copies of divergent loops ([`narrow_loops`]), then mask phis
/// in full-width lanes where the target has no AVX-512VL mask registers
/// ([`widen_masks_below_avx512vl`]; narrowing needs the `<W x i1>` masks:
/// a mask's lanes past the live count must be false in a narrow copy), then
/// gathers of neighbouring elements in pairs ([`pair_adjacent_gathers`],
/// unless `--gather-pairs off`), then, where the code generator expands
/// gathers into per-lane loads (`expands_gathers`, from
/// `LlvmModule::expands_masked_gathers`), Lanewise's form of each gather
/// ([`choose_gather_forms`], unless `--gather-forms off`; the caller adds
/// [`FAST_GATHER`] to the function's features where masked gathers stay
/// for the gather instruction: [`lowering_features`]).
/// Returns the divergent loops narrowing left as they were, by header name,
/// with the reason (empty when narrowing does not apply to the target).
pub(crate) fn finish_variant(
    vector: &mut Function,
    produced: &mut ProducedFunction,
    isa: Isa,
    target_features: &str,
    expands_gathers: bool,
    data_layout: &DataLayout,
    options: &Options,
) -> Result<Vec<(String, String)>, Error> {
    let narrowing =
        pass_times::time("narrow loops", || narrow_loops(vector, isa, target_features, options));
    produced.loops.narrowed = narrowing.narrowed_loops;
    pass_times::time("mask registers", || widen_masks_below_avx512vl(vector, isa, target_features));
    if options.gather_pairs {
        produced.memory.paired_gathers =
            pass_times::time("gather pairs", || pair_adjacent_gathers(vector, data_layout, isa));
    }
    if expands_gathers {
        let forms = pass_times::time("gather forms", || choose_gather_forms(vector));
        produced.memory.unmasked_gathers_as_loads = forms.unmasked_as_loads;
        produced.memory.masked_gathers_as_instructions = forms.masked_as_instructions;
    }
    check(vector, Pass::Narrow, options)?;
    Ok(narrowing.refused)
}

/// Whether gather forms apply to a function built like `function` for
/// `isa`: they are on (`--gather-forms`), the ISA is one widening emits
/// gathers for (AVX2, AVX-512), and LLVM expands gathers into per-lane
/// loads there (`LlvmModule::expands_masked_gathers`, asked only then). A
/// module whose target cannot compile the probe keeps LLVM's forms.
pub(crate) fn expands_gathers(
    module: &LlvmModule<'_>,
    function: &str,
    isa: Isa,
    options: &Options,
) -> bool {
    options.gather_forms
        && matches!(isa, Isa::Avx2 | Isa::Avx512)
        && module.expands_masked_gathers(function, isa.target_features()).unwrap_or(false)
}

/// The tuning feature that lets LLVM emit gather instructions for
/// `llvm.masked.gather` on targets it expands them for otherwise.
pub(crate) const FAST_GATHER: &str = "+fast-gather";

/// The target features to lower a function produced for `isa` with: the
/// ISA's, and [`FAST_GATHER`] where [`choose_gather_forms`] kept masked
/// gathers for the gather instruction.
pub(crate) fn lowering_features(isa: Isa, memory: &MemoryCounts) -> Vec<&'static str> {
    let mut features = isa.target_features().to_vec();
    if memory.masked_gathers_as_instructions > 0 {
        features.push(FAST_GATHER);
    }
    features
}

/// AVX-512VL mask registers hold `<W x i1>` at every width: where the
/// function may use them (`-march=native` on an AVX-512 host), masks stay
/// `<W x i1>` (k registers); elsewhere the masks that cross a loop and their
/// arithmetic go to full-width lanes (`widen_mask_phis`).
pub(crate) fn widen_masks_below_avx512vl(vector: &mut Function, isa: Isa, target_features: &str) {
    if !enables_avx512_mask_registers(target_features) {
        widen_mask_phis(vector, isa);
    }
}

/// Narrow copies of the divergent loops of the widened `vector`
/// (`lanewise_transform::narrow_loops`), as `options.narrow_loops` says;
/// returns what the pass did (nothing where it does not apply).
///
/// Compresses and expands work on the variant's own registers
/// (`isa.register_bits()`): a `b` variant in a file built for x86-64-v4
/// has AVX-512 instructions (`target_features`, the features of the
/// function the variant is added to) but 128-bit registers, and LLVM
/// cannot split a compress wider than the registers it may use ("Do not
/// know how to split the result of this operator!" with 256-bit tuning).
/// `Auto` narrows `e` variants and `omp simd` bodies whose features have
/// avx512vl (the narrow copies' 256-bit vectors need it): the loops worth
/// narrowing span two zmm registers ([`MIN_WIDE_VECTOR_BITS`]), more than
/// two of any smaller ISA's. Below AVX-512, LLVM lowers compress and expand
/// into one store or load per lane (on AVX2 with 256-bit registers
/// collatz_declare_simd measured 1.10x, but trip_counts 0.84x and
/// mandelbrot 0.95x). The 512-bit compresses need the function's
/// `min-legal-vector-width` to be 512 with 256-bit tuning; lowering gives
/// it (`lanewise_llvm::lower`).
///
/// [`MIN_WIDE_VECTOR_BITS`]: lanewise_transform::narrow_loops::MIN_WIDE_VECTOR_BITS
fn narrow_loops(
    vector: &mut Function,
    isa: Isa,
    target_features: &str,
    options: &Options,
) -> NarrowReport {
    let config = match options.narrow_loops {
        NarrowLoops::Off => return NarrowReport::default(),
        NarrowLoops::Auto => {
            if isa != Isa::Avx512 || !has_target_feature(target_features, "+avx512vl") {
                return NarrowReport::default();
            }
            NarrowConfig::profitable_on_avx512()
        }
        NarrowLoops::Always => {
            let avx512 = enables_avx512_mask_registers(target_features);
            NarrowConfig::always(isa.register_bits(), avx512)
        }
    };
    narrow_divergent_loops(vector, &config)
}

/// The costs BOSCC weighs regions with: loads and stores whose address is
/// not uniform (gathers and scatters, W element accesses whatever the mask),
/// atomics and calls that are not pure or take varying arguments (a vector
/// variant or W scalar calls) cost `width`; a call with side effects and a
/// varying argument runs once per active lane, each behind a test of its
/// mask bit (extract, branch, call): `3 * width`; everything else 1.
fn boscc_region_costs(func: &Function, info: &DivergenceInfo, width: u32) -> RegionCosts {
    let mut costs = RegionCosts::counting_instructions(BOSCC_MIN_REGION_COST);
    let width = width as usize;
    for inst in func.layout.insts() {
        let cost = match func.dfg.inst(inst) {
            InstData::Load { addr, .. } | InstData::Store { addr, .. }
                if !info.shapes.is_uniform(*addr) =>
            {
                width
            }
            // One atomic per lane (a uniform address may combine them, but
            // the scan and the guard cost about as much).
            InstData::AtomicRmw { .. } | InstData::CmpXchg { .. } => width,
            InstData::Call { callee: Callee::Direct(name), args, effects, .. }
                if !name.starts_with("llvm.") && !name.starts_with("rv_") =>
            {
                let varying_args = args.iter().any(|arg| !info.shapes.is_uniform(*arg));
                match effects {
                    CallEffects::SideEffects if varying_args => 3 * width,
                    CallEffects::Pure if !varying_args => continue,
                    _ => width,
                }
            }
            _ => continue,
        };
        costs.expensive.insert(inst, cost);
    }
    costs
}

/// Whether a `target-features` list enables AVX-512 scatters at every
/// vector width (avx512f, and avx512vl for 128- and 256-bit vectors).
fn enables_avx512_scatters(target_features: &str) -> bool {
    enables_avx512_mask_registers(target_features)
}

/// Whether a `target-features` list enables AVX-512 instructions, with their
/// mask registers, at every vector width (avx512f and avx512vl).
fn enables_avx512_mask_registers(target_features: &str) -> bool {
    has_target_feature(target_features, "+avx512f")
        && has_target_feature(target_features, "+avx512vl")
}

/// Whether code for `target_features` (the scalar function's) and `isa`
/// runs on CPUs where glibc's libm calls its FMA builds of the functions
/// the exact vector math repeats (`lanewise_ir::exact_math`: FMA and
/// AVX2); its FMA instructions need the feature too.
fn runs_glibc_fma_math(target_features: &str, isa: Isa) -> bool {
    let has_avx2 =
        matches!(isa, Isa::Avx2 | Isa::Avx512) || has_target_feature(target_features, "+avx2");
    has_avx2 && has_target_feature(target_features, "+fma")
}

/// Whether a `target-features` list holds `feature` (`+avx512vl`).
pub(crate) fn has_target_feature(target_features: &str, feature: &str) -> bool {
    target_features.split(',').any(|entry| entry == feature)
}
