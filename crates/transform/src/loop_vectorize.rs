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
//!    `lastprivate` value. Anything else is a [`LoopRefusal`] naming why;
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
pub mod profit;
pub mod recurrence;
pub mod reduction;
pub mod scan;
pub mod shared_slots;
pub mod tail;
#[cfg(test)]
mod tests;
pub mod width;

use std::collections::{HashMap, HashSet};

use lanewise_analysis::loops::{Loop, LoopInfo};
use lanewise_ir::{
    BinaryOp, Block, CallEffects, Callee, CastOp, Constant, DataLayout, Function, FunctionBuilder,
    Inst, InstData, IntPredicate, LoopHints, Type, Value, ValueDef,
};

pub use reduction::{recognize_reduction, Reduction, ReductionKind};
pub use tail::{choose_tail, TailCosts, TailForm, TailPolicy};
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
        (None, Some((index, next))) => (index, next, swap_predicate(pred), lhs),
        _ => {
            return Err(LoopRefusal::new(
                "the exit test does not compare an induction variable with a bound",
            ))
        }
    };
    if defined_in_loop(bound) {
        return Err(LoopRefusal::new("the loop bound changes inside the loop"));
    }
    let continue_while = if continue_on_true { pred } else { invert_predicate(pred) };
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

/// `a PRED b` as `b PRED' a`.
pub(crate) fn swap_predicate(pred: IntPredicate) -> IntPredicate {
    use IntPredicate::*;
    match pred {
        Eq => Eq,
        Ne => Ne,
        Ugt => Ult,
        Uge => Ule,
        Ult => Ugt,
        Ule => Uge,
        Sgt => Slt,
        Sge => Sle,
        Slt => Sgt,
        Sle => Sge,
    }
}

/// `!(a PRED b)` as `a PRED' b`.
pub(crate) fn invert_predicate(pred: IntPredicate) -> IntPredicate {
    use IntPredicate::*;
    match pred {
        Eq => Ne,
        Ne => Eq,
        Ugt => Ule,
        Uge => Ult,
        Ult => Uge,
        Ule => Ugt,
        Sgt => Sle,
        Sge => Slt,
        Slt => Sge,
        Sle => Sgt,
    }
}

/// Copies `value` of `source` into `target` for use there: constants are
/// re-created (aggregates element by element), everything else is looked up
/// in `map`.
fn copy_value(
    source: &Function,
    target: &mut Function,
    map: &HashMap<Value, Value>,
    value: Value,
) -> Value {
    if let Some(mapped) = map.get(&value) {
        return *mapped;
    }
    match source.dfg.constant(value) {
        Some(constant) => {
            let ty = source.dfg.value_type(value).clone();
            let constant = match constant {
                Constant::Aggregate(elements) => Constant::Aggregate(
                    elements
                        .iter()
                        .map(|element| copy_value(source, target, map, *element))
                        .collect(),
                ),
                other => other.clone(),
            };
            target.dfg.make_const(ty, constant)
        }
        None => panic!("copy_value: {value} is neither mapped nor a constant"),
    }
}

/// The name of the SPMD builtin that numbers the lanes (see
/// `widen::builtins`): `i` in lane `i` of the vector function, `0` in the
/// scalar one.
pub const LANE_ID_BUILTIN: &str = "rv_lane_id";

