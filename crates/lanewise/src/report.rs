//! What a run produced, for `--report` (JSON) and `--stats` (text): per
//! produced function its counts of branches, loops, memory accesses, masks
//! and calls ([`ProducedFunction`]), and the remarks of the run
//! ([`Report`]).

use super::*;

/// One function Lanewise produced, as `--report` writes it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ProducedFunction {
    pub name: String,
    pub scalar: String,
    pub width: u32,
    pub isa: char,
    /// Whether the variant takes a mask (`M`, inbranch).
    pub masked_variant: bool,
    pub branches: BranchCounts,
    pub loops: LoopCounts,
    pub memory: MemoryCounts,
    pub masked: MaskedCounts,
    pub calls: CallCounts,
    /// Whether the variant has a run-time safety net (`--safety-net`): it
    /// chooses per call between its vector body and per-lane calls of the
    /// scalar function (or, with `per-lane`, always calls per lane).
    pub safety_net: bool,
    /// For a lanes-independent function (`RV_LANES_INDEPENDENT`): the
    /// internal variant of its one-lane form, which the net calls instead
    /// of per-lane calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_lane_variant: Option<Box<ProducedFunction>>,
    /// With `--variants shared`: the variant is an adapter that calls this
    /// shared body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_body: Option<String>,
}

/// How the calls of user functions were vectorized.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct CallCounts {
    /// Calls that call a vector variant of the callee (`declare simd`).
    pub vector_variant: u32,
    /// Calls run once per active lane.
    pub per_lane: u32,
    /// Groups of libmvec calls packed into one call when few lanes are
    /// active (WFV-SLP, `--wfv-slp`).
    pub packed_math_groups: u32,
    /// `expf`/`exp2f`/`logf`/`log2f`/`exp`/`log` calls that became one call of their exact vector
    /// form (`--exact-vector-math`).
    pub exact_vector_math: u32,
}

impl From<CallStats> for CallCounts {
    fn from(stats: CallStats) -> Self {
        CallCounts {
            vector_variant: stats.vector_variant,
            per_lane: stats.per_lane,
            packed_math_groups: stats.packed_math_groups,
            exact_vector_math: stats.exact_vector_math,
        }
    }
}

/// Conditional branches (and switches) of the scalar function.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct BranchCounts {
    /// Branches on a varying condition (folded by linearization).
    pub divergent: usize,
    /// Uniform branches kept as branches.
    pub uniform_kept: usize,
    /// Uniform branches folded (only with `--linearize=full`).
    pub uniform_folded: usize,
    /// Uniform branches that PLDI'18 Theorem 4.5 promises to keep (their
    /// block's predicate is uniform) but that lost a target: 0 unless
    /// linearization is wrong.
    pub uniform_lost: usize,
    /// Regions behind a divergent branch guarded by BOSCC (jumped over when
    /// no lane takes the branch towards them); their guards count as
    /// uniform kept branches.
    pub regions_skipped_when_inactive: usize,
}

/// Loops of the scalar function.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LoopCounts {
    pub uniform: usize,
    pub divergent: usize,
    /// Loops under a varying predicate that are jumped over when no lane is
    /// active at their entry (BOSCC).
    pub skipped_when_inactive: usize,
    /// The other loops under a varying predicate, which leave after one
    /// pass when no lane is active (`linearize::empty_mask_loops`).
    pub bounded_when_inactive: usize,
    /// Loops under a varying predicate that neither BOSCC skips nor an exit
    /// on every iteration can bound (they rely on their own exit tests).
    pub unbounded_when_inactive: usize,
    /// Divergent loops of the vector function given narrow copies
    /// ([`NarrowLoops`]).
    pub narrowed: usize,
    /// Divergent loops nested in divergent loops that became one loop with
    /// their parent (`--flatten-nests`).
    pub flattened_nests: usize,
    /// Divergent loops whose live-outs needed no tracker: a lane that left
    /// computes the values it left with (`transform::exit_stable`).
    pub exit_stable: usize,
}

/// How the loads and stores were vectorized (each counted once).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct MemoryCounts {
    pub uniform: u32,
    pub contiguous: u32,
    pub strided: u32,
    pub gather: u32,
    pub scatter: u32,
    pub scalarized: u32,
    /// Private arrays given the lane-interleaved layout (one shared buffer,
    /// cell `c` of lane `l` at `(c * W + l) * cell_bytes`).
    pub interleaved_private_arrays: usize,
    /// Of those, the arrays of 1- or 2-byte values accessed at varying
    /// offsets that got 4-byte cells (gathers and scatters move those).
    pub wide_cell_arrays: usize,
    /// Private arrays every lane writes alike, kept as one scalar copy
    /// (WPMVP'18 2.2.2; their loads at uniform addresses are uniform).
    pub uniform_private_arrays: usize,
    /// Private arrays of structs split into one array per member (WPMVP'18).
    pub split_private_structs: usize,
    /// Pairs of gathers of neighbouring 32-bit elements fused into one
    /// gather of 64-bit elements (`--gather-pairs`).
    pub paired_gathers: usize,
    /// Where LLVM expands gathers into per-lane loads (`--gather-forms`):
    /// gathers under an all-true mask made scalar loads,
    pub unmasked_gathers_as_loads: usize,
    /// and masked gathers kept for the gather instruction.
    pub masked_gathers_as_instructions: usize,
    /// Masked vector loads of consecutive elements (contiguous loads and
    /// the consecutive fast paths of gathers) unmasked where they stay
    /// within a page with an active lane (`--speculative-loads`).
    pub speculative_loads: u32,
}

