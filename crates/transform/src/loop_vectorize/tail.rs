//! The last `TC % W` iterations of a SIMD loop: one masked call of the
//! W-lane body, or a scalar remainder loop calling the scalar body `B` once
//! per iteration, whichever the cost model expects to be faster (issue 5).
//!
//! The masked call costs about the same whatever the number `r` of remaining
//! iterations (`0 < r < W`): every vector instruction of the masked variant
//! runs, on all W lanes. The scalar remainder costs `r` scalar iterations.
//! So the remainder is cheaper below a break-even point, the masked call
//! above it. [`TailCosts`] estimates both from the instructions of the two
//! functions, the way `boscc::RegionCosts` and [`super::width`] do, with no
//! knowledge of trip counts or branch probabilities:
//!
//! * an instruction costs one operation per register it occupies
//!   (`ceil(lanes * bits / register bits)` for vectors, 1 for scalars), the
//!   widest of its result and operands; phis, allocas and jumps cost nothing;
//! * a gather or scatter costs W (one element access per lane);
//! * a call of a function other than an LLVM intrinsic costs
//!   [`CALL_COST`]: its callee's work is unknown, and a call made once per
//!   lane in the vector body also extracts its arguments and inserts its
//!   result (a per-lane call under a mask is counted for every lane although
//!   only the active ones call: the guard chain still tests all W lanes);
//! * cold blocks (rare paths, see `lanewise_ir::BlockData::cold`) cost
//!   nothing;
//! * an instruction inside an inner loop is weighted
//!   [`INNER_LOOP_WEIGHT`] per nesting level, as for the choice of W;
//! * a scalar iteration also pays [`SCALAR_ITERATION_OVERHEAD`] (the
//!   counter, the exit test, the induction arguments);
//! * running a scalar remainder at all costs [`SLOT_FORWARDING_COST`] per
//!   reduction or `lastprivate` slot, once (`F`): the horizontal reduction's
//!   wide loads cannot forward from the remainder's scalar stores.
//!
//! With `M` the masked call and `S` a scalar iteration, the scalar remainder
//! runs when `r * S + F < M`, i.e. `r < ceil((M - F) / S)`. [`TailCosts::choose`]
//! turns that into a static choice when the break-even point is 1 (always
//! masked) or at least W (always scalar), and into a run-time test of `r`
//! otherwise. The model counts linearized paths in full on the vector side
//! and every path on the scalar side, so bodies with divergent branches lean
//! towards the masked tail, which is also the behaviour without the model.
//!
//! Measured on an AVX-512 Zen 4 (W = 32) with loops of 1 to 31 iterations,
//! the masked call against the scalar loop: a body whose divergent inner
//! loop became vector code breaks even at 5-6 iterations (the model: 4);
//! bodies that call a function once per lane at 29 and beyond 31 (the
//! model with [`CALL_COST`] 40: 26-28; with 10 it was 19-21). The run-time
//! choice ran within 5% of the faster form at every count except between
//! the model's and the true break-even point (up to 17% slower than the
//! scalar loop there).
//!
//! Both forms give the same results: the remainder iteration `j` (`done +
//! j`) passes `&slot[j]` as every reduction and `lastprivate` slot, and `B`
//! (with `rv_lane_id() = 0`) accumulates into and stores to exactly the slot
//! lane `j` of the masked call would use. The horizontal reductions and the
//! last lane `(TC - 1) % W` are therefore the same, bit for bit.

use lanewise_analysis::loops::LoopInfo;
use lanewise_analysis::{ControlFlowGraph, DominatorTree};
use lanewise_ir::{Callee, Function, Inst, InstData};

use super::width::{inst_registers, INNER_LOOP_WEIGHT};

/// The cost of a call of a function that is not an LLVM intrinsic (see the
/// module docs for the measurements behind it).
pub const CALL_COST: u64 = 40;

/// The cost of the loop control of one scalar remainder iteration.
pub const SCALAR_ITERATION_OVERHEAD: u64 = 4;

/// The once-per-loop cost, per reduction or `lastprivate` slot, of running
/// any scalar remainder: its scalar stores to a slot are read back by the
/// horizontal reduction's wider loads, which cannot forward from them (a
/// store-forwarding stall of some 20 cycles each on Zen 4; reduce_float with
/// 8 reductions ran 12% slower with one-iteration scalar remainders before
/// this was counted).
pub const SLOT_FORWARDING_COST: u64 = 32;

/// Which tail the user asks for (`--simd-tail`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum TailPolicy {
    /// The cost model decides ([`TailCosts::choose`]).
    #[default]
    Auto,
    /// Always one masked call.
    Masked,
    /// Always the scalar remainder loop.
    Scalar,
}

