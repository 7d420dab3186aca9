//! Basic-block (SLP) vectorization: independent isomorphic operations of one
//! block fused into vector operations (Foss 2013, "Basic-block vectorization
//! for graphics compilers", shared/seeds/bb-vectorization-foss-2013.txt;
//! the WFV thesis's WFV-SLP, section 7.4, builds on the same idea).
//!
//! Foss presents two vectorizers, both run on one block at a time and both
//! repeated until nothing changes, so that fused operations are fused again
//! up to the widest vector the target has (two `float` operations become a
//! `<2 x float>` operation in the first round, two of those a `<4 x float>`
//! in the second):
//!
//! * the **tree vectorizer** (Algorithms 1-11, after LLVM's BBVectorize):
//!   all fusible pairs, the pairs that use both results of a pair, trees of
//!   such pairs, pruned of low-scoring trees, of operations in two pairs and
//!   of pairs whose operations depend on each other; the best tree is fused,
//!   the trees are pruned of fused operations, repeat ([`trees`]);
//! * the **pair vectorizer** (Algorithms 12-14): every pair scored on its
//!   own, fused best first while the score reaches the minimum ([`pairs`]).
//!
//! Both share the candidate pairs ([`candidates`], Algorithms 1-3), the
//! dependence test ([`dependence`]), the heuristics ([`score`], section 2.4)
//! and the rewriting ([`fuse`], Algorithm 10). After the last round,
//! vectors assembled from scalar loads of one array become one load of the
//! window and a shuffle ([`windows`]).
//!
//! Where this implementation departs from the thesis, for x86 (which has
//! separate scalar and vector registers, so every move between them costs an
//! instruction, the case Foss contrasts with his vector-only GPU in
//! chapter 4):
//!
//! * **Pairs are ordered** (lane 0, lane 1), and two memory operations pair
//!   only when lane 1's address follows lane 0's: any other memory pair
//!   would be a gather, which never pays for two elements. Algorithm 2's
//!   pairs are built from these memory pairs outwards, through operands and
//!   users, since a pair connected to no other pair needs moves in and out
//!   that cost more than the one instruction it saves.
//! * **A tree is the whole connected set of pairs**, in both directions
//!   (the pairs using a pair's results, and the pairs producing its
//!   operands), as BBVectorize fuses it, not one root-to-leaf branch
//!   (Algorithm 8): a branch would leave its siblings' operands to be moved
//!   in one element at a time. Pairs whose removal raises the score are
//!   pruned from the tree (section 4.3 asks for exactly this refinement).
//! * **Alternating opcodes and shuffles** (as in LLVM's SLP vectorizer):
//!   an `add` paired with a `sub` (or `fadd` with `fsub`) becomes both
//!   vector operations and a blend; two `shufflevector`s with one mask fuse
//!   (which lets the next round fuse the blends); an operand pair whose
//!   lanes already sit in vectors is one shuffle away, not two extracts and
//!   two inserts (complex arithmetic: the reversed pair `(b.im, b.re)`).
//! * **Loop-carried values**: in a block that loops to itself, pairs of
//!   phis whose users pair up are candidates too (seeded in block order,
//!   each phi in one seed); a fused phi pair becomes a vector phi entered
//!   with the lanes' entry values joined in the entry block, so a loop's
//!   recurrences (ChaCha's rounds) stay in vectors between iterations.
//! * **A load may sit in several pairs** (reading memory twice is harmless:
//!   a stencil's `a[i+1]` pairs with `a[i]` and with `a[i+2]`); every other
//!   operation sits in one (Algorithm 6).
//! * **The dependence test** (`HasDependence`, Algorithm 7) is the one
//!   section 5.1 proposes: contract each pair of the tentatively fused set
//!   in the block's dependence graph and look for a cycle, in O(V + E) (a
//!   topological sort; its order is also the new schedule of the block).
//!
//! The pass changes nothing outside the blocks it fuses in; every value the
//! rest of the function uses keeps its meaning (an `extractelement` or a
//! `shufflevector` of the fused value stands in for it). Floating-point
//! results are bit-exact: only elementwise operations are fused, never
//! reassociated.

mod candidates;
mod dependence;
mod fuse;
mod memory;
mod pairs;
mod score;
mod trees;
mod windows;

#[cfg(test)]
mod tests;

use lanewise_ir::vfabi::Isa;
use lanewise_ir::{Block, DataLayout, Function};

