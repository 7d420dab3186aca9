//! Work-group barriers as continuations (the WFV thesis, 8.2).
//!
//! A kernel that calls `barrier` cannot run one SIMD group from start to
//! end: every work-item of the work-group must reach a barrier before any
//! passes it. The thesis splits such a kernel at its barriers into
//! *continuations*, saves the values live across a barrier per work-item,
//! and lets the driver run one continuation for all SIMD groups of the
//! work-group before the next. This module builds that form on Lanewise's
//! IR, before vectorization, as one function with the kernel's own
//! signature, so that the vector variants, the masked variants and the
//! trampolines are built as for any kernel:
//!
//! ```text
//! entry:      resume = record.resume      (0: the kernel's entry, k: after barrier k)
//!             switch resume -> region 0 | restore 1 | ... | restore n
//! restore k:  the slots live after barrier k <- this work-item's spill area
//!             jump region k
//! region k:   a copy of the blocks reachable from barrier k (the kernel's
//!             entry for k = 0) without passing another barrier;
//!             at barrier j: spill area <- the slots live after barrier j,
//!                           record.reached |= 1 << j, return
//!             at a return:  record.reached |= 1, return
//! ```
//!
//! The runtime (builtins/runtime.c, `run_continuations`) calls the kernel
//! for every SIMD group of the work-group with `resume = 0`, then with the
//! barrier they all reached, until they return; a work-group whose
//! work-items reached different barriers (undefined in OpenCL) fails.
//!
//! Values cross blocks through stack slots while the regions are built (the
//! kernel is first put in the form LLVM's `reg2mem` gives it: a slot for
//! each phi and for each value used outside its block), so a region is a
//! plain copy of blocks; `sroa` afterwards turns the slots back into SSA
//! values. The slots live at a barrier are those with a load reachable
//! from it before a store (a backward data-flow over the blocks). The
//! spill area holds one array per saved slot (per element of a short
//! vector; booleans as bytes), indexed by the work-item's linear local id,
//! so the lanes of a SIMD group save and restore with one contiguous vector
//! store and load. Every work-item saves its own value, so the runtime may
//! run each region through the vector variant or work-item by work-item,
//! whichever its samples showed faster; a value the divergence analysis
//! finds uniform is restored from the SIMD group's first work-item, so it
//! stays uniform in the vector code (a loop counter keeps its loop
//! uniform). Values computed from the parameters, `rv_lane_id()` and the
//! work-group record alone are computed again instead of saved: an address
//! keeps its consecutive shape, where a restored vector of pointers would
//! be gathered.
//!
//! Each region is reducible when the kernel is: a cycle through the start
//! of region k passes barrier k, where the region stops. What this form
//! cannot express is refused (the build then runs the kernel's SIMD groups
//! as fibers, builtins/runtime.c): a barrier in a function the kernel
//! calls, private memory whose address is taken (an array) used after a
//! barrier, exception handling, and more than [`MAX_BARRIERS`] barriers.

use std::collections::{HashMap, HashSet};

use lanewise_analysis::loops::LoopInfo;
use lanewise_analysis::{ControlFlowGraph, DivergenceInfo, DominatorTree, PostDominatorTree};
use lanewise_ir::vfabi::{ParamKind, ParamSpec};
use lanewise_ir::{
    BinaryOp, Block, CallEffects, Callee, CastOp, Constant, DataLayout, Function, FunctionBuilder,
    Inst, InstData, Type, Value,
};

/// The runtime's barrier, which OpenCL C's `barrier` calls.
pub const BARRIER: &str = "__lw_barrier";
/// A bit of the record's `reached` per barrier, bit 0 for a return.
pub const MAX_BARRIERS: usize = 63;

/// Byte offsets of the fields of `lw_work_group` (builtins/runtime.c).
const LOCAL_SIZE_OFFSET: i128 = 56;
const LOCAL_ID_OFFSET: i128 = 128;
const RESUME_OFFSET: i128 = 152;
const REACHED_OFFSET: i128 = 160;
const SPILL_OFFSET: i128 = 168;

/// A kernel in continuation form.
#[derive(Debug)]
pub struct Continuations {
    /// The kernel's new body (same name and signature).
    pub function: Function,
    /// The number of barrier calls (regions are one more).
    pub barriers: usize,
    /// The bytes of spill area each work-item needs.
    pub spill_bytes: u64,
}

/// A stack slot that carries a value between blocks.
#[derive(Clone, Debug)]
struct Slot {
    alloca: Inst,
    address: Value,
    ty: Type,
    /// The kernel's value that the slot carries (a phi's, or a value used
    /// outside its block).
    carries: Value,
}

