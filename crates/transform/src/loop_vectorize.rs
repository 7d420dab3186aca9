//! Vectorization of `#pragma omp simd` loops by outlining (issue 5).
//!
//! Lanewise vectorizes whole functions; a SIMD loop is turned into one: its
//! body becomes a function `B(iv, live-ins..., slots...)` that runs one
//! iteration, the whole-function pipeline (divergence analysis, partial
//! linearization, widening; Karrenberg 2014 ch. 5-6, PLDI'18) produces an
//! unmasked and a masked W-lane variant of `B`, and the loop is replaced by a
//! loop over `TC / W` chunks calling the unmasked variant and a tail for the
//! `TC % W` remaining iterations: one masked call, a scalar remainder loop
//! calling `B` itself, or a run-time choice between the two, whichever the
//! cost model of [`tail`] expects to be faster. Inner loops and any reducible
//! control flow stay inside `B`, so a divergent inner `while` loop becomes a
//! divergent loop of the variant (PLDI'18 section 5).
//!
//! The steps, each an entry point here (all LLVM-free; the orchestration
//! lives in `lanewise::simd_loops`):
//!
//! 1. [`find_simd_loops`]: the outermost loops whose latch terminator has
//!    [`LoopHints`] asking for vectorization.
//! 2. [`plan_simd_loop`]: checks the loop shape (preheader, single latch, the
//!    latch is the only exiting block, a dedicated exit block as
//!    loop-simplify and LCSSA leave it) and classifies every header phi: the
//!    inductions `iv = phi [start, pre], [iv + C, latch]` (the one the exit
//!    test compares gives the trip count, the others are `linear` variables)
//!    and the reductions ([`reduction`]); every value used after the loop is
//!    an induction's last or end value, a reduction result or a
//!    `lastprivate` value. The iterations must be independent by the
//!    metadata ([`LoopHints::independence`]: parallel accesses, or
//!    `safelen` for the width it allows), or the loop must be a prefix scan,
//!    which is why clang left them unmarked: an `omp ordered simd` region
//!    (which leaves no trace in the IR) or `#pragma clang loop vectorize`
//!    promise nothing, and those loops are left to LLVM's loop vectorizer,
//!    whose dependence analysis decides. Anything else is a [`LoopRefusal`] naming why;
//!    so is a loop whose body catches an exception (a landing pad in the
//!    loop): W lanes cannot unwind one by one. An `invoke` whose unwind
//!    edge leaves the loop is a call that does not unwind ([`exceptions`]).
//!    Exception handling elsewhere in the function passes through.
//! 3. [`outline_loop_body`]: builds `B`. Inductions become linear
//!    parameters, values from outside the loop uniform parameters. A
//!    reduction's accumulator is loaded at entry from `slot[rv_lane_id()]` and
//!    its update stored there before `ret void`; so in the variant each lane
//!    has its own partial accumulator in a `[W x T]` stack slot, read and
//!    written with contiguous (in the tail: masked) vector accesses. A
//!    `lastprivate` value is stored to its own slot the same way.
//! 4. [`tail::TailCosts`] and [`choose_tail`]: the form of the tail
//!    ([`TailForm`]) from the instruction costs of `B` and of its masked
//!    variant, or as the user forces it ([`TailPolicy`]).
//! 5. [`rewrite_loop`]: replaces the loop in the original function by the
//!    chunk loop, the tail, the horizontal reductions (in lane order, with
//!    the reduction operator itself) and the final values, and re-targets
//!    the exit block's LCSSA phis. The scalar remainder calls
//!    [`scalar_remainder_body`] (`B` with `rv_lane_id() = 0`) for iteration
//!    `done + j` with `&slot[j]` as every slot: the slot lane `j` of the
//!    masked call would use, so the reductions and `lastprivate` values come
//!    out the same, bit for bit, whichever tail ran.
//!
//! Reassociating floating-point reductions across lanes is what
//! `#pragma omp simd reduction(...)` permits (LLVM's
//! `LoopVectorizeHints::allowReordering` treats forced loops the same way);
//! the result may differ from the scalar loop in the last bits.
//!
//! The trip count of the rotated (do-while) loop is computed in the
//! preheader from the exit test `iv' PRED bound` (`iv'` the induction before
//! or after its increment): `!=`: `(bound - start) / C` (exact: LLVM's
//! runtime unroller, which unrolls SIMD loops it could not vectorize, steps
//! by the unroll factor up to a multiple of it); `<`, `<=` (and `>`,
//! `>=` for negative steps), signed or unsigned: `max(1, ceil((bound -
//! start) / C))`. Like LLVM's vectorizer it assumes the induction does not
//! wrap (the loop would not terminate otherwise, or only after 2^n
//! iterations).

