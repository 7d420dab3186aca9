//! Whether an inner loop of a vector body waits on a loop-carried
//! recurrence rather than on the throughput of its instructions.
//!
//! An `omp simd` body whose inner loop carries a long dependence chain from
//! one iteration to the next (a bisection: `middle = (low + high) / 2`, a
//! cubic of `middle`, a compare, a select of `low` or `high`, about 25
//! cycles) runs each inner iteration in the time of that chain, however few
//! instructions it holds: the core sits idle between the chain's steps. Twice
//! the lanes then cost little more per iteration: the second half's chain
//! runs in the first half's shadow, until the instructions of both fill the
//! vector pipes. tests/programs/bisection_flag.c ran 1.45x faster at W = 64
//! than at W = 32 on AMD Zen 4.
//!
//! [`latency_bound`] estimates, for each loop of the vector body:
//!
//! - its **recurrence**: the longest path, in [`latency`] cycles (AVX-512
//!   class cores), from a header phi through the loop body to the value the
//!   phi takes on a back edge;
//! - its **throughput** cost: the vector registers every instruction of
//!   its blocks (not those of inner loops) reads or writes, at
//!   [`VECTOR_REGISTER_OPS_PER_CYCLE`] (scalar and mask operations are left
//!   out: they issue on other ports), except for instructions whose cost is
//!   not their registers: a gather or scatter takes [`GATHER_ELEMENT_CYCLES`]
//!   per lane (AMD Zen 4 loads about one element per cycle), a division or
//!   square root [`DIVIDER_CYCLES_PER_REGISTER`] (twice that in `double`),
//!   a call of a function
//!   (per lane, scalarized) [`CALL_CYCLES`]. Without them a loop around a
//!   gather looks latency-bound (the gather's latency is in its recurrence)
//!   when the gathers' throughput is what bounds it:
//!   tests/programs/narrowed_lanes ran 0.71x at twice the lanes. Blocks
//!   that run only on some iterations (a gather's guarded fast path, a
//!   region BOSCC skips) count as if they ran on all: the estimate leans
//!   towards throughput-bound, the side that keeps W.
//!
//! The body is latency-bound when some loop's recurrence is at least
//! [`MIN_RECURRENCE_CYCLES`] long and exceeds its throughput cost by
//! [`LATENCY_BOUND_RATIO_PERCENT`]. `lanewise::simd_loops` doubles W from 32
//! to 64 for such a body on AVX-512: bisection_flag 1.39x, particles_cpp
//! 1.16x, gcd_pairs 1.07x, lastprivate_values 1.03x, stencil_conditional
//! 1.02x faster. A divergent loop at 64 lanes
//! (four registers per value) is not narrowed, so where narrowing pays, the
//! loop must not look latency-bound: mandelbrot (an 8-cycle recurrence
//! against 12 cycles of instructions) ran 0.65x at W = 64, collatz and
//! trip_counts 0.74x and 0.48x, and the model keeps all three at 32.

use lanewise_analysis::loops::LoopInfo;
use lanewise_analysis::{ControlFlowGraph, DominatorTree};
use lanewise_ir::{BinaryOp, Block, Callee, Function, Inst, InstData, Value};
use std::collections::HashMap;

use super::width::type_registers;

/// Vector register operations an AVX-512 core issues per cycle: two 512-bit
/// operations (Intel: ports 0 and 5; AMD Zen 4: four 256-bit pipes).
pub const VECTOR_REGISTER_OPS_PER_CYCLE: u64 = 2;

/// Cycles per lane of a gather or scatter.
pub const GATHER_ELEMENT_CYCLES: u64 = 1;

/// Cycles of a vector division or square root per register of `float`
/// lanes; `double` lanes take about twice as long (AMD Zen 4: 1.6 and
/// 2.5 ns per zmm division at 2.6 GHz, widen/division.rs).
pub const DIVIDER_CYCLES_PER_REGISTER: u64 = 4;

/// Cycles of a call of a function that is not an LLVM intrinsic.
pub const CALL_CYCLES: u64 = 20;

/// How much longer (in percent) a loop's recurrence must be than its
/// throughput cost for the body to count as latency-bound.
pub const LATENCY_BOUND_RATIO_PERCENT: u64 = 125;

/// The shortest recurrence that counts: chains of a few cycles are as long
/// as the loop's own overhead (its exit branch, the mask test of a
/// divergent loop), which the estimate leaves out.
pub const MIN_RECURRENCE_CYCLES: u64 = 8;

