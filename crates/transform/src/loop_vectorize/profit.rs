//! Whether vectorizing a `#pragma omp simd` loop pays: a static cost model
//! of the produced vector body against the scalar body, per lane.
//!
//! The pragma asks for vectorization, but a body whose inner loop gathers
//! one element per lane and iteration and does little else runs slower as W
//! lanes than as one: each element of a gather costs about as much as
//! several scalar instructions (on AMD Zen 4, a gather whose lanes sit on
//! different cache lines takes longer than the scalar loops' contiguous
//! loads of the same elements and the arithmetic on them), and a divergent
//! inner loop runs until its slowest lane finishes. The corpus program
//! tests/programs/nested_simd_outer.c (each lane sums its own 256-byte
//! strided row) ran at 0.64x of clang's scalar code. Such loops stay scalar
//! with a `Missed` remark that gives the estimate.
//!
//! The model ([`estimate`]) counts instructions, in units of one scalar
//! instruction:
//!
//! - The scalar body: every instruction but phis and jumps costs 1, every
//!   block counts (both sides of a branch: this overestimates the scalar
//!   cost, the conservative direction).
//! - The vector body (the unmasked W-lane variant, as widening produced it):
//!   an instruction costs the registers of its widest vector value
//!   (`ceil(lanes * bits / register bits)`, 1 for scalar and mask
//!   operations: uniform work is shared by the W lanes); a gather or scatter
//!   costs [`GATHER_ELEMENT_COST`] per lane, [`SPREAD_GATHER_ELEMENT_COST`]
//!   when its lanes are a constant cache line or more apart; per-lane code (scalarized
//!   calls and accesses, `extractelement`s) is counted as the instructions
//!   it is. Only blocks that run on every iteration of their innermost loop
//!   (that dominate its latches; outside loops: that dominate the returns)
//!   count: the fast paths of dynamic gathers, BOSCC-guarded regions and
//!   per-lane guards are left out, which underestimates the vector cost,
//!   again the conservative direction. The total is divided by W.
//! - Nesting: an instruction in `d` inner loops weighs
//!   [`INNER_LOOP_WEIGHT`]`^d` in both bodies (the weight
//!   [`super::width::DataProfile`] uses: trip counts are unknown). A loop of
//!   the vector body whose exit test reads a vector value (`any` of the
//!   lanes still running: a divergent loop) weighs
//!   [`DIVERGENT_LOOP_FACTOR`] times more: it runs until its last lane
//!   finishes, at about 50% SIMD utilization (measured 26-68% on the
//!   corpus's divergent loops, see bench/programs/README.md).
//!
//! [`CostEstimate::is_unprofitable`] refuses only when the model is
//! decisive: the vector body gathers or scatters in an inner loop on every
//! iteration, and the estimated vector cost per lane exceeds the scalar cost
//! by [`MIN_LOSS_PERCENT`]. Bodies whose inner loops read contiguous memory,
//! compute, or call vector variants cost a fraction of a scalar instruction
//! per lane and operation and are never refused; neither are bodies without
//! inner loops (straight-line gathers are paid once per lane, next to the
//! loop's other work). `--simd-loops-cost=off` (`Options::simd_loops_cost`,
//! `LANEWISE_SIMD_LOOPS_COST=off` for `lanewise cc`) skips the check.

use lanewise_analysis::loops::{Loop, LoopInfo};
use lanewise_analysis::{ControlFlowGraph, DominatorTree};
use lanewise_ir::{
    BinaryOp, Block, Callee, CastOp, Constant, Function, Inst, InstData, Type, Value, ValueDef,
};

use super::width::inst_registers;
pub use super::width::INNER_LOOP_WEIGHT;

/// The cost of one lane's element of a gather or scatter, in scalar
/// instructions: the element's address extraction, its load or store, and
/// its insertion.
pub const GATHER_ELEMENT_COST: u64 = 4;

/// The cost of one lane's element of a gather or scatter whose lanes are a
/// constant [`CACHE_LINE_BYTES`] or more apart: every element is a cache line
/// of its own, where each lane's scalar loop walks its line contiguously.
/// Calibrated on AMD Zen 4 with nested_simd_outer (a 32-lane gather of
/// `float`s 256 bytes apart per divergent inner iteration, next to about
/// twenty vector operations on one or two registers): the model then puts the vector body at 1.5 times the
/// scalar one, measured 0.64x of clang's speed (1.56 times its time).
pub const SPREAD_GATHER_ELEMENT_COST: u64 = 6;