/// Builds the continuation form of `kernel` (see the module docs), or says
/// why it cannot.
pub fn split_at_barriers(
    kernel: &Function,
    data_layout: &DataLayout,
) -> Result<Continuations, String> {
    let uniform = uniform_values(kernel, data_layout);
    let recomputable = recomputable_values(kernel);
    let mut func = kernel.clone();
    if func.ret_ty != Type::Void {
        return Err("the kernel returns a value".to_owned());
    }
    for inst in func.layout.insts() {
        if matches!(
            func.dfg.inst(inst),
            InstData::Invoke { .. } | InstData::LandingPad { .. } | InstData::Resume { .. }
        ) {
            return Err("the kernel uses exception handling".to_owned());
        }
    }
    func.lifetime_markers.clear();
    func.loop_hints.clear();
    let barriers = split_barrier_blocks(&mut func);
    if barriers.is_empty() {
        return Err("its barriers are in functions it calls".to_owned());
    }
    if barriers.len() > MAX_BARRIERS {
        return Err(format!("it has more than {MAX_BARRIERS} barriers"));
    }
    let entry = func.entry_block().ok_or("the kernel has no body")?;
    let private = take_allocas(&mut func);
    let slots = demote_to_slots(&mut func, data_layout);

    let barrier_blocks: HashSet<Block> = barriers.iter().map(|&(before, _)| before).collect();
    let starts: Vec<Block> =
        std::iter::once(entry).chain(barriers.iter().map(|&(_, after)| after)).collect();
    let regions: Vec<Vec<Block>> =
        starts.iter().map(|&start| region_blocks(&func, start, &barrier_blocks)).collect();
    let after_a_barrier: HashSet<Block> = regions[1..].iter().flatten().copied().collect();
    for &alloca in &private {
        let address = func.dfg.result(alloca).expect("an alloca has a result");
        let used_late = func.layout.insts().any(|inst| {
            func.dfg.inst(inst).operands().contains(&address)
                && func
                    .layout
                    .inst_block(inst)
                    .is_some_and(|block| after_a_barrier.contains(&block))
        });
        if used_late {
            return Err("private memory whose address is taken (an array) is used after a barrier"
                .to_owned());
        }
    }

    let live = live_slots_at_block_starts(&func, &slots);
    // The slots live after each barrier: those whose value the region can
    // compute again are recomputed, the others saved and restored.
    let (recomputed, saved): (Vec<Vec<usize>>, Vec<Vec<usize>>) = barriers
        .iter()
        .map(|&(_, after)| {
            live[&after].iter().partition(|&&slot| recomputable.contains(&slots[slot].carries))
        })
        .unzip();
    let mut offsets: HashMap<usize, u64> = HashMap::new();
    let mut spill_bytes = 0u64;
    for &slot in saved.iter().flatten() {
        if offsets.contains_key(&slot) {
            continue;
        }
        // 16-byte aligned arrays: each element's array starts at a multiple
        // of its alignment (for the element types OpenCL C has).
        spill_bytes = spill_bytes.div_ceil(16) * 16;
        offsets.insert(slot, spill_bytes);
        spill_bytes += SpillLayout::bytes(data_layout, &slots[slot].ty);
    }
    let spill = SpillLayout { slots: &slots, offsets, data_layout, uniform: &uniform };

    // The old blocks leave the layout; their instructions are copied.
    let old_blocks: HashMap<Block, Vec<Inst>> = func
        .layout
        .blocks()
        .iter()
        .map(|&block| (block, func.layout.block_insts(block).to_vec()))
        .collect();
    let block_names: HashMap<Block, String> =
        old_blocks.keys().map(|&block| (block, func.block_name(block))).collect();
    for block in func.layout.blocks().to_vec() {
        func.layout.remove_block(block);
    }

    let mut b = FunctionBuilder::new(&mut func);
    let new_entry = b.create_block(Some("continuations.entry"));
    b.switch_to_block(new_entry);
    for alloca in private.iter().chain(slots.iter().map(|slot| &slot.alloca)) {
        b.func.layout.append_inst(*alloca, new_entry);
    }
    let record = work_item_record(&mut b);
    let restores: Vec<Block> = (1..=barriers.len())
        .map(|k| b.create_block(Some(&format!("continuations.restore{k}"))))
        .collect();
    let mut region_copies: Vec<HashMap<Block, Block>> = Vec::new();
    for (index, blocks) in regions.iter().enumerate() {
        let copies = blocks
            .iter()
            .map(|&block| {
                let name = format!("{}.region{index}", block_names[&block]);
                (block, b.create_block(Some(&name)))
            })
            .collect();
        region_copies.push(copies);
    }
    let cases = (1..=barriers.len()).map(|k| (k as u128, restores[k - 1])).collect();
    b.ins(
        InstData::Switch { value: record.resume, default: region_copies[0][&entry], cases },
        Type::Void,
    );
    for (k, &restore) in restores.iter().enumerate() {
        b.switch_to_block(restore);
        let mut copies = HashMap::new();
        for &slot in &recomputed[k] {
            let value = recompute(&mut b, kernel, slots[slot].carries, &mut copies);
            b.store(value, slots[slot].address, spill.align(slot));
        }
        for &slot in &saved[k] {
            let value = spill.restore(&mut b, &record, slot);
            b.store(value, slots[slot].address, spill.align(slot));
        }
        b.jump(region_copies[k + 1][&starts[k + 1]]);
    }
    let barrier_index: HashMap<Block, usize> =
        barriers.iter().enumerate().map(|(index, &(before, _))| (before, index)).collect();
    for (copies, blocks) in region_copies.iter().zip(&regions) {
        let mut values: HashMap<Value, Value> = HashMap::new();
        for &block in blocks {
            b.switch_to_block(copies[&block]);
            for &inst in &old_blocks[&block] {
                let mut data = b.func.dfg.inst(inst).clone();
                if let Some(&index) = barrier_index.get(&block) {
                    if is_barrier(&data) {
                        for &slot in &saved[index] {
                            let value = b.load(
                                slots[slot].ty.clone(),
                                slots[slot].address,
                                spill.align(slot),
                            );
                            spill.save(&mut b, &record, slot, value);
                        }
                        mark_reached(&mut b, &record, index + 1);
                        b.ret(None);
                        break;
                    }
                }
                if matches!(data, InstData::Return { .. }) {
                    mark_reached(&mut b, &record, 0);
                }
                data.map_operands(|value| values.get(&value).copied().unwrap_or(value));
                data.map_successors(|successor| copies[&successor]);
                let result = b.func.dfg.result(inst);
                let ty = result.map_or(Type::Void, |value| b.func.dfg.value_type(value).clone());
                let copy = b.ins(data, ty);
                if let (Some(old), Some(new)) = (result, b.func.dfg.result(copy)) {
                    values.insert(old, new);
                }
            }
        }
    }
    Ok(Continuations { function: func, barriers: barriers.len(), spill_bytes })
}

