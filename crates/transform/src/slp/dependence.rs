//! The dependence graph of one block and the dependence test of fused sets
//! (Foss 2013, section 2.1 and Algorithm 7, with the strongly-connected-
//! component test section 5.1 proposes).
//!
//! Nodes are the block's instructions other than phis and the terminator,
//! in block order; every edge goes from an earlier to a later node:
//! * a value defined by one node and used by another;
//! * two memory accesses of which one writes, unless their addresses are a
//!   constant distance apart and the bytes do not overlap, or they point
//!   into objects that cannot overlap (two stack slots; a `noalias`, i.e.
//!   `restrict`, parameter and another parameter) (true, anti and output
//!   dependences alike);
//! * anything with an effect other than a plain load or store (calls other
//!   than pure LLVM intrinsics, volatile or atomic accesses) is a barrier
//!   every memory access stays on its side of. A call that does not return
//!   must not see a later load moved above it, hence barriers for calls
//!   without memory effects too, and integer divisions (which may trap)
//!   are barriers as well.
//!
//! Fusing a set of pairs contracts each pair into one node; the result can
//! be scheduled iff the contracted graph has no cycle.
//! [`BlockGraph::schedule`] finds out with a topological sort (O(V + E),
//! the cost Foss asks for) whose order is the block's new order.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use lanewise_ir::{Block, Callee, Constant, DataLayout, Function, Inst, InstData, ValueDef};

use super::memory::{decompose, Address};

/// The dependence graph of one block.
pub(crate) struct BlockGraph {
    pub block: Block,
    /// The block's instructions other than phis and the terminator.
    pub nodes: Vec<Inst>,
    index: HashMap<Inst, usize>,
    succs: Vec<Vec<usize>>,
}

/// One node of the contracted graph: an instruction left alone or a group.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Slot {
    Node(usize),
    Group(usize),
}

/// Plain accesses compared with each other between two barriers, at most:
/// a longer run is cut, the accesses after a cut ordered after all those
/// before it (more edges than needed, so fewer pairs, never a wrong one).
const MEMORY_WINDOW: usize = 256;

/// How a node touches memory.
enum Access {
    None,
    Plain { address: Address, object: Object, size: u64, writes: bool },
    Barrier,
}

/// The object an address points into, as far as the block can tell.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Object {
    Param { index: u32, noalias: bool },
    Alloca(Inst),
    Global(String),
    Unknown,
}

impl Object {
    fn of(func: &Function, base: lanewise_ir::Value) -> Object {
        match func.dfg.value_def(base) {
            ValueDef::Param(index) => {
                Object::Param { index: *index, noalias: func.noalias_params.contains(index) }
            }
            ValueDef::Result(inst) if matches!(func.dfg.inst(*inst), InstData::Alloca { .. }) => {
                Object::Alloca(*inst)
            }
            ValueDef::Const(Constant::Symbol(name)) => Object::Global(name.clone()),
            _ => Object::Unknown,
        }
    }

    /// Whether no byte of `self` is a byte of `other`: two stack slots, a
    /// stack slot and anything that existed before the function ran, a
    /// `noalias` parameter and any other parameter or global (which cannot
    /// be derived from it).
    fn is_disjoint_from(&self, other: &Object) -> bool {
        match (self, other) {
            (Object::Alloca(a), Object::Alloca(b)) => a != b,
            (Object::Alloca(_), Object::Param { .. } | Object::Global(_))
            | (Object::Param { .. } | Object::Global(_), Object::Alloca(_)) => true,
            (
                Object::Param { index: a, noalias: a_noalias },
                Object::Param { index: b, noalias: b_noalias },
            ) => a != b && (*a_noalias || *b_noalias),
            (Object::Param { noalias: true, .. }, Object::Global(_))
            | (Object::Global(_), Object::Param { noalias: true, .. }) => true,
            _ => false,
        }
    }
}

