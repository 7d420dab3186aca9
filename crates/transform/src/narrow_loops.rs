//! Narrowing of divergent loops: when at most half of the lanes are still
//! iterating, they are compacted into vectors of half the width and the
//! loop continues in a copy of itself that does half the work per
//! iteration.
//!
//! A divergent loop of the widened function (the divergent-loop transform,
//! [`crate::divergent_loops`], then widening) runs until its slowest lane
//! leaves; lanes that left wait, masked off, in every later iteration. With
//! W = 32 lanes of 32-bit data on AVX-512 (two registers per value) the
//! loops of the whole-program corpus keep 26-50% of their lane slots busy.
//! This pass, run on the widened function, gives such a loop a narrow copy:
//!
//! ```text
//!   header ... latch: br any(C), check, exit             (C: the continue mask)
//!   check:   count' = count + 1
//!            br popcount(C) <= W/2 && count' >= K, compact, header
//!   compact: every vector the loop carries (the header phis' latch values)
//!            or reads from outside (live-ins, lane-dependent constants)
//!            compressed with C into W/2 lanes: the live lanes first, in
//!            lane order (`llvm.experimental.vector.compress`, vpcompressd)
//!   copy of the loop at W/2 lanes (splat constants narrowed), its header
//!   phis starting from the compressed values; its latch leaves to
//!   expand:  every value used after the loop expanded back to W lanes with
//!            C (vpexpandd: `llvm.x86.avx512.mask.expand` on AVX-512, else
//!            `llvm.masked.expandload` from a stack slot): the lanes live at
//!            compaction get their final values, the others keep the values
//!            they had then; then the loop's exit block, whose phis (or new
//!            join phis) take the expanded values
//! ```
//!
//! A value of two registers is compressed per register and the upper
//! register's live lanes are expanded into the lanes after the lower
//! register's; the live mask of the copy is not compressed but made from
//! the live count (its first `popcount(C)` lanes).
//!
//! Why it is correct: compression keeps the live lanes in order, so lane j
//! of the copy is the j-th live lane of the wide loop, and the copy computes
//! for it what the wide loop would have. Lanes of the copy past the live
//! count start with a false mask (masks are compressed with a false
//! passthru) and hold copies of real lanes' data otherwise, the same kind of
//! stale data that finished lanes hold in the wide loop. Uniform scalars
//! (the loop's counters, `any` tests) run the same sequence in both loops.
//! Values leave a divergent loop through trackers (header phis updated with
//! `select(live, new, tracker)`), so a lane that is not live at compaction
//! would keep its value in the wide loop until the end: that value, taken
//! at compaction, is the expansion's passthru. A loop is only narrowed when
//! every vector value used after it is a header phi or a header phi's latch
//! value.
//!
//! What the copy can hold: lane-wise operations (arithmetic, comparisons,
//! selects, casts that keep the lane count, `Splat`, GEPs, gathers and
//! scatters, which keep their lane order, elementwise intrinsics), uniform
//! scalar code (loads, stores and calls whose operands are all scalars run
//! once per iteration in both loops), inner loops and uniform branches, and
//! `any`/`all` reductions of masks (the copy's extra lanes are false). A
//! loop that holds anything that addresses lanes by position is left alone:
//! contiguous vector loads and stores (lane i at address base + i),
//! shuffles, lane extracts and inserts, bitcasts between masks and integers
//! (ballots), calls of vector functions, allocas, vectors of another lane
//! count. So is a loop whose carried values span more than two registers
//! (the compaction of one value works per register and merges two), and an
//! outer loop holding a narrowed loop (its compaction code reads lanes by
//! position).
//!
//! Narrowing applies again to the copy (W/2 to W/4, ...) while the copy's
//! narrowest data vector keeps [`NarrowConfig::min_narrow_vector_bits`]
//! bits: on AVX-512 with 32-bit data, 32 lanes (two zmm registers per
//! value) to 16 (one zmm) to 8 (one ymm; on AMD Zen 4 a ymm operation costs
//! half a zmm one). Only the wide loop counts its iterations: a copy is
//! entered after [`MIN_ITERATIONS_BEFORE_COMPACTION`] of them and compacts
//! again as soon as at most half of its own lanes are live.
//!
//! Profitability: a compaction costs about two compresses and a merge per
//! carried value, and an expansion per live-out, plus a mispredicted branch
//! when the compaction starts and one when the copy ends; it pays when the
//! copy then runs long enough. Loops whose lanes all finish within a few
//! iterations of each other lose (tests/programs/reduce_int_bitwise: about
//! 15 iterations at most, 0.88x with compaction at the first chance), so
//! compaction waits until the loop has run
//! [`MIN_ITERATIONS_BEFORE_COMPACTION`] iterations: a loop that has run
//! long is likely to run longer. That is a guess, not a prediction: lanes
//! that all leave between iterations 20 and 38 (reduce_int_minmax) are
//! compacted near the end and lose 4%. The check itself (an iteration
//! count, a popcount, a branch) is paid in every iteration, even by loops
//! that never compact: 1-2% of short loops (classify_returns,
//! reduce_int_bitwise), 5% of a long loop with a light body
//! (early_exit_search gains 9% instead of 15%). Loops of one
//! register are not narrowed ([`MIN_WIDE_VECTOR_BITS`]). The measurements
//! are in the README ("Narrowing of divergent loops").
//!
//! The pass is run after widening on AVX-512 targets only (x86 has no
//! compress or expand instruction below AVX-512; LLVM expands the
//! intrinsics into a store or load per lane there, and with 256-bit
//! registers on AVX2 narrowing measured collatz_declare_simd 1.10x but
//! trip_counts 0.84x and mandelbrot 0.95x). [`NarrowConfig::always`] makes
//! every eligible loop narrow at every chance, down to one lane, on any
//! target: for tests. The compress of a value is done per register
//! (`register_bits`), because LLVM 22 miscompiles a compress wider than a
//! register on AVX-512 (the split stores the upper part with the alignment
//! of the whole vector at an unaligned offset).

use std::collections::{HashMap, HashSet};

use lanewise_analysis::{Loop, LoopInfo};
use lanewise_ir::{
    ArithFlags, BinaryOp, Block, CallEffects, Callee, CastFlags, CastOp, Constant, FastMathFlags,
    Function, Inst, InstData, IntPredicate, Type, Value, ValueDef,
};

use crate::cfg_canon::{
    block_phis, insert_phi, new_block_after, phi_incoming, rename_phi_predecessor,
    set_phi_incoming, CfgSnapshot,
};
use crate::vector_math::{elementwise_intrinsic_base, intrinsic_type_suffix};
use crate::widen::LANE_SLOTS_COUNTER;