/// The parameters and instruction results of `kernel` that Lanewise's
/// divergence analysis finds the same in all lanes when the kernel is
/// vectorized across dimension 0 (all parameters uniform, `rv_lane_id`
/// consecutive); none if it fails.
pub(crate) fn uniform_values(kernel: &Function, data_layout: &DataLayout) -> HashSet<Value> {
    let cfg = ControlFlowGraph::compute(kernel);
    let domtree = DominatorTree::compute(kernel, &cfg);
    let postdom = PostDominatorTree::compute(kernel, &cfg);
    let Ok(loops) = LoopInfo::compute(kernel, &cfg, &domtree) else { return HashSet::new() };
    let params = vec![ParamSpec { kind: ParamKind::Uniform, align: None }; kernel.params.len()];
    let Ok(divergence) =
        DivergenceInfo::compute(kernel, &cfg, &domtree, &postdom, &loops, data_layout, &params)
    else {
        return HashSet::new();
    };
    let params = kernel.params.iter().map(|param| param.value);
    let results = kernel.layout.insts().filter_map(|inst| kernel.dfg.result(inst));
    params.chain(results).filter(|&value| divergence.shapes.is_uniform(value)).collect()
}

/// The values of `kernel` that are the same wherever a work-item computes
/// them: functions of the parameters, constants, `rv_lane_id()` and the
/// work-group record (`__lw_work_group()` and loads from it), through
/// instructions without side effects. After a barrier they are computed
/// again rather than saved: a work-item's address keeps its shape
/// (consecutive), where a restored vector of pointers would be gathered.
fn recomputable_values(kernel: &Function) -> HashSet<Value> {
    let mut recomputable: HashSet<Value> = HashSet::new();
    let mut record_addresses: HashSet<Value> = HashSet::new();
    let available = |value: Value, set: &HashSet<Value>| {
        kernel.dfg.defining_inst(value).is_none() || set.contains(&value)
    };
    let mut changed = true;
    while changed {
        changed = false;
        for inst in kernel.layout.insts() {
            let Some(value) = kernel.dfg.result(inst) else { continue };
            if recomputable.contains(&value) {
                continue;
            }
            let data = kernel.dfg.inst(inst);
            let operands = data.operands();
            let ok = match data {
                InstData::Call { callee: Callee::Direct(name), args, .. } => {
                    args.is_empty() && (name == "__lw_work_group" || name == "rv_lane_id")
                }
                InstData::Load { addr, volatile: false, .. } => record_addresses.contains(addr),
                InstData::Binary { .. }
                | InstData::Unary { .. }
                | InstData::Icmp { .. }
                | InstData::Fcmp { .. }
                | InstData::Select { .. }
                | InstData::Cast { .. }
                | InstData::Gep { .. }
                | InstData::ExtractElement { .. }
                | InstData::InsertElement { .. }
                | InstData::Shuffle { .. }
                | InstData::Splat { .. } => {
                    operands.iter().all(|&operand| available(operand, &recomputable))
                }
                _ => false,
            };
            if !ok {
                continue;
            }
            // Loads from the record are recomputable; so are addresses in it.
            let in_record = match data {
                InstData::Call { callee: Callee::Direct(name), .. } => name == "__lw_work_group",
                InstData::Gep { base, .. } => record_addresses.contains(base),
                _ => false,
            };
            if in_record {
                record_addresses.insert(value);
            }
            recomputable.insert(value);
            changed = true;
        }
    }
    recomputable
}