/// What runs under a mask.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct MaskedCounts {
    /// Blocks of the linearized function with a non-trivial predicate.
    pub blocks: usize,
    /// Loads and stores under a mask.
    pub memory: u32,
}

impl From<MemoryAccessStats> for MemoryCounts {
    fn from(stats: MemoryAccessStats) -> Self {
        MemoryCounts {
            uniform: stats.uniform,
            contiguous: stats.contiguous,
            strided: stats.strided,
            gather: stats.gather,
            scatter: stats.scatter,
            scalarized: stats.scalarized,
            interleaved_private_arrays: 0,
            wide_cell_arrays: 0,
            uniform_private_arrays: 0,
            split_private_structs: 0,
            paired_gathers: 0,
            unmasked_gathers_as_loads: 0,
            masked_gathers_as_instructions: 0,
            speculative_loads: stats.speculative,
        }
    }
}

impl ProducedFunction {
    pub(crate) fn new(name: &str, variant: &VariantName) -> Self {
        ProducedFunction {
            name: name.to_owned(),
            scalar: variant.scalar_name.clone(),
            width: variant.width,
            isa: variant.isa.letter(),
            masked_variant: variant.masked,
            branches: BranchCounts::default(),
            loops: LoopCounts::default(),
            memory: MemoryCounts::default(),
            masked: MaskedCounts::default(),
            calls: CallCounts::default(),
            safety_net: false,
            one_lane_variant: None,
            shared_body: None,
        }
    }

    pub(crate) fn record_linearization(&mut self, linearized: &LinearizeReport, func: &Function) {
        self.branches = BranchCounts {
            divergent: linearized.branches_divergent,
            uniform_kept: linearized.uniform_kept,
            uniform_folded: linearized.uniform_folded,
            uniform_lost: linearized.uniform_lost,
            regions_skipped_when_inactive: 0,
        };
        self.loops = LoopCounts {
            uniform: linearized.loops_uniform,
            divergent: linearized.loops_divergent,
            skipped_when_inactive: 0,
            bounded_when_inactive: 0,
            unbounded_when_inactive: 0,
            narrowed: 0,
            flattened_nests: 0,
            exit_stable: linearized.loops_exit_stable,
        };
        self.masked.blocks = linearized.predicates.masked_blocks(func).count();
    }

    /// Counts for a function whose control flow needed no linearization:
    /// every conditional branch is uniform and kept, every loop uniform.
    pub(crate) fn record_uniform_control_flow(&mut self, func: &Function, loops: &LoopInfo) {
        let conditional = func
            .layout
            .blocks()
            .iter()
            .filter(|block| {
                func.terminator(**block).is_some_and(|term| {
                    matches!(func.dfg.inst(term), InstData::Branch { .. } | InstData::Switch { .. })
                }) && func.successors(**block).len() > 1
            })
            .count();
        self.branches = BranchCounts {
            divergent: 0,
            uniform_kept: conditional,
            uniform_folded: 0,
            uniform_lost: 0,
            regions_skipped_when_inactive: 0,
        };
        self.loops = LoopCounts { uniform: loops.len(), ..LoopCounts::default() };
    }
}

/// What a run did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Report {
    pub functions: Vec<ProducedFunction>,
    /// Variants not produced, each with the reason (one line).
    pub skipped: Vec<String>,
    /// What was vectorized and what was refused, and why, in the style of
    /// clang's `-Rpass` remarks (`lanewise cc` prints them).
    pub remarks: Vec<Remark>,
    /// Every function the run added to the module: variants, `omp simd`
    /// loop bodies (internal, `alwaysinline`), fallbacks, builtins.
    #[serde(skip)]
    pub added_functions: Vec<String>,
    /// The functions whose body the run replaced (those with vectorized
    /// `omp simd` loops, which now call their loop bodies).
    #[serde(skip)]
    pub rewritten_functions: Vec<String>,
    /// The functions `--slp lanewise` vectorized.
    pub basic_blocks: Vec<SlpFunction>,
}

/// Whether a remark reports a transformation or a refusal.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RemarkKind {
    /// Something was vectorized (`-Rpass=lanewise`).
    Passed,
    /// Something was left scalar (`-Rpass-missed=lanewise`).
    Missed,
}

/// One remark: what happened to a function or loop, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Remark {
    pub kind: RemarkKind,
    /// The function the remark is about.
    pub function: String,
    /// Where in the function, e.g. `loop at block %bb3` or a source location
    /// `file.c:12:3` when the module has debug locations; empty for the whole
    /// function.
    pub location: String,
    pub message: String,
}