pub mod conditional_lastprivate;
pub mod exceptions;
pub mod latency;
pub mod narrow;
mod outline;
pub mod profit;
pub mod recurrence;
pub mod reduction;
mod rewrite;
pub mod scan;
pub mod shared_slots;
mod short_circuit;
pub mod tail;
#[cfg(test)]
mod tests;
mod truncated_exit;
pub mod width;

use std::collections::{HashMap, HashSet};

use lanewise_analysis::loops::{Loop, LoopInfo};
use lanewise_ir::{
    BinaryOp, Block, Function, Independence, Inst, InstData, IntPredicate, LoopHints, Value,
    ValueDef,
};

pub use outline::{outline_loop_body, scalar_remainder_body, LoopCallTargets, LANE_ID_BUILTIN};
pub use reduction::{recognize_reduction, Reduction, ReductionKind};
pub use rewrite::rewrite_loop;
pub use tail::{choose_tail, TailCosts, TailForm, TailPolicy};
pub use truncated_exit::widen_truncated_exit_test;
pub use width::DataProfile;

/// Why a loop is left scalar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopRefusal {
    pub message: String,
}

impl LoopRefusal {
    fn new(message: impl Into<String>) -> Self {
        LoopRefusal { message: message.into() }
    }
}

impl std::fmt::Display for LoopRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// A loop that asks for vectorization: its latch terminator and hints.
#[derive(Clone, Debug)]
pub struct SimdLoopCandidate {
    pub lp: Loop,
    pub header: Block,
    pub latch_branch: Inst,
    pub hints: LoopHints,
}

/// The loops of `func` whose latch terminator carries hints that want
/// vectorization, outermost first (a marked loop nested in a marked loop is
/// left inside its parent's body), skipping the latch branches in `skip`.
pub fn find_simd_loops(
    func: &Function,
    loops: &LoopInfo,
    skip: &HashSet<Inst>,
) -> Vec<SimdLoopCandidate> {
    let marked = |lp: Loop| -> Option<SimdLoopCandidate> {
        let latches = loops.latches(lp);
        latches.iter().find_map(|latch| {
            let branch = func.terminator(*latch)?;
            let hints = func.loop_hints.get(&branch)?;
            (hints.wants_vectorization() && !skip.contains(&branch)).then(|| SimdLoopCandidate {
                lp,
                header: loops.header(lp),
                latch_branch: branch,
                hints: hints.clone(),
            })
        })
    };
    let mut found = Vec::new();
    let mut stack: Vec<Loop> = loops.top_level_loops().iter().rev().copied().collect();
    while let Some(lp) = stack.pop() {
        match marked(lp) {
            Some(candidate) => found.push(candidate),
            None => stack.extend(loops.children(lp).iter().rev().copied()),
        }
    }
    found
}

/// An induction variable `phi [start, preheader], [phi + step, latch]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Induction {
    pub phi: Value,
    pub start: Value,
    pub step: i64,
    /// `phi + step`, the value on the back edge.
    pub next: Value,
}

/// The exit test, normalized to "the loop continues while `tested PRED bound`".
#[derive(Clone, Debug, PartialEq)]
pub struct ExitTest {
    /// Index into [`LoopPlan::inductions`] of the tested induction.
    pub induction: usize,
    /// Whether the test reads the incremented value (`iv + step`).
    pub tests_next: bool,
    pub continue_while: IntPredicate,
    pub bound: Value,
}

