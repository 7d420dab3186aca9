//! The heuristics (Foss 2013, section 2.4): `TreeScore` and `PairScore`.
//!
//! A score counts instructions: each fused instruction goes (a load two
//! pairs share goes once), each pair adds its vector instruction (three for
//! alternating opcodes: both operations and a blend; two for `fsub`/`fadd`,
//! x86's `addsub`), and each move costs one. Moves are what section 2.4
//! calls forced moves, for x86's separate scalar and vector registers:
//! * an operand pair that no fused pair computes: nothing for constants; a
//!   splat when both lanes read one value (none when it is loaded: x86
//!   broadcasts from memory); one shuffle when both lanes sit
//!   in vectors of one type (lanes of fused pairs, or the vectors constant
//!   `extractelement`s read: a reversed or rotated pair of loads, a lane
//!   broadcast); one shuffle for vector lanes; an `insertelement` per lane
//!   otherwise;
//! * a fused operation whose lane is still read by an operation that does
//!   not take it from a vector: one `extractelement` (or half-vector
//!   shuffle) per lane;
//! * a round trip: a lane that leaves the vectors and comes back after a
//!   few scalar operations into a vector of distinct lanes costs one move
//!   more, since extract, scalar work and insert then sit on one chain of
//!   dependences (a quaternion rotation's cross products: 0.82x of scalar
//!   without this, 1.0x with it).

use std::collections::HashMap;

use lanewise_ir::{Function, Inst, InstData, Type, Value};

use super::candidates::{Candidates, OpKind, PairId};
use super::fuse::doubled;

/// The fused pairs each instruction is a lane of: (pair, lane).
pub(crate) type Members = HashMap<Inst, Vec<(PairId, usize)>>;

/// The lanes of the pairs of `set`.
pub(crate) fn members_of(candidates: &Candidates, set: &[PairId]) -> Members {
    let mut members: Members = HashMap::new();
    for &pair in set {
        for (lane, inst) in candidates.pairs[pair].lanes.iter().enumerate() {
            members.entry(*inst).or_default().push((pair, lane));
        }
    }
    members
}

/// The instructions a fused pair costs: one vector operation, or for a pair
/// of alternating opcodes both operations and a blend (two for `fsub` in
/// lane 0 and `fadd` in lane 1, which x86 has as one `addsub`).
pub(crate) fn pair_cost(candidates: &Candidates, pair: PairId) -> i32 {
    use lanewise_ir::BinaryOp::{FAdd, FSub};
    match candidates.pairs[pair].shape.kind {
        OpKind::Alternate(FSub, FAdd) => 2,
        OpKind::Alternate(..) => 3,
        _ => 1,
    }
}

/// The score of fusing the pairs marked in `in_set` (`set` lists them):
/// instructions saved minus moves.
pub(crate) fn set_score(
    func: &Function,
    candidates: &Candidates,
    set: &[PairId],
    in_set: &[bool],
) -> i32 {
    scored_set(func, candidates, set, in_set, None)
}

/// [`set_score`], also listing in `costly` the pairs that pay moves (for
/// operands or extracted lanes): only removing one of those can raise the
/// score, since any other pair saves an instruction and moves nothing.
pub(crate) fn scored_set(
    func: &Function,
    candidates: &Candidates,
    set: &[PairId],
    in_set: &[bool],
    mut costly: Option<&mut Vec<PairId>>,
) -> i32 {
    let members = members_of(candidates, set);
    // Every fused instruction goes, every pair adds its vector instruction
    // (a load in two pairs goes once).
    let mut score = members.len() as i32;
    // Operand positions whose lanes are read from vectors, not from scalars.
    let mut vector_reads: HashMap<(PairId, usize), bool> = HashMap::new();
    for &pair in set {
        score -= pair_cost(candidates, pair);
        let mut pays = false;
        for position in 0..candidates.operand_pairs[pair].len() {
            let (moves, from_vectors) =
                operand_cost(func, candidates, pair, position, in_set, Some(&members));
            score -= moves;
            pays |= moves > 0;
            vector_reads.insert((pair, position), from_vectors);
        }
        if pays {
            if let Some(costly) = costly.as_deref_mut() {
                costly.push(pair);
            }
        }
    }
    for (inst, places) in &members {
        if needs_extract(func, candidates, *inst, &members, &vector_reads) {
            score -= 1;
            if let Some(costly) = costly.as_deref_mut() {
                costly.extend(places.iter().map(|(pair, _)| *pair));
            }
        }
    }
    score
}