/// The cache line size of x86 cores.
pub const CACHE_LINE_BYTES: u64 = 64;

/// How much more an iteration of a divergent loop of the vector body costs
/// per lane: lanes that finished wait for the last (50% utilization).
pub const DIVERGENT_LOOP_FACTOR: u64 = 2;

/// By how much (in percent) the vector cost per lane must exceed the scalar
/// cost for the loop to stay scalar.
pub const MIN_LOSS_PERCENT: u64 = 25;

/// The estimate for one SIMD loop (module docs). Costs are in scalar
/// instructions, weighted by inner-loop nesting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostEstimate {
    /// W: the lanes of one call of the vector body.
    pub width: u32,
    /// One iteration of the scalar body.
    pub scalar: u64,
    /// One call of the vector body (W iterations); per lane `vector / width`.
    pub vector: u64,
    /// The most gathers and scatters on every iteration of one inner loop
    /// of the vector body (each is one element per lane): 0 when no inner
    /// loop gathers or scatters on every iteration.
    pub inner_gathers: u32,
}

impl CostEstimate {
    /// The vector body's cost per lane.
    pub fn vector_per_lane(&self) -> f64 {
        self.vector as f64 / f64::from(self.width.max(1))
    }

    /// Whether the model is decisive that vectorizing loses (module docs).
    pub fn is_unprofitable(&self) -> bool {
        self.inner_gathers > 0
            && u128::from(self.vector) * 100
                > u128::from(self.scalar)
                    * u128::from(self.width)
                    * u128::from(100 + MIN_LOSS_PERCENT)
    }

    /// The reason for a refusal, for the `Missed` remark.
    pub fn refusal_message(&self) -> String {
        format!(
            "not profitable: {} {} per lane per inner iteration, estimated vector cost {:.1} vs \
             scalar {} per iteration (W={})",
            self.inner_gathers,
            if self.inner_gathers == 1 { "gather/scatter" } else { "gathers/scatters" },
            self.vector_per_lane(),
            self.scalar,
            self.width,
        )
    }
}

/// Estimates the cost of `scalar` (the outlined loop body) and `vector`
/// (its unmasked `width`-lane variant) for registers of `register_bits`
/// bits. `None` if a body's loops cannot be analysed (no refusal then).
pub fn estimate(
    scalar: &Function,
    vector: &Function,
    width: u32,
    register_bits: u32,
) -> Option<CostEstimate> {
    let scalar_cost = scalar_body_cost(scalar)?;
    let (vector_cost, inner_gathers) = vector_body_cost(vector, register_bits)?;
    Some(CostEstimate { width, scalar: scalar_cost, vector: vector_cost, inner_gathers })
}

/// Every instruction but phis and jumps costs 1, weighted by nesting.
fn scalar_body_cost(func: &Function) -> Option<u64> {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let loops = LoopInfo::compute(func, &cfg, &domtree).ok()?;
    let mut total: u64 = 0;
    for &block in func.layout.blocks() {
        let weight = INNER_LOOP_WEIGHT.saturating_pow(loops.loop_depth(block).min(4));
        let counted = func.layout.block_insts(block).iter().filter(|&&inst| costs(func, inst));
        total = total.saturating_add(weight.saturating_mul(counted.count() as u64));
    }
    Some(total)
}