/// How the last `r = TC % W` iterations run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TailForm {
    /// One call of the masked variant with lanes `0..r` active.
    Masked,
    /// `r` calls of the scalar body.
    Scalar,
    /// The scalar remainder when `r < scalar_below`, else the masked call.
    RunTime { scalar_below: u32 },
}

impl TailForm {
    /// Whether the tail may call the masked variant.
    pub fn calls_masked(self) -> bool {
        !matches!(self, TailForm::Scalar)
    }

    /// Whether the tail may run the scalar remainder loop.
    pub fn runs_scalar(self) -> bool {
        !matches!(self, TailForm::Masked)
    }
}

impl std::fmt::Display for TailForm {
    /// The words of the `Passed` remark.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TailForm::Masked => f.write_str("masked tail"),
            TailForm::Scalar => f.write_str("scalar remainder"),
            TailForm::RunTime { scalar_below } => write!(
                f,
                "masked tail or scalar remainder (run-time choice at {scalar_below} iterations)"
            ),
        }
    }
}

/// The estimated costs of the two tails (module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TailCosts {
    /// One iteration of the scalar remainder loop.
    pub scalar_iteration: u64,
    /// One call of the masked variant.
    pub masked_call: u64,
    /// Paid once when the scalar remainder runs at all
    /// ([`SLOT_FORWARDING_COST`] per slot).
    pub scalar_once: u64,
}

impl TailCosts {
    /// The costs of `scalar_body` (the scalar remainder body, without
    /// `rv_lane_id` calls) and `masked_body` (the masked W-lane variant) on
    /// registers of `register_bits` bits, for a loop with `slots` reduction
    /// and `lastprivate` slots.
    pub fn estimate(
        scalar_body: &Function,
        masked_body: &Function,
        register_bits: u32,
        slots: usize,
    ) -> Self {
        TailCosts {
            scalar_iteration: function_cost(scalar_body, register_bits) + SCALAR_ITERATION_OVERHEAD,
            masked_call: function_cost(masked_body, register_bits),
            scalar_once: SLOT_FORWARDING_COST * slots as u64,
        }
    }

    /// The fewest remaining iterations for which the masked call is
    /// expected to be at least as fast: `ceil((M - F) / S)`, with `F` the
    /// scalar remainder's once-per-loop cost.
    pub fn break_even(&self) -> u64 {
        self.masked_call.saturating_sub(self.scalar_once).div_ceil(self.scalar_iteration.max(1))
    }

    /// The tail for `width` lanes (module docs).
    pub fn choose(&self, width: u32) -> TailForm {
        match self.break_even() {
            0 | 1 => TailForm::Masked,
            n if n >= u64::from(width) => TailForm::Scalar,
            n => TailForm::RunTime { scalar_below: n as u32 },
        }
    }
}

/// The tail `policy` asks for; `costs` decide under [`TailPolicy::Auto`].
pub fn choose_tail(policy: TailPolicy, costs: &TailCosts, width: u32) -> TailForm {
    match policy {
        TailPolicy::Auto => costs.choose(width),
        TailPolicy::Masked => TailForm::Masked,
        TailPolicy::Scalar => TailForm::Scalar,
    }
}

/// The estimated cost of one run of `func` (module docs).
pub fn function_cost(func: &Function, register_bits: u32) -> u64 {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    // The bodies come from reducible loops; without loop information every
    // block counts once.
    let loops = LoopInfo::compute(func, &cfg, &domtree).ok();
    let mut total: u64 = 0;
    for &block in func.layout.blocks().iter().filter(|block| !func.dfg.blocks[**block].cold) {
        let depth = loops.as_ref().map_or(0, |loops| loops.loop_depth(block));
        let weight = INNER_LOOP_WEIGHT.saturating_pow(depth.min(4));
        let block_cost: u64 = func
            .layout
            .block_insts(block)
            .iter()
            .map(|inst| inst_cost(func, *inst, register_bits))
            .sum();
        total = total.saturating_add(weight.saturating_mul(block_cost));
    }
    total
}

/// The cost of one instruction (module docs).
fn inst_cost(func: &Function, inst: Inst, register_bits: u32) -> u64 {
    let data = func.dfg.inst(inst);
    match data {
        InstData::Phi { .. } | InstData::Alloca { .. } | InstData::Jump { .. } => 0,
        InstData::Gather { .. } | InstData::Scatter { .. } => {
            let lanes = func
                .dfg
                .result(inst)
                .into_iter()
                .chain(data.operands())
                .filter_map(|value| func.dfg.value_type(value).lanes())
                .max();
            u64::from(lanes.unwrap_or(1))
        }
        InstData::Call { callee: Callee::Direct(name), .. } if !name.starts_with("llvm.") => {
            CALL_COST
        }
        InstData::Call { callee: Callee::Indirect(_), .. } => CALL_COST,
        _ => inst_registers(func, inst, register_bits),
    }
}