use candidates::Candidates;
use dependence::BlockGraph;

/// Which of Foss's two vectorizers runs.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum SlpAlgorithm {
    /// Trees of pairs (Algorithms 1-11).
    #[default]
    Tree,
    /// Pairs, best first (Algorithms 12-14).
    Pair,
}

/// What the basic-block vectorizer may do.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct SlpConfig {
    pub algorithm: SlpAlgorithm,
    /// The target's vector instructions: the widest vector of each element
    /// type and which operations exist for vectors.
    pub isa: Isa,
    /// The widest vector in bits (256 for AVX-512 targets tuned for 256-bit
    /// vectors, as clang's `-mprefer-vector-width=256`).
    pub max_vector_bits: u32,
    /// The smallest score (instructions saved, net of moves) a tree or a
    /// pair must reach to be fused.
    pub min_score: i32,
}

impl SlpConfig {
    /// The configuration for `isa` at its full register width.
    pub fn for_isa(isa: Isa) -> SlpConfig {
        SlpConfig {
            algorithm: SlpAlgorithm::Tree,
            isa,
            max_vector_bits: isa.register_bits(),
            min_score: 1,
        }
    }
}

/// What the vectorizer did to one function.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct SlpSummary {
    /// Pairs fused (a pair of `<2 x float>` operations fused into a
    /// `<4 x float>` one counts once more).
    pub fused_pairs: usize,
    /// Trees (tree vectorizer) or pairs (pair vectorizer) chosen.
    pub fused_trees: usize,
    /// Blocks that changed.
    pub blocks: usize,
    /// The widest vector made, in lanes (0 when nothing was fused).
    pub widest_lanes: u32,
    /// Vectors assembled from scalar loads replaced by a load of the
    /// window they span and a shuffle ([`windows`]).
    pub window_loads: usize,
}

impl SlpSummary {
    pub fn changed(&self) -> bool {
        self.fused_pairs > 0
    }
}

/// Rounds of fusion per block: each round at most doubles a vector, and no
/// vector has more than 64 lanes.
const MAX_ROUNDS: usize = 7;

/// The block's nodes whose memory pairs seed one search for candidates
/// (see [`Candidates::find`]).
const SEED_WINDOW: usize = 1024;

/// Fuses the isomorphic independent operations of every block of `func`
/// (reads `data_layout` for address arithmetic; changes only the blocks it
/// fuses in).
pub fn vectorize_basic_blocks(
    func: &mut Function,
    data_layout: &DataLayout,
    config: &SlpConfig,
) -> SlpSummary {
    let mut summary = SlpSummary::default();
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    for block in blocks {
        let mut changed = false;
        for _ in 0..MAX_ROUNDS {
            let mut changed_in_round = false;
            let mut window_start = 0;
            loop {
                let graph = BlockGraph::compute(func, block, data_layout);
                if window_start >= graph.nodes.len() {
                    break;
                }
                // Node positions shift as pairs fuse: the windows are
                // approximate, every seed is still in one of them.
                let window = window_start..window_start + SEED_WINDOW;
                window_start += SEED_WINDOW;
                let candidates = Candidates::find(func, &graph, data_layout, config, window);
                if candidates.is_empty() {
                    continue;
                }
                let plan = match config.algorithm {
                    SlpAlgorithm::Tree => trees::choose(func, &graph, &candidates, config),
                    SlpAlgorithm::Pair => pairs::choose(func, &graph, &candidates, config),
                };
                if plan.pairs.is_empty() {
                    continue;
                }
                let Some(fused) = fuse::fuse(func, &graph, &candidates, &plan) else {
                    continue;
                };
                summary.fused_pairs += plan.pairs.len();
                summary.fused_trees += plan.trees;
                summary.widest_lanes = summary.widest_lanes.max(fused.widest_lanes);
                changed_in_round = true;
            }
            if !changed_in_round {
                break;
            }
            changed = true;
        }
        if changed {
            summary.blocks += 1;
            summary.window_loads += windows::load_windows(func, block, data_layout, config);
        }
    }
    summary
}

/// The pairs chosen in one round of one block: indices into the
/// [`Candidates`], no operation other than a load in two of them, their
/// contraction acyclic.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    pub pairs: Vec<candidates::PairId>,
    /// How many trees (or single pairs) the choice was made of.
    pub trees: usize,
}