/// Iterations a loop runs before its lanes may be compacted. Measured on
/// AMD Zen 4 (tests/programs at W = 32, fastest of 11 alternating runs,
/// against the same build without narrowing), compaction as soon as at most
/// half the lanes are live, after 8, 16, 24 and 32 iterations:
/// reduce_int_bitwise 0.88x, 0.87x, 0.99x, 0.99x, 0.99x; reduce_int_minmax
/// 0.93x, 0.95x, 0.95x, 0.95x, 0.99x; classify_returns 0.66x, 0.98x,
/// 0.98x, 0.98x, 0.98x; trip_counts 1.29x, 1.29x, 1.28x, 1.24x, 1.22x;
/// early_exit_search 1.15x, 1.12x, 1.09x, 1.10x, 1.09x; geometric mean over
/// the 27 programs 0.98x, 1.02x, 1.04x, 1.03x, 1.03x.
pub const MIN_ITERATIONS_BEFORE_COMPACTION: u32 = 16;

/// The widest data vector of a loop narrowed at all, in bits: two zmm
/// registers (W = 32 lanes of 32 bits, 16 of 64). From one zmm register to
/// one ymm, a divergent loop's iteration is often bound by the latency of
/// its recurrence rather than by throughput, and the check costs more than
/// the copy saves: reduce_float's `damp` loop at 16 lanes of `float`
/// (at most 5 iterations) ran 0.87x with a narrow copy at 8 lanes.
pub const MIN_WIDE_VECTOR_BITS: u32 = 1024;

/// The narrowest data vector a narrow copy may have, in bits: 256 (a ymm
/// register). Narrowing a ymm loop to xmm registers measured 1% faster on
/// collatz_declare_simd, not worth a third copy of the loop.
pub const MIN_NARROW_VECTOR_BITS: u32 = 256;

/// When and how loops are narrowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NarrowConfig {
    /// The target's vector register size: values of at most this many bits
    /// are compressed with one compress, values of two registers per
    /// register (wider values are not narrowed).
    pub register_bits: u32,
    /// A loop gets a first narrow copy only if its widest data vector (not
    /// counting masks) has at least this many bits.
    pub min_wide_vector_bits: u32,
    /// A narrow copy is made only if its narrowest data vector keeps at
    /// least this many bits.
    pub min_narrow_vector_bits: u32,
    /// Iterations the loop runs before compaction may happen.
    pub min_iterations: u32,
    /// Expand in registers with AVX-512's `llvm.x86.avx512.mask.expand`
    /// (vpexpandd on a register) rather than through the stack slot with
    /// `llvm.masked.expandload`: measured 4% faster on trip_counts.
    pub avx512_register_expand: bool,
}

impl NarrowConfig {
    /// Narrowing where it pays (the constants above), on AVX-512.
    pub fn profitable_on_avx512() -> Self {
        NarrowConfig {
            register_bits: 512,
            min_wide_vector_bits: MIN_WIDE_VECTOR_BITS,
            min_narrow_vector_bits: MIN_NARROW_VECTOR_BITS,
            min_iterations: MIN_ITERATIONS_BEFORE_COMPACTION,
            avx512_register_expand: true,
        }
    }

    /// Every eligible loop, down to one lane, compacted as soon as half its
    /// lanes are idle: the most compactions, for tests. Generic intrinsics
    /// only, unless `avx512`.
    pub fn always(register_bits: u32, avx512: bool) -> Self {
        NarrowConfig {
            register_bits,
            min_wide_vector_bits: 0,
            min_narrow_vector_bits: 0,
            min_iterations: 0,
            avx512_register_expand: avx512,
        }
    }
}

/// What [`narrow_divergent_loops`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NarrowReport {
    /// Divergent loops that got a narrow copy (once per loop, whatever the
    /// number of levels).
    pub narrowed_loops: usize,
    /// Narrow copies made: a loop narrowed from 32 to 16 to 8 lanes has two.
    pub narrow_copies: usize,
    /// Divergent loops left as they were: the header's name and why.
    pub refused: Vec<(String, String)>,
}

/// Gives every divergent loop of the widened function `func` that can be
/// narrowed its narrow copies (see the module docs). Loops are visited
/// innermost first; the analyses are recomputed after every change.
pub fn narrow_divergent_loops(func: &mut Function, config: &NarrowConfig) -> NarrowReport {
    let mut report = NarrowReport::default();
    let mut examined: HashSet<Block> = HashSet::new();
    // Headers of the narrow copies.
    let mut copies: HashSet<Block> = HashSet::new();
    // The check, compact and expand blocks made so far: a loop holding them
    // holds a narrowed loop.
    let mut compaction_blocks: HashSet<Block> = HashSet::new();
    let mut scratch_slot = None;
    loop {
        let Ok(snapshot) = CfgSnapshot::compute(func) else { return report };
        let next = snapshot
            .loops_innermost_first()
            .into_iter()
            .find(|lp| !examined.contains(&snapshot.loops.header(*lp)));
        let Some(lp) = next else { return report };
        let header = snapshot.loops.header(lp);
        examined.insert(header);
        let is_copy = copies.contains(&header);
        let plan = match plan_loop(func, &snapshot, lp, config, &compaction_blocks, is_copy) {
            Ok(Some(plan)) => plan,
            Ok(None) => continue,
            Err(reason) => {
                if !is_copy {
                    report.refused.push((func.block_name(header), reason));
                }
                continue;
            }
        };
        let narrowed = narrow_loop(func, &plan, config, &mut scratch_slot);
        compaction_blocks.extend(narrowed.compaction_blocks);
        copies.insert(narrowed.narrow_header);
        report.narrow_copies += 1;
        if !is_copy {
            report.narrowed_loops += 1;
        }
    }
}

/// A divergent loop that can be narrowed, and what the narrowing needs.
struct NarrowPlan {
    width: u32,
    /// The loop is a narrow copy made by an earlier narrowing.
    is_copy: bool,
    header: Block,
    /// The only latch; it holds the only exit edge.
    latch: Block,
    exit: Block,
    /// The loop's blocks in layout order.
    blocks: Vec<Block>,
    /// `C`: the lanes that run the next iteration (`br any(C), header, exit`).
    continue_mask: Value,
    header_phis: Vec<Inst>,
    /// Predecessors of the header outside the loop.
    entries: Vec<Block>,
    /// Vector values the loop reads but does not define (lane-dependent
    /// constants included).
    live_ins: Vec<Value>,
    /// Values the loop defines that are used after it.
    live_outs: Vec<LiveOut>,
}

struct LiveOut {
    value: Value,
    /// Used elsewhere than in the exit block's phis: gets a join phi there.
    needs_join: bool,
}