/// Builds the body function `B` of `plan`'s loop (see the module docs):
/// parameters are the inductions (lane-0 values, linear), the live-ins
/// (uniform), then one slot pointer per reduction and per lastprivate value
/// (uniform).
pub fn outline_loop_body(
    func: &Function,
    plan: &LoopPlan,
    name: &str,
    data_layout: &DataLayout,
) -> Function {
    let mut param_types: Vec<Type> = plan
        .inductions
        .iter()
        .map(|induction| func.dfg.value_type(induction.phi).clone())
        .collect();
    param_types.extend(plan.live_ins.iter().map(|value| func.dfg.value_type(*value).clone()));
    param_types.extend(std::iter::repeat_n(Type::PTR, plan.slot_count()));
    if plan.has_conditional_assignments() {
        param_types.push(Type::I64); // the iteration number, linear
    }
    let mut body = Function::new(name, param_types, Type::Void);
    let mut map: HashMap<Value, Value> = HashMap::new();
    let mut next_param = 0;
    for induction in &plan.inductions {
        let param = body.param_value(next_param);
        body.dfg.value_names[param] = func.dfg.value_names[induction.phi].clone();
        map.insert(induction.phi, param);
        next_param += 1;
    }
    for value in &plan.live_ins {
        let param = body.param_value(next_param);
        body.dfg.value_names[param] = func.dfg.value_names[*value].clone();
        map.insert(*value, param);
        next_param += 1;
    }
    let slots: Vec<Value> =
        (next_param..next_param + plan.slot_count()).map(|i| body.param_value(i)).collect();
    let (reduction_slots, rest) = slots.split_at(plan.reductions.len());
    let (last_private_slots, stamp_slots) = rest.split_at(plan.last_private.len());
    let iteration = plan.has_conditional_assignments().then(|| {
        let param = body.param_value(next_param + plan.slot_count());
        body.dfg.value_names[param] = Some("iteration".to_owned());
        param
    });

    let mut blocks = HashMap::new();
    for &block in &plan.blocks {
        let new_block = body.dfg.make_block(func.dfg.blocks[block].name.clone());
        body.layout.append_block(new_block);
        blocks.insert(block, new_block);
    }
    let entry = blocks[&plan.header];

    // The entry: the lane number and the accumulators.
    let mut builder = FunctionBuilder::new(&mut body);
    builder.switch_to_block(entry);
    let lane_call = builder.call(
        Callee::Direct(LANE_ID_BUILTIN.to_owned()),
        Vec::new(),
        Type::I64,
        CallEffects::Pure,
    );
    let lane = builder.func.dfg.result(lane_call).expect("rv_lane_id returns the lane");
    builder.func.dfg.value_names[lane] = Some("lane".to_owned());
    // The iteration's private stack slots: the body's own allocas (the
    // whole-function pipeline gives each lane its own part).
    for &slot in &plan.private_allocas {
        let def = func.dfg.defining_inst(slot).expect("an alloca");
        let InstData::Alloca { ty, count, align } = func.dfg.inst(def).clone() else {
            unreachable!("private_stack_slots keeps allocas only")
        };
        let count = copy_value(func, builder.func, &map, count);
        let alloca = builder.ins_value(InstData::Alloca { ty, count, align }, Type::PTR);
        builder.func.dfg.value_names[alloca] = func.dfg.value_names[slot].clone();
        map.insert(slot, alloca);
    }
    for &address in &plan.private_addresses {
        let def = func.dfg.defining_inst(address).expect("an address instruction");
        let mut data = func.dfg.inst(def).clone();
        data.map_operands(|value| copy_value(func, builder.func, &map, value));
        let ty = func.dfg.value_type(address).clone();
        let copy = builder.ins_value(data, ty);
        builder.func.dfg.value_names[copy] = func.dfg.value_names[address].clone();
        map.insert(address, copy);
    }
    // A reduction's lane accumulates in `slot[lane]`; a scan's running
    // value is the uniform `slot[0]` (`scan`).
    let zero_index = builder.iconst(Type::I64, 0);
    for (reduction, slot) in plan.reductions.iter().zip(reduction_slots) {
        let index = if reduction.scan { zero_index } else { lane };
        let address = builder.gep(reduction.ty.clone(), *slot, vec![index]);
        let align = data_layout.abi_align(&reduction.ty) as u32;
        let accumulator = builder.load(reduction.ty.clone(), address, align);
        builder.func.dfg.value_names[accumulator] = func.dfg.value_names[reduction.phi].clone();
        map.insert(reduction.phi, accumulator);
    }

    // The loop's instructions, header phis left out; operands are mapped in
    // a second pass (phis may use values defined later).
    let header_phis: HashSet<Value> = plan
        .inductions
        .iter()
        .map(|induction| induction.phi)
        .chain(plan.reductions.iter().map(|reduction| reduction.phi))
        .collect();
    let latch_terminator = func.terminator(plan.latch).expect("checked by plan_simd_loop");
    let mut copied = Vec::new();
    for &block in &plan.blocks {
        for &inst in func.layout.block_insts(block) {
            if inst == latch_terminator
                || func.dfg.result(inst).is_some_and(|value| header_phis.contains(&value))
            {
                continue;
            }
            let result_ty =
                func.dfg.result(inst).map(|v| func.dfg.value_type(v).clone()).unwrap_or(Type::Void);
            let new_inst = body.append(blocks[&block], InstData::Unreachable, result_ty);
            if let (Some(old), Some(new)) = (func.dfg.result(inst), body.dfg.result(new_inst)) {
                map.insert(old, new);
                body.dfg.value_names[new] = func.dfg.value_names[old].clone();
            }
            // An invoke becomes a call and a jump to its normal destination
            // (`exceptions`: its unwind edge leaves the loop).
            if let Some((_, normal_dest)) = exceptions::call_for_invoke(func.dfg.inst(inst)) {
                body.append(
                    blocks[&block],
                    InstData::Jump { dest: blocks[&normal_dest] },
                    Type::Void,
                );
            }
            copied.push((inst, new_inst));
        }
    }
    for (inst, new_inst) in copied {
        let mut data = func.dfg.inst(inst).clone();
        if let Some((call, _)) = exceptions::call_for_invoke(&data) {
            data = call;
        }
        data.map_operands(|value| copy_value(func, &mut body, &map, value));
        data.map_successors(|block| blocks[&block]);
        if let InstData::Phi { incoming, .. } = &mut data {
            for (block, _) in incoming.iter_mut() {
                *block = blocks[block];
            }
        }
        *body.dfg.inst_mut(new_inst) = data;
    }

    // Scans: the prefix across the lanes, read in place of the running value.
    let scan_inclusive: Vec<Option<Value>> = plan
        .reductions
        .iter()
        .map(|reduction| {
            reduction.scan.then(|| {
                let (carried, update) = (map[&reduction.phi], map[&reduction.update]);
                scan::emit_prefix(&mut body, reduction, carried, update, lane)
            })
        })
        .collect();

    // Conditional assignments: whether this iteration assigned the value.
    let assigned: Vec<Value> = plan
        .conditional_assignments()
        .map(|reduction| assigned_in_iteration(func, &mut body, &map, &blocks, reduction))
        .collect();

    // The end of an iteration: updates and lastprivate values to their slots.
    let mut builder = FunctionBuilder::new(&mut body);
    builder.switch_to_block(blocks[&plan.latch]);
    if let Some(iteration) = iteration {
        // The stamp of an assignment: the iteration number plus one (zero:
        // never assigned in this lane).
        let one = builder.iconst(Type::I64, 1);
        let stamp = builder.binary(BinaryOp::Add, iteration, one);
        for (assigned, slot) in assigned.iter().zip(stamp_slots) {
            let address = builder.gep(Type::I64, *slot, vec![lane]);
            let old_stamp = builder.load(Type::I64, address, 8);
            let new_stamp = builder.select(*assigned, stamp, old_stamp);
            builder.store(new_stamp, address, 8);
        }
    }
    for ((reduction, slot), inclusive) in
        plan.reductions.iter().zip(reduction_slots).zip(scan_inclusive)
    {
        let (value, index) = match inclusive {
            Some(inclusive) => {
                let total = scan::chunk_total(&mut builder, inclusive, &reduction.ty);
                (total, builder.iconst(Type::I64, 0))
            }
            None => (copy_value(func, builder.func, &map, reduction.update), lane),
        };
        let address = builder.gep(reduction.ty.clone(), *slot, vec![index]);
        builder.store(value, address, data_layout.abi_align(&reduction.ty) as u32);
    }
    for (value, slot) in plan.last_private.iter().zip(last_private_slots) {
        let ty = func.dfg.value_type(*value).clone();
        let mapped = copy_value(func, builder.func, &map, *value);
        let address = builder.gep(ty.clone(), *slot, vec![lane]);
        builder.store(mapped, address, data_layout.abi_align(&ty) as u32);
    }
    builder.ret(None);
    body
}

