//! Vectors assembled lane by lane from scalar loads of one array become one
//! vector load and one shuffle, after fusion.
//!
//! Fusion brings operands that no pair computes into vectors with
//! `insertelement`s, splats and concatenating shuffles. When every lane of
//! such a vector is a scalar load from one base, and the block has already
//! read every byte of the window those loads span (so the wider load reads
//! nothing the function would not, and cannot fault), one load of the window
//! and one shuffle replace the assembly: a complex product's `(a.re, a.re,
//! a'.re, a'.re, ...)` becomes a `<8 x float>` load and a `moveldup`-like
//! shuffle, as LLVM's SLP vectorizer produces it. Nothing that may write
//! memory may lie between the first of the loads and the new load.

use std::collections::HashMap;

use lanewise_ir::{Block, Constant, DataLayout, Function, Inst, InstData, Type, Value};

use super::memory::decompose;
use super::SlpConfig;
use crate::cfg_canon::replace_uses;

/// A lane of an assembled vector: the scalar load it holds, or poison.
type Lanes = Vec<Option<Inst>>;

/// Replaces the vectors of `block` assembled from scalar loads of one window
/// by a load of the window and a shuffle; returns how many.
pub(crate) fn load_windows(
    func: &mut Function,
    block: Block,
    data_layout: &DataLayout,
    config: &SlpConfig,
) -> usize {
    let insts: Vec<Inst> = func.layout.block_insts(block).to_vec();
    let position: HashMap<Inst, usize> =
        insts.iter().enumerate().map(|(index, inst)| (*inst, index)).collect();
    let mut users: HashMap<Value, Vec<Inst>> = HashMap::new();
    for inst in func.layout.insts() {
        func.dfg
            .inst(inst)
            .for_each_operand(|operand| users.entry(operand).or_default().push(inst));
    }
    let mut lanes_of: HashMap<Value, Option<Lanes>> = HashMap::new();
    let mut replacements = HashMap::new();
    let mut rewritten = 0;
    for &inst in &insts {
        let Some(value) = func.dfg.result(inst) else { continue };
        if !is_assembly(func.dfg.inst(inst)) || !func.dfg.value_type(value).is_vector() {
            continue;
        }
        // Only the last step of an assembly: some user does real work.
        let feeds_work = users
            .get(&value)
            .is_some_and(|list| list.iter().any(|user| !is_assembly(func.dfg.inst(*user))));
        if !feeds_work {
            continue;
        }
        let Some(lanes) = assembled_lanes(func, value, &mut lanes_of) else { continue };
        let Some(plan) = window_of(func, &lanes, &insts, &position, inst, data_layout, config)
        else {
            continue;
        };
        if assembly_size(func, value) < 3 {
            continue;
        }
        let replacement = emit_window(func, inst, &plan);
        replacements.insert(value, replacement);
        rewritten += 1;
    }
    replace_uses(func, &replacements);
    rewritten
}

fn is_assembly(data: &InstData) -> bool {
    matches!(
        data,
        InstData::InsertElement { .. } | InstData::Splat { .. } | InstData::Shuffle { .. }
    )
}

/// The scalar load in each lane of `value`, if it is assembled from scalar
/// loads (and poison) only.
fn assembled_lanes(
    func: &Function,
    value: Value,
    memo: &mut HashMap<Value, Option<Lanes>>,
) -> Option<Lanes> {
    if let Some(known) = memo.get(&value) {
        return known.clone();
    }
    let lanes = compute_lanes(func, value, memo);
    memo.insert(value, lanes.clone());
    lanes
}

fn compute_lanes(
    func: &Function,
    value: Value,
    memo: &mut HashMap<Value, Option<Lanes>>,
) -> Option<Lanes> {
    let count = func.dfg.value_type(value).lanes()? as usize;
    if matches!(func.dfg.constant(value), Some(Constant::Poison | Constant::Undef)) {
        return Some(vec![None; count]);
    }
    let scalar_load = |scalar: Value| -> Option<Inst> {
        let def = func.dfg.defining_inst(scalar)?;
        matches!(func.dfg.inst(def), InstData::Load { volatile: false, ty, .. } if ty.is_scalar())
            .then_some(def)
    };
    match func.dfg.inst(func.dfg.defining_inst(value)?) {
        InstData::InsertElement { vector, value: scalar, index } => {
            let mut lanes = assembled_lanes(func, *vector, memo)?;
            let index = usize::try_from(func.dfg.int_constant(*index)?).ok()?;
            *lanes.get_mut(index)? = Some(scalar_load(*scalar)?);
            Some(lanes)
        }
        InstData::Splat { scalar, .. } => Some(vec![Some(scalar_load(*scalar)?); count]),
        InstData::Shuffle { lhs, rhs, mask } => {
            let left = assembled_lanes(func, *lhs, memo)?;
            let right = assembled_lanes(func, *rhs, memo)?;
            mask.iter()
                .map(|entry| match usize::try_from(*entry) {
                    Err(_) => Some(None),
                    Ok(entry) if entry < left.len() => Some(left[entry]),
                    Ok(entry) => right.get(entry - left.len()).copied(),
                })
                .collect()
        }
        _ => None,
    }
}

/// The number of assembly instructions (and scalar loads' uses) that build
/// `value`: what one load and one shuffle replace.
fn assembly_size(func: &Function, value: Value) -> usize {
    let Some(def) = func.dfg.defining_inst(value) else { return 0 };
    let data = func.dfg.inst(def);
    if !is_assembly(data) {
        return 0;
    }
    let mut size = 1;
    data.for_each_operand(|operand| {
        if func.dfg.value_type(operand).is_vector() {
            size += assembly_size(func, operand);
        }
    });
    size
}

