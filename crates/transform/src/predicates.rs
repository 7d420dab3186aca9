//! Block predicates: the contract between control-flow linearization and
//! widening.
//!
//! Divergent control flow is vectorized in two steps (PLDI'18; thesis 6.1-6.3):
//! first the *scalar* function is rewritten so that every remaining branch is
//! uniform (divergent loops get a live mask and a latch on `rv_any(live)`;
//! divergent branches are folded by partial linearization; phis of folded
//! edges become selects on edge predicates), then widening turns it into the
//! W-lane function. The predicates are ordinary `i1` SSA values of the
//! rewritten scalar function, so the plain SSA shape analysis classifies
//! them: a predicate computed from a varying condition is varying, and
//! widening turns it into a `<W x i1>` mask.
//!
//! What widening needs beyond the rewritten function is which lanes are
//! active in each block: [`BlockPredicates`] maps a block to the `i1` value
//! that is true in the lanes executing it, or to nothing when every lane that
//! entered the function is active there (entry block of an unmasked variant,
//! and every block whose predicate is uniform and implied by the entry: PLDI'18
//! Theorem 4.1). Widening masks exactly the operations that must not run in an
//! inactive lane: loads and stores (masked or per-lane), calls with side
//! effects (guarded per active lane, in lane order), integer division
//! (inactive lanes divide by one), and stores to uniform addresses (the
//! highest active lane's value, only if any lane is active).
//!
//! # The contract in detail
//! * A predicate is an `i1` value of the rewritten scalar function that is
//!   defined in a block strictly dominating the block it guards (or is a
//!   parameter or constant), so it exists when the block is widened.
//! * `None`, and any predicate whose shape is uniform, mean "every lane
//!   that entered the function": a block with a uniform predicate is only
//!   reached when the predicate is true (the branch to it stayed).
//! * A varying predicate must *imply the entry mask*: it is computed from the
//!   entry predicate (edge predicates are `pred(from) & cond`), so widening
//!   never ands it with the entry mask again.
//!
//! # Masked variants (`_ZGV?M...`)
//! A masked variant gets its mask as an extra last argument. The scalar
//! function is given the same extra parameter *before* linearization, as an
//! `i1` that is true in the lanes the caller activated:
//! [`add_entry_mask_param`] appends it (shape `Vector`: append a `v`
//! [`ParamSpec`](lanewise_ir::vfabi::ParamSpec) to the parameter specs given
//! to the shape analysis and to `WidenConfig::params`). Linearization uses
//! that parameter as the predicate of the entry block (`set(entry,
//! Some(mask))`) and derives every other predicate from it; blocks it leaves
//! at `None` (or gives a uniform predicate) run under the entry mask.
//! Widening with `WidenConfig::masked` turns the ABI form of the mask (a
//! vector of the characteristic type, or bit masks for AVX-512; see
//! [`crate::widen::masked`]) into the `<W x i1>` value of that parameter.
//! Run lane by lane, the scalar function with the mask parameter means "this
//! lane runs iff its mask is true"; the oracle of the tests runs the original
//! function only for the active lanes.

use lanewise_ir::{Block, Function, SecondaryMap, Type, Value};

/// Appends the `i1` entry-mask parameter of a masked variant to `func` (a
/// copy of the scalar function, before linearization) and returns its value.
/// It is named `mask` in dumps.
pub fn add_entry_mask_param(func: &mut Function) -> Value {
    let index = func.params.len() as u32;
    let value = func.dfg.make_param(index, Type::BOOL);
    func.dfg.value_names[value] = Some("mask".to_owned());
    func.params.push(lanewise_ir::Param { ty: Type::BOOL, value });
    value
}

/// The active-lane predicate of each block of a (linearized) scalar function.
#[derive(Clone, Debug, Default)]
pub struct BlockPredicates {
    predicates: SecondaryMap<Block, Option<Value>>,
    /// Whether a uniform predicate is true whenever its block runs (partial
    /// linearization keeps every uniform branch that guards a block, PLDI'18
    /// Theorem 4.1). Full linearization folds uniform branches too, so there
    /// a block may run while its uniform predicate is false, and widening
    /// must mask by it.
    uniform_predicates_inexact: bool,
    /// Blocks known to run only while at least one lane is active (entered
    /// over a kept branch on `rv_any` of their own lanes, see
    /// [`crate::boscc::mark_blocks_with_an_active_lane`]): a load or store
    /// of a uniform address needs no "any lane active" guard there.
    some_lane_active: SecondaryMap<Block, bool>,
}

impl BlockPredicates {
    /// Every block runs with all lanes active (the uniform pipeline).
    pub fn all_active() -> Self {
        Self::default()
    }

    /// Sets the predicate of `block`: an `i1` value of the function that holds
    /// in the lanes executing it; `None` for all lanes.
    pub fn set(&mut self, block: Block, predicate: Option<Value>) {
        self.predicates[block] = predicate;
    }

    /// Declares that uniform predicates may be false while their block runs
    /// (full linearization), so widening masks by them too.
    pub fn set_uniform_predicates_inexact(&mut self) {
        self.uniform_predicates_inexact = true;
    }

    /// Whether a uniform predicate holds whenever its block runs.
    pub fn uniform_predicates_are_exact(&self) -> bool {
        !self.uniform_predicates_inexact
    }

    /// Declares that `block` runs only while some lane is active.
    pub fn set_some_lane_active(&mut self, block: Block) {
        self.some_lane_active[block] = true;
    }

    /// Whether `block` is known to run only while some lane is active.
    pub fn some_lane_active(&self, block: Block) -> bool {
        self.some_lane_active[block]
    }

    /// The predicate of `block`, `None` if all lanes are active there.
    pub fn get(&self, block: Block) -> Option<Value> {
        self.predicates[block]
    }

    /// Blocks with a predicate, for dumps and tests.
    pub fn masked_blocks<'a>(
        &'a self,
        func: &'a Function,
    ) -> impl Iterator<Item = (Block, Value)> + 'a {
        func.layout.blocks().iter().filter_map(|block| Some((*block, self.predicates[*block]?)))
    }
}