/// In the body, an `i1` that is true when the iteration assigned the
/// conditional assignment `reduction` a new value: a parallel copy of its
/// merges, with `true` for the operands that are not derived from the
/// accumulator and `false` for the accumulator itself.
fn assigned_in_iteration(
    func: &Function,
    body: &mut Function,
    map: &HashMap<Value, Value>,
    blocks: &HashMap<Block, Block>,
    reduction: &Reduction,
) -> Value {
    let members: HashSet<Value> = reduction.members.iter().copied().collect();
    let yes = body.dfg.int_const(Type::BOOL, 1);
    let no = body.dfg.int_const(Type::BOOL, 0);
    // First a placeholder per merge (phis may refer to later merges), then
    // the operands.
    let mut parallel: HashMap<Value, Value> = HashMap::from([(reduction.phi, no)]);
    let mut merges = Vec::new();
    for &member in &reduction.members {
        let Some(inst) = func.dfg.defining_inst(member) else { continue };
        let data = func.dfg.inst(inst);
        if member == reduction.phi
            || !matches!(data, InstData::Phi { .. } | InstData::Select { .. })
        {
            continue;
        }
        let copy = map[&member];
        let block = body.dfg.defining_inst(copy).and_then(|copy| body.layout.inst_block(copy));
        let block = block.expect("the copied merge is in the body");
        let placeholder = body.dfg.make_inst(InstData::Unreachable, Type::BOOL);
        match data {
            InstData::Phi { .. } => body.layout.insert_inst_at(placeholder, block, 0),
            _ => {
                let copy_inst = body.dfg.defining_inst(copy).expect("a copied select");
                body.layout.insert_inst_before(placeholder, copy_inst);
            }
        }
        let value = body.dfg.result(placeholder).expect("an i1 result");
        parallel.insert(member, value);
        merges.push((inst, placeholder));
    }
    let flag = |value: &Value| -> Value {
        if members.contains(value) {
            parallel[value]
        } else {
            yes
        }
    };
    for (inst, placeholder) in merges {
        let data = match func.dfg.inst(inst) {
            InstData::Phi { incoming, .. } => InstData::Phi {
                ty: Type::BOOL,
                incoming: incoming
                    .iter()
                    .map(|(block, value)| (blocks[block], flag(value)))
                    .collect(),
            },
            InstData::Select { cond, if_true, if_false, .. } => InstData::Select {
                cond: copy_value(func, body, map, *cond),
                if_true: flag(if_true),
                if_false: flag(if_false),
                flags: Default::default(),
            },
            _ => unreachable!("only merges have placeholders"),
        };
        *body.dfg.inst_mut(placeholder) = data;
    }
    parallel[&reduction.update]
}