/// The recurrence and the throughput cost of the most latency-bound loop of
/// a vector body, in cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopLatency {
    pub recurrence_cycles: u64,
    pub throughput_cycles: u64,
}

impl LoopLatency {
    pub fn is_latency_bound(&self) -> bool {
        self.recurrence_cycles >= MIN_RECURRENCE_CYCLES
            && self.recurrence_cycles * 100 >= self.throughput_cycles * LATENCY_BOUND_RATIO_PERCENT
    }
}

/// The loop of `func` whose recurrence most exceeds its throughput cost
/// (module docs), if `func` has a loop; `register_bits` is the vector
/// register width.
pub fn latency_bound(func: &Function, register_bits: u32) -> Option<LoopLatency> {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let loops = LoopInfo::compute(func, &cfg, &domtree).ok()?;
    let order = cfg.reverse_post_order();
    let mut most_bound: Option<LoopLatency> = None;
    for lp in loops.loops() {
        let header = loops.header(lp);
        let latches = loops.latches(lp);
        let body: Vec<Block> =
            order.iter().copied().filter(|&block| loops.contains(lp, block)).collect();
        let mut register_ops: u64 = 0;
        let mut other_cycles: u64 = 0;
        for &block in &body {
            if loops.innermost_loop(block) != Some(lp) {
                continue;
            }
            for &inst in func.layout.block_insts(block) {
                match issue_cost(func, inst, register_bits) {
                    IssueCost::RegisterOps(ops) => register_ops += ops,
                    IssueCost::Cycles(cycles) => other_cycles += cycles,
                }
            }
        }
        let throughput_cycles = register_ops.div_ceil(VECTOR_REGISTER_OPS_PER_CYCLE) + other_cycles;
        let mut recurrence_cycles = 0;
        for &phi in func.layout.block_insts(header) {
            let InstData::Phi { incoming, .. } = func.dfg.inst(phi) else { break };
            let Some(phi_value) = func.dfg.result(phi) else { continue };
            let distance = longest_paths_from(func, &body, header, phi, phi_value);
            let back_edge_cycles = incoming
                .iter()
                .filter(|(from, _)| latches.contains(from))
                .filter_map(|(_, value)| distance.get(value).copied())
                .max()
                .unwrap_or(0);
            recurrence_cycles = recurrence_cycles.max(back_edge_cycles);
        }
        let estimate = LoopLatency { recurrence_cycles, throughput_cycles };
        let excess = |latency: &LoopLatency| {
            latency.recurrence_cycles * 100 / latency.throughput_cycles.max(1)
        };
        if most_bound.is_none_or(|best| excess(&estimate) > excess(&best)) {
            most_bound = Some(estimate);
        }
    }
    most_bound
}

/// The longest [`latency`] path from `phi_value` to every value computed
/// from it in `body` (reverse post-order; values from inner loops' back
/// edges are not followed, and other header phis start no path).
fn longest_paths_from(
    func: &Function,
    body: &[Block],
    header: Block,
    phi: Inst,
    phi_value: Value,
) -> HashMap<Value, u64> {
    let mut distance: HashMap<Value, u64> = HashMap::from([(phi_value, 0)]);
    for &block in body {
        for &inst in func.layout.block_insts(block) {
            let data = func.dfg.inst(inst);
            if inst == phi || (block == header && matches!(data, InstData::Phi { .. })) {
                continue;
            }
            let mut longest: Option<u64> = None;
            data.for_each_operand(|operand| {
                if let Some(&d) = distance.get(&operand) {
                    longest = Some(longest.map_or(d, |l| l.max(d)));
                }
            });
            if let (Some(d), Some(result)) = (longest, func.dfg.result(inst)) {
                distance.insert(result, d + latency(func, inst));
            }
        }
    }
    distance
}

/// The divider's cycles for a division or square root of `registers`.
fn divider_cycles(func: &Function, inst: Inst, registers: u64) -> u64 {
    let double = func
        .dfg
        .result(inst)
        .is_some_and(|result| func.dfg.value_type(result).scalar_type().scalar_bits() == Some(64));
    registers * DIVIDER_CYCLES_PER_REGISTER * if double { 2 } else { 1 }
}