/// Emits the computation of the recomputable `value` of `kernel` (and of
/// its operands, once per block through `copies`) at the builder's position.
fn recompute(
    b: &mut FunctionBuilder<'_>,
    kernel: &Function,
    value: Value,
    copies: &mut HashMap<Value, Value>,
) -> Value {
    if let Some(&copy) = copies.get(&value) {
        return copy;
    }
    let Some(inst) = kernel.dfg.defining_inst(value) else { return value };
    let mut data = kernel.dfg.inst(inst).clone();
    for operand in data.operands() {
        recompute(b, kernel, operand, copies);
    }
    data.map_operands(|operand| copies.get(&operand).copied().unwrap_or(operand));
    let copy = b.ins_value(data, kernel.dfg.value_type(value).clone());
    copies.insert(value, copy);
    copy
}

fn is_barrier(data: &InstData) -> bool {
    matches!(data, InstData::Call { callee: Callee::Direct(name), .. } if name == BARRIER)
}

/// Ends each block at its first barrier call: the rest moves to a new block
/// that the barrier block jumps to. Returns (barrier block, block after) in
/// the order the barriers were found.
fn split_barrier_blocks(func: &mut Function) -> Vec<(Block, Block)> {
    let mut split = Vec::new();
    let mut pending: Vec<Block> = func.layout.blocks().to_vec();
    pending.reverse();
    while let Some(block) = pending.pop() {
        let insts = func.layout.block_insts(block).to_vec();
        let Some(position) = insts.iter().position(|&inst| is_barrier(func.dfg.inst(inst))) else {
            continue;
        };
        let name = format!("{}.after.barrier", func.block_name(block));
        let after = func.dfg.make_block(Some(name));
        func.layout.insert_block_after(after, block);
        for &inst in &insts[position + 1..] {
            func.layout.remove_inst(inst);
            func.layout.append_inst(inst, after);
        }
        for successor in func.successors(after) {
            for inst in func.layout.block_insts(successor).to_vec() {
                if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(inst) {
                    for (from, _) in incoming.iter_mut() {
                        if *from == block {
                            *from = after;
                        }
                    }
                }
            }
        }
        let jump = func.dfg.make_inst(InstData::Jump { dest: after }, Type::Void);
        func.layout.append_inst(jump, block);
        split.push((block, after));
        pending.push(after);
    }
    split
}

/// Takes the kernel's allocas (its private memory) out of the layout.
fn take_allocas(func: &mut Function) -> Vec<Inst> {
    let allocas: Vec<Inst> = func
        .layout
        .insts()
        .filter(|&inst| matches!(func.dfg.inst(inst), InstData::Alloca { .. }))
        .collect();
    for &alloca in &allocas {
        func.layout.remove_inst(alloca);
    }
    allocas
}

/// A new slot of type `ty` (its alloca is not in the layout yet).
fn new_slot(func: &mut Function, data_layout: &DataLayout, ty: &Type, carries: Value) -> Slot {
    let count = func.dfg.int_const(Type::I32, 1);
    let align = data_layout.abi_align(ty) as u32;
    let alloca = func.dfg.make_inst(InstData::Alloca { ty: ty.clone(), count, align }, Type::PTR);
    let address = func.dfg.result(alloca).expect("an alloca has a result");
    Slot { alloca, address, ty: ty.clone(), carries }
}

