//! The pair vectorizer (Foss 2013, Algorithms 12-14): every candidate pair
//! scored on its own (`PairScore`), fused best first while its score
//! reaches the minimum and it depends on nothing fused with it.
//!
//! `PairScore` here is the pair's saving minus the moves of its operands
//! that no chosen pair computes, minus an extract for each lane some
//! operation outside every candidate pair reads (a lane read by another
//! candidate is expected to be fused with it). Since that expectation can
//! fail, the chosen pairs are finally pruned like a tree
//! ([`super::trees`]): a pair whose removal raises the total score goes,
//! and nothing is fused unless the total reaches the minimum. Scores are
//! recomputed after each choice (the thesis sorts once; fusing a pair makes
//! its users' operands free, which is the effect Foss's figure 2.4 shows
//! across iterations).

use std::collections::HashSet;

use lanewise_ir::{Function, Inst};

use super::candidates::{Candidates, PairId};
use super::dependence::BlockGraph;
use super::score::{operand_cost, pair_cost, set_score};
use super::trees::{groups, is_load};
use super::{Plan, SlpConfig};

/// The pairs the pair vectorizer fuses in one round.
pub(crate) fn choose(
    func: &Function,
    graph: &BlockGraph,
    candidates: &Candidates,
    config: &SlpConfig,
) -> Plan {
    let count = candidates.pairs.len();
    let candidate_ops: HashSet<Inst> =
        candidates.pairs.iter().flat_map(|pair| pair.lanes).collect();
    let mut in_set = vec![false; count];
    let mut chosen: Vec<PairId> = Vec::new();
    let mut used: HashSet<Inst> = HashSet::new();
    let mut rejected = vec![false; count];
    loop {
        let best = (0..count)
            .filter(|pair| !in_set[*pair] && !rejected[*pair])
            .filter(|pair| {
                candidates.pairs[*pair]
                    .lanes
                    .iter()
                    .all(|inst| is_load(func, *inst) || !used.contains(inst))
            })
            .map(|pair| (pair_score(func, candidates, pair, &in_set, &candidate_ops), pair))
            .max_by_key(|(score, pair)| (*score, std::cmp::Reverse(*pair)));
        let Some((score, pair)) = best else { break };
        if score < config.min_score {
            break;
        }
        let mut tentative = chosen.clone();
        tentative.push(pair);
        if !graph.is_schedulable(&groups(candidates, &tentative)) {
            rejected[pair] = true;
            continue;
        }
        in_set[pair] = true;
        used.extend(candidates.pairs[pair].lanes);
        chosen = tentative;
    }
    // Drop the pairs whose expected partners never came.
    let mut total = set_score(func, candidates, &chosen, &in_set);
    let mut position = chosen.len();
    while position > 0 {
        position -= 1;
        let pair = chosen[position];
        in_set[pair] = false;
        let mut without = chosen.clone();
        without.remove(position);
        let score = set_score(func, candidates, &without, &in_set);
        if score > total {
            total = score;
            chosen = without;
        } else {
            in_set[pair] = true;
        }
    }
    // Pairs chosen one by one leave fragments (two lanes fused, the rest
    // extracted) whose moves the count of instructions underrates: the set
    // must save at least one instruction per two pairs.
    if total < config.min_score.max(chosen.len() as i32 / 2) {
        return Plan::default();
    }
    Plan { trees: chosen.len(), pairs: chosen }
}

/// `PairScore`: one instruction saved, minus operand moves, minus an
/// extract per lane read outside every candidate pair.
fn pair_score(
    func: &Function,
    candidates: &Candidates,
    pair: PairId,
    in_set: &[bool],
    candidate_ops: &HashSet<Inst>,
) -> i32 {
    let mut score = 2 - pair_cost(candidates, pair);
    for position in 0..candidates.operand_pairs[pair].len() {
        score -= operand_cost(func, candidates, pair, position, in_set, None).0;
    }
    for inst in candidates.pairs[pair].lanes {
        let Some(value) = func.dfg.result(inst) else { continue };
        if candidates.users(value).iter().any(|user| !candidate_ops.contains(user)) {
            score -= 1;
        }
    }
    score
}