/// A value used after the loop.
#[derive(Clone, Debug, PartialEq)]
pub enum LiveOut {
    /// The value of induction `i` in the last iteration.
    InductionLast(usize),
    /// The value of induction `i` after the loop (`start + TC * step`).
    InductionEnd(usize),
    /// The result of reduction `i`.
    Reduction(usize),
    /// A value of the body (`lastprivate`), index into [`LoopPlan::last_private`].
    LastPrivate(usize),
    /// A value defined before the loop.
    Outside(Value),
}

/// Everything [`outline_loop_body`] and [`rewrite_loop`] need about a loop.
#[derive(Clone, Debug)]
pub struct LoopPlan {
    pub header: Block,
    pub preheader: Block,
    pub latch: Block,
    pub exit: Block,
    /// The loop's blocks, header first, then in layout order.
    pub blocks: Vec<Block>,
    pub inductions: Vec<Induction>,
    pub exit_test: ExitTest,
    pub reductions: Vec<Reduction>,
    /// Body values used after the loop that are neither inductions nor
    /// reductions.
    pub last_private: Vec<Value>,
    /// Per phi of the exit block, what its value from the latch is.
    pub exit_phis: Vec<(Inst, LiveOut)>,
    /// Values defined before the loop and used in it, in first-use order.
    pub live_ins: Vec<Value>,
    /// Stack slots defined before the loop that hold per-iteration data:
    /// the variables declared in the loop body, whose allocas LLVM hoists
    /// to the entry block (inlining does too). Each lane needs its own, so
    /// the body allocates them itself ([`private_stack_slots`]).
    pub private_allocas: Vec<Value>,
    /// Addresses into the private slots computed before the loop (LICM
    /// hoists `&a[k]` with a loop-invariant `k`), in definition order: the
    /// body computes them again from its own slots.
    pub private_addresses: Vec<Value>,
    /// The body's data operations by scalar width, weighted by inner-loop
    /// nesting: what W is chosen from ([`width`]).
    pub data_profile: DataProfile,
    /// The landing pads outside the loop that its `invoke`s unwind to
    /// ([`exceptions`]): the body calls instead, and [`rewrite_loop`]
    /// removes the pads nothing else reaches.
    pub unwind_dests: Vec<Block>,
}

impl LoopPlan {
    /// The parameter kinds of the outlined body, in parameter order:
    /// `Some(step)` for the linear induction parameters, `None` for the
    /// uniform ones (live-ins and slots).
    pub fn body_param_steps(&self) -> Vec<Option<i64>> {
        let uniform = self.live_ins.len() + self.slot_count();
        let iteration = self.has_conditional_assignments().then_some(Some(1));
        self.inductions
            .iter()
            .map(|induction| Some(induction.step))
            .chain(std::iter::repeat_n(None, uniform))
            .chain(iteration)
            .collect()
    }

    /// The reductions that are conditional assignments
    /// ([`ReductionKind::LastAssigned`]), in order: each has a stamp slot.
    pub fn conditional_assignments(&self) -> impl Iterator<Item = &Reduction> {
        self.reductions.iter().filter(|reduction| reduction.kind == ReductionKind::LastAssigned)
    }

    /// Whether the body takes the iteration number (for the stamps).
    pub fn has_conditional_assignments(&self) -> bool {
        self.conditional_assignments().next().is_some()
    }

    /// The `[W x T]` stack slots the body reads and writes: one per
    /// reduction, per `lastprivate` value and per conditional assignment's
    /// stamps.
    pub fn slot_count(&self) -> usize {
        self.reductions.len() + self.last_private.len() + self.conditional_assignments().count()
    }
}

/// The uses of every value, as the instructions (in the layout) using them.
pub(crate) fn users(func: &Function) -> HashMap<Value, Vec<Inst>> {
    let mut users: HashMap<Value, Vec<Inst>> = HashMap::new();
    for block in func.layout.blocks() {
        for &inst in func.layout.block_insts(*block) {
            func.dfg.inst(inst).for_each_operand(|value| {
                let list = users.entry(value).or_default();
                if !list.contains(&inst) {
                    list.push(inst);
                }
            });
        }
    }
    users
}