impl Report {
    /// The `--stats` text: one paragraph per produced function.
    pub fn summary(&self) -> String {
        let mut text = String::new();
        for function in &self.functions {
            push_function_summary(&mut text, function);
        }
        for skipped in &self.skipped {
            text.push_str(&format!("skipped: {skipped}\n"));
        }
        for remark in &self.remarks {
            let kind = match remark.kind {
                RemarkKind::Passed => "passed",
                RemarkKind::Missed => "missed",
            };
            text.push_str(&format!(
                "remark ({kind}): {} {}: {}\n",
                remark.function, remark.location, remark.message
            ));
        }
        text
    }
}

/// The `--stats` paragraph of one produced function (and of the one-lane
/// variant its safety net calls, after it).
fn push_function_summary(text: &mut String, function: &ProducedFunction) {
    let branches = &function.branches;
    let memory = &function.memory;
    text.push_str(&format!(
        "{}: {} x{} (isa {}{})\n  branches: {} divergent, {} uniform kept, {} uniform \
         folded ({} against Theorem 4.5), {} regions skipped when no lane is active; loops: {} uniform, {} divergent, {} skipped when no lane is active, {} bounded when no lane is active, {} narrowed\n  memory: {} uniform, {} contiguous, \
         {} strided, {} gather, {} scatter, {} scalarized, {} interleaved private arrays, {} uniform private arrays, {} structs split; masked: {} blocks, {} accesses\n  \
         calls: {} vector variant, {} per lane\n",
        function.name,
        function.scalar,
        function.width,
        function.isa,
        if function.masked_variant { ", masked" } else { "" },
        branches.divergent,
        branches.uniform_kept,
        branches.uniform_folded,
        branches.uniform_lost,
        branches.regions_skipped_when_inactive,
        function.loops.uniform,
        function.loops.divergent,
        function.loops.skipped_when_inactive,
        function.loops.bounded_when_inactive,
        function.loops.narrowed,
        memory.uniform,
        memory.contiguous,
        memory.strided,
        memory.gather,
        memory.scatter,
        memory.scalarized,
        memory.interleaved_private_arrays,
        memory.uniform_private_arrays,
        memory.split_private_structs,
        function.masked.blocks,
        function.masked.memory,
        function.calls.vector_variant,
        function.calls.per_lane,
    ));
    if function.loops.flattened_nests > 0 {
        text.push_str(&format!(
            "  flattened nests: {} nests of two divergent loops made one loop each \
             (--flatten-nests)\n",
            function.loops.flattened_nests
        ));
    }
    if memory.paired_gathers > 0 {
        text.push_str(&format!(
            "  gather pairs: {} pairs of gathers of neighbouring elements fused into \
             one gather of 64-bit elements each (--gather-pairs)\n",
            memory.paired_gathers
        ));
    }
    if memory.unmasked_gathers_as_loads + memory.masked_gathers_as_instructions > 0 {
        text.push_str(&format!(
            "  gather forms: {} unmasked gathers as scalar loads, {} masked gathers as gather \
             instructions (LLVM would expand them with a branch per lane; --gather-forms)\n",
            memory.unmasked_gathers_as_loads, memory.masked_gathers_as_instructions
        ));
    }
    if memory.wide_cell_arrays > 0 {
        text.push_str(&format!(
            "  wide cells: {} private arrays of 1- or 2-byte values accessed at varying \
             offsets given 4-byte cells (gathers and scatters move those)\n",
            memory.wide_cell_arrays
        ));
    }
    if memory.speculative_loads > 0 {
        text.push_str(&format!(
            "  speculative loads: {} masked loads of consecutive elements unmasked \
             where they stay within a page (--speculative-loads)\n",
            memory.speculative_loads
        ));
    }
    if function.calls.exact_vector_math > 0 {
        text.push_str(&format!(
                "  exact vector math: {} libm calls (expf, exp2f, logf, log2f, exp, log) with the bits of \
             glibc's scalar calls, in vector registers (--exact-vector-math)\n",
                function.calls.exact_vector_math
            ));
    }
    if function.calls.packed_math_groups > 0 {
        text.push_str(&format!(
            "  wfv-slp: {} groups of vector math calls packed when their active lanes \
             fit in one vector (--wfv-slp)\n",
            function.calls.packed_math_groups
        ));
    }
    match (&function.one_lane_variant, function.safety_net) {
        (Some(one_lane), true) => text.push_str(&format!(
            "  safety net: each call runs the vector body or `{}`, the one-lane \
             form of the lanes-independent `{}` (--safety-net)\n",
            one_lane.name, function.scalar
        )),
        (None, true) => text.push_str(&format!(
            "  safety net: each call runs the vector body or calls `{}` per active lane \
             (--safety-net)\n",
            function.scalar
        )),
        _ => {}
    }
    if let Some(one_lane) = &function.one_lane_variant {
        push_function_summary(text, one_lane);
    }
}