/// The weighted cost of the blocks that run on every iteration of their
/// innermost loop, and the most gathers/scatters per iteration of one
/// inner loop.
fn vector_body_cost(func: &Function, register_bits: u32) -> Option<(u64, u32)> {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let loops = LoopInfo::compute(func, &cfg, &domtree).ok()?;
    let returns: Vec<Block> = func
        .layout
        .blocks()
        .iter()
        .copied()
        .filter(|&block| {
            func.layout.block_insts(block).last().is_some_and(|&inst| {
                matches!(func.dfg.inst(inst), InstData::Return { .. } | InstData::Unreachable)
            })
        })
        .collect();
    let mut total: u64 = 0;
    let mut gathers_per_loop: Vec<(Loop, u32)> = Vec::new();
    for &block in func.layout.blocks() {
        let innermost = loops.innermost_loop(block);
        let runs_every_time = match innermost {
            Some(lp) => loops.latches(lp).iter().all(|&latch| domtree.dominates(block, latch)),
            None => returns.iter().all(|&ret| domtree.dominates(block, ret)),
        };
        if !runs_every_time {
            continue;
        }
        let mut weight: u64 = 1;
        let mut current = innermost;
        for _ in 0..4 {
            let Some(lp) = current else { break };
            weight = weight.saturating_mul(INNER_LOOP_WEIGHT);
            if is_divergent_loop(func, &loops, lp) {
                weight = weight.saturating_mul(DIVERGENT_LOOP_FACTOR);
            }
            current = loops.parent(lp);
        }
        let mut gathers = 0;
        for &inst in func.layout.block_insts(block) {
            if !costs(func, inst) {
                continue;
            }
            let cost = match func.dfg.inst(inst) {
                InstData::Gather { addrs, .. } | InstData::Scatter { addrs, .. } => {
                    gathers += 1;
                    let spread = constant_lane_stride(func, *addrs).is_some_and(|stride| {
                        stride.unsigned_abs() >= u128::from(CACHE_LINE_BYTES)
                    });
                    let element =
                        if spread { SPREAD_GATHER_ELEMENT_COST } else { GATHER_ELEMENT_COST };
                    u64::from(lanes(func, *addrs)) * element
                }
                _ => inst_registers(func, inst, register_bits),
            };
            total = total.saturating_add(weight.saturating_mul(cost));
        }
        if let (Some(lp), true) = (innermost, gathers > 0) {
            match gathers_per_loop.iter_mut().find(|(seen, _)| *seen == lp) {
                Some((_, count)) => *count += gathers,
                None => gathers_per_loop.push((lp, gathers)),
            }
        }
    }
    let inner_gathers = gathers_per_loop.iter().map(|&(_, count)| count).max().unwrap_or(0);
    Some((total, inner_gathers))
}

/// Whether `inst` counts at all: phis and jumps are free (register
/// allocation and block layout), as are the `rv_*` markers of lowering.
fn costs(func: &Function, inst: Inst) -> bool {
    match func.dfg.inst(inst) {
        InstData::Phi { .. } | InstData::Jump { .. } => false,
        InstData::Call { callee: Callee::Direct(name), .. } => {
            !name.starts_with("llvm.lifetime") && !name.starts_with("llvm.assume")
        }
        _ => true,
    }
}

/// The lanes of a vector value, 1 for a scalar.
fn lanes(func: &Function, value: Value) -> u32 {
    func.dfg.value_type(value).lanes().unwrap_or(1)
}

/// The distance in bytes between lanes 0 and 1 of a vector of addresses
/// that widening built as a byte `getelementptr` from a scalar root and
/// constant lane offsets (`gep i8, root, splat(o) + <0, s, 2s, ...>`, the
/// form of strided accesses), if it is one.
fn constant_lane_stride(func: &Function, addrs: Value) -> Option<i128> {
    let ValueDef::Result(gep) = func.dfg.value_def(addrs) else { return None };
    let InstData::Gep { source_ty: Type::Int(8), indices, .. } = func.dfg.inst(*gep) else {
        return None;
    };
    let [offsets] = indices.as_slice() else { return None };
    let mut offsets = *offsets;
    for _ in 0..3 {
        let lane = |index: usize| -> Option<i128> {
            let ValueDef::Const(Constant::Aggregate(elements)) = func.dfg.value_def(offsets) else {
                return None;
            };
            let bits = func.dfg.value_type(offsets).scalar_type().int_bits()?;
            match func.dfg.value_def(*elements.get(index)?) {
                ValueDef::Const(Constant::Int(value)) => {
                    // Sign-extend from the lane width.
                    let shift = 128 - bits.min(128);
                    Some(((*value as i128) << shift) >> shift)
                }
                ValueDef::Const(Constant::Zero) => Some(0),
                _ => None,
            }
        };
        if let (Some(first), Some(second)) = (lane(0), lane(1)) {
            return Some(second - first);
        }
        let ValueDef::Result(inst) = func.dfg.value_def(offsets) else { return None };
        offsets = match func.dfg.inst(*inst) {
            InstData::Binary { op: BinaryOp::Add, lhs, rhs, .. } => {
                if matches!(func.dfg.value_def(*rhs), ValueDef::Const(_)) {
                    *rhs
                } else {
                    *lhs
                }
            }
            InstData::Cast { op: CastOp::SExt | CastOp::ZExt, arg, .. } => *arg,
            _ => return None,
        };
    }
    None
}

