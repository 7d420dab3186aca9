//! The tree vectorizer (Foss 2013, Algorithms 4-11).
//!
//! Every memory pair roots a tree ([`build_tree`], Algorithm 4): the pairs
//! reachable from it through operand and user links, each operation other
//! than a load in at most one pair (Algorithm 6) and none already fused
//! (Algorithm 9); pairs of dependent operations never became candidates
//! (Algorithm 7, [`super::candidates`]). Pairs whose removal raises the
//! tree's score go ([`prune_low_scoring_pairs`]). Trees scoring below the
//! minimum go (Algorithm 5); the best tree is chosen (Algorithm 8) if the
//! chosen set stays free of dependence cycles, and the rest are pruned and
//! scored again, until no tree is left (Algorithm 11). Scores are
//! marginal: a tree whose operands an already chosen tree computes pays no
//! moves for them.
//!
//! To keep compile time linear in practice, trees are re-scored lazily: the
//! best tree by its last score is rebuilt and re-scored, and chosen only if
//! it still beats the next one's last score.

use std::collections::{BinaryHeap, HashSet, VecDeque};

use lanewise_ir::{Function, Inst, InstData};

use super::candidates::{Candidates, PairId};
use super::dependence::BlockGraph;
use super::score::{marginal_score, scored_set, set_score};
use super::{Plan, SlpConfig};

/// Most pairs in one tree (compile time).
const MAX_TREE_PAIRS: usize = 256;

/// The pairs the tree vectorizer fuses in one round.
pub(crate) fn choose(
    func: &Function,
    graph: &BlockGraph,
    candidates: &Candidates,
    config: &SlpConfig,
) -> Plan {
    let mut chosen: Vec<PairId> = Vec::new();
    let mut chosen_score = 0;
    let mut in_set = vec![false; candidates.pairs.len()];
    let mut fused_ops: HashSet<Inst> = HashSet::new();
    let mut plan = Plan::default();
    // (last score, earliest root first, root).
    let mut queue: BinaryHeap<(i32, std::cmp::Reverse<usize>, PairId)> = BinaryHeap::new();
    for (order, &root) in candidates.seeds.iter().enumerate() {
        queue.push((i32::MAX, std::cmp::Reverse(order), root));
    }
    while let Some((last_score, order, root)) = queue.pop() {
        let mut tree = build_tree(func, candidates, root, &fused_ops);
        // A load pair may already be chosen (loads sit in several pairs).
        tree.retain(|pair| !in_set[*pair]);
        if tree.is_empty() {
            continue;
        }
        let (tree, score) =
            prune_low_scoring_pairs(func, candidates, &chosen, chosen_score, tree, &mut in_set);
        if score < config.min_score {
            continue;
        }
        if score < last_score {
            // Stale: try again at its new score, after the others that may beat it.
            if queue.peek().is_some_and(|(next, _, _)| *next > score) {
                queue.push((score, order, root));
                continue;
            }
        }
        let mut tentative = chosen.clone();
        tentative.extend(&tree);
        if !graph.is_schedulable(&groups(candidates, &tentative)) {
            continue;
        }
        for &pair in &tree {
            in_set[pair] = true;
            for &inst in &candidates.pairs[pair].lanes {
                if !is_load(func, inst) {
                    fused_ops.insert(inst);
                }
            }
        }
        chosen = tentative;
        chosen_score += score;
        plan.trees += 1;
    }
    debug_assert!(chosen.is_empty() || set_score(func, candidates, &chosen, &in_set) > 0);
    plan.pairs = chosen;
    plan
}

/// The node groups of `pairs` (for [`BlockGraph::schedule`]).
pub(crate) fn groups(candidates: &Candidates, pairs: &[PairId]) -> Vec<Vec<usize>> {
    pairs
        .iter()
        .map(|pair| {
            // A phi pair is no node: it takes effect at the block's start.
            let nodes = candidates.pairs[*pair].nodes;
            nodes.into_iter().filter(|node| *node != super::candidates::NO_NODE).collect()
        })
        .collect()
}

pub(crate) fn is_load(func: &Function, inst: Inst) -> bool {
    matches!(func.dfg.inst(inst), InstData::Load { .. })
}

/// Algorithm 4 with 6 and 9: the pairs connected to `root`, breadth first,
/// skipping pairs with an operation (other than a load) that an earlier pair
/// of the tree or an already fused pair holds.
fn build_tree(
    func: &Function,
    candidates: &Candidates,
    root: PairId,
    fused_ops: &HashSet<Inst>,
) -> Vec<PairId> {
    let mut tree = Vec::new();
    let mut seen = HashSet::new();
    let mut used: HashSet<Inst> = HashSet::new();
    let mut queue = VecDeque::from([root]);
    seen.insert(root);
    while let Some(pair) = queue.pop_front() {
        if tree.len() >= MAX_TREE_PAIRS {
            break;
        }
        let lanes = candidates.pairs[pair].lanes;
        let clashes = lanes
            .iter()
            .any(|inst| !is_load(func, *inst) && (fused_ops.contains(inst) || used.contains(inst)));
        if clashes {
            continue;
        }
        for inst in lanes {
            if !is_load(func, inst) {
                used.insert(inst);
            }
        }
        tree.push(pair);
        let links =
            candidates.operand_pairs[pair].iter().flatten().chain(&candidates.user_pairs[pair]);
        for &next in links {
            if seen.insert(next) {
                queue.push_back(next);
            }
        }
    }
    tree
}

/// Drops, last found first, every pair of `tree` whose removal raises the
/// score of `chosen` plus the tree; returns the tree left and its marginal
/// score. Only pairs that pay moves are tried (see [`scored_set`]).
fn prune_low_scoring_pairs(
    func: &Function,
    candidates: &Candidates,
    chosen: &[PairId],
    chosen_score: i32,
    mut tree: Vec<PairId>,
    in_set: &mut [bool],
) -> (Vec<PairId>, i32) {
    let mut union = chosen.to_vec();
    union.extend(&tree);
    for &pair in &tree {
        in_set[pair] = true;
    }
    let mut costly = Vec::new();
    let mut best = scored_set(func, candidates, &union, in_set, Some(&mut costly)) - chosen_score;
    for &pair in &tree {
        in_set[pair] = false;
    }
    let mut position = tree.len();
    while position > 0 {
        position -= 1;
        if !costly.contains(&tree[position]) {
            continue;
        }
        let mut without = tree.clone();
        without.remove(position);
        let score = marginal_score(func, candidates, chosen, chosen_score, &without, in_set);
        if score > best {
            best = score;
            tree = without;
        }
    }
    (tree, best)
}