/// The bodies [`rewrite_loop`] calls.
#[derive(Clone, Debug)]
pub struct LoopCallTargets {
    pub width: u32,
    /// The unmasked variant: the body's parameters, widened.
    pub unmasked: String,
    /// The masked variant: the same plus the mask parameters.
    pub masked: String,
    /// The scalar remainder body ([`scalar_remainder_body`]).
    pub scalar: String,
    /// The types of the masked variant's mask parameters (the widener's
    /// mask ABI: `<W x iN>`/`<W x fN>` with non-zero lanes active, or one
    /// integer of at least W bits with lane `i` in bit `i`).
    pub mask_param_types: Vec<Type>,
}

/// The outlined body `B` as the scalar remainder loop calls it, named
/// `name`: `rv_lane_id()` is 0, so every slot access is `slot[0]` and the
/// caller passes `&slot[j]` for remainder iteration `j` (see [`tail`]), and
/// the builtins a scan uses (`scan`) have their one-lane meaning:
/// `rv_shuffle(v, s)` and `rv_extract(v, k)` are `v`, `rv_popcount(b)` is
/// `b`. The result is ordinary scalar code, independent of the SPMD
/// builtins.
pub fn scalar_remainder_body(body: &Function, name: &str) -> Function {
    let mut scalar = body.clone();
    scalar.name = name.to_owned();
    let builtin_calls: Vec<(Inst, String)> = scalar
        .layout
        .insts()
        .filter_map(|inst| match scalar.dfg.inst(inst) {
            InstData::Call { callee: Callee::Direct(callee), .. }
                if [LANE_ID_BUILTIN, "rv_shuffle", "rv_extract", "rv_popcount"]
                    .contains(&callee.as_str()) =>
            {
                Some((inst, callee.clone()))
            }
            _ => None,
        })
        .collect();
    let mut one_lane = HashMap::new();
    for (call, callee) in builtin_calls {
        let Some(result) = scalar.dfg.result(call) else { continue };
        let InstData::Call { args, .. } = scalar.dfg.inst(call).clone() else { unreachable!() };
        let ty = scalar.dfg.value_type(result).clone();
        match callee.as_str() {
            "rv_popcount" => {
                *scalar.dfg.inst_mut(call) = InstData::Cast {
                    op: CastOp::ZExt,
                    arg: args[0],
                    to: ty,
                    flags: Default::default(),
                };
            }
            LANE_ID_BUILTIN => {
                one_lane.insert(result, scalar.dfg.int_const(ty, 0));
                scalar.layout.remove_inst(call);
            }
            _ => {
                one_lane.insert(result, args[0]);
                scalar.layout.remove_inst(call);
            }
        }
    }
    crate::cfg_canon::replace_uses(&mut scalar, &one_lane);
    scalar
}