/// Whether `lp` is a divergent loop (its latch branches on an
/// or-reduction of a mask, its only exit) and can be narrowed: `Ok(None)`
/// for loops of another shape, `Err` with the reason for divergent loops
/// that cannot.
fn plan_loop(
    func: &Function,
    snapshot: &CfgSnapshot,
    lp: Loop,
    config: &NarrowConfig,
    compaction_blocks: &HashSet<Block>,
    is_copy: bool,
) -> Result<Option<NarrowPlan>, String> {
    let loops = &snapshot.loops;
    let header = loops.header(lp);
    let &[latch] = loops.latches(lp) else { return Ok(None) };
    let Some((continue_mask, exit)) = divergent_latch(func, loops, lp, latch) else {
        return Ok(None);
    };
    if loops.exiting_blocks(lp).iter().any(|block| *block != latch) {
        return Ok(None);
    }
    let width = func.dfg.value_type(continue_mask).lanes().unwrap_or(0);
    if width < 2 || !width.is_multiple_of(2) {
        return Err(format!("{width} lanes cannot be halved"));
    }
    let narrow_width = width / 2;
    let blocks: Vec<Block> =
        func.layout.blocks().iter().copied().filter(|block| loops.contains(lp, *block)).collect();
    if blocks.iter().any(|block| compaction_blocks.contains(block)) {
        return Err("it holds a narrowed loop".to_owned());
    }
    let defined_in_loop = |value: Value| {
        func.dfg
            .defining_inst(value)
            .and_then(|inst| func.layout.inst_block(inst))
            .is_some_and(|block| loops.contains(lp, block))
    };

    let header_phis = block_phis(func, header);
    let mut narrowest_data_bits: Option<u32> = None;
    let mut widest_data_bits = 0;
    let mut live_ins: Vec<Value> = Vec::new();
    for &block in &blocks {
        for &inst in func.layout.block_insts(block) {
            check_inst(func, inst, width)
                .map_err(|reason| format!("{reason} (in block {})", func.block_name(block)))?;
            let data = func.dfg.inst(inst);
            let read: Vec<Value> = if header_phis.contains(&inst) {
                phi_incoming(func, inst)
                    .into_iter()
                    .filter(|(from, _)| *from == latch)
                    .map(|(_, value)| value)
                    .collect()
            } else {
                data.operands()
            };
            for value in func.dfg.result(inst).into_iter().chain(read.iter().copied()) {
                if let Some(bits) = data_bits(func.dfg.value_type(value)) {
                    narrowest_data_bits = Some(narrowest_data_bits.map_or(bits, |b| b.min(bits)));
                    widest_data_bits = widest_data_bits.max(bits);
                }
            }
            for value in read {
                let is_vector = func.dfg.value_type(value).is_vector();
                if is_vector
                    && !defined_in_loop(value)
                    && narrow_constant_of(func, value, narrow_width).is_none()
                    && !live_ins.contains(&value)
                {
                    live_ins.push(value);
                }
            }
        }
    }
    let Some(data_bits) = narrowest_data_bits else {
        return Err("it computes no vector data".to_owned());
    };
    if !is_copy && width * widest_data_bits < config.min_wide_vector_bits {
        return Err(format!(
            "{width} lanes of {widest_data_bits} bits are narrower than {} bits",
            config.min_wide_vector_bits
        ));
    }
    if narrow_width * data_bits < config.min_narrow_vector_bits {
        return Err(format!(
            "{narrow_width} lanes of {data_bits} bits would be narrower than {} bits",
            config.min_narrow_vector_bits
        ));
    }

    // Values used after the loop.
    let exit_preds = snapshot.cfg.preds(exit);
    let mut live_outs: Vec<LiveOut> = Vec::new();
    for &block in func.layout.blocks() {
        if loops.contains(lp, block) {
            continue;
        }
        for &inst in func.layout.block_insts(block) {
            let in_exit_phi = block == exit && matches!(func.dfg.inst(inst), InstData::Phi { .. });
            let read: Vec<Value> = if in_exit_phi {
                phi_incoming(func, inst)
                    .into_iter()
                    .filter(|(from, _)| *from == latch)
                    .map(|(_, value)| value)
                    .collect()
            } else {
                func.dfg.inst(inst).operands()
            };
            for value in read.into_iter().filter(|value| defined_in_loop(*value)) {
                let index = match live_outs.iter().position(|live_out| live_out.value == value) {
                    Some(index) => index,
                    None => {
                        live_outs.push(LiveOut { value, needs_join: false });
                        live_outs.len() - 1
                    }
                };
                if !in_exit_phi {
                    if exit_preds != [latch].as_slice() {
                        return Err(format!(
                            "{} is used after the loop past a join",
                            func.dfg.display_value(value)
                        ));
                    }
                    live_outs[index].needs_join = true;
                }
            }
        }
    }
    let latch_value = |phi: Inst| {
        phi_incoming(func, phi).into_iter().find(|(from, _)| *from == latch).map(|(_, v)| v)
    };
    for live_out in &live_outs {
        let value = live_out.value;
        if !func.dfg.value_type(value).is_vector() {
            continue;
        }
        let carried = header_phis
            .iter()
            .any(|phi| func.dfg.result(*phi) == Some(value) || latch_value(*phi) == Some(value));
        if !carried {
            return Err(format!(
                "{} is used after the loop but is not carried by a header phi",
                func.dfg.display_value(value)
            ));
        }
    }

    // Every value compressed or expanded must fit two registers.
    let moved = header_phis
        .iter()
        .filter_map(|phi| latch_value(*phi))
        .chain(live_ins.iter().copied())
        .chain(live_outs.iter().map(|live_out| live_out.value));
    for value in moved {
        let ty = func.dfg.value_type(value);
        let Type::Vector { elem, lanes } = ty else { continue };
        let Some(container) = lane_container(elem) else {
            return Err(format!("vectors of {elem} cannot be compressed"));
        };
        let bits = lanes * container.scalar_bits().unwrap_or(u32::MAX);
        if bits > 2 * config.register_bits {
            return Err(format!(
                "{} ({ty}) spans more than two {}-bit registers",
                func.dfg.display_value(value),
                config.register_bits
            ));
        }
    }

    let entries: Vec<Block> =
        snapshot.cfg.preds(header).iter().copied().filter(|pred| *pred != latch).collect();
    Ok(Some(NarrowPlan {
        width,
        is_copy,
        header,
        latch,
        exit,
        blocks,
        continue_mask,
        header_phis,
        entries,
        live_ins,
        live_outs,
    }))
}

/// The continue mask and the exit block of a latch ending in `br
/// any(mask), header, exit` (`any` is `llvm.vector.reduce.or` of a `<W x
/// i1>`), either way round.
fn divergent_latch(
    func: &Function,
    loops: &LoopInfo,
    lp: Loop,
    latch: Block,
) -> Option<(Value, Block)> {
    let header = loops.header(lp);
    let terminator = func.terminator(latch)?;
    let InstData::Branch { cond, then_dest, else_dest } = func.dfg.inst(terminator) else {
        return None;
    };
    let exit = match (*then_dest == header, *else_dest == header) {
        (true, false) => *else_dest,
        (false, true) => *then_dest,
        _ => return None,
    };
    if loops.contains(lp, exit) {
        return None;
    }
    let reduction = func.dfg.defining_inst(*cond)?;
    let InstData::Call { callee: Callee::Direct(name), args, .. } = func.dfg.inst(reduction) else {
        return None;
    };
    let &[mask] = args.as_slice() else { return None };
    let is_mask = func.dfg.value_type(mask).is_vector()
        && *func.dfg.value_type(mask).scalar_type() == Type::BOOL;
    (name.starts_with("llvm.vector.reduce.or.") && is_mask).then_some((mask, exit))
}