#[cfg(test)]
mod tests {
    use lanewise_ir::Type;

    use super::*;

    fn costs(scalar_iteration: u64, masked_call: u64) -> TailCosts {
        TailCosts { scalar_iteration, masked_call, scalar_once: 0 }
    }

    #[test]
    fn the_break_even_point_decides() {
        // A masked call no dearer than one scalar iteration: always masked.
        assert_eq!(costs(10, 10).choose(8), TailForm::Masked);
        assert_eq!(costs(10, 3).choose(8), TailForm::Masked);
        // 25 / 10: one or two scalar iterations are cheaper.
        assert_eq!(costs(10, 25).choose(8), TailForm::RunTime { scalar_below: 3 });
        // Eight scalar iterations still cost less than the masked call, and
        // at most seven remain at W = 8.
        assert_eq!(costs(10, 80).choose(8), TailForm::Scalar);
        assert_eq!(costs(10, 71).choose(8), TailForm::Scalar);
        assert_eq!(costs(10, 70).choose(8), TailForm::RunTime { scalar_below: 7 });
    }

    #[test]
    fn slots_make_the_scalar_remainder_dearer() {
        // 25 / 10 without slots; two slots (64) leave nothing to save.
        assert_eq!(costs(10, 25).choose(8), TailForm::RunTime { scalar_below: 3 });
        let with_slots = TailCosts { scalar_once: 2 * SLOT_FORWARDING_COST, ..costs(10, 25) };
        assert_eq!(with_slots.choose(8), TailForm::Masked);
        // (120 - 64) / 10: still a run-time choice, at 6 instead of 12.
        let dear_mask = TailCosts { scalar_once: 2 * SLOT_FORWARDING_COST, ..costs(10, 120) };
        assert_eq!(dear_mask.choose(16), TailForm::RunTime { scalar_below: 6 });
    }

    #[test]
    fn a_forced_policy_ignores_the_costs() {
        let expensive_mask = costs(1, 1000);
        assert_eq!(choose_tail(TailPolicy::Masked, &expensive_mask, 16), TailForm::Masked);
        assert_eq!(choose_tail(TailPolicy::Auto, &expensive_mask, 16), TailForm::Scalar);
        assert_eq!(choose_tail(TailPolicy::Scalar, &costs(1000, 1), 16), TailForm::Scalar);
    }

    #[test]
    fn remarks_name_the_tail() {
        assert_eq!(TailForm::Masked.to_string(), "masked tail");
        assert_eq!(TailForm::Scalar.to_string(), "scalar remainder");
        assert_eq!(
            TailForm::RunTime { scalar_below: 3 }.to_string(),
            "masked tail or scalar remainder (run-time choice at 3 iterations)"
        );
    }

    /// `f(x) = g(sqrt(x)) + x` on `ty`, in one block.
    fn calling(ty: Type) -> Function {
        use lanewise_ir::{BinaryOp, CallEffects, FunctionBuilder};
        let mut func = Function::new("f", vec![ty.clone()], ty.clone());
        let x = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        b.switch_to_block(entry);
        let sqrt_name = format!("llvm.sqrt.{}", if ty.is_vector() { "v32f32" } else { "f32" });
        let root = b.call(Callee::Direct(sqrt_name), vec![x], ty.clone(), CallEffects::Pure);
        let root = b.func.dfg.result(root).unwrap();
        let g = b.call(Callee::Direct("g".into()), vec![root], ty.clone(), CallEffects::Pure);
        let g = b.func.dfg.result(g).unwrap();
        let sum = b.binary(BinaryOp::FAdd, g, x);
        b.ret(Some(sum));
        func
    }

    #[test]
    fn calls_cost_more_than_intrinsics() {
        // sqrt 1, g CALL_COST, fadd 1, ret 1.
        assert_eq!(function_cost(&calling(Type::F32), 512), CALL_COST + 3);
        // On 32 lanes of float, two zmm registers each (the call stays one).
        assert_eq!(function_cost(&calling(Type::F32.vector_of(32)), 512), CALL_COST + 6);
    }

    #[test]
    fn vector_instructions_cost_their_registers() {
        use super::super::width::type_registers as registers;
        assert_eq!(registers(&Type::F32.vector_of(32), 512), 2);
        assert_eq!(registers(&Type::F32.vector_of(8), 512), 1);
        assert_eq!(registers(&Type::F64.vector_of(16), 256), 4);
        assert_eq!(registers(&Type::BOOL.vector_of(16), 256), 1);
        assert_eq!(registers(&Type::I32, 256), 1);
    }
}