fn slot_load(func: &mut Function, data_layout: &DataLayout, slot: &Slot) -> Inst {
    let align = data_layout.abi_align(&slot.ty) as u32;
    let data = InstData::Load { ty: slot.ty.clone(), addr: slot.address, align, volatile: false };
    func.dfg.make_inst(data, slot.ty.clone())
}

fn slot_store(func: &mut Function, data_layout: &DataLayout, slot: &Slot, value: Value) -> Inst {
    let align = data_layout.abi_align(&slot.ty) as u32;
    let data = InstData::Store { value, addr: slot.address, align, volatile: false };
    func.dfg.make_inst(data, Type::Void)
}

/// `reg2mem`: each phi becomes a load of a slot that its predecessors
/// store to, and each value used outside its block is stored to a slot
/// after its definition and loaded before each such use.
fn demote_to_slots(func: &mut Function, data_layout: &DataLayout) -> Vec<Slot> {
    let mut slots = Vec::new();
    for block in func.layout.blocks().to_vec() {
        for inst in func.layout.block_insts(block).to_vec() {
            let InstData::Phi { ty, incoming } = func.dfg.inst(inst).clone() else { continue };
            let phi = func.dfg.result(inst).expect("a phi has a result");
            let slot = new_slot(func, data_layout, &ty, phi);
            for (predecessor, value) in incoming {
                let store = slot_store(func, data_layout, &slot, value);
                let terminator =
                    func.terminator(predecessor).expect("a block ends in a terminator");
                func.layout.insert_inst_before(store, terminator);
            }
            let align = data_layout.abi_align(&ty) as u32;
            *func.dfg.inst_mut(inst) =
                InstData::Load { ty, addr: slot.address, align, volatile: false };
            slots.push(slot);
        }
    }
    let mut users: HashMap<Value, Vec<Inst>> = HashMap::new();
    for inst in func.layout.insts() {
        func.dfg.inst(inst).for_each_operand(|operand| {
            let list = users.entry(operand).or_default();
            if list.last() != Some(&inst) {
                list.push(inst);
            }
        });
    }
    for inst in func.layout.insts().collect::<Vec<_>>() {
        let Some(value) = func.dfg.result(inst) else { continue };
        let Some(home) = func.layout.inst_block(inst) else { continue };
        let remote: Vec<Inst> = users
            .get(&value)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&user| func.layout.inst_block(user) != Some(home))
            .collect();
        if remote.is_empty() {
            continue;
        }
        let ty = func.dfg.value_type(value).clone();
        let slot = new_slot(func, data_layout, &ty, value);
        let store = slot_store(func, data_layout, &slot, value);
        let position = func.layout.block_insts(home).iter().position(|&i| i == inst).unwrap();
        func.layout.insert_inst_at(store, home, position + 1);
        for user in remote {
            let load = slot_load(func, data_layout, &slot);
            func.layout.insert_inst_before(load, user);
            let loaded = func.dfg.result(load).expect("a load has a result");
            func.dfg
                .inst_mut(user)
                .map_operands(|operand| if operand == value { loaded } else { operand });
        }
        slots.push(slot);
    }
    slots
}

/// The blocks reachable from `start` without leaving a barrier block, in
/// layout order.
fn region_blocks(func: &Function, start: Block, barrier_blocks: &HashSet<Block>) -> Vec<Block> {
    let mut reached = HashSet::from([start]);
    let mut pending = vec![start];
    while let Some(block) = pending.pop() {
        if barrier_blocks.contains(&block) {
            continue;
        }
        for successor in func.successors(block) {
            if reached.insert(successor) {
                pending.push(successor);
            }
        }
    }
    func.layout.blocks().iter().copied().filter(|block| reached.contains(block)).collect()
}