/// Checks the shape of `candidate`'s loop and classifies its phis and
/// live-outs; see the module docs.
pub fn plan_simd_loop(
    func: &Function,
    loops: &LoopInfo,
    candidate: &SimdLoopCandidate,
) -> Result<LoopPlan, LoopRefusal> {
    let lp = candidate.lp;
    let header = candidate.header;
    let in_loop: HashSet<Block> = loops.blocks(lp).iter().copied().collect();
    // A call that may throw (C++ `invoke`) whose unwind edge leaves the
    // loop is a call that does not unwind in a conforming program; a catch
    // inside the body keeps the loop scalar (`exceptions`).
    let escaping_invokes = exceptions::escaping_invokes(func, &in_loop)?;
    let unwind_dests = exceptions::unwind_destinations(func, &escaping_invokes);
    let latches = loops.latches(lp);
    let [latch] = latches else {
        return Err(LoopRefusal::new(format!("the loop has {} latches", latches.len())));
    };
    let latch = *latch;
    // The unwind edges of the escaping invokes are no exits.
    let exiting: Vec<Block> = loops
        .exiting_blocks(lp)
        .iter()
        .copied()
        .filter(|block| {
            let unwinds_only = |successor: &Block| unwind_dests.contains(successor);
            !func.successors(*block).iter().filter(|s| !in_loop.contains(s)).all(unwinds_only)
        })
        .collect();
    if exiting != [latch] {
        return Err(LoopRefusal::new(
            "the loop is left from inside its body (only the latch may exit a SIMD loop)",
        ));
    }
    let exits: Vec<Block> = loops
        .exit_blocks(lp)
        .iter()
        .copied()
        .filter(|block| !unwind_dests.contains(block))
        .collect();
    let [exit] = exits[..] else {
        return Err(LoopRefusal::new("the loop has more than one exit block"));
    };
    let preds_of = |block: Block| -> Vec<Block> {
        func.layout
            .blocks()
            .iter()
            .copied()
            .filter(|pred| func.successors(*pred).contains(&block))
            .collect()
    };
    if preds_of(exit) != [latch] {
        return Err(LoopRefusal::new("the exit block is also reached from outside the loop"));
    }
    let outside_preds: Vec<Block> =
        preds_of(header).into_iter().filter(|pred| !in_loop.contains(pred)).collect();
    let [preheader] = outside_preds[..] else {
        return Err(LoopRefusal::new("the loop has no preheader"));
    };
    if !matches!(
        func.terminator(preheader).map(|term| func.dfg.inst(term)),
        Some(InstData::Jump { .. })
    ) {
        return Err(LoopRefusal::new("the loop has no preheader"));
    }
    let defined_in_loop = |value: Value| -> bool {
        func.dfg
            .defining_inst(value)
            .and_then(|inst| func.layout.inst_block(inst))
            .is_some_and(|block| in_loop.contains(&block))
    };

    // Header phis: inductions first.
    let header_phis: Vec<Inst> = func
        .layout
        .block_insts(header)
        .iter()
        .copied()
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Phi { .. }))
        .collect();
    let incoming = |phi: Inst, from: Block| -> Option<Value> {
        let InstData::Phi { incoming, .. } = func.dfg.inst(phi) else { return None };
        incoming.iter().find(|(block, _)| *block == from).map(|(_, value)| *value)
    };
    let mut inductions = Vec::new();
    let mut other_phis = Vec::new();
    for &phi in &header_phis {
        let value = func.dfg.result(phi).expect("phis have results");
        let (Some(start), Some(next)) = (incoming(phi, preheader), incoming(phi, latch)) else {
            return Err(LoopRefusal::new("a header phi lacks an incoming value"));
        };
        match induction_step(func, value, next) {
            Some(step) if func.dfg.value_type(value).is_int() => {
                inductions.push(Induction { phi: value, start, step, next })
            }
            _ => other_phis.push((phi, value, start, next)),
        }
    }

    // The exit test.
    let Some(InstData::Branch { cond, then_dest, else_dest }) =
        func.terminator(latch).map(|term| func.dfg.inst(term).clone())
    else {
        return Err(LoopRefusal::new("the latch does not end in a conditional branch"));
    };
    let continue_on_true = then_dest == header;
    if !continue_on_true && else_dest != header {
        return Err(LoopRefusal::new("the latch branch does not go back to the header"));
    }
    let Some(InstData::Icmp { pred, lhs, rhs }) =
        func.dfg.defining_inst(cond).map(|inst| func.dfg.inst(inst).clone())
    else {
        return Err(LoopRefusal::new("the exit test is not an integer comparison"));
    };
    let find_induction = |value: Value| -> Option<(usize, bool)> {
        inductions.iter().enumerate().find_map(|(index, induction)| {
            if induction.phi == value {
                Some((index, false))
            } else if induction.next == value {
                Some((index, true))
            } else {
                None
            }
        })
    };
    let (induction, tests_next, pred, bound) = match (find_induction(lhs), find_induction(rhs)) {
        (Some((index, next)), None) => (index, next, pred, rhs),
        (None, Some((index, next))) => (index, next, pred.swapped(), lhs),
        _ => {
            return Err(LoopRefusal::new(
                "the exit test does not compare an induction variable with a bound",
            ))
        }
    };
    if defined_in_loop(bound) {
        return Err(LoopRefusal::new("the loop bound changes inside the loop"));
    }
    let continue_while = if continue_on_true { pred } else { pred.inverse() };
    let step = inductions[induction].step;
    let supported = match continue_while {
        IntPredicate::Ne => true,
        IntPredicate::Slt | IntPredicate::Sle | IntPredicate::Ult | IntPredicate::Ule => step > 0,
        IntPredicate::Sgt | IntPredicate::Sge | IntPredicate::Ugt | IntPredicate::Uge => step < 0,
        IntPredicate::Eq => false,
    };
    if !supported {
        return Err(LoopRefusal::new(format!(
            "unsupported exit test: continue while {} {} bound with step {step}",
            if tests_next { "iv.next" } else { "iv" },
            continue_while.name()
        )));
    }
    let exit_test = ExitTest { induction, tests_next, continue_while, bound };

    // Reductions.
    let all_users = users(func);
    let mut reductions = Vec::new();
    for (phi, value, init, update) in other_phis {
        let reduction = recognize_reduction(func, &all_users, &in_loop, exit, value, init, update)
            .map_err(|message| {
                LoopRefusal::new(format!(
                    "header phi {} is neither an induction nor a reduction: {message}",
                    func.dfg.display_value(value)
                ))
            })?;
        debug_assert_eq!(func.dfg.result(phi), Some(value));
        if reduction.scan {
            scan::check_update_precedes_reads(func, &all_users, latch, &reduction)?;
        }
        reductions.push(reduction);
    }

    // Live-outs: only through the exit block's (LCSSA) phis.
    let mut last_private = Vec::new();
    let mut exit_phis = Vec::new();
    for &inst in func.layout.block_insts(exit) {
        let InstData::Phi { incoming, .. } = func.dfg.inst(inst) else { continue };
        let Some((_, value)) = incoming.iter().find(|(block, _)| *block == latch) else {
            continue;
        };
        let value = *value;
        let live_out = if let Some(index) = inductions.iter().position(|i| i.phi == value) {
            LiveOut::InductionLast(index)
        } else if let Some(index) = inductions.iter().position(|i| i.next == value) {
            LiveOut::InductionEnd(index)
        } else if let Some(index) = reductions.iter().position(|r| r.update == value) {
            LiveOut::Reduction(index)
        } else if reductions.iter().any(|r| r.members.contains(&value)) {
            return Err(LoopRefusal::new(format!(
                "{} (a partial reduction value) is used after the loop",
                func.dfg.display_value(value)
            )));
        } else if defined_in_loop(value) {
            if !func.dfg.value_type(value).is_scalar() {
                return Err(LoopRefusal::new(format!(
                    "{} of type {} is used after the loop",
                    func.dfg.display_value(value),
                    func.dfg.value_type(value)
                )));
            }
            let index = last_private.iter().position(|v| *v == value).unwrap_or_else(|| {
                last_private.push(value);
                last_private.len() - 1
            });
            LiveOut::LastPrivate(index)
        } else {
            LiveOut::Outside(value)
        };
        exit_phis.push((inst, live_out));
    }

    // Loop values used outside the loop other than by the exit phis, and
    // the live-ins.
    let blocks: Vec<Block> = std::iter::once(header)
        .chain(func.layout.blocks().iter().copied().filter(|b| in_loop.contains(b) && *b != header))
        .collect();
    let mut live_ins = Vec::new();
    let mut data_profile = DataProfile::default();
    let induction_values: HashSet<Value> =
        inductions.iter().flat_map(|induction| [induction.phi, induction.next]).collect();
    for &block in &blocks {
        for &inst in func.layout.block_insts(block) {
            let data = func.dfg.inst(inst);
            let replaced_phi = func.dfg.result(inst).is_some_and(|result| {
                induction_values.contains(&result)
                    || reductions.iter().any(|reduction| reduction.phi == result)
            });
            // The header phis become parameters and slot loads in the body:
            // their incoming values are not live-ins.
            data.for_each_operand(|value| {
                if replaced_phi {
                    return;
                }
                let outside = match func.dfg.value_def(value) {
                    ValueDef::Param(_) => true,
                    ValueDef::Result(def) => {
                        func.layout.inst_block(*def).is_some_and(|b| !in_loop.contains(&b))
                    }
                    ValueDef::Const(_) => false,
                };
                if outside && !live_ins.contains(&value) {
                    live_ins.push(value);
                }
            });
            // Inductions and i64 phis other than reductions (the counters
            // of inner loops, which LLVM's indvars widens to i64) are
            // indices, not data.
            let is_index_phi = func.dfg.result(inst).is_some_and(|result| {
                let ty = func.dfg.value_type(result);
                induction_values.contains(&result)
                    || (ty.is_int()
                        && ty.scalar_bits().is_some_and(|bits| bits > 32)
                        && !reductions.iter().any(|reduction| reduction.phi == result))
            });
            let inner_depth = loops.loop_depth(block) - loops.depth(lp);
            data_profile.add_inst(func, inst, inner_depth, is_index_phi);
            if inner_depth > 0 && loads_a_data_dependent_address(func, loops, inst) {
                data_profile.add_data_dependent_load();
            }
            if let Some(result) = func.dfg.result(inst) {
                for user in all_users.get(&result).into_iter().flatten() {
                    let user_block = func.layout.inst_block(*user);
                    let outside = user_block.is_some_and(|b| !in_loop.contains(&b));
                    let exit_phi = exit_phis.iter().any(|(phi, _)| phi == user);
                    if outside && !exit_phi {
                        return Err(LoopRefusal::new(format!(
                            "{} is used after the loop outside the exit block's phis",
                            func.dfg.display_value(result)
                        )));
                    }
                }
            }
        }
    }
    let private_allocas = private_stack_slots(func, &in_loop, &live_ins, &all_users);
    let private_addresses = addresses_into(func, &private_allocas, &live_ins)?;
    // The operands of those addresses (an index computed before the loop)
    // become live-ins in their place.
    let mut rematerialized_operands = Vec::new();
    for &address in &private_addresses {
        let def = func.dfg.defining_inst(address).expect("an address instruction");
        func.dfg.inst(def).for_each_operand(|operand| {
            let from_outside = !matches!(func.dfg.value_def(operand), ValueDef::Const(_));
            if from_outside
                && !private_allocas.contains(&operand)
                && !private_addresses.contains(&operand)
                && !live_ins.contains(&operand)
                && !rematerialized_operands.contains(&operand)
            {
                rematerialized_operands.push(operand);
            }
        });
    }
    live_ins.extend(rematerialized_operands);
    live_ins.retain(|value| !private_allocas.contains(value) && !private_addresses.contains(value));
    // A slot the iterations share and update at common addresses (clang's
    // private copy of a reduction variable in memory) would make the lanes
    // conflict.
    let induction_phis: Vec<Value> = inductions.iter().map(|induction| induction.phi).collect();
    shared_slots::conflicting_slot_access(func, &in_loop, &induction_phis, &private_allocas)?;
    // clang marks nothing parallel in a `reduction(inscan, ...)` loop; the
    // scan is what the marking would have broken.
    let is_scan = reductions.iter().any(|reduction| reduction.scan);
    if candidate.hints.independence == Independence::NotPromised && !is_scan {
        return Err(LoopRefusal::new(
            "the loop's iterations are not marked independent (no \
             `llvm.loop.parallel_accesses`: an `omp ordered simd` region, or \
             `#pragma clang loop vectorize`); LLVM's loop vectorizer checks its dependences",
        ));
    }
    Ok(LoopPlan {
        header,
        preheader,
        latch,
        exit,
        blocks,
        inductions,
        exit_test,
        reductions,
        last_private,
        exit_phis,
        live_ins,
        private_allocas,
        private_addresses,
        data_profile,
        unwind_dests,
    })
}