/// Replaces `plan`'s loop in `func` by the vectorized chunk loop, the tail
/// (`tail`: masked, scalar or chosen at run time) and the horizontal
/// reductions (see the module docs). The loop's blocks leave the layout.
pub fn rewrite_loop(
    func: &mut Function,
    plan: &LoopPlan,
    targets: &LoopCallTargets,
    tail: TailForm,
    data_layout: &DataLayout,
) -> Result<(), LoopRefusal> {
    let width = targets.width;
    let tested = &plan.inductions[plan.exit_test.induction];
    let iv_ty = func.dfg.value_type(tested.phi).clone();
    let entry = func.entry_block().expect("the function has blocks");

    // Stack slots: [W x T] per reduction and lastprivate value, [W x i64]
    // per conditional assignment (its stamps).
    let slot_types: Vec<Type> = plan
        .reductions
        .iter()
        .map(|reduction| reduction.ty.clone())
        .chain(plan.last_private.iter().map(|value| func.dfg.value_type(*value).clone()))
        .chain(plan.conditional_assignments().map(|_| Type::I64))
        .collect();
    let mut slots = Vec::new();
    for (position, ty) in slot_types.iter().enumerate() {
        let count = func.dfg.int_const(Type::I64, u128::from(width));
        let align = data_layout.abi_align(ty).max(16) as u32;
        let alloca =
            func.dfg.make_inst(InstData::Alloca { ty: ty.clone(), count, align }, Type::PTR);
        func.layout.insert_inst_at(alloca, entry, position);
        let slot = func.dfg.result(alloca).expect("alloca has a result");
        func.dfg.value_names[slot] = Some(format!("simd.slot{position}"));
        slots.push(slot);
    }
    let (reduction_slots, rest) = slots.split_at(plan.reductions.len());
    let (last_private_slots, stamp_slots) = rest.split_at(plan.last_private.len());

    let preheader_jump = func.terminator(plan.preheader).expect("checked by plan_simd_loop");
    func.layout.remove_inst(preheader_jump);
    let mut b = FunctionBuilder::new(func);
    let chunk_check = b.create_block(Some("simd.chunks"));
    let chunk_body = b.create_block(Some("simd.chunk"));
    let tail_check = b.create_block(Some("simd.tail.check"));
    let tail_choice = match tail {
        TailForm::RunTime { .. } => Some(b.create_block(Some("simd.tail.choice"))),
        _ => None,
    };
    let remainder = tail.runs_scalar().then(|| b.create_block(Some("simd.remainder")));
    let masked_tail = tail.calls_masked().then(|| b.create_block(Some("simd.tail")));
    let finish = b.create_block(Some("simd.done"));
    // Place them after the preheader, in this order.
    let new_blocks: Vec<Block> = [chunk_check, chunk_body, tail_check]
        .into_iter()
        .chain(tail_choice)
        .chain(remainder)
        .chain(masked_tail)
        .chain([finish])
        .collect();
    for &block in &new_blocks {
        b.func.layout.remove_block(block);
    }
    let mut after = plan.preheader;
    for &block in &new_blocks {
        b.func.layout.insert_block_after(block, after);
        after = block;
    }

    // Preheader: trip count and reduction slots.
    b.switch_to_block(plan.preheader);
    let trip_count = emit_trip_count(&mut b, plan, &iv_ty);
    for (reduction, slot) in plan.reductions.iter().zip(reduction_slots) {
        let align = data_layout.abi_align(&reduction.ty) as u32;
        let neutral = match reduction.kind.identity(&reduction.ty) {
            Some(constant) => b.func.dfg.make_const(reduction.ty.clone(), constant),
            None => reduction.init, // idempotent operators: init in every lane
        };
        for lane in 0..width {
            let value = if lane == 0 { reduction.init } else { neutral };
            let index = b.iconst(Type::I64, i128::from(lane));
            let address = b.gep(reduction.ty.clone(), *slot, vec![index]);
            b.store(value, address, align);
        }
    }
    for slot in stamp_slots {
        let never = b.iconst(Type::I64, 0);
        for lane in 0..width {
            let index = b.iconst(Type::I64, i128::from(lane));
            let address = b.gep(Type::I64, *slot, vec![index]);
            b.store(never, address, 8);
        }
    }
    let width_value = b.iconst(iv_ty.clone(), i128::from(width));
    let chunks = b.binary(BinaryOp::UDiv, trip_count, width_value);
    b.func.dfg.value_names[chunks] = Some("simd.chunk.count".to_owned());
    b.jump(chunk_check);

    // Chunk loop.
    b.switch_to_block(chunk_check);
    let zero = b.iconst(iv_ty.clone(), 0);
    let chunk_phi = b.phi(iv_ty.clone(), vec![(plan.preheader, zero)]);
    b.func.dfg.value_names[chunk_phi] = Some("simd.chunk.index".to_owned());
    let more = b.icmp(IntPredicate::Ult, chunk_phi, chunks);
    b.branch(more, chunk_body, tail_check);

    b.switch_to_block(chunk_body);
    let first_iteration = b.binary(BinaryOp::Mul, chunk_phi, width_value);
    let args = body_call_args(&mut b, plan, first_iteration, &slots);
    b.call(Callee::Direct(targets.unmasked.clone()), args, Type::Void, CallEffects::SideEffects);
    let one = b.iconst(iv_ty.clone(), 1);
    let next_chunk = b.binary(BinaryOp::Add, chunk_phi, one);
    b.jump(chunk_check);
    let phi_inst = b.func.dfg.defining_inst(chunk_phi).expect("phi");
    if let InstData::Phi { incoming, .. } = b.func.dfg.inst_mut(phi_inst) {
        incoming.push((chunk_body, next_chunk));
    }

    // The tail: `remaining` iterations from `done` on.
    b.switch_to_block(tail_check);
    let done = b.binary(BinaryOp::Mul, chunks, width_value);
    let remaining = b.binary(BinaryOp::Sub, trip_count, done);
    b.func.dfg.value_names[remaining] = Some("simd.remaining".to_owned());
    let any_left = b.icmp(IntPredicate::Ne, remaining, zero);
    let first_tail_block = tail_choice.or(remainder).or(masked_tail).expect("a tail form");
    b.branch(any_left, first_tail_block, finish);

    if let (Some(choice), TailForm::RunTime { scalar_below }) = (tail_choice, tail) {
        b.switch_to_block(choice);
        let threshold = b.iconst(iv_ty.clone(), i128::from(scalar_below));
        let few = b.icmp(IntPredicate::Ult, remaining, threshold);
        let (Some(remainder), Some(masked_tail)) = (remainder, masked_tail) else {
            unreachable!("a run-time choice has both tails")
        };
        b.branch(few, remainder, masked_tail);
    }

    // Scalar remainder: iteration `done + j` runs the scalar body with the
    // slots of lane `j` (see `tail`).
    if let Some(remainder) = remainder {
        let entered_from = tail_choice.unwrap_or(tail_check);
        b.switch_to_block(remainder);
        let j = b.phi(iv_ty.clone(), vec![(entered_from, zero)]);
        b.func.dfg.value_names[j] = Some("simd.remainder.index".to_owned());
        let iteration = b.binary(BinaryOp::Add, done, j);
        let lane = match iv_ty.int_bits() {
            Some(bits) if bits < 64 => b.cast(CastOp::ZExt, j, Type::I64),
            Some(bits) if bits > 64 => b.cast(CastOp::Trunc, j, Type::I64),
            _ => j,
        };
        // A scan's running value is `slot[0]` in every iteration.
        let scans = plan.reductions.iter().map(|reduction| reduction.scan);
        let lane_slots: Vec<Value> = slot_types
            .iter()
            .zip(&slots)
            .zip(scans.chain(std::iter::repeat(false)))
            .map(
                |((ty, slot), scan)| {
                    if scan {
                        *slot
                    } else {
                        b.gep(ty.clone(), *slot, vec![lane])
                    }
                },
            )
            .collect();
        let args = body_call_args(&mut b, plan, iteration, &lane_slots);
        b.call(Callee::Direct(targets.scalar.clone()), args, Type::Void, CallEffects::SideEffects);
        let next_j = b.binary(BinaryOp::Add, j, one);
        let more = b.icmp(IntPredicate::Ult, next_j, remaining);
        b.branch(more, remainder, finish);
        let phi_inst = b.func.dfg.defining_inst(j).expect("phi");
        if let InstData::Phi { incoming, .. } = b.func.dfg.inst_mut(phi_inst) {
            incoming.push((remainder, next_j));
        }
    }

    // Masked tail: one call, lanes `0..remaining` active.
    if let Some(masked_tail) = masked_tail {
        b.switch_to_block(masked_tail);
        let mut args = body_call_args(&mut b, plan, done, &slots);
        let lane_numbers: Vec<Value> =
            (0..width).map(|lane| b.iconst(iv_ty.clone(), i128::from(lane))).collect();
        let lanes_ty = iv_ty.vector_of(width);
        let lanes = b.func.dfg.make_const(lanes_ty, Constant::Aggregate(lane_numbers));
        let remaining_splat = b.splat(remaining, width);
        let active = b.icmp(IntPredicate::Ult, lanes, remaining_splat);
        args.extend(mask_arguments(&mut b, active, width, &targets.mask_param_types)?);
        b.call(Callee::Direct(targets.masked.clone()), args, Type::Void, CallEffects::SideEffects);
        b.jump(finish);
    }

    // Results.
    b.switch_to_block(finish);
    let mut reduced = Vec::new();
    let mut stamp_slots = stamp_slots.iter();
    for (reduction, slot) in plan.reductions.iter().zip(reduction_slots) {
        let align = data_layout.abi_align(&reduction.ty) as u32;
        // A conditional assignment: the value of the lane with the latest
        // stamp (stamps are unique but for zero, "never": then every lane
        // still holds the initial value).
        let stamps = (reduction.kind == ReductionKind::LastAssigned)
            .then(|| *stamp_slots.next().expect("a stamp slot per conditional assignment"));
        let mut total = None;
        let mut latest_stamp = None;
        for lane in 0..width {
            let index = b.iconst(Type::I64, i128::from(lane));
            let address = b.gep(reduction.ty.clone(), *slot, vec![index]);
            let part = b.load(reduction.ty.clone(), address, align);
            total = Some(match (total, stamps) {
                (None, None) => part,
                (None, Some(stamps)) => {
                    let address = b.gep(Type::I64, stamps, vec![index]);
                    latest_stamp = Some(b.load(Type::I64, address, 8));
                    part
                }
                (Some(total), None) => reduction.kind.combine(&mut b, total, part),
                (Some(total), Some(stamps)) => {
                    let address = b.gep(Type::I64, stamps, vec![index]);
                    let stamp = b.load(Type::I64, address, 8);
                    let latest = latest_stamp.expect("lane 0 set the stamp");
                    let later = b.icmp(IntPredicate::Ugt, stamp, latest);
                    latest_stamp = Some(b.select(later, stamp, latest));
                    b.select(later, part, total)
                }
            });
        }
        reduced.push(total.expect("width is at least 1"));
    }
    let last_iteration = b.binary(BinaryOp::Sub, trip_count, one);
    let last_lane = b.binary(BinaryOp::URem, last_iteration, width_value);
    let mut last_values = Vec::new();
    for (value, slot) in plan.last_private.iter().zip(last_private_slots) {
        let ty = b.func.dfg.value_type(*value).clone();
        let address = b.gep(ty.clone(), *slot, vec![last_lane]);
        last_values.push(b.load(ty.clone(), address, data_layout.abi_align(&ty) as u32));
    }
    let mut live_out_values = Vec::new();
    for (phi, live_out) in &plan.exit_phis {
        let value = match live_out {
            LiveOut::InductionLast(index) => {
                induction_value_at(&mut b, &plan.inductions[*index], last_iteration)
            }
            LiveOut::InductionEnd(index) => {
                induction_value_at(&mut b, &plan.inductions[*index], trip_count)
            }
            LiveOut::Reduction(index) => reduced[*index],
            LiveOut::LastPrivate(index) => last_values[*index],
            LiveOut::Outside(value) => *value,
        };
        live_out_values.push((*phi, value));
    }
    b.jump(plan.exit);

    for (phi, value) in live_out_values {
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
            for (block, incoming_value) in incoming.iter_mut() {
                if *block == plan.latch {
                    *block = finish;
                    *incoming_value = value;
                }
            }
        }
    }
    let latch_terminator = func.terminator(plan.latch);
    for &block in &plan.blocks {
        func.layout.remove_block(block);
    }
    if let Some(term) = latch_terminator {
        func.loop_hints.remove(&term);
    }
    exceptions::drop_orphaned_landing_pads(func, &plan.unwind_dests, &plan.blocks);
    Ok(())
}