/// For each block, the slots (indices into `slots`) whose value at the
/// block's start may still be loaded: a backward data-flow over the CFG.
fn live_slots_at_block_starts(func: &Function, slots: &[Slot]) -> HashMap<Block, Vec<usize>> {
    let index: HashMap<Value, usize> =
        slots.iter().enumerate().map(|(i, slot)| (slot.address, i)).collect();
    let blocks = func.layout.blocks().to_vec();
    let mut uses: HashMap<Block, Vec<bool>> = HashMap::new();
    let mut stores: HashMap<Block, Vec<bool>> = HashMap::new();
    for &block in &blocks {
        let mut used = vec![false; slots.len()];
        let mut stored = vec![false; slots.len()];
        for &inst in func.layout.block_insts(block) {
            match func.dfg.inst(inst) {
                InstData::Load { addr, .. } => {
                    if let Some(&slot) = index.get(addr) {
                        used[slot] |= !stored[slot];
                    }
                }
                InstData::Store { addr, .. } => {
                    if let Some(&slot) = index.get(addr) {
                        stored[slot] = true;
                    }
                }
                _ => {}
            }
        }
        uses.insert(block, used);
        stores.insert(block, stored);
    }
    let mut live_in: HashMap<Block, Vec<bool>> =
        blocks.iter().map(|&block| (block, uses[&block].clone())).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for &block in blocks.iter().rev() {
            let mut live = uses[&block].clone();
            for successor in func.successors(block) {
                for (slot, &successor_live) in live_in[&successor].iter().enumerate() {
                    live[slot] |= successor_live && !stores[&block][slot];
                }
            }
            if live != live_in[&block] {
                live_in.insert(block, live);
                changed = true;
            }
        }
    }
    live_in
        .into_iter()
        .map(|(block, live)| {
            (block, live.iter().enumerate().filter(|(_, &on)| on).map(|(slot, _)| slot).collect())
        })
        .collect()
}

/// The type a spilled element has in memory: a boolean as a byte (an
/// array of `i1` is not an array of bytes to a vector load).
fn memory_type(ty: &Type) -> Type {
    if *ty == Type::BOOL {
        Type::I8
    } else {
        ty.clone()
    }
}

fn to_memory(b: &mut FunctionBuilder<'_>, value: Value) -> Value {
    if b.ty(value) == Type::BOOL {
        b.cast(CastOp::ZExt, value, Type::I8)
    } else {
        value
    }
}

fn from_memory(b: &mut FunctionBuilder<'_>, loaded: Value, ty: &Type) -> Value {
    if *ty == Type::BOOL {
        b.cast(CastOp::Trunc, loaded, Type::BOOL)
    } else {
        loaded
    }
}

/// What the continuation code reads off the work-group record.
struct Record {
    resume: Value,
    reached: Value,
    spill: Value,
    linear_id: Value,
    /// The linear local id of the SIMD group's first work-item (lane 0).
    first_linear_id: Value,
    items: Value,
}

/// Reads the record in the new entry block: the region to resume, the
/// spill area, and this work-item's linear local id (dimension 0 fastest)
/// and the work-group's size, as `get_local_id`/`get_local_size` compute
/// them (builtins/workitem.cl).
fn work_item_record(b: &mut FunctionBuilder<'_>) -> Record {
    let group = b.call(
        Callee::Direct("__lw_work_group".to_owned()),
        Vec::new(),
        Type::PTR,
        CallEffects::Pure,
    );
    let group = b.func.dfg.result(group).expect("the call has a result");
    let lane =
        b.call(Callee::Direct("rv_lane_id".to_owned()), Vec::new(), Type::I32, CallEffects::Pure);
    let lane = b.func.dfg.result(lane).expect("the call has a result");
    let lane = b.cast(CastOp::SExt, lane, Type::I64);
    let field = |b: &mut FunctionBuilder<'_>, offset: i128, ty: Type| {
        let offset = b.iconst(Type::I64, offset);
        let address = b.gep(Type::I8, group, vec![offset]);
        b.load(ty, address, 8)
    };
    let first = field(b, LOCAL_ID_OFFSET, Type::I64);
    let local_id = [
        b.binary(BinaryOp::Add, first, lane),
        field(b, LOCAL_ID_OFFSET + 8, Type::I64),
        field(b, LOCAL_ID_OFFSET + 16, Type::I64),
    ];
    let local_size = [
        field(b, LOCAL_SIZE_OFFSET, Type::I64),
        field(b, LOCAL_SIZE_OFFSET + 8, Type::I64),
        field(b, LOCAL_SIZE_OFFSET + 16, Type::I64),
    ];
    let rows = b.binary(BinaryOp::Mul, local_size[1], local_id[2]);
    let row = b.binary(BinaryOp::Add, local_id[1], rows);
    let row_start = b.binary(BinaryOp::Mul, local_size[0], row);
    let linear_id = b.binary(BinaryOp::Add, local_id[0], row_start);
    let first_linear_id = b.binary(BinaryOp::Add, first, row_start);
    let plane = b.binary(BinaryOp::Mul, local_size[0], local_size[1]);
    let items = b.binary(BinaryOp::Mul, plane, local_size[2]);
    let resume = field(b, RESUME_OFFSET, Type::I64);
    let spill = field(b, SPILL_OFFSET, Type::PTR);
    let offset = b.iconst(Type::I64, REACHED_OFFSET);
    let reached = b.gep(Type::I8, group, vec![offset]);
    Record { resume, reached, spill, linear_id, first_linear_id, items }
}