/// The live-ins that are allocas private to an iteration. LLVM hoists the
/// allocas of variables declared in the loop body to the entry block
/// (inlining does too) and marks their lifetimes in the loop; the lift
/// keeps those markers as [`Function::lifetime_markers`]. A slot is private
/// when its lifetime starts and ends in the loop (nothing flows into an
/// iteration or out of it), or when it is used in the loop only (nothing
/// outside writes or reads it: a value carried from one iteration to the
/// next would be a dependence `omp simd` rules out). Sharing one such slot
/// between the lanes would make them overwrite each other's data.
fn private_stack_slots(
    func: &Function,
    in_loop: &HashSet<Block>,
    live_ins: &[Value],
    users: &HashMap<Value, Vec<Inst>>,
) -> Vec<Value> {
    let marked_in_loop = |slot: Value, start: bool| {
        func.lifetime_markers.iter().any(|marker| {
            marker.slot == slot && marker.start == start && in_loop.contains(&marker.block)
        })
    };
    live_ins
        .iter()
        .copied()
        .filter(|value| {
            let Some(def) = func.dfg.defining_inst(*value) else { return false };
            if !matches!(func.dfg.inst(def), InstData::Alloca { .. }) {
                return false;
            }
            if marked_in_loop(*value, true) && marked_in_loop(*value, false) {
                return true;
            }
            let uses = users.get(value).map(Vec::as_slice).unwrap_or_default();
            uses.iter().all(|user| {
                func.layout.inst_block(*user).is_some_and(|block| in_loop.contains(&block))
            })
        })
        .collect()
}