/// What issuing an instruction costs (module docs).
enum IssueCost {
    /// Operations on vector registers.
    RegisterOps(u64),
    /// Cycles of a unit that is not one of the vector pipes.
    Cycles(u64),
}

fn issue_cost(func: &Function, inst: Inst, register_bits: u32) -> IssueCost {
    let data = func.dfg.inst(inst);
    let registers = data
        .operands()
        .into_iter()
        .chain(func.dfg.result(inst))
        .map(|value| func.dfg.value_type(value))
        .filter(|ty| ty.is_vector() && ty.scalar_type().scalar_bits().is_some_and(|bits| bits > 1))
        .map(|ty| type_registers(ty, register_bits))
        .max()
        .unwrap_or(0);
    match data {
        InstData::Phi { .. } | InstData::Jump { .. } | InstData::Branch { .. } => {
            IssueCost::RegisterOps(0)
        }
        InstData::Gather { addrs, .. } | InstData::Scatter { addrs, .. } => {
            let lanes = func.dfg.value_type(*addrs).lanes().unwrap_or(1);
            IssueCost::Cycles(u64::from(lanes) * GATHER_ELEMENT_CYCLES)
        }
        InstData::Binary { op: BinaryOp::FDiv | BinaryOp::FRem, .. } => {
            IssueCost::Cycles(divider_cycles(func, inst, registers))
        }
        InstData::Call { callee: Callee::Direct(name), .. } if name.starts_with("llvm.sqrt") => {
            IssueCost::Cycles(divider_cycles(func, inst, registers))
        }
        InstData::Call { callee: Callee::Direct(name), .. } if name.starts_with("llvm.") => {
            IssueCost::RegisterOps(registers)
        }
        InstData::Call { .. } => IssueCost::Cycles(CALL_CYCLES),
        _ => IssueCost::RegisterOps(registers),
    }
}