/// Whether the copy of a loop can hold `inst` at half of `width` lanes; the
/// error says what it holds that addresses lanes by position.
fn check_inst(func: &Function, inst: Inst, width: u32) -> Result<(), String> {
    let data = func.dfg.inst(inst);
    let types = func
        .dfg
        .result(inst)
        .into_iter()
        .chain(data.operands())
        .map(|value| func.dfg.value_type(value).clone());
    for ty in types {
        match &ty {
            Type::Vector { lanes, .. } if *lanes != width => {
                return Err(format!("it holds a vector of {lanes} lanes"));
            }
            Type::Array { .. } | Type::Struct { .. } if holds_vector(&ty) => {
                return Err(format!("it holds an aggregate of vectors ({ty})"));
            }
            _ => {}
        }
    }
    let is_vector = |value: &Value| func.dfg.value_type(*value).is_vector();
    match data {
        InstData::Binary { .. }
        | InstData::Unary { .. }
        | InstData::Icmp { .. }
        | InstData::Fcmp { .. }
        | InstData::Select { .. }
        | InstData::Freeze { .. }
        | InstData::Phi { .. }
        | InstData::Splat { .. }
        | InstData::Gep { .. }
        | InstData::Gather { .. }
        | InstData::Scatter { .. }
        | InstData::ExtractValue { .. }
        | InstData::InsertValue { .. }
        | InstData::Jump { .. }
        | InstData::Branch { .. }
        | InstData::Switch { .. } => Ok(()),
        InstData::Cast { arg, to, .. } => {
            if is_vector(arg) == to.is_vector() {
                Ok(())
            } else {
                Err(format!("`{}` between a vector and a scalar", data.opcode_name()))
            }
        }
        InstData::Load { ty, .. } if !ty.is_vector() => Ok(()),
        InstData::Store { value, .. } if !is_vector(value) => Ok(()),
        InstData::Load { .. }
        | InstData::Store { .. }
        | InstData::MaskedLoad { .. }
        | InstData::SpeculativeLoad { .. }
        | InstData::MaskedStore { .. } => {
            Err(format!("a contiguous vector access (`{}`)", data.opcode_name()))
        }
        InstData::ExtractElement { .. }
        | InstData::InsertElement { .. }
        | InstData::Shuffle { .. } => Err(format!("`{}`", data.opcode_name())),
        InstData::Alloca { .. } => Err("an alloca".to_owned()),
        InstData::AtomicRmw { .. } | InstData::CmpXchg { .. } => {
            Err(format!("an atomic (`{}`)", data.opcode_name()))
        }
        InstData::Call { callee, args, ret_ty, .. } => {
            if !ret_ty.is_vector() && !args.iter().any(is_vector) {
                return Ok(());
            }
            match callee {
                Callee::Direct(_) if narrow_callee(func, inst, width / 2).is_some() => Ok(()),
                Callee::Direct(name) => Err(format!("a call of `{name}` on vectors")),
                Callee::Indirect(_) => Err("an indirect call on vectors".to_owned()),
                Callee::InlineAsm(_) => Err("inline assembly".to_owned()),
            }
        }
        InstData::Return { .. }
        | InstData::Unreachable
        | InstData::Invoke { .. }
        | InstData::LandingPad { .. }
        | InstData::Resume { .. } => Err(format!("`{}`", data.opcode_name())),
    }
}

/// Whether an aggregate type has a vector inside.
fn holds_vector(ty: &Type) -> bool {
    match ty {
        Type::Vector { .. } => true,
        Type::Array { elem, .. } => holds_vector(elem),
        Type::Struct { fields, .. } => fields.iter().any(holds_vector),
        _ => false,
    }
}

/// The element bits of a vector of data (not of an `i1` mask).
fn data_bits(ty: &Type) -> Option<u32> {
    match ty {
        Type::Vector { elem, .. } if **elem != Type::BOOL => elem.scalar_bits(),
        _ => None,
    }
}

/// The name of the call `inst` at `narrow_width` lanes, if it computes lane
/// by lane (elementwise intrinsics) or reduces a mask (`any`, `all`, and the
/// active-lane count of `--instrument-utilization`, a sum of a zero-extended
/// mask): lanes past the live count are false there.
fn narrow_callee(func: &Function, inst: Inst, narrow_width: u32) -> Option<String> {
    let InstData::Call { callee: Callee::Direct(name), args, ret_ty, .. } = func.dfg.inst(inst)
    else {
        return None;
    };
    if let Some(base) = elementwise_intrinsic_base(name, ret_ty) {
        return Some(format!(
            "{base}.{}",
            intrinsic_type_suffix(&narrow_type(ret_ty, narrow_width))?
        ));
    }
    let &[arg] = args.as_slice() else { return None };
    let arg_ty = func.dfg.value_type(arg);
    let reduction = name.strip_prefix("llvm.vector.reduce.")?;
    let (operation, suffix) = reduction.split_once('.')?;
    if suffix != intrinsic_type_suffix(arg_ty)? {
        return None;
    }
    let is_mask = *arg_ty.scalar_type() == Type::BOOL;
    let is_extended_mask = func.dfg.defining_inst(arg).is_some_and(|def| {
        matches!(func.dfg.inst(def), InstData::Cast { op: CastOp::ZExt, arg, .. }
            if *func.dfg.value_type(*arg).scalar_type() == Type::BOOL)
    });
    let allowed = match operation {
        "or" | "and" => is_mask,
        "add" => is_extended_mask,
        _ => false,
    };
    if !allowed {
        return None;
    }
    let narrow_suffix = intrinsic_type_suffix(&narrow_type(arg_ty, narrow_width))?;
    Some(format!("llvm.vector.reduce.{operation}.{narrow_suffix}"))
}

/// `ty` with `narrow_width` lanes if it is a vector.
fn narrow_type(ty: &Type, narrow_width: u32) -> Type {
    match ty {
        Type::Vector { elem, .. } => elem.vector_of(narrow_width),
        other => other.clone(),
    }
}

/// The scalar type a lane of `elem` travels as through compress and
/// expand: 32- and 64-bit lanes as they are (vpcompressd/q), narrower
/// integers and masks zero-extended to `i32`, pointers as `i64`.
fn lane_container(elem: &Type) -> Option<Type> {
    match elem {
        Type::Int(1 | 8 | 16) => Some(Type::I32),
        Type::Int(32 | 64) | Type::F32 | Type::F64 => Some(elem.clone()),
        Type::Ptr(0) => Some(Type::I64),
        _ => None,
    }
}