/// The trip count of the loop (see the module docs), in the preheader.
fn emit_trip_count(b: &mut FunctionBuilder<'_>, plan: &LoopPlan, iv_ty: &Type) -> Value {
    let test = &plan.exit_test;
    let induction = &plan.inductions[test.induction];
    let step = induction.step;
    let magnitude = b.iconst(iv_ty.clone(), i128::from(step.unsigned_abs()));
    // With the test on `iv` rather than `iv + step`, the bound is one step further.
    let mut bound = test.bound;
    if !test.tests_next {
        let step_value = b.iconst(iv_ty.clone(), i128::from(step));
        bound = b.binary(BinaryOp::Add, bound, step_value);
    }
    use IntPredicate::*;
    let trip_count = match test.continue_while {
        Ne => {
            let distance = if step > 0 {
                b.binary(BinaryOp::Sub, bound, induction.start)
            } else {
                b.binary(BinaryOp::Sub, induction.start, bound)
            };
            b.binary(BinaryOp::UDiv, distance, magnitude)
        }
        pred => {
            let inclusive = matches!(pred, Sle | Ule | Sge | Uge);
            let signed = matches!(pred, Slt | Sle | Sgt | Sge);
            if inclusive {
                let one = b.iconst(iv_ty.clone(), if step > 0 { 1 } else { -1 });
                bound = b.binary(BinaryOp::Add, bound, one);
            }
            // distance = how far the bound lies ahead in the step direction.
            let (ahead, distance) = if step > 0 {
                let ahead = if signed { Sgt } else { Ugt };
                (
                    b.icmp(ahead, bound, induction.start),
                    b.binary(BinaryOp::Sub, bound, induction.start),
                )
            } else {
                let ahead = if signed { Slt } else { Ult };
                (
                    b.icmp(ahead, bound, induction.start),
                    b.binary(BinaryOp::Sub, induction.start, bound),
                )
            };
            let one = b.iconst(iv_ty.clone(), 1);
            let distance = b.select(ahead, distance, one);
            let rounding = b.iconst(iv_ty.clone(), i128::from(step.unsigned_abs() - 1));
            let rounded = b.binary(BinaryOp::Add, distance, rounding);
            b.binary(BinaryOp::UDiv, rounded, magnitude)
        }
    };
    b.func.dfg.value_names[trip_count] = Some("simd.trip.count".to_owned());
    trip_count
}