/// Where the window load goes and what it reads.
struct Window {
    /// The load whose address is the window's start.
    first: Inst,
    element: Type,
    lanes: u32,
    /// Per lane of the assembled vector: its element of the window (-1: poison).
    mask: Vec<i32>,
}

/// The window of `lanes` if one vector load at `at` can replace them: one
/// base, one element type, whole elements apart, a window of at most the
/// target's vector that earlier loads of the block cover, and nothing that
/// may write memory from the first lane's load to `at`.
fn window_of(
    func: &Function,
    lanes: &Lanes,
    insts: &[Inst],
    position: &HashMap<Inst, usize>,
    at: Inst,
    data_layout: &DataLayout,
    config: &SlpConfig,
) -> Option<Window> {
    let loads: Vec<Inst> = lanes.iter().flatten().copied().collect();
    let first_load = *loads.first()?;
    let InstData::Load { ty: element, .. } = func.dfg.inst(first_load) else { return None };
    let element = element.clone();
    let element_size = i64::try_from(data_layout.store_size(&element)).ok()?;
    let address_of = |load: Inst| match func.dfg.inst(load) {
        InstData::Load { addr, ty, .. } if *ty == element => {
            Some(decompose(func, *addr, data_layout))
        }
        _ => None,
    };
    let base = address_of(first_load)?;
    let mut offsets = Vec::with_capacity(loads.len());
    for &load in &loads {
        let distance = base.distance_to(&address_of(load)?)?;
        (distance % element_size == 0).then_some(())?;
        position.get(&load)?;
        offsets.push(distance);
    }
    let (low, high) = (*offsets.iter().min()?, *offsets.iter().max()?);
    let distinct = {
        let mut sorted = offsets.clone();
        sorted.sort_unstable();
        sorted.dedup();
        sorted.len()
    };
    if distinct < 2 {
        return None;
    }
    let needed = u32::try_from((high - low) / element_size + 1).ok()?;
    let window_lanes = needed.next_power_of_two();
    let element_bits = element.scalar_bits()?;
    if window_lanes * element_bits > config.max_vector_bits || window_lanes < 2 {
        return None;
    }
    // Nothing may write memory (or free it) between the earliest lane load
    // and `at`, nor between the loads that show the window readable and `at`.
    let end = *position.get(&at)?;
    let writes = |inst: &Inst| {
        let data = func.dfg.inst(*inst);
        data.has_side_effects() || matches!(data, InstData::Call { .. })
    };
    let since = insts[..end].iter().rposition(writes).map_or(0, |last| last + 1);
    let start = *loads.iter().filter_map(|load| position.get(load)).min()?;
    if start < since {
        return None;
    }
    // Every byte of the window was read by a load of the block since then.
    let mut covered: Vec<(i64, i64, Inst)> = insts[since..end]
        .iter()
        .filter_map(|inst| match func.dfg.inst(*inst) {
            InstData::Load { addr, ty, volatile: false, .. } => {
                let distance = base.distance_to(&decompose(func, *addr, data_layout))?;
                let size = i64::try_from(data_layout.store_size(ty)).ok()?;
                Some((distance, distance + size, *inst))
            }
            _ => None,
        })
        .collect();
    covered.sort_unstable_by_key(|(from, to, _)| (*from, *to));
    let is_covered = |from: i64, to: i64| {
        let mut reached = from;
        for (start, stop, _) in &covered {
            if *start <= reached {
                reached = reached.max(*stop);
            }
        }
        reached >= to
    };
    // The window starts at the lowest lane or lower (down to where it still
    // holds the highest lane), at an element some load of `element` reads:
    // its address is the window's.
    let window_bytes = i64::from(window_lanes) * element_size;
    let (window_start, first) = (0..i64::from(window_lanes))
        .map(|step| low - step * element_size)
        .take_while(|start| start + window_bytes > high)
        .find_map(|start| {
            if !is_covered(start, start + window_bytes) {
                return None;
            }
            let first = covered.iter().find_map(|(from, _, inst)| {
                let reads_element =
                    matches!(func.dfg.inst(*inst), InstData::Load { ty, .. } if *ty == element);
                (*from == start && reads_element).then_some(*inst)
            })?;
            Some((start, first))
        })?;
    let mut lane_offsets = offsets.iter();
    let mask = lanes
        .iter()
        .map(|lane| match lane {
            None => Some(-1),
            Some(_) => {
                let offset = lane_offsets.next()?;
                i32::try_from((offset - window_start) / element_size).ok()
            }
        })
        .collect::<Option<Vec<i32>>>()?;
    Some(Window { first, element, lanes: window_lanes, mask })
}

/// Emits the window load and the shuffle before `at`; returns the shuffle.
fn emit_window(func: &mut Function, at: Inst, window: &Window) -> Value {
    let InstData::Load { addr, align, .. } = func.dfg.inst(window.first).clone() else {
        unreachable!("a window starts at a load")
    };
    let vector_ty = window.element.vector_of(window.lanes);
    let load = func.dfg.make_inst(
        InstData::Load { ty: vector_ty.clone(), addr, align, volatile: false },
        vector_ty.clone(),
    );
    func.layout.insert_inst_before(load, at);
    let loaded = func.dfg.result(load).expect("a load has a result");
    let result_ty = window.element.vector_of(window.mask.len() as u32);
    let poison = func.dfg.make_const(vector_ty, Constant::Poison);
    let mask = window.mask.clone();
    let shuffle =
        func.dfg.make_inst(InstData::Shuffle { lhs: loaded, rhs: poison, mask }, result_ty);
    func.layout.insert_inst_before(shuffle, at);
    func.dfg.result(shuffle).expect("a shuffle has a result")
}