impl BlockGraph {
    /// The graph of `block` (reads the block's instructions and their
    /// operands).
    pub fn compute(func: &Function, block: Block, data_layout: &DataLayout) -> BlockGraph {
        let nodes: Vec<Inst> = func
            .layout
            .block_insts(block)
            .iter()
            .copied()
            .filter(|inst| {
                let data = func.dfg.inst(*inst);
                !matches!(data, InstData::Phi { .. }) && !data.is_terminator()
            })
            .collect();
        let index: HashMap<Inst, usize> =
            nodes.iter().enumerate().map(|(position, inst)| (*inst, position)).collect();
        let mut succs = vec![Vec::new(); nodes.len()];
        for (user, inst) in nodes.iter().enumerate() {
            func.dfg.inst(*inst).for_each_operand(|operand| {
                if let Some(def) = func.dfg.defining_inst(operand) {
                    if let Some(&producer) = index.get(&def) {
                        succs[producer].push(user);
                    }
                }
            });
        }
        let accesses: Vec<Access> =
            nodes.iter().map(|inst| access(func, *inst, data_layout)).collect();
        let mut since_barrier: Vec<usize> = Vec::new();
        let mut last_barrier: Option<usize> = None;
        for (position, current) in accesses.iter().enumerate() {
            match current {
                Access::None => {}
                Access::Barrier => {
                    for earlier in since_barrier.drain(..) {
                        succs[earlier].push(position);
                    }
                    if let Some(barrier) = last_barrier {
                        succs[barrier].push(position);
                    }
                    last_barrier = Some(position);
                }
                Access::Plain { .. } => {
                    if let Some(barrier) = last_barrier {
                        succs[barrier].push(position);
                    }
                    for &earlier in &since_barrier {
                        if may_conflict(&accesses[earlier], current) {
                            succs[earlier].push(position);
                        }
                    }
                    since_barrier.push(position);
                    if since_barrier.len() == MEMORY_WINDOW {
                        // A long run of accesses: the next ones are ordered
                        // after all of these (as after a barrier, but only
                        // through this access), so each access is compared
                        // with at most MEMORY_WINDOW others.
                        for earlier in since_barrier.drain(..) {
                            if earlier != position {
                                succs[earlier].push(position);
                            }
                        }
                        last_barrier = Some(position);
                    }
                }
            }
        }
        for list in &mut succs {
            list.sort_unstable();
            list.dedup();
        }
        BlockGraph { block, nodes, index, succs }
    }

    /// The node of `inst`, if it is one of this block's nodes.
    pub fn node(&self, inst: Inst) -> Option<usize> {
        self.index.get(&inst).copied()
    }

    /// Whether a path of dependences leads from node `from` to node `to`.
    pub fn reaches(&self, from: usize, to: usize) -> bool {
        if from >= to {
            return false;
        }
        let mut seen = vec![false; to - from + 1];
        let mut stack = vec![from];
        while let Some(node) = stack.pop() {
            for &next in &self.succs[node] {
                if next == to {
                    return true;
                }
                if next < to && !seen[next - from] {
                    seen[next - from] = true;
                    stack.push(next);
                }
            }
        }
        false
    }

    /// Whether nodes `a` and `b` are independent (neither reaches the other).
    pub fn independent(&self, a: usize, b: usize) -> bool {
        let (first, second) = if a < b { (a, b) } else { (b, a) };
        first != second && !self.reaches(first, second)
    }

    /// Whether contracting every group into one node leaves the graph
    /// acyclic (the dependence test of a tentative set). Edges only go
    /// forward in block order, so every path between two members stays
    /// between the first and the last member: only that span is sorted.
    pub fn is_schedulable(&self, groups: &[Vec<usize>]) -> bool {
        let members = groups.iter().flatten();
        let (Some(&low), Some(&high)) = (members.clone().min(), members.max()) else {
            return true;
        };
        self.schedule_span(groups, low, high + 1).is_some()
    }

    /// The order of the block with every group contracted into one node
    /// (a node may sit in several groups: it is then replaced by all of
    /// them), or `None` if the contraction has a cycle. Ties keep the block
    /// order (of a group's first member).
    pub fn schedule(&self, groups: &[Vec<usize>]) -> Option<Vec<Slot>> {
        self.schedule_span(groups, 0, self.nodes.len())
    }