/// `start + iteration * step` of `induction` (`iteration` of the tested
/// induction's type, converted if the induction is of another width).
fn induction_value_at(
    b: &mut FunctionBuilder<'_>,
    induction: &Induction,
    iteration: Value,
) -> Value {
    let ty = b.ty(induction.phi);
    let iteration_ty = b.ty(iteration);
    let iteration = match (iteration_ty.int_bits(), ty.int_bits()) {
        (Some(from), Some(to)) if from > to => b.cast(CastOp::Trunc, iteration, ty.clone()),
        (Some(from), Some(to)) if from < to => b.cast(CastOp::ZExt, iteration, ty.clone()),
        _ => iteration,
    };
    let step = b.iconst(ty, i128::from(induction.step));
    let offset = b.binary(BinaryOp::Mul, iteration, step);
    b.binary(BinaryOp::Add, induction.start, offset)
}

/// The arguments of a body call whose lane 0 runs iteration `first_iteration`.
fn body_call_args(
    b: &mut FunctionBuilder<'_>,
    plan: &LoopPlan,
    first_iteration: Value,
    slots: &[Value],
) -> Vec<Value> {
    let mut args: Vec<Value> = plan
        .inductions
        .iter()
        .map(|induction| induction_value_at(b, induction, first_iteration))
        .collect();
    args.extend(plan.live_ins.iter().copied());
    args.extend(slots.iter().copied());
    if plan.has_conditional_assignments() {
        // The iteration number of lane 0, as i64 (counts are non-negative).
        let iteration = match b.ty(first_iteration).int_bits() {
            Some(bits) if bits < 64 => b.cast(CastOp::ZExt, first_iteration, Type::I64),
            Some(bits) if bits > 64 => b.cast(CastOp::Trunc, first_iteration, Type::I64),
            _ => first_iteration,
        };
        args.push(iteration);
    }
    args
}

