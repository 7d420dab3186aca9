//! Private memory that every lane writes alike stays one scalar copy.
//!
//! Widening gives every lane its own copy of each alloca (the SPMD meaning of
//! a local variable), so a load from it is Varying even when every lane
//! stored the same value at the same place: a traversal stack that all lanes
//! push and pop in lock step (`if (rv_any(need)) stack[top++] = child;`)
//! would turn every node index into a vector and every node access into a
//! gather. RV keeps such objects scalar: "if all SIMD lanes access the same
//! offsets and write only uniform values, the stack object remains scalar"
//! (Pérard-Gayot et al., WPMVP'18, section 2.2.2).
//!
//! An alloca qualifies when every store into it writes a uniform value to a
//! uniform address in a block with a uniform predicate (PLDI'18 `uni(b)`:
//! the block runs with all of the function's lanes or with none), and its
//! address does not escape ([`lanewise_analysis::AllocaReport`]). Then, by
//! induction over the execution, all lanes' copies hold the same bytes at
//! every point, so one copy shared by all lanes is the same memory, and a
//! load from it at a uniform address is uniform.
//!
//! That conclusion feeds back into the analysis (a uniform load makes the
//! next push's value uniform), so this is a fixed point like WPMVP'18's
//! driver: assume every candidate alloca is shared
//! ([`Function::shared_allocas`], which the shape analysis gives a uniform
//! address), run the divergence analysis, drop the candidates whose reports
//! break the rule, and repeat until nothing is dropped. Each round drops at
//! least one candidate or ends, and the final analysis is computed under the
//! final assumption, so every shared alloca satisfies the rule under the
//! shapes that hold when it is shared.
//!
//! Only entry-block allocas are candidates (one elsewhere is a new object on
//! every execution). The pass changes nothing but `shared_allocas`; the
//! caller recomputes its analyses afterwards.

use lanewise_analysis::DivergenceInfo;
use lanewise_ir::{Function, Inst, InstData};

/// Marks as shared ([`Function::shared_allocas`]) every entry-block alloca
/// whose copies provably hold the same bytes in every lane (module docs).
/// `analyze` runs the divergence analysis on the function as it is at the
/// time of the call. Returns the allocas marked, in layout order.
pub fn share_uniform_allocas<E>(
    func: &mut Function,
    analyze: impl Fn(&Function) -> Result<DivergenceInfo, E>,
) -> Result<Vec<Inst>, E> {
    let Some(entry) = func.entry_block() else { return Ok(Vec::new()) };
    let mut candidates: Vec<Inst> = func
        .layout
        .block_insts(entry)
        .iter()
        .copied()
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Alloca { .. }))
        .filter(|inst| !func.shared_allocas.contains(inst))
        .collect();
    while !candidates.is_empty() {
        func.shared_allocas.extend(candidates.iter().copied());
        let info = analyze(func);
        for &candidate in &candidates {
            func.shared_allocas.remove(&candidate);
        }
        let info = info?;
        let before = candidates.len();
        candidates.retain(|&alloca| {
            let Some(result) = func.dfg.result(alloca) else { return false };
            info.alloca_report(result).is_some_and(|report| {
                !report.varying_store
                    && !report.varying_store_address
                    && !report.store_under_varying_predicate
                    && !report.escapes
            })
        });
        if candidates.len() == before {
            break;
        }
    }
    func.shared_allocas.extend(candidates.iter().copied());
    Ok(candidates)
}

#[cfg(test)]
mod tests;