/// Whether `lp` of the vector body is divergent: a branch that leaves it
/// tests a condition computed from a vector value (`any` of the lanes'
/// masks), so it runs until the last lane is done.
fn is_divergent_loop(func: &Function, loops: &LoopInfo, lp: Loop) -> bool {
    loops.exiting_blocks(lp).iter().any(|&block| {
        let Some(&terminator) = func.layout.block_insts(block).last() else {
            return false;
        };
        match func.dfg.inst(terminator) {
            InstData::Branch { cond, .. } => reads_vector(func, *cond, 4),
            _ => false,
        }
    })
}

/// Whether `value` is, or is computed within `depth` non-phi instructions
/// from, a vector value.
fn reads_vector(func: &Function, value: Value, depth: u32) -> bool {
    if func.dfg.value_type(value).is_vector() {
        return true;
    }
    if depth == 0 {
        return false;
    }
    match func.dfg.value_def(value) {
        ValueDef::Result(inst) if !matches!(func.dfg.inst(*inst), InstData::Phi { .. }) => {
            func.dfg.inst(*inst).operands().into_iter().any(|op| reads_vector(func, op, depth - 1))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use lanewise_ir::{CallEffects, FunctionBuilder, IntPredicate};

    use super::*;

    fn estimate_of(scalar: u64, vector: u64, width: u32, inner_gathers: u32) -> CostEstimate {
        CostEstimate { width, scalar, vector, inner_gathers }
    }

    /// How the inner loop of [`row_sum`] reads its element.
    #[derive(Clone, Copy)]
    enum Access {
        /// One `float` per lane, lanes `stride` bytes apart: a gather.
        Gather { stride: i64 },
        /// Adjacent `float`s: one vector load.
        Contiguous,
    }

    /// A loop body `f(root, n)` whose inner loop `for (k = 0; k < n; k++)`
    /// reads a `float`, adds it `work` times and counts. The scalar body
    /// (`width` 1) loads `root[k]`; the vector body (as widening makes it)
    /// reads `access` with W lanes, and, if `divergent`, leaves the loop
    /// when no lane continues (`llvm.vector.reduce.or`). `inner`: false puts
    /// the read before a loop that only counts.
    fn row_sum(width: u32, access: Access, work: usize, divergent: bool, inner: bool) -> Function {
        let mut func = Function::new("f", vec![Type::PTR, Type::I64], Type::Void);
        let (root, n) = (func.param_value(0), func.param_value(1));
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let header = b.create_block(Some("header"));
        let exit = b.create_block(Some("exit"));
        b.switch_to_block(entry);
        let zero = b.iconst(Type::I64, 0);
        let read = |b: &mut FunctionBuilder<'_>, k: Value| -> Value {
            if width == 1 {
                let addr = b.gep(Type::F32, root, vec![k]);
                return b.load(Type::F32, addr, 4);
            }
            match access {
                Access::Gather { stride } => {
                    let four = b.iconst(Type::I64, 4);
                    let bytes = b.binary(BinaryOp::Mul, k, four);
                    let base = b.splat(bytes, width);
                    let lanes: Vec<Value> = (0..width)
                        .map(|lane| b.iconst(Type::I64, i128::from(stride) * i128::from(lane)))
                        .collect();
                    let step = b
                        .func
                        .dfg
                        .make_const(Type::I64.vector_of(width), Constant::Aggregate(lanes));
                    let offsets = b.binary(BinaryOp::Add, base, step);
                    let addrs = b.gep(Type::Int(8), root, vec![offsets]);
                    let all = b.iconst(Type::BOOL, 1);
                    let mask = b.splat(all, width);
                    let ty = Type::F32.vector_of(width);
                    let passthru = b.func.dfg.make_const(ty.clone(), Constant::Poison);
                    b.ins_value(
                        InstData::Gather { ty: ty.clone(), addrs, mask, passthru, align: 4 },
                        ty,
                    )
                }
                Access::Contiguous => {
                    let addr = b.gep(Type::F32, root, vec![k]);
                    b.load(Type::F32.vector_of(width), addr, 4)
                }
            }
        };
        let before = (!inner).then(|| read(&mut b, zero));
        b.jump(header);
        b.switch_to_block(header);
        let k = b.phi(Type::I64, vec![(entry, zero)]);
        let mut sum = match before {
            Some(value) => value,
            None => read(&mut b, k),
        };
        for _ in 0..work {
            sum = b.binary(BinaryOp::FAdd, sum, sum);
        }
        let one = b.iconst(Type::I64, 1);
        let next = b.binary(BinaryOp::Add, k, one);
        let continues = if width > 1 && divergent {
            let next_lanes = b.splat(next, width);
            let n_lanes = b.splat(n, width);
            let lanes_continue = b.icmp(IntPredicate::Slt, next_lanes, n_lanes);
            let any = b.call(
                Callee::Direct(format!("llvm.vector.reduce.or.v{width}i1")),
                vec![lanes_continue],
                Type::BOOL,
                CallEffects::Pure,
            );
            b.func.dfg.result(any).unwrap()
        } else {
            b.icmp(IntPredicate::Slt, next, n)
        };
        b.branch(continues, header, exit);
        let phi = b.func.dfg.defining_inst(k).unwrap();
        if let InstData::Phi { incoming, .. } = b.func.dfg.inst_mut(phi) {
            incoming.push((header, next));
        }
        b.switch_to_block(exit);
        b.ret(None);
        func
    }

    fn estimate_rows(access: Access, work: usize, divergent: bool, inner: bool) -> CostEstimate {
        let scalar = row_sum(1, access, work, divergent, inner);
        let vector = row_sum(32, access, work, divergent, inner);
        estimate(&scalar, &vector, 32, 512).expect("reducible bodies")
    }

    #[test]
    fn a_divergent_inner_loop_gathering_rows_is_refused() {
        // nested_simd_outer: lanes 256 bytes apart, one addition.
        let estimate = estimate_rows(Access::Gather { stride: 256 }, 1, true, true);
        assert_eq!(estimate.inner_gathers, 1);
        assert!(estimate.is_unprofitable(), "{estimate:?}");
        assert!(estimate.refusal_message().starts_with("not profitable: 1 gather/scatter"));
    }

    #[test]
    fn contiguous_reads_and_real_arithmetic_stay_vectorized() {
        let contiguous = estimate_rows(Access::Contiguous, 1, true, true);
        assert_eq!(contiguous.inner_gathers, 0);
        assert!(!contiguous.is_unprofitable(), "{contiguous:?}");
        // Twelve operations per gathered element pay for the gather.
        let arithmetic = estimate_rows(Access::Gather { stride: 256 }, 12, true, true);
        assert!(!arithmetic.is_unprofitable(), "{arithmetic:?}");
        assert!(arithmetic.vector * 100 < arithmetic.scalar * 32 * 100, "{arithmetic:?}");
    }

    #[test]
    fn gathers_outside_inner_loops_are_never_refused() {
        let estimate = estimate_rows(Access::Gather { stride: 256 }, 0, true, false);
        assert_eq!(estimate.inner_gathers, 0);
        assert!(!estimate.is_unprofitable(), "{estimate:?}");
    }

    #[test]
    fn divergent_loops_and_spread_gathers_cost_more() {
        let divergent = estimate_rows(Access::Gather { stride: 256 }, 1, true, true);
        let uniform = estimate_rows(Access::Gather { stride: 256 }, 1, false, true);
        let near = estimate_rows(Access::Gather { stride: 8 }, 1, true, true);
        assert_eq!(divergent.scalar, uniform.scalar);
        assert!(
            divergent.vector > uniform.vector + uniform.vector / 2,
            "{divergent:?} {uniform:?}"
        );
        // 32 lanes of 6 against 4 per element, in an inner loop weighing 16.
        assert_eq!(
            divergent.vector - near.vector,
            32 * (SPREAD_GATHER_ELEMENT_COST - GATHER_ELEMENT_COST) * INNER_LOOP_WEIGHT * 2
        );
    }

    #[test]
    fn refuses_only_inner_gathers_that_cost_more_than_scalar() {
        // 32 lanes, 25% over the scalar cost: not decisive.
        assert!(!estimate_of(100, 32 * 125, 32, 1).is_unprofitable());
        assert!(estimate_of(100, 32 * 126, 32, 1).is_unprofitable());
        // As costly, but no gather in an inner loop: vectorized.
        assert!(!estimate_of(100, 32 * 200, 32, 0).is_unprofitable());
    }

    #[test]
    fn the_message_gives_the_estimate() {
        let message = estimate_of(56, 32 * 112, 32, 1).refusal_message();
        assert_eq!(
            message,
            "not profitable: 1 gather/scatter per lane per inner iteration, estimated vector \
             cost 112.0 vs scalar 56 per iteration (W=32)"
        );
    }
}