/// `record.reached |= 1 << bit`.
fn mark_reached(b: &mut FunctionBuilder<'_>, record: &Record, bit: usize) {
    let old = b.load(Type::I64, record.reached, 8);
    let mask = b.iconst(Type::I64, 1 << bit);
    let new = b.binary(BinaryOp::Or, old, mask);
    b.store(new, record.reached, 8);
}

/// Whether a spill address is for saving or for restoring.
#[derive(Clone, Copy)]
enum Access {
    Save,
    Restore,
}

/// Where each saved slot lives in the spill area: an array over the
/// work-group's work-items per element of the slot's type (one for a scalar,
/// one per lane of a short vector such as `float4`, so that each element's
/// array is contiguous across the lanes of a SIMD group), starting at
/// `offset * items`.
struct SpillLayout<'a> {
    slots: &'a [Slot],
    offsets: HashMap<usize, u64>,
    data_layout: &'a DataLayout,
    /// The kernel's values that are the same in all lanes of a SIMD group.
    uniform: &'a HashSet<Value>,
}

impl SpillLayout<'_> {
    /// The element type and count of `ty` in the spill area.
    fn elements(ty: &Type) -> (Type, u32) {
        match ty {
            Type::Vector { elem, lanes } => ((**elem).clone(), *lanes),
            _ => (ty.clone(), 1),
        }
    }

    /// The bytes a work-item needs for a slot of type `ty`.
    fn bytes(data_layout: &DataLayout, ty: &Type) -> u64 {
        let (element, count) = Self::elements(ty);
        data_layout.alloc_size(&memory_type(&element)) * u64::from(count)
    }

    fn element_address(
        &self,
        b: &mut FunctionBuilder<'_>,
        record: &Record,
        slot: usize,
        element: u32,
        access: Access,
    ) -> Value {
        let (element_ty, _) = Self::elements(&self.slots[slot].ty);
        let element_bytes = self.data_layout.alloc_size(&memory_type(&element_ty));
        let start = self.offsets[&slot] + u64::from(element) * element_bytes;
        let offset = b.iconst(Type::I64, i128::from(start));
        let array = b.binary(BinaryOp::Mul, offset, record.items);
        let size = b.iconst(Type::I64, i128::from(element_bytes));
        // Every work-item saves its own value (a uniform one with one
        // vector store of a broadcast), so a region may run through the
        // vector variant after one run work-item by work-item and the other
        // way round (runtime.c chooses per region). A value the same in all
        // lanes of a SIMD group is restored from the SIMD group's first
        // work-item: from one address, it stays uniform for Lanewise (a loop
        // counter keeps its loop uniform).
        let index = match access {
            Access::Restore if self.uniform.contains(&self.slots[slot].carries) => {
                record.first_linear_id
            }
            _ => record.linear_id,
        };
        let element = b.binary(BinaryOp::Mul, index, size);
        let byte = b.binary(BinaryOp::Add, array, element);
        b.gep(Type::I8, record.spill, vec![byte])
    }

    fn element_align(&self, slot: usize) -> u32 {
        self.data_layout.abi_align(&memory_type(&Self::elements(&self.slots[slot].ty).0)) as u32
    }

    /// Stores `value` (the slot's) to this work-item's place.
    fn save(&self, b: &mut FunctionBuilder<'_>, record: &Record, slot: usize, value: Value) {
        let ty = &self.slots[slot].ty;
        let (_, count) = Self::elements(ty);
        let align = self.element_align(slot);
        if !ty.is_vector() {
            let address = self.element_address(b, record, slot, 0, Access::Save);
            let stored = to_memory(b, value);
            b.store(stored, address, align);
            return;
        }
        for element in 0..count {
            let index = b.iconst(Type::I32, i128::from(element));
            let part = b.extract_element(value, index);
            let address = self.element_address(b, record, slot, element, Access::Save);
            let stored = to_memory(b, part);
            b.store(stored, address, align);
        }
    }

    /// Loads this work-item's saved value of the slot.
    fn restore(&self, b: &mut FunctionBuilder<'_>, record: &Record, slot: usize) -> Value {
        let ty = self.slots[slot].ty.clone();
        let (element_ty, count) = Self::elements(&ty);
        let align = self.element_align(slot);
        if !ty.is_vector() {
            let address = self.element_address(b, record, slot, 0, Access::Restore);
            let loaded = b.load(memory_type(&ty), address, align);
            return from_memory(b, loaded, &ty);
        }
        let mut value = b.func.dfg.make_const(ty, Constant::Poison);
        for element in 0..count {
            let address = self.element_address(b, record, slot, element, Access::Restore);
            let loaded = b.load(memory_type(&element_ty), address, align);
            let part = from_memory(b, loaded, &element_ty);
            let index = b.iconst(Type::I32, i128::from(element));
            value = b.insert_element(value, part, index);
        }
        value
    }

    /// The slot's own alignment (its alloca's).
    fn align(&self, slot: usize) -> u32 {
        self.data_layout.abi_align(&self.slots[slot].ty) as u32
    }
}