/// The live-ins that are addresses into `slots` computed before the loop
/// (LICM hoists `&a[c]` of a loop-invariant `c`, and `c ? &a[1] : &a[0]`,
/// out of the loop): `getelementptr`, pointer casts and `select`s with an
/// operand that is a slot or another such address, in an order where each
/// comes after the addresses it uses. The body computes them again from its
/// own slots. An address into a slot computed any other way (a phi joining
/// two of them before the loop) cannot be, and refuses the loop: the body
/// would read and write the original, shared slot.
fn addresses_into(
    func: &Function,
    slots: &[Value],
    live_ins: &[Value],
) -> Result<Vec<Value>, LoopRefusal> {
    let mut ordered = Vec::new();
    let mut derives_from_slot: HashMap<Value, bool> = HashMap::new();
    for &value in live_ins {
        address_into_slots(func, slots, value, &mut derives_from_slot, &mut ordered)?;
    }
    Ok(ordered)
}

/// Whether `value` (defined before the loop) is an address into `slots`;
/// pushes it to `ordered` after its operands if so. Memoized in `known`.
fn address_into_slots(
    func: &Function,
    slots: &[Value],
    value: Value,
    known: &mut HashMap<Value, bool>,
    ordered: &mut Vec<Value>,
) -> Result<bool, LoopRefusal> {
    if slots.contains(&value) {
        return Ok(true);
    }
    if let Some(&derived) = known.get(&value) {
        return Ok(derived);
    }
    // Addresses flow through pointer-typed values only; an integer (an
    // index, a `ptrtoint`) is used by value.
    let Some(def) = func.dfg.defining_inst(value).filter(|_| func.dfg.value_type(value).is_ptr())
    else {
        known.insert(value, false);
        return Ok(false);
    };
    known.insert(value, false);
    let data = func.dfg.inst(def);
    let mut pointer_operands = Vec::new();
    data.for_each_operand(|operand| {
        if func.dfg.value_type(operand).is_ptr() {
            pointer_operands.push(operand);
        }
    });
    let mut derived = false;
    for operand in pointer_operands {
        derived |= address_into_slots(func, slots, operand, known, ordered)?;
    }
    if !derived {
        return Ok(false);
    }
    let recomputable =
        matches!(data, InstData::Gep { .. } | InstData::Cast { .. } | InstData::Select { .. });
    if !recomputable {
        return Err(LoopRefusal::new(format!(
            "{} is an address into a stack slot private to each iteration, computed before the \
             loop by a {} the loop body cannot recompute",
            func.dfg.display_value(value),
            data.opcode_name()
        )));
    }
    known.insert(value, true);
    ordered.push(value);
    Ok(true)
}