/// Approximate result latencies in cycles of AVX-512 class x86 cores
/// (Intel Skylake-SP to AMD Zen 4), for comparing recurrences only.
pub fn latency(func: &Function, inst: Inst) -> u64 {
    match func.dfg.inst(inst) {
        InstData::Binary { op, .. } => match op {
            BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul => 4,
            BinaryOp::Mul => 3,
            BinaryOp::FDiv => 11,
            BinaryOp::UDiv | BinaryOp::SDiv | BinaryOp::URem | BinaryOp::SRem | BinaryOp::FRem => {
                20
            }
            _ => 1,
        },
        InstData::Fcmp { .. } => 4,
        InstData::Icmp { .. } => 1,
        InstData::Cast { arg, to, .. } => {
            let float =
                func.dfg.value_type(*arg).scalar_type().is_float() || to.scalar_type().is_float();
            if float {
                4
            } else {
                1
            }
        }
        InstData::Load { .. } | InstData::MaskedLoad { .. } | InstData::SpeculativeLoad { .. } => 5,
        InstData::Gather { .. } => 20,
        InstData::Call { callee: Callee::Direct(name), .. } if name.starts_with("llvm.sqrt") => 15,
        InstData::Call { callee: Callee::Direct(name), .. } if name.starts_with("llvm.") => 4,
        InstData::Call { .. } => 20,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanewise_ir::{FunctionBuilder, IntPredicate, Type};

    /// A loop of `steps` iterations whose float `x` goes through `chain`
    /// dependent multiplications per iteration, and `spare` independent
    /// vector additions besides, at 32 lanes of `float`.
    fn chain_loop(chain: usize, spare: usize) -> Function {
        op_chain_loop(Type::F32.vector_of(32), BinaryOp::FMul, chain, spare)
    }

    /// [`chain_loop`] with `op` on values of type `vector`.
    fn op_chain_loop(vector: Type, op: BinaryOp, chain: usize, spare: usize) -> Function {
        counted_loop(vector, vec![], |b, x, _| {
            let mut next = x;
            for _ in 0..chain {
                next = b.binary(op, next, x);
            }
            for _ in 0..spare {
                let _ = b.binary(BinaryOp::FAdd, x, x);
            }
            next
        })
    }

    /// `f(start: carried, steps: i32, extra...)`: a one-block loop of
    /// `steps` iterations carrying `x` (from `start`) to `step(b, x,
    /// extra)`, which builds the iteration in the loop block.
    fn counted_loop(
        carried: Type,
        extra: Vec<Type>,
        step: impl FnOnce(&mut FunctionBuilder, Value, &[Value]) -> Value,
    ) -> Function {
        let params = [vec![carried.clone(), Type::I32], extra].concat();
        let mut func = Function::new("counted", params, carried.clone());
        let (start, steps) = (func.param_value(0), func.param_value(1));
        let extra: Vec<Value> = (2..func.params.len()).map(|i| func.param_value(i)).collect();
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let header = b.create_block(Some("header"));
        let exit = b.create_block(Some("exit"));
        b.switch_to_block(entry);
        let zero = b.iconst(Type::I32, 0);
        b.jump(header);
        b.switch_to_block(header);
        let x = b.phi(carried, vec![(entry, start)]);
        let k = b.phi(Type::I32, vec![(entry, zero)]);
        let next = step(&mut b, x, &extra);
        let one = b.iconst(Type::I32, 1);
        let k_next = b.binary(BinaryOp::Add, k, one);
        let more = b.icmp(IntPredicate::Slt, k_next, steps);
        b.add_phi_incoming(x, header, next);
        b.add_phi_incoming(k, header, k_next);
        b.branch(more, header, exit);
        b.switch_to_block(exit);
        b.ret(Some(next));
        func
    }

    #[test]
    fn a_long_chain_with_few_instructions_is_latency_bound() {
        // 6 dependent multiplications: 24 cycles; 6 operations on two zmm
        // registers each: 6 cycles.
        let estimate = latency_bound(&chain_loop(6, 0), 512).unwrap();
        assert_eq!(estimate.recurrence_cycles, 24);
        assert!(estimate.is_latency_bound(), "{estimate:?}");
    }

    #[test]
    fn many_independent_instructions_are_throughput_bound() {
        // 2 dependent multiplications (8 cycles) next to 20 additions.
        let estimate = latency_bound(&chain_loop(2, 20), 512).unwrap();
        assert_eq!(estimate.recurrence_cycles, 8);
        assert!(!estimate.is_latency_bound(), "{estimate:?}");
    }

    #[test]
    fn divisions_of_doubles_take_the_divider_twice_as_long() {
        // One division a step: 11 cycles of latency. Two zmm registers of
        // `float` keep the divider 8 cycles, of `double` 16.
        let floats = op_chain_loop(Type::F32.vector_of(32), BinaryOp::FDiv, 1, 0);
        let estimate = latency_bound(&floats, 512).unwrap();
        assert_eq!((estimate.recurrence_cycles, estimate.throughput_cycles), (11, 8));
        assert!(estimate.is_latency_bound());
        let doubles = op_chain_loop(Type::F64.vector_of(16), BinaryOp::FDiv, 1, 0);
        let estimate = latency_bound(&doubles, 512).unwrap();
        assert_eq!((estimate.recurrence_cycles, estimate.throughput_cycles), (11, 16));
        assert!(!estimate.is_latency_bound());
    }

    #[test]
    fn a_recurrence_through_a_gather_is_bound_by_the_gathers() {
        // index = table[index & 255] at 32 lanes: the gather's latency is
        // the recurrence, its 32 elements the throughput.
        let lanes = 32;
        let index_ty = Type::I32.vector_of(lanes);
        let func = counted_loop(index_ty.clone(), vec![Type::PTR], |b, index, extra| {
            let byte = b.iconst(Type::I32, 255);
            let bytes = b.splat(byte, lanes);
            let all = b.iconst(Type::BOOL, 1);
            let mask = b.splat(all, lanes);
            let masked = b.binary(BinaryOp::And, index, bytes);
            let addrs = b.gep(Type::I32, extra[0], vec![masked]);
            let gather =
                InstData::Gather { ty: index_ty.clone(), addrs, mask, passthru: masked, align: 4 };
            let gathered = b.ins(gather, index_ty.clone());
            b.func.dfg.result(gathered).unwrap()
        });
        let estimate = latency_bound(&func, 512).unwrap();
        assert!(estimate.recurrence_cycles >= 20, "{estimate:?}");
        assert!(estimate.throughput_cycles >= 32, "{estimate:?}");
        assert!(!estimate.is_latency_bound(), "{estimate:?}");
    }

    #[test]
    fn a_function_without_loops_has_no_estimate() {
        let mut func = Function::new("straight", vec![Type::I32], Type::I32);
        let x = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        b.switch_to_block(entry);
        b.ret(Some(x));
        assert_eq!(latency_bound(&func, 512), None);
    }
}