/// The constant at `narrow_width` lanes of a vector constant whose lanes
/// are all the same (`zeroinitializer`, `poison`, a splat), if it is one.
fn narrow_constant_of(func: &Function, value: Value, narrow_width: u32) -> Option<Constant> {
    let ValueDef::Const(constant) = func.dfg.value_def(value) else { return None };
    if !func.dfg.value_type(value).is_vector() {
        return None;
    }
    match constant {
        Constant::Zero | Constant::Poison | Constant::Undef => Some(constant.clone()),
        Constant::Aggregate(elements) => {
            let first = *elements.first()?;
            let same = |element: &Value| {
                func.dfg.value_type(*element) == func.dfg.value_type(first)
                    && func.dfg.constant(*element) == func.dfg.constant(first)
            };
            elements
                .iter()
                .all(same)
                .then(|| Constant::Aggregate(vec![first; narrow_width as usize]))
        }
        _ => None,
    }
}

/// A stack slot of one register in the entry block, through which the
/// compactions and expansions pass values to `llvm.masked.expandload`.
fn add_scratch_slot(func: &mut Function, register_bits: u32) -> Value {
    let bytes = register_bits / 8;
    let count = func.dfg.int_const(Type::I32, 1);
    let alloca = InstData::Alloca {
        ty: Type::Array { elem: Box::new(Type::I8), len: u64::from(bytes) },
        count,
        align: bytes,
    };
    let inst = func.dfg.make_inst(alloca, Type::PTR);
    let entry = func.entry_block().expect("a widened function has an entry block");
    func.layout.insert_inst_at(inst, entry, 0);
    func.dfg.result(inst).expect("an alloca has a result")
}

/// What narrowing one loop made.
struct Narrowed {
    narrow_header: Block,
    compaction_blocks: [Block; 3],
}

/// Builds the narrow copy of `plan`'s loop with its check, compaction and
/// expansion (module docs).
fn narrow_loop(
    func: &mut Function,
    plan: &NarrowPlan,
    config: &NarrowConfig,
    scratch_slot: &mut Option<Value>,
) -> Narrowed {
    let width = plan.width;
    let narrow_width = width / 2;
    let header_name = func.block_name(plan.header);

    // The new blocks: the check after the latch, the compaction, the copy
    // and the expansion after the loop.
    let check = new_block_after(func, plan.latch, format!("{header_name}.narrow.check"));
    let last_loop_block = func
        .layout
        .blocks()
        .iter()
        .copied()
        .rfind(|block| plan.blocks.contains(block) || *block == check)
        .expect("a loop has blocks");
    let compact =
        new_block_after(func, last_loop_block, format!("{header_name}.compact.x{narrow_width}"));
    let mut copy_of: HashMap<Block, Block> = HashMap::new();
    let mut previous = compact;
    for &block in &plan.blocks {
        let name = format!("{}.x{narrow_width}", func.block_name(block));
        let copy = new_block_after(func, previous, name);
        copy_of.insert(block, copy);
        previous = copy;
    }
    let expand = new_block_after(func, previous, format!("{header_name}.expand.x{width}"));

    // The check starts with the number of lanes that continue.
    let mask_bits = append_value(
        func,
        check,
        InstData::Cast {
            op: CastOp::Bitcast,
            arg: plan.continue_mask,
            to: Type::Int(width),
            flags: CastFlags::default(),
        },
        Type::Int(width),
    );
    let live_lanes = popcount(func, check, mask_bits, width);

    // Compaction of the live-ins, then the copy of every instruction with
    // narrow types (operands still the wide ones).
    let mut lanes = Compaction::new(plan.continue_mask, width, config, *scratch_slot);
    let mut narrow_value: HashMap<Value, Value> = HashMap::new();
    for &live_in in &plan.live_ins {
        let compressed = lanes.compress(func, compact, live_in);
        narrow_value.insert(live_in, compressed);
    }
    let lane_slot_counts = lane_slot_counts(func, &plan.blocks);
    let mut copies: Vec<(Inst, Inst)> = Vec::new();
    for &block in &plan.blocks {
        for inst in func.layout.block_insts(block).to_vec() {
            let data = narrow_inst(func, inst, narrow_width);
            let result_ty = func
                .dfg
                .result(inst)
                .map_or(Type::Void, |value| narrow_type(func.dfg.value_type(value), narrow_width));
            let copy = func.append(copy_of[&block], data, result_ty);
            if let (Some(wide), Some(narrow)) = (func.dfg.result(inst), func.dfg.result(copy)) {
                narrow_value.insert(wide, narrow);
            }
            copies.push((inst, copy));
        }
    }

    // The copy's header phis start from the compressed latch values.
    let latch_value_of = |func: &Function, phi: Inst| {
        phi_incoming(func, phi)
            .into_iter()
            .find(|(from, _)| *from == plan.latch)
            .map(|(_, value)| value)
            .expect("a header phi has an entry from the latch")
    };
    let mut initial_values: HashMap<Inst, Value> = HashMap::new();
    for &phi in &plan.header_phis {
        let latch_value = latch_value_of(func, phi);
        let narrow_constant = narrow_constant_of(func, latch_value, narrow_width);
        let initial = if let Some(constant) = narrow_constant {
            let ty = narrow_type(func.dfg.value_type(latch_value), narrow_width);
            func.dfg.make_const(ty, constant)
        } else if implied_by(func, plan.continue_mask, latch_value) {
            // The live mask: true in exactly the lanes compressed.
            lanes.first_lanes(func, compact, live_lanes)
        } else if func.dfg.value_type(latch_value).is_vector() {
            lanes.compress(func, compact, latch_value)
        } else {
            latch_value
        };
        initial_values.insert(phi, initial);
    }
    func.append(compact, InstData::Jump { dest: copy_of[&plan.header] }, Type::Void);

    // Operands and successors of the copy: lane-invariant vector constants
    // become narrow constants.
    for &(_, copy) in &copies {
        for operand in func.dfg.inst(copy).operands() {
            if narrow_value.contains_key(&operand) {
                continue;
            }
            if let Some(constant) = narrow_constant_of(func, operand, narrow_width) {
                let ty = narrow_type(func.dfg.value_type(operand), narrow_width);
                let narrow = func.dfg.make_const(ty, constant);
                narrow_value.insert(operand, narrow);
            }
        }
    }
    for &(wide, copy) in &copies {
        let lane_slots = lane_slot_counts
            .contains(&wide)
            .then(|| func.dfg.int_const(Type::I64, u128::from(narrow_width)));
        let data = func.dfg.inst_mut(copy);
        data.map_operands(|value| narrow_value.get(&value).copied().unwrap_or(value));
        data.map_successors(|block| match copy_of.get(&block) {
            Some(copy) => *copy,
            None if block == plan.exit => expand,
            None => block,
        });
        if let InstData::Phi { incoming, .. } = data {
            for (from, _) in incoming.iter_mut() {
                *from = copy_of.get(from).copied().unwrap_or(*from);
            }
        }
        if let (Some(narrow_slots), InstData::Binary { rhs, .. }) = (lane_slots, data) {
            *rhs = narrow_slots;
        }
    }
    for &phi in &plan.header_phis {
        let copy = copies.iter().find(|(wide, _)| *wide == phi).expect("the phi was copied").1;
        let latch_value = latch_value_of(func, phi);
        let narrow_latch_value = match narrow_constant_of(func, latch_value, narrow_width) {
            Some(constant) => {
                let ty = narrow_type(func.dfg.value_type(latch_value), narrow_width);
                func.dfg.make_const(ty, constant)
            }
            None => narrow_value.get(&latch_value).copied().unwrap_or(latch_value),
        };
        set_phi_incoming(
            func,
            copy,
            vec![(compact, initial_values[&phi]), (copy_of[&plan.latch], narrow_latch_value)],
        );
    }

    // Expansion of the values used after the loop.
    let mut expanded: HashMap<Value, Value> = HashMap::new();
    for live_out in &plan.live_outs {
        let value = live_out.value;
        let narrow = narrow_value[&value];
        let result = if func.dfg.value_type(value).is_vector() {
            // A lane not live at compaction keeps what it had then: the
            // latch value of its header phi.
            let wide_at_compaction = plan
                .header_phis
                .iter()
                .find(|phi| func.dfg.result(**phi) == Some(value))
                .map_or(value, |phi| latch_value_of(func, *phi));
            lanes.expand(func, expand, narrow, wide_at_compaction)
        } else {
            narrow
        };
        expanded.insert(value, result);
    }
    func.append(expand, InstData::Jump { dest: plan.exit }, Type::Void);
    let mut new_blocks: HashSet<Block> = copy_of.values().copied().collect();
    new_blocks.extend([check, compact, expand]);
    join_at_exit(func, plan, expand, &expanded, &new_blocks);

    // The check: compact when at most half the lanes continue (and the
    // loop has run long enough).
    let latch_branch = func.terminator(plan.latch).expect("the latch ends in a branch");
    func.dfg.inst_mut(latch_branch).replace_successor(plan.header, check);
    rename_phi_predecessor(func, plan.header, plan.latch, check);
    let half = func.dfg.int_const(Type::Int(width), u128::from(narrow_width));
    let few = append_value(
        func,
        check,
        InstData::Icmp { pred: IntPredicate::Ule, lhs: live_lanes, rhs: half },
        Type::BOOL,
    );
    // A narrow copy starts after the wide loop ran long enough: only the
    // wide loop counts its iterations.
    let compact_now = if config.min_iterations > 0 && !plan.is_copy {
        let zero = func.dfg.int_const(Type::I32, 0);
        let mut incoming: Vec<(Block, Value)> =
            plan.entries.iter().map(|entry| (*entry, zero)).collect();
        let count = insert_phi(func, plan.header, Type::I32, incoming.clone());
        let one = func.dfg.int_const(Type::I32, 1);
        let count_next = append_value(
            func,
            check,
            InstData::Binary {
                op: BinaryOp::Add,
                lhs: count,
                rhs: one,
                flags: ArithFlags::default(),
            },
            Type::I32,
        );
        incoming.push((check, count_next));
        let count_phi = func.dfg.defining_inst(count).expect("a phi result");
        set_phi_incoming(func, count_phi, incoming);
        let enough = func.dfg.int_const(Type::I32, u128::from(config.min_iterations));
        let long_enough = append_value(
            func,
            check,
            InstData::Icmp { pred: IntPredicate::Uge, lhs: count_next, rhs: enough },
            Type::BOOL,
        );
        let and = InstData::Binary {
            op: BinaryOp::And,
            lhs: few,
            rhs: long_enough,
            flags: ArithFlags::default(),
        };
        append_value(func, check, and, Type::BOOL)
    } else {
        few
    };
    func.append(
        check,
        InstData::Branch { cond: compact_now, then_dest: compact, else_dest: plan.header },
        Type::Void,
    );
    *scratch_slot = lanes.slot;
    Narrowed { narrow_header: copy_of[&plan.header], compaction_blocks: [check, compact, expand] }
}