/// The constant step of `next = phi + step` (or `phi - step`), if it is one.
fn induction_step(func: &Function, phi: Value, next: Value) -> Option<i64> {
    let inst = func.dfg.defining_inst(next)?;
    let InstData::Binary { op, lhs, rhs, .. } = func.dfg.inst(inst) else { return None };
    let constant = |value: Value| func.dfg.signed_int_constant(value).map(|c| c as i64);
    match op {
        BinaryOp::Add if *lhs == phi => constant(*rhs),
        BinaryOp::Add if *rhs == phi => constant(*lhs),
        BinaryOp::Sub if *lhs == phi => constant(*rhs).map(|c| -c),
        _ => None,
    }
    .filter(|step| *step != 0)
}

/// Whether `inst` is a load whose address, in its innermost loop, depends on
/// a loaded value or on a header phi of that loop that is not a counter (a
/// counter's back-edge value is the phi plus a constant): each iteration's
/// address waits for the previous iteration's data, as in a binary search or
/// a pointer chase.
fn loads_a_data_dependent_address(func: &Function, loops: &LoopInfo, inst: Inst) -> bool {
    let InstData::Load { addr, .. } = func.dfg.inst(inst) else { return false };
    let Some(block) = func.layout.inst_block(inst) else { return false };
    let Some(lp) = loops.innermost_loop(block) else { return false };
    let header = loops.header(lp);
    let in_loop = |value: Value| match func.dfg.value_def(value) {
        ValueDef::Result(def) => {
            func.layout.inst_block(*def).is_some_and(|b| loops.contains(lp, b)).then_some(*def)
        }
        _ => None,
    };
    let is_counter = |phi: Inst| {
        let InstData::Phi { incoming, .. } = func.dfg.inst(phi) else { return false };
        let phi_value = func.dfg.result(phi);
        incoming.iter().filter(|(from, _)| loops.contains(lp, *from)).all(|(_, value)| {
            let Some(def) = in_loop(*value) else { return false };
            match func.dfg.inst(def) {
                InstData::Binary { op: BinaryOp::Add | BinaryOp::Sub, lhs, rhs, .. } => {
                    (Some(*lhs) == phi_value && func.dfg.constant(*rhs).is_some())
                        || (Some(*rhs) == phi_value && func.dfg.constant(*lhs).is_some())
                }
                InstData::Gep { base, indices, .. } => {
                    Some(*base) == phi_value
                        && indices.iter().all(|index| func.dfg.constant(*index).is_some())
                }
                _ => false,
            }
        })
    };
    let mut visited: HashSet<Value> = HashSet::new();
    let mut worklist = vec![*addr];
    while let Some(value) = worklist.pop() {
        if !visited.insert(value) {
            continue;
        }
        let Some(def) = in_loop(value) else { continue };
        match func.dfg.inst(def) {
            InstData::Load { .. } => return true,
            InstData::Phi { .. } if func.layout.inst_block(def) == Some(header) => {
                if !is_counter(def) {
                    return true;
                }
            }
            InstData::Phi { .. } | InstData::Call { .. } => {}
            other => other.for_each_operand(|operand| worklist.push(operand)),
        }
    }
    false
}
