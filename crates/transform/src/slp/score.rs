//! The heuristics (Foss 2013, section 2.4): `TreeScore` and `PairScore`.
//!
//! A score counts instructions: each fused pair saves one (two scalar
//! operations become one vector operation; a load two pairs share goes only
//! once, so a pair of loads that only repeats other pairs' loads costs
//! one), each move costs one. Moves are
//! what section 2.4 calls forced moves, for x86's separate scalar and
//! vector registers:
//! * an operand pair that no fused pair computes: a splat when both lanes
//!   read one value, a shuffle when they are vectors, an `insertelement` per
//!   lane otherwise (none for constants);
//! * a fused operation whose lane is still read by an operation outside the
//!   fused set: one `extractelement` (or half-vector shuffle) per lane.
//!
//! A pair whose lanes are fused is free only when the fused pair is the
//! operand pair in the same lane order; anything else reads the lanes
//! through extracts.

use std::collections::HashMap;

use lanewise_ir::{Function, Inst};

use super::candidates::{Candidates, PairId};

/// The score of fusing the pairs marked in `in_set` (`set` lists them):
/// instructions saved minus moves.
pub(crate) fn set_score(
    func: &Function,
    candidates: &Candidates,
    set: &[PairId],
    in_set: &[bool],
) -> i32 {
    let mut members: HashMap<Inst, Vec<(PairId, usize)>> = HashMap::new();
    for &pair in set {
        for (lane, inst) in candidates.pairs[pair].lanes.iter().enumerate() {
            members.entry(*inst).or_default().push((pair, lane));
        }
    }
    // Every fused instruction goes, every pair adds its vector instruction
    // (a load in two pairs goes once).
    let mut score = members.len() as i32 - set.len() as i32;
    for &pair in set {
        score -= operand_moves(func, candidates, pair, in_set);
    }
    for (inst, places) in &members {
        if needs_extract(func, candidates, *inst, places, &members, in_set) {
            score -= 1;
        }
    }
    score
}

/// The moves that bring `pair`'s operands into a vector.
pub(crate) fn operand_moves(
    func: &Function,
    candidates: &Candidates,
    pair: PairId,
    in_set: &[bool],
) -> i32 {
    let first = candidates.lane_operands(func, pair, 0);
    let second = candidates.lane_operands(func, pair, 1);
    let mut moves = 0;
    for (position, (x, y)) in first.iter().zip(&second).enumerate() {
        if let Some(Some(producer)) = candidates.operand_pairs[pair].get(position) {
            if in_set[*producer] {
                continue;
            }
        }
        let x_constant = func.dfg.constant(*x).is_some();
        let y_constant = func.dfg.constant(*y).is_some();
        moves += if x_constant && y_constant {
            0
        } else if x == y || func.dfg.value_type(*x).is_vector() || x_constant || y_constant {
            1
        } else {
            2
        };
    }
    moves
}

/// Whether some user of `inst` (fused at `places`) reads its lane outside
/// the fused set, so that the lane must be extracted.
fn needs_extract(
    func: &Function,
    candidates: &Candidates,
    inst: Inst,
    places: &[(PairId, usize)],
    members: &HashMap<Inst, Vec<(PairId, usize)>>,
    in_set: &[bool],
) -> bool {
    let Some(value) = func.dfg.result(inst) else { return false };
    candidates.users(value).iter().any(|user| {
        let Some(user_places) = members.get(user) else { return true };
        let covered = user_places.iter().any(|(user_pair, user_lane)| {
            candidates.operand_pairs[*user_pair].iter().any(|producer| {
                producer.is_some_and(|producer| {
                    in_set[producer]
                        && places.iter().any(|(pair, lane)| *pair == producer && lane == user_lane)
                })
            })
        });
        !covered
    })
}

/// The score fusing `extra` adds to the already chosen set `chosen`
/// (`in_set` marks `chosen` only; it is restored before returning).
pub(crate) fn marginal_score(
    func: &Function,
    candidates: &Candidates,
    chosen: &[PairId],
    extra: &[PairId],
    in_set: &mut [bool],
) -> i32 {
    let before = set_score(func, candidates, chosen, in_set);
    let mut union = chosen.to_vec();
    let mut added = Vec::new();
    for &pair in extra {
        if !in_set[pair] {
            in_set[pair] = true;
            union.push(pair);
            added.push(pair);
        }
    }
    let after = set_score(func, candidates, &union, in_set);
    for pair in added {
        in_set[pair] = false;
    }
    after - before
}