/// The copy of `inst` at `narrow_width` lanes, operands not yet mapped.
fn narrow_inst(func: &Function, inst: Inst, narrow_width: u32) -> InstData {
    let mut data = func.dfg.inst(inst).clone();
    let callee = narrow_callee(func, inst, narrow_width);
    match &mut data {
        InstData::Phi { ty, .. } | InstData::Gather { ty, .. } => {
            *ty = narrow_type(ty, narrow_width)
        }
        InstData::Cast { to, .. } => *to = narrow_type(to, narrow_width),
        InstData::Splat { lanes, .. } => *lanes = narrow_width,
        InstData::Call { callee: Callee::Direct(name), ret_ty, .. } => {
            if let Some(narrow_name) = callee {
                *name = narrow_name;
            }
            *ret_ty = narrow_type(ret_ty, narrow_width);
        }
        _ => {}
    }
    data
}

/// Whether every lane of the mask `mask` is set in the mask `value`: `mask`
/// is `value` or `value & other` (the continue mask of a divergent loop and
/// the latch value of its live-mask phi).
fn implied_by(func: &Function, mask: Value, value: Value) -> bool {
    if mask == value {
        return true;
    }
    if *func.dfg.value_type(value).scalar_type() != Type::BOOL {
        return false;
    }
    func.dfg.defining_inst(mask).is_some_and(|def| {
        matches!(func.dfg.inst(def), InstData::Binary { op: BinaryOp::And, lhs, rhs, .. }
            if *lhs == value || *rhs == value)
    })
}

/// The additions of W to `--instrument-utilization`'s lane-slot counter
/// among `blocks`: their copies add W/2.
fn lane_slot_counts(func: &Function, blocks: &[Block]) -> HashSet<Inst> {
    let mut adds = HashSet::new();
    for &block in blocks {
        for &inst in func.layout.block_insts(block) {
            let InstData::Store { value, addr, .. } = func.dfg.inst(inst) else { continue };
            let is_counter = matches!(func.dfg.constant(*addr),
                Some(Constant::Symbol(name)) if name == LANE_SLOTS_COUNTER);
            let add = func.dfg.defining_inst(*value).filter(|add| {
                matches!(func.dfg.inst(*add), InstData::Binary { op: BinaryOp::Add, rhs, .. }
                    if func.dfg.int_constant(*rhs).is_some())
            });
            if let (true, Some(add)) = (is_counter, add) {
                adds.insert(add);
            }
        }
    }
    adds
}

/// Gives the exit block the expanded values: its phis an entry from
/// `expand`, and each value used further on a join phi.
fn join_at_exit(
    func: &mut Function,
    plan: &NarrowPlan,
    expand: Block,
    expanded: &HashMap<Value, Value>,
    new_blocks: &HashSet<Block>,
) {
    for phi in block_phis(func, plan.exit) {
        let mut incoming = phi_incoming(func, phi);
        if let Some(&(_, value)) = incoming.iter().find(|(from, _)| *from == plan.latch) {
            incoming.push((expand, expanded.get(&value).copied().unwrap_or(value)));
            set_phi_incoming(func, phi, incoming);
        }
    }
    let mut joins: HashMap<Value, Value> = HashMap::new();
    for live_out in plan.live_outs.iter().filter(|live_out| live_out.needs_join) {
        let ty = func.dfg.value_type(live_out.value).clone();
        let incoming = vec![(plan.latch, live_out.value), (expand, expanded[&live_out.value])];
        joins.insert(live_out.value, insert_phi(func, plan.exit, ty, incoming));
    }
    if joins.is_empty() {
        return;
    }
    // Every use after the loop (the exit block's phis read the loop's own
    // values on the latch edge and keep them; the compaction and the
    // expansion read the wide values).
    let exit_phis = block_phis(func, plan.exit);
    let insts: Vec<Inst> = func
        .layout
        .blocks()
        .iter()
        .filter(|block| !plan.blocks.contains(block) && !new_blocks.contains(block))
        .flat_map(|block| func.layout.block_insts(*block).to_vec())
        .filter(|inst| !exit_phis.contains(inst))
        .collect();
    for inst in insts {
        func.dfg.inst_mut(inst).map_operands(|value| joins.get(&value).copied().unwrap_or(value));
    }
}