/// The moves that bring operand `position` of `pair` into a vector, and
/// whether they read its lanes from vectors (a fused pair, a shuffle of
/// fused pairs or of the vectors `extractelement`s read) rather than from
/// scalars. `members` are the lanes of the fused set, if known.
pub(crate) fn operand_cost(
    func: &Function,
    candidates: &Candidates,
    pair: PairId,
    position: usize,
    in_set: &[bool],
    members: Option<&Members>,
) -> (i32, bool) {
    if let Some(Some(producer)) = candidates.operand_pairs[pair].get(position) {
        if in_set[*producer] {
            return (0, true);
        }
    }
    let x = candidates.operands_of(pair, 0)[position];
    let y = candidates.operands_of(pair, 1)[position];
    let x_constant = func.dfg.constant(x).is_some();
    let y_constant = func.dfg.constant(y).is_some();
    if x_constant && y_constant {
        return (0, false);
    }
    if x == y && func.dfg.defining_inst(x).is_some_and(|def| is_plain_load(func, def)) {
        // A broadcast of a loaded value or vector is a broadcast load
        // (`vbroadcastss`, `vbroadcastf128`), no dearer than the load.
        return (0, false);
    }
    if let Some(members) = members {
        let x_vector = vector_holding(func, x, candidates, members);
        if x_vector.is_some() && x_vector == vector_holding(func, y, candidates, members) {
            return (1, true);
        }
    }
    let mut moves = if x == y || func.dfg.value_type(x).is_vector() || x_constant || y_constant {
        1
    } else {
        2
    };
    if let (Some(members), true) = (members, x != y) {
        // A lane that leaves the vectors and comes back, after a few scalar
        // operations, into a vector of distinct lanes puts both moves on
        // one chain of dependences: pay again for the latency. (A
        // broadcast of such a value is one move off the chain.)
        for lane_value in [x, y] {
            if comes_back_from(func, lane_value, members, ROUND_TRIP_DEPTH) {
                moves += 1;
            }
        }
    }
    (moves, false)
}

fn is_plain_load(func: &Function, inst: Inst) -> bool {
    matches!(func.dfg.inst(inst), InstData::Load { volatile: false, .. })
}

/// How many scalar operations a round trip out of the vectors and back may
/// have ([`operand_cost`]).
const ROUND_TRIP_DEPTH: u32 = 3;

/// Whether the scalar `value` is computed, through at most `depth` scalar
/// operations, from a lane of a vector: a lane of the fused set or an
/// `extractelement` (a lane read directly is not a round trip).
fn comes_back_from(func: &Function, value: Value, members: &Members, depth: u32) -> bool {
    let Some(def) = func.dfg.defining_inst(value) else { return false };
    let data = func.dfg.inst(def);
    if depth == 0
        || members.contains_key(&def)
        || func.dfg.value_type(value).is_vector()
        || matches!(
            data,
            InstData::Phi { .. } | InstData::Load { .. } | InstData::ExtractElement { .. }
        )
    {
        return false;
    }
    data.operands().into_iter().any(|operand| {
        let from_vector = func.dfg.defining_inst(operand).is_some_and(|inner| {
            members.contains_key(&inner)
                || matches!(func.dfg.inst(inner), InstData::ExtractElement { .. })
        });
        from_vector || comes_back_from(func, operand, members, depth - 1)
    })
}

/// The type of a vector `value` is a lane (or a lane group) of: a fused
/// pair's, or the vector a constant `extractelement` reads.
pub(crate) fn vector_holding(
    func: &Function,
    value: Value,
    candidates: &Candidates,
    members: &Members,
) -> Option<Type> {
    let def = func.dfg.defining_inst(value)?;
    if let Some(places) = members.get(&def) {
        let (pair, _) = places.first()?;
        let first = candidates.pairs[*pair].lanes[0];
        let value = func.dfg.result(first)?;
        return Some(doubled(func.dfg.value_type(value)));
    }
    match func.dfg.inst(def) {
        InstData::ExtractElement { vector, index } if func.dfg.int_constant(*index).is_some() => {
            Some(func.dfg.value_type(*vector).clone())
        }
        _ => None,
    }
}

/// Whether some user of `inst` reads its lane outside the fused set (not
/// through an operand the set reads from vectors), so that the lane must be
/// extracted.
fn needs_extract(
    func: &Function,
    candidates: &Candidates,
    inst: Inst,
    members: &Members,
    vector_reads: &HashMap<(PairId, usize), bool>,
) -> bool {
    let Some(value) = func.dfg.result(inst) else { return false };
    candidates.users(value).iter().any(|user| {
        let Some(user_places) = members.get(user) else { return true };
        let covered = user_places.iter().any(|(user_pair, user_lane)| {
            candidates.operands_of(*user_pair, *user_lane).iter().enumerate().any(
                |(position, operand)| {
                    *operand == value
                        && vector_reads.get(&(*user_pair, position)).copied().unwrap_or(false)
                },
            )
        });
        !covered
    })
}
/// The score fusing `extra` adds to the already chosen set `chosen`, whose
/// own score is `chosen_score` (`in_set` marks `chosen` only; it is
/// restored before returning).
pub(crate) fn marginal_score(
    func: &Function,
    candidates: &Candidates,
    chosen: &[PairId],
    chosen_score: i32,
    extra: &[PairId],
    in_set: &mut [bool],
) -> i32 {
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
    after - chosen_score
}
