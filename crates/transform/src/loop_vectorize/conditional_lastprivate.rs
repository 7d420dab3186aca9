//! clang's lowering of `lastprivate(conditional: x)` under `-fopenmp-simd`.
//!
//! clang-22 keeps the value and the number of the iteration that last
//! assigned `x` in two globals (`@pl_cond.x_N`, `@.pl_cond.x_N.iv`); an
//! iteration assigns only when its number is not older than the one in the
//! `.iv` global, so threads (or lanes) that run iterations side by side
//! leave the value of the sequentially last assignment:
//!
//! ```text
//!         %p = load i32, ptr @.pl_cond.x.iv
//!         %older = icmp slt i64 %iv, (sext i32 %p)
//!         br i1 %older, label %skip, label %assign
//! assign: store i32 (trunc %iv), ptr @.pl_cond.x.iv ; store %value, ptr @pl_cond.x
//! ```
//!
//! Lanewise's vectorized body stores to a uniform address once per store
//! and vector step, with the highest active lane's value; lanes hold
//! consecutive iterations in order. So the protocol works across lanes as
//! it does across threads, as long as each comparison reads the number the
//! `.iv` global holds at that point. Let `I` be the last iteration of a
//! chunk that assigns, in lane `L`. Lanes above `L` never assign. Whenever
//! `L` assigns, no higher lane does, so its store wins; once it stored
//! `I`, every other lane's number is older and no other lane assigns. So
//! the chunk ends with `L`'s last assignment, as the scalar loop does.
//!
//! But clang's `-O3` (GVN's load PRE) keeps copies of the number in
//! registers: a phi that follows the loads and the stores. A lane's
//! register only knows that lane's own assignments; a lane whose inner loop
//! runs longer would assign after a later iteration's lane did, and the
//! older value would win (fuzz seeds 13890 and 14242,
//! `tests/fuzz_regressions/015`). This pass undoes the copies before the
//! loop is planned:
//!
//! 1. [`header_recurrence`]: a copy in the SIMD loop's own header phi is
//!    compared with the value before the loop (no memory access added).
//! 2. [`reload`]: every other copy that a comparison (or any other
//!    non-phi instruction) in the loop reads is replaced by a load of the
//!    global at that point; the phis that carried it die.
//! 3. [`late_assignments`]: a value store after the iteration's first
//!    assignment (which alone stores the number) re-checks the number at
//!    its own point, so an older lane keeps a newer lane's value.
//! 4. [`unshared_copy`]: a phi in the loop that still carries a value loaded
//!    from an `.iv` global refuses the loop.

mod header_recurrence;
mod late_assignments;
mod reload;

use std::collections::{HashMap, HashSet};

use lanewise_analysis::loops::LoopInfo;
use lanewise_ir::{Block, Constant, Function, Inst, InstData, Value};

use super::{LoopRefusal, SimdLoopCandidate};

/// Undoes the register copies of `lastprivate(conditional:)` iteration
/// numbers in the candidate loop (see the module docs). Returns how many
/// copies it rewrote, or why the loop must stay scalar. Changes only
/// instructions, so `loops` stays valid.
pub fn simplify_conditional_lastprivate(
    func: &mut Function,
    loops: &LoopInfo,
    candidate: &SimdLoopCandidate,
) -> Result<usize, LoopRefusal> {
    let rewritten = header_recurrence::rewrite_header_recurrences(func, loops, candidate);
    let in_loop: HashSet<Block> = loops.blocks(candidate.lp).iter().copied().collect();
    let reloaded = reload::reload_iteration_numbers(func, &in_loop);
    let rechecked = late_assignments::recheck_late_assignments(func, &in_loop)?;
    match unshared_copy(func, &in_loop) {
        Some((phi, global)) => {
            let result = func.dfg.result(phi).expect("a phi has a result");
            let block = func.layout.inst_block(phi).expect("the phi is in the layout");
            Err(LoopRefusal::new(format!(
                "the iteration number of `lastprivate(conditional:)` (@{global}) is kept in \
                 phi {} of block %{}, which the lanes cannot share",
                func.dfg.display_value(result),
                func.block_name(block),
            )))
        }
        None => Ok(rewritten + reloaded + rechecked),
    }
}

/// The name of the global `value` is the address of, if it is clang's
/// `.iv` global of a `lastprivate(conditional:)` variable.
fn iteration_number_global(func: &Function, value: Value) -> Option<&str> {
    match func.dfg.constant(value) {
        Some(Constant::Symbol(name)) if name.starts_with(".pl_cond.") && name.ends_with(".iv") => {
            Some(name)
        }
        _ => None,
    }
}

/// The values derived from loads of `.iv` globals through phis, casts,
/// selects and freezes, each with the name of its global.
fn register_copies(func: &Function) -> HashMap<Value, String> {
    let mut copies: HashMap<Value, String> = HashMap::new();
    for inst in func.layout.insts() {
        if let InstData::Load { addr, .. } = func.dfg.inst(inst) {
            if let (Some(global), Some(result)) =
                (iteration_number_global(func, *addr), func.dfg.result(inst))
            {
                copies.insert(result, global.to_owned());
            }
        }
    }
    // Forward through the instructions that pass a value on unchanged (or
    // pick it among others), until nothing new is found.
    loop {
        let mut added = false;
        for inst in func.layout.insts() {
            let data = func.dfg.inst(inst);
            let passes_on = matches!(
                data,
                InstData::Phi { .. }
                    | InstData::Cast { .. }
                    | InstData::Select { .. }
                    | InstData::Freeze { .. }
            );
            let Some(result) = func.dfg.result(inst) else { continue };
            if !passes_on || copies.contains_key(&result) {
                continue;
            }
            let mut global = None;
            data.for_each_operand(|operand| {
                if global.is_none() {
                    global = copies.get(&operand).cloned();
                }
            });
            if let Some(global) = global {
                copies.insert(result, global);
                added = true;
            }
        }
        if !added {
            return copies;
        }
    }
}

/// A phi in the loop that carries a value loaded from an `.iv` global, and
/// the global's name.
fn unshared_copy(func: &Function, in_loop: &HashSet<Block>) -> Option<(Inst, String)> {
    let copies = register_copies(func);
    let in_loop_insts = func
        .layout
        .blocks()
        .iter()
        .filter(|block| in_loop.contains(block))
        .flat_map(|block| func.layout.block_insts(*block).iter().copied());
    in_loop_insts
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Phi { .. }))
        .find_map(|inst| Some((inst, copies.get(&func.dfg.result(inst)?)?.clone())))
}

#[cfg(test)]
mod tests;