/// The compaction of one loop: the continue mask and what compress and
/// expand derive from it.
struct Compaction {
    mask: Value,
    width: u32,
    register_bits: u32,
    register_expand: bool,
    /// The stack slot of [`add_scratch_slot`], made at the first use and
    /// shared by all loops of the function.
    slot: Option<Value>,
    /// For values of two registers, made at the first one.
    halves: Option<MaskHalves>,
}

/// The continue mask split per register, and the lanes of the narrow
/// vector that the upper register's live lanes fill.
#[derive(Copy, Clone)]
struct MaskHalves {
    lower: Value,
    upper: Value,
    after_lower: Value,
}

impl Compaction {
    fn new(mask: Value, width: u32, config: &NarrowConfig, slot: Option<Value>) -> Self {
        Compaction {
            mask,
            width,
            register_bits: config.register_bits,
            register_expand: config.avx512_register_expand,
            slot,
            halves: None,
        }
    }

    /// `value` (W lanes) with its live lanes first, in order, as W/2 lanes;
    /// the other lanes are false for masks and copies of lanes of `value`
    /// for data.
    fn compress(&mut self, func: &mut Function, block: Block, value: Value) -> Value {
        let Type::Vector { elem, .. } = func.dfg.value_type(value).clone() else {
            unreachable!("only vectors are compressed")
        };
        let container = lane_container(&elem).expect("plan_loop checked the lane type");
        let packed = to_container(func, block, value, &container);
        let container_ty = container.vector_of(self.width);
        let is_mask = *elem == Type::BOOL;
        let half = self.width / 2;
        let lower_lanes: Vec<i32> = (0..half as i32).collect();
        let bits = self.width * container.scalar_bits().expect("a scalar container");
        let narrow = if bits <= self.register_bits {
            let passthru = if is_mask { zero(func, &container_ty) } else { packed };
            let compressed = compress_call(func, block, packed, self.mask, passthru);
            shuffle(func, block, compressed, lower_lanes)
        } else {
            let halves = self.halves(func, block);
            let upper_lanes: Vec<i32> = (half as i32..self.width as i32).collect();
            let lower = shuffle(func, block, packed, lower_lanes);
            let upper = shuffle(func, block, packed, upper_lanes);
            let (lower_passthru, upper_passthru) = if is_mask {
                let zero = zero(func, &container.vector_of(half));
                (zero, zero)
            } else {
                (lower, upper)
            };
            let lower = compress_call(func, block, lower, halves.lower, lower_passthru);
            let upper = compress_call(func, block, upper, halves.upper, upper_passthru);
            // The upper register's live lanes go right after the lower's.
            if self.expands_in_registers(bits / 2) {
                register_expand(func, block, upper, lower, halves.after_lower)
            } else {
                let slot = self.store_in_slot(func, block, upper);
                expand_load(func, block, slot, halves.after_lower, lower)
            }
        };
        from_container(func, block, narrow, &elem)
    }

    /// `narrow` (W/2 lanes) spread back over the lanes live at compaction;
    /// the other lanes are those of `wide`.
    fn expand(&mut self, func: &mut Function, block: Block, narrow: Value, wide: Value) -> Value {
        let Type::Vector { elem, .. } = func.dfg.value_type(wide).clone() else {
            unreachable!("only vectors are expanded")
        };
        let container = lane_container(&elem).expect("plan_loop checked the lane type");
        let narrow = to_container(func, block, narrow, &container);
        let wide = to_container(func, block, wide, &container);
        let bits = self.width * container.scalar_bits().expect("a scalar container");
        let expanded = if !self.expands_in_registers(bits.min(self.register_bits)) {
            let slot = self.store_in_slot(func, block, narrow);
            expand_load(func, block, slot, self.mask, wide)
        } else if bits <= self.register_bits {
            // The narrow lanes in the lower half of a W-lane register.
            let both_halves = (0..self.width as i32).map(|lane| lane % (self.width as i32 / 2));
            let narrow = shuffle(func, block, narrow, both_halves.collect());
            register_expand(func, block, narrow, wide, self.mask)
        } else {
            // Per register: the lower register's live lanes take the first
            // narrow lanes, the upper register's those after them.
            let half = self.width / 2;
            let halves = self.halves(func, block);
            let wide_lower = shuffle(func, block, wide, (0..half as i32).collect());
            let wide_upper = shuffle(func, block, wide, (half as i32..self.width as i32).collect());
            let lower = register_expand(func, block, narrow, wide_lower, halves.lower);
            let rest = compress_call(func, block, narrow, halves.after_lower, narrow);
            let upper = register_expand(func, block, rest, wide_upper, halves.upper);
            let both = InstData::Shuffle {
                lhs: lower,
                rhs: upper,
                mask: (0..self.width as i32).collect(),
            };
            append_value(func, block, both, container.vector_of(self.width))
        };
        from_container(func, block, expanded, &elem)
    }

    /// The `<W/2 x i1>` mask of the first `count` lanes (`count` an
    /// `i<W>`, at most W/2).
    fn first_lanes(&self, func: &mut Function, block: Block, count: Value) -> Value {
        let half = self.width / 2;
        let count = match self.width.cmp(&32) {
            std::cmp::Ordering::Equal => count,
            ordering => {
                let op = if ordering.is_lt() { CastOp::ZExt } else { CastOp::Trunc };
                let cast =
                    InstData::Cast { op, arg: count, to: Type::I32, flags: CastFlags::default() };
                append_value(func, block, cast, Type::I32)
            }
        };
        let counts = append_value(
            func,
            block,
            InstData::Splat { scalar: count, lanes: half },
            Type::I32.vector_of(half),
        );
        let lane_numbers = lane_numbers(func, half);
        append_value(
            func,
            block,
            InstData::Icmp { pred: IntPredicate::Ult, lhs: lane_numbers, rhs: counts },
            Type::BOOL.vector_of(half),
        )
    }

    /// Whether vectors of `bits` are expanded with the register form (x86
    /// has it for 128, 256 and 512 bits).
    fn expands_in_registers(&self, bits: u32) -> bool {
        self.register_expand && matches!(bits, 128 | 256 | 512)
    }