#[cfg(test)]
mod tests {
    use lanewise_ir::{verify_function, IntPredicate};

    use super::*;

    /// `kernel(p, private)`: each work-item loads `p[lane]` (kept across the
    /// barriers), runs a uniform loop of four rounds with a barrier in each,
    /// and stores the value back; `touch_private_late` also writes the
    /// private alloca after the loop.
    fn kernel(touch_private_late: bool) -> Function {
        let mut func = Function::new("k", vec![Type::PTR], Type::Void);
        let p = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let header = b.create_block(Some("loop"));
        let exit = b.create_block(Some("exit"));
        b.switch_to_block(entry);
        let one = b.iconst(Type::I32, 1);
        let private =
            b.ins_value(InstData::Alloca { ty: Type::I32, count: one, align: 4 }, Type::PTR);
        let lane =
            b.call(Callee::Direct("rv_lane_id".into()), vec![], Type::I32, CallEffects::Pure);
        let lane = b.func.dfg.result(lane).unwrap();
        let address = b.gep(Type::I32, p, vec![lane]);
        let value = b.load(Type::I32, address, 4);
        b.store(value, private, 4);
        let zero = b.iconst(Type::I32, 0);
        b.jump(header);
        b.switch_to_block(header);
        let counter = b.phi(Type::I32, vec![(entry, zero)]);
        b.call(Callee::Direct(BARRIER.into()), vec![], Type::Void, CallEffects::SideEffects);
        let next = b.binary(BinaryOp::Add, counter, one);
        b.add_phi_incoming(counter, header, next);
        let four = b.iconst(Type::I32, 4);
        let more = b.icmp(IntPredicate::Ult, next, four);
        b.branch(more, header, exit);
        b.switch_to_block(exit);
        b.store(value, address, 4);
        if touch_private_late {
            b.store(next, private, 4);
        }
        b.ret(None);
        func
    }

    #[test]
    fn a_barrier_in_a_loop_gives_a_verified_function_with_a_region_per_barrier() {
        let form = split_at_barriers(&kernel(false), &DataLayout::default()).unwrap();
        verify_function(&form.function).unwrap_or_else(|errors| panic!("{errors}"));
        assert_eq!(form.barriers, 1);
        // Saved: the loaded value (4 bytes per work-item) and the counter
        // (uniform: 4 bytes at the SIMD group's first work-item), each in a
        // 16-byte aligned array. The address `p + lane` is computed again.
        assert_eq!(form.spill_bytes, 20);
        let names: Vec<String> =
            form.function.layout.blocks().iter().map(|&b| form.function.block_name(b)).collect();
        for name in
            ["continuations.entry", "continuations.restore1", "entry.region0", "loop.region0"]
        {
            assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
        }
        assert!(names.iter().any(|n| n.ends_with(".region1")), "{names:?}");
        let barrier_calls = form
            .function
            .layout
            .insts()
            .filter(|&inst| is_barrier(form.function.dfg.inst(inst)))
            .count();
        assert_eq!(barrier_calls, 0, "every barrier became the end of a region");
    }

    #[test]
    fn private_memory_used_after_a_barrier_is_refused() {
        let error = split_at_barriers(&kernel(true), &DataLayout::default()).unwrap_err();
        assert!(error.contains("private memory"), "{error}");
    }

    #[test]
    fn a_kernel_without_its_own_barrier_call_is_refused() {
        let mut func = Function::new("k", vec![], Type::Void);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        b.switch_to_block(entry);
        b.call(Callee::Direct("helper".into()), vec![], Type::Void, CallEffects::SideEffects);
        b.ret(None);
        let error = split_at_barriers(&func, &DataLayout::default()).unwrap_err();
        assert!(error.contains("functions it calls"), "{error}");
    }
}