    /// [`BlockGraph::schedule`] of the nodes `low..high` only (every member
    /// of `groups` must be among them).
    fn schedule_span(&self, groups: &[Vec<usize>], low: usize, high: usize) -> Option<Vec<Slot>> {
        let node_count = self.nodes.len();
        let mut owners: Vec<Vec<usize>> = vec![Vec::new(); node_count];
        for (group, members) in groups.iter().enumerate() {
            for &member in members {
                owners[member].push(node_count + group);
            }
        }
        let slot_count = node_count + groups.len();
        let slots_of = |node: usize| -> Vec<usize> {
            if owners[node].is_empty() {
                vec![node]
            } else {
                owners[node].clone()
            }
        };
        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); slot_count];
        let mut in_degree = vec![0usize; slot_count];
        for (from, list) in self.succs.iter().enumerate().take(high).skip(low) {
            let from_slots = slots_of(from);
            for &to in list.iter().filter(|to| **to < high) {
                for &to_slot in &slots_of(to) {
                    for &from_slot in &from_slots {
                        if from_slot == to_slot {
                            // An edge inside a group: its members depend on each other.
                            return None;
                        }
                        succs[from_slot].push(to_slot);
                        in_degree[to_slot] += 1;
                    }
                }
            }
        }
        let priority = |slot: usize| -> usize {
            if slot < node_count {
                slot
            } else {
                groups[slot - node_count].iter().copied().min().unwrap_or(0)
            }
        };
        let live = |slot: usize| {
            slot >= node_count || ((low..high).contains(&slot) && owners[slot].is_empty())
        };
        let mut ready: BinaryHeap<Reverse<(usize, usize)>> = (0..slot_count)
            .filter(|slot| live(*slot) && in_degree[*slot] == 0)
            .map(|slot| Reverse((priority(slot), slot)))
            .collect();
        let mut order = Vec::with_capacity(slot_count);
        while let Some(Reverse((_, slot))) = ready.pop() {
            order.push(if slot < node_count {
                Slot::Node(slot)
            } else {
                Slot::Group(slot - node_count)
            });
            for &next in &succs[slot] {
                in_degree[next] -= 1;
                if in_degree[next] == 0 {
                    ready.push(Reverse((priority(next), next)));
                }
            }
        }
        let live_count = (0..slot_count).filter(|slot| live(*slot)).count();
        (order.len() == live_count).then_some(order)
    }
}

fn access(func: &Function, inst: Inst, data_layout: &DataLayout) -> Access {
    match func.dfg.inst(inst) {
        InstData::Load { ty, addr, volatile: false, .. } => {
            let address = decompose(func, *addr, data_layout);
            Access::Plain {
                object: Object::of(func, address.base),
                address,
                size: data_layout.store_size(ty),
                writes: false,
            }
        }
        InstData::Store { value, addr, volatile: false, .. } => {
            let address = decompose(func, *addr, data_layout);
            Access::Plain {
                object: Object::of(func, address.base),
                address,
                size: data_layout.store_size(func.dfg.value_type(*value)),
                writes: true,
            }
        }
        InstData::Call { callee: Callee::Direct(name), effects, .. }
            if name.starts_with("llvm.")
                && *effects == lanewise_ir::CallEffects::Pure
                && !name.starts_with("llvm.assume") =>
        {
            Access::None
        }
        data if data.has_side_effects() || data.reads_memory() => Access::Barrier,
        InstData::Call { .. } | InstData::Invoke { .. } | InstData::LandingPad { .. } => {
            Access::Barrier
        }
        // A division that may trap stays behind the calls before it.
        data if data.can_trap_on_inactive_lanes() => Access::Barrier,
        _ => Access::None,
    }
}

/// Whether two plain accesses may touch the same byte with one of them
/// writing.
fn may_conflict(first: &Access, second: &Access) -> bool {
    let (
        Access::Plain { address: a, object: a_object, size: a_size, writes: a_writes },
        Access::Plain { address: b, object: b_object, size: b_size, writes: b_writes },
    ) = (first, second)
    else {
        return true;
    };
    if !a_writes && !b_writes || a_object.is_disjoint_from(b_object) {
        return false;
    }
    match a.distance_to(b) {
        // b starts `distance` bytes after a.
        Some(distance) => {
            let a_size = i64::try_from(*a_size).unwrap_or(i64::MAX);
            let b_size = i64::try_from(*b_size).unwrap_or(i64::MAX);
            !(distance >= a_size || distance.saturating_add(b_size) <= 0)
        }
        None => true,
    }
}