    /// Stores `value` in the scratch slot; returns the slot's address.
    fn store_in_slot(&mut self, func: &mut Function, block: Block, value: Value) -> Value {
        let register_bits = self.register_bits;
        let slot = *self.slot.get_or_insert_with(|| add_scratch_slot(func, register_bits));
        let store =
            InstData::Store { value, addr: slot, align: register_bits / 8, volatile: false };
        func.append(block, store, Type::Void);
        slot
    }

    fn halves(&mut self, func: &mut Function, block: Block) -> MaskHalves {
        if let Some(halves) = self.halves {
            return halves;
        }
        let half = self.width / 2;
        let lower = shuffle(func, block, self.mask, (0..half as i32).collect());
        let upper = shuffle(func, block, self.mask, (half as i32..self.width as i32).collect());
        let lower_bits = func.append(
            block,
            InstData::Cast {
                op: CastOp::Bitcast,
                arg: lower,
                to: Type::Int(half),
                flags: CastFlags::default(),
            },
            Type::Int(half),
        );
        let lower_bits = result(func, lower_bits);
        let lower_count = popcount(func, block, lower_bits, half);
        let lower_count = if half < 32 {
            let extend = InstData::Cast {
                op: CastOp::ZExt,
                arg: lower_count,
                to: Type::I32,
                flags: CastFlags::default(),
            };
            append_value(func, block, extend, Type::I32)
        } else {
            lower_count
        };
        let counts = append_value(
            func,
            block,
            InstData::Splat { scalar: lower_count, lanes: half },
            Type::I32.vector_of(half),
        );
        let lane_numbers = lane_numbers(func, half);
        let after_lower = append_value(
            func,
            block,
            InstData::Icmp { pred: IntPredicate::Uge, lhs: lane_numbers, rhs: counts },
            Type::BOOL.vector_of(half),
        );
        let halves = MaskHalves { lower, upper, after_lower };
        self.halves = Some(halves);
        halves
    }
}

/// The constant `<0, 1, ..., lanes - 1>` of `i32`.
fn lane_numbers(func: &mut Function, lanes: u32) -> Value {
    let numbers: Vec<Value> =
        (0..lanes).map(|lane| func.dfg.int_const(Type::I32, u128::from(lane))).collect();
    func.dfg.make_const(Type::I32.vector_of(lanes), Constant::Aggregate(numbers))
}

fn result(func: &Function, inst: Inst) -> Value {
    func.dfg.result(inst).expect("the instruction has a result")
}

pub(crate) fn append_value(func: &mut Function, block: Block, data: InstData, ty: Type) -> Value {
    let inst = func.append(block, data, ty);
    result(func, inst)
}

fn zero(func: &mut Function, ty: &Type) -> Value {
    func.dfg.make_const(ty.clone(), Constant::Zero)
}

/// The lanes `lanes` of `vector`.
fn shuffle(func: &mut Function, block: Block, vector: Value, lanes: Vec<i32>) -> Value {
    let elem = func.dfg.value_type(vector).scalar_type().clone();
    let ty = elem.vector_of(lanes.len() as u32);
    append_value(func, block, InstData::Shuffle { lhs: vector, rhs: vector, mask: lanes }, ty)
}

fn popcount(func: &mut Function, block: Block, bits: Value, width: u32) -> Value {
    let call = InstData::Call {
        callee: Callee::Direct(format!("llvm.ctpop.i{width}")),
        args: vec![bits],
        ret_ty: Type::Int(width),
        effects: CallEffects::Pure,
        flags: FastMathFlags::default(),
    };
    append_value(func, block, call, Type::Int(width))
}

/// `llvm.experimental.vector.compress(value, mask, passthru)`.
pub(crate) fn compress_call(
    func: &mut Function,
    block: Block,
    value: Value,
    mask: Value,
    passthru: Value,
) -> Value {
    let ty = func.dfg.value_type(value).clone();
    let args = vec![value, mask, passthru];
    vector_intrinsic(func, block, "llvm.experimental.vector.compress", ty, args, CallEffects::Pure)
}

/// `llvm.masked.expandload(address, mask, passthru)`: consecutive elements
/// from `address` into the lanes of `mask`, in order.
fn expand_load(
    func: &mut Function,
    block: Block,
    address: Value,
    mask: Value,
    passthru: Value,
) -> Value {
    let ty = func.dfg.value_type(passthru).clone();
    let args = vec![address, mask, passthru];
    vector_intrinsic(func, block, "llvm.masked.expandload", ty, args, CallEffects::ReadOnly)
}

/// AVX-512's `llvm.x86.avx512.mask.expand(source, passthru, mask)`:
/// consecutive lanes of `source` into the lanes of `mask`, in order.
pub(crate) fn register_expand(
    func: &mut Function,
    block: Block,
    source: Value,
    passthru: Value,
    mask: Value,
) -> Value {
    let ty = func.dfg.value_type(passthru).clone();
    let args = vec![source, passthru, mask];
    vector_intrinsic(func, block, "llvm.x86.avx512.mask.expand", ty, args, CallEffects::Pure)
}

/// A call of the intrinsic `name` overloaded on the vector type `ty` (its
/// result), appended to `block`.
fn vector_intrinsic(
    func: &mut Function,
    block: Block,
    name: &str,
    ty: Type,
    args: Vec<Value>,
    effects: CallEffects,
) -> Value {
    let suffix = intrinsic_type_suffix(&ty).expect("a vector of scalars");
    let call = InstData::Call {
        callee: Callee::Direct(format!("{name}.{suffix}")),
        args,
        ret_ty: ty.clone(),
        effects,
        flags: FastMathFlags::default(),
    };
    append_value(func, block, call, ty)
}

/// `value` with lanes of `container` (see [`lane_container`]).
fn to_container(func: &mut Function, block: Block, value: Value, container: &Type) -> Value {
    let ty = func.dfg.value_type(value).clone();
    let (elem, lanes) = match &ty {
        Type::Vector { elem, lanes } => (elem.as_ref().clone(), *lanes),
        _ => unreachable!("only vectors travel in containers"),
    };
    if elem == *container {
        return value;
    }
    let op = if elem.is_ptr() { CastOp::PtrToInt } else { CastOp::ZExt };
    let to = container.vector_of(lanes);
    append_value(
        func,
        block,
        InstData::Cast { op, arg: value, to: to.clone(), flags: CastFlags::default() },
        to,
    )
}

/// `value`, lanes of a container, back as lanes of `elem`.
fn from_container(func: &mut Function, block: Block, value: Value, elem: &Type) -> Value {
    let ty = func.dfg.value_type(value).clone();
    if ty.scalar_type() == elem {
        return value;
    }
    let op = if elem.is_ptr() { CastOp::IntToPtr } else { CastOp::Trunc };
    let to = elem.vector_of(ty.lanes().expect("a vector"));
    append_value(
        func,
        block,
        InstData::Cast { op, arg: value, to: to.clone(), flags: CastFlags::default() },
        to,
    )
}

#[cfg(test)]
mod tests;