/// `active` (`<W x i1>`) in the form of the masked variant's mask parameters:
/// one parameter, or (when the vector ABI splits W lanes over several
/// registers, as 32 `float` lanes on AVX-512) several of the same type, part
/// `j` holding lanes `[j*W/n, (j+1)*W/n)`. A part is a vector of integers
/// (0/1) or floats (0.0/1.0), or an integer bit mask.
fn mask_arguments(
    b: &mut FunctionBuilder<'_>,
    active: Value,
    width: u32,
    mask_param_types: &[Type],
) -> Result<Vec<Value>, LoopRefusal> {
    let unsupported = || {
        LoopRefusal::new(format!(
            "unsupported mask parameters of the masked body: {}",
            mask_param_types.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
        ))
    };
    let parts = mask_param_types.len() as u32;
    let [first, ..] = mask_param_types else { return Err(unsupported()) };
    if mask_param_types.iter().any(|ty| ty != first) || !width.is_multiple_of(parts) {
        return Err(unsupported());
    }
    let lanes = width / parts;
    let mut arguments = Vec::new();
    for part in 0..parts {
        let part_mask = if parts == 1 {
            active
        } else {
            let lane_indices = (part * lanes..(part + 1) * lanes).map(|lane| lane as i32).collect();
            b.ins_value(
                InstData::Shuffle { lhs: active, rhs: active, mask: lane_indices },
                Type::BOOL.vector_of(lanes),
            )
        };
        let argument = match first {
            Type::Vector { lanes: param_lanes, .. } if *param_lanes != lanes => {
                return Err(unsupported());
            }
            ty @ Type::Vector { .. } if ty.scalar_type().is_int() => {
                b.cast(CastOp::ZExt, part_mask, ty.clone())
            }
            ty @ Type::Vector { .. } if ty.scalar_type().is_float() => {
                b.cast(CastOp::UIToFP, part_mask, ty.clone())
            }
            Type::Int(bits) if *bits >= lanes => {
                let packed = b.cast(CastOp::Bitcast, part_mask, Type::Int(lanes));
                if *bits > lanes {
                    b.cast(CastOp::ZExt, packed, Type::Int(*bits))
                } else {
                    packed
                }
            }
            _ => return Err(unsupported()),
        };
        arguments.push(argument);
    }
    Ok(arguments)
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
