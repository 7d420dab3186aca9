//! Fusing the chosen pairs (Foss 2013, Algorithm 10, `FusePair`): each pair
//! becomes one vector operation of twice the width, its operands brought
//! in by moves where no fused pair computes them, and the lanes that other
//! operations still read taken out by moves. The block is rebuilt in the
//! order of the contracted dependence graph ([`BlockGraph::schedule`]).

use std::collections::HashMap;

use lanewise_ir::{Block, Callee, Constant, Function, Inst, InstData, Type, Value, ValueDef};

use super::candidates::{entry_of, Candidates, OpKind, PairId};
use super::dependence::{BlockGraph, Slot};
use super::trees::groups;
use super::Plan;
use crate::vector_math::intrinsic_type_suffix;

/// What one fusion did.
pub(crate) struct Fused {
    pub widest_lanes: u32,
}

/// Rewrites the block of `graph` with the pairs of `plan` fused; `None`
/// (and nothing changed) if the plan cannot be scheduled.
pub(crate) fn fuse(
    func: &mut Function,
    graph: &BlockGraph,
    candidates: &Candidates,
    plan: &Plan,
) -> Option<Fused> {
    let schedule = graph.schedule(&groups(candidates, &plan.pairs))?;
    let mut rewriter = Rewriter {
        candidates,
        plan,
        position_of: plan.pairs.iter().enumerate().map(|(k, pair)| (*pair, k)).collect(),
        fused: vec![None; plan.pairs.len()],
        lane_source: HashMap::new(),
        extracts: HashMap::new(),
        emitted: Vec::new(),
        widest_lanes: 0,
    };
    for (position, pair) in plan.pairs.iter().enumerate() {
        for (lane, inst) in candidates.pairs[*pair].lanes.iter().enumerate() {
            rewriter.lane_source.entry(*inst).or_insert((position, lane));
        }
    }
    // Phi pairs first: their vectors exist from the block's start.
    let mut vector_phis = Vec::new();
    for (position, pair) in plan.pairs.iter().enumerate() {
        if candidates.pairs[*pair].shape.kind == OpKind::Phi {
            vector_phis.push((position, rewriter.create_vector_phi(func, graph, position)?));
        }
    }
    for slot in schedule {
        match slot {
            Slot::Node(node) => {
                let inst = graph.nodes[node];
                rewriter.remap_operands(func, inst);
                rewriter.emitted.push(inst);
            }
            Slot::Group(position) => rewriter.emit_pair(func, position),
        }
    }
    // What each vector phi carries to the next iteration.
    for &(position, phi) in &vector_phis {
        rewriter.complete_vector_phi(func, graph.block, position, phi);
    }
    // Rebuild the block: phis, the new order, the terminator.
    let block = graph.block;
    let terminator = func.terminator(block);
    let old = func.layout.clear_block_insts(block);
    let phis: Vec<Inst> = old
        .iter()
        .copied()
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Phi { .. }))
        .filter(|inst| !rewriter.lane_source.contains_key(inst))
        .chain(vector_phis.iter().map(|(_, phi)| *phi))
        .collect();
    let mut order = phis;
    order.append(&mut rewriter.emitted);
    for inst in &order {
        func.layout.append_inst(*inst, block);
    }
    // Uses outside the rebuilt instructions (other blocks, phis, the
    // terminator) read extracts placed before the terminator.
    let mut outside: Vec<Inst> = rewriter
        .lane_source
        .keys()
        .filter_map(|member| func.dfg.result(*member))
        .flat_map(|value| candidates.users(value).iter().copied())
        .filter(|user| !rewriter.lane_source.contains_key(user))
        .filter(|user| {
            func.layout.inst_block(*user).is_some_and(|user_block| user_block != block)
                || matches!(func.dfg.inst(*user), InstData::Phi { .. })
        })
        .chain(terminator)
        .collect();
    outside.sort_unstable();
    outside.dedup();
    for inst in outside {
        rewriter.remap_operands(func, inst);
    }
    for inst in std::mem::take(&mut rewriter.emitted) {
        func.layout.append_inst(inst, block);
    }
    if let Some(terminator) = terminator {
        func.layout.append_inst(terminator, block);
    }
    Some(Fused { widest_lanes: rewriter.widest_lanes })
}

struct Rewriter<'a> {
    candidates: &'a Candidates,
    plan: &'a Plan,
    position_of: HashMap<PairId, usize>,
    /// The fused value of each plan entry (once emitted).
    fused: Vec<Option<Value>>,
    /// Where each fused instruction's lane lives: (plan entry, lane).
    lane_source: HashMap<Inst, (usize, usize)>,
    /// The extract made for a fused instruction's result.
    extracts: HashMap<Inst, Value>,
    /// The instructions of the new block, in order.
    emitted: Vec<Inst>,
    widest_lanes: u32,
}

impl Rewriter<'_> {
    /// Replaces every operand of `inst` that a fused instruction computed by
    /// its extract.
    fn remap_operands(&mut self, func: &mut Function, inst: Inst) {
        let operands = func.dfg.inst(inst).operands();
        let mut replacements = HashMap::new();
        for operand in operands {
            if let Some(extract) = self.extract_of(func, operand) {
                replacements.insert(operand, extract);
            }
        }
        if !replacements.is_empty() {
            func.dfg
                .inst_mut(inst)
                .map_operands(|value| replacements.get(&value).copied().unwrap_or(value));
        }
    }

    /// The value standing in for `value` if a fused instruction defined it.
    fn extract_of(&mut self, func: &mut Function, value: Value) -> Option<Value> {
        let def = func.dfg.defining_inst(value)?;
        let &(position, lane) = self.lane_source.get(&def)?;
        if let Some(extract) = self.extracts.get(&def) {
            return Some(*extract);
        }
        let vector = self.fused[position].expect("a fused pair is emitted before its users");
        let ty = func.dfg.value_type(value).clone();
        let data = match ty.lanes() {
            None => {
                let index = func.dfg.int_const(Type::Int(32), lane as u128);
                InstData::ExtractElement { vector, index }
            }
            Some(lanes) => {
                let vector_ty = func.dfg.value_type(vector).clone();
                let poison = func.dfg.make_const(vector_ty, Constant::Poison);
                let start = lane as u32 * lanes;
                let mask = (start..start + lanes).map(|lane| lane as i32).collect();
                InstData::Shuffle { lhs: vector, rhs: poison, mask }
            }
        };
        let extract = self.append(func, data, ty);
        self.extracts.insert(def, extract);
        Some(extract)
    }

    fn append(&mut self, func: &mut Function, data: InstData, ty: Type) -> Value {
        let inst = func.dfg.make_inst(data, ty);
        self.emitted.push(inst);
        func.dfg.result(inst).expect("a value-producing instruction")
    }

    /// The vector phi of the phi pair at plan entry `position`, entered
    /// with the lanes' entry values joined at the end of the entry block;
    /// its value from the block itself is set by
    /// [`Rewriter::complete_vector_phi`].
    fn create_vector_phi(
        &mut self,
        func: &mut Function,
        graph: &BlockGraph,
        position: usize,
    ) -> Option<Inst> {
        let [first, second] = self.candidates.pairs[self.plan.pairs[position]].lanes;
        let entry = entry_of(func, graph, first)?;
        let entry_value = |inst: Inst| match func.dfg.inst(inst) {
            InstData::Phi { incoming, .. } => {
                incoming.iter().find(|(from, _)| *from == entry).map(|(_, value)| *value)
            }
            _ => None,
        };
        let (x, y) = (entry_value(first)?, entry_value(second)?);
        let entry_terminator = func.terminator(entry)?;
        // Built in the entry block, before its branch into the loop.
        let saved = std::mem::take(&mut self.emitted);
        let joined = self.concat(func, x, y);
        let built = std::mem::replace(&mut self.emitted, saved);
        for inst in built {
            func.layout.insert_inst_before(inst, entry_terminator);
        }
        let ty = doubled(func.dfg.value_type(x));
        self.widest_lanes = self.widest_lanes.max(ty.lanes().unwrap_or(1));
        let phi = func.dfg.make_inst(
            InstData::Phi {
                ty: ty.clone(),
                incoming: vec![(entry, joined), (graph.block, joined)],
            },
            ty,
        );
        self.fused[position] = func.dfg.result(phi);
        Some(phi)
    }

    /// Sets the value the vector phi `phi` (plan entry `position`) takes
    /// from `block` itself: the fused pair of the lanes' values, or the
    /// lanes joined at the block's end.
    fn complete_vector_phi(
        &mut self,
        func: &mut Function,
        block: Block,
        position: usize,
        phi: Inst,
    ) {
        let pair_id = self.plan.pairs[position];
        let producer = self.candidates.operand_pairs[pair_id][0]
            .and_then(|producer| self.position_of.get(&producer))
            .and_then(|position| self.fused[*position]);
        let value = match producer {
            Some(vector) => vector,
            None => {
                let x = self.candidates.operands_of(pair_id, 0)[0];
                let y = self.candidates.operands_of(pair_id, 1)[0];
                self.concat(func, x, y)
            }
        };
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
            for (from, incoming_value) in incoming.iter_mut() {
                if *from == block {
                    *incoming_value = value;
                }
            }
        }
    }

    /// Emits the vector operation of plan entry `position`.
    fn emit_pair(&mut self, func: &mut Function, position: usize) {
        let pair_id = self.plan.pairs[position];
        let pair = &self.candidates.pairs[pair_id];
        if pair.shape.kind == OpKind::Phi {
            // Created before the block's instructions.
            return;
        }
        let [first, second] = pair.lanes;
        let first_ops = self.candidates.operands_of(pair_id, 0).to_vec();
        let second_ops = self.candidates.operands_of(pair_id, 1).to_vec();
        let mut fused_ops = Vec::with_capacity(first_ops.len());
        for (index, (x, y)) in first_ops.iter().zip(&second_ops).enumerate() {
            let producer = self.candidates.operand_pairs[pair_id][index]
                .and_then(|producer| self.position_of.get(&producer))
                .and_then(|position| self.fused[*position]);
            let operand = match producer {
                Some(vector) => vector,
                None => self.concat(func, *x, *y),
            };
            fused_ops.push(operand);
        }
        let result_ty = func.dfg.result(first).map(|value| doubled(func.dfg.value_type(value)));
        let data = match &pair.shape.kind {
            OpKind::Alternate(first_op, second_op) => {
                // Both operations on all lanes, then lane 0's lanes of the
                // first and lane 1's of the second.
                let ty = result_ty.clone().expect("a binary operation has a result");
                let flags_of = |inst: Inst| match func.dfg.inst(inst) {
                    InstData::Binary { flags, .. } => *flags,
                    _ => Default::default(),
                };
                let (lhs, rhs) = (fused_ops[0], fused_ops[1]);
                let (first_flags, second_flags) = (flags_of(first), flags_of(second));
                let low = self.append(
                    func,
                    InstData::Binary { op: *first_op, lhs, rhs, flags: first_flags },
                    ty.clone(),
                );
                let high = self.append(
                    func,
                    InstData::Binary { op: *second_op, lhs, rhs, flags: second_flags },
                    ty.clone(),
                );
                let lanes = ty.lanes().expect("a vector") as i32;
                let half = lanes / 2;
                let mask = (0..half).chain(lanes + half..2 * lanes).collect();
                InstData::Shuffle { lhs: low, rhs: high, mask }
            }
            kind => fused_data(func, first, second, kind, &fused_ops),
        };
        if let Some(ty) = &result_ty {
            self.widest_lanes = self.widest_lanes.max(ty.lanes().unwrap_or(1));
        } else if let Some(value) = fused_ops.first() {
            self.widest_lanes =
                self.widest_lanes.max(func.dfg.value_type(*value).lanes().unwrap_or(1));
        }
        let inst = func.dfg.make_inst(data, result_ty.unwrap_or(Type::Void));
        // The address of a memory access may itself be an extract.
        self.remap_operands(func, inst);
        self.emitted.push(inst);
        self.fused[position] = func.dfg.result(inst);
    }

    /// The vector holding `value` and the position of its first lane: the
    /// fused value of a pair it is a lane of, or the vector a constant
    /// `extractelement` reads.
    fn vector_holding(&self, func: &Function, value: Value) -> Option<(Value, i32)> {
        let def = func.dfg.defining_inst(value)?;
        if let Some(&(position, lane)) = self.lane_source.get(&def) {
            let group = func.dfg.value_type(value).lanes().unwrap_or(1) as i32;
            return Some((self.fused[position]?, lane as i32 * group));
        }
        match func.dfg.inst(def) {
            InstData::ExtractElement { vector, index } => {
                let lane = i32::try_from(func.dfg.int_constant(*index)?).ok()?;
                let lanes = func.dfg.value_type(*vector).lanes()? as i32;
                (lane < lanes).then_some((*vector, lane))
            }
            _ => None,
        }
    }

    /// `x` and `y` side by side in one vector of twice their width.
    fn concat(&mut self, func: &mut Function, x: Value, y: Value) -> Value {
        let ty = func.dfg.value_type(x).clone();
        let wide = doubled(&ty);
        if let (Some(mut elements), Some(second)) =
            (constant_elements(func, x), constant_elements(func, y))
        {
            elements.extend(second);
            return func.dfg.make_const(wide, Constant::Aggregate(elements));
        }
        if let (Some((x_vector, x_start)), Some((y_vector, y_start))) =
            (self.vector_holding(func, x), self.vector_holding(func, y))
        {
            let vector_ty = func.dfg.value_type(x_vector).clone();
            if vector_ty == *func.dfg.value_type(y_vector) {
                // One shuffle of the vectors that hold the lanes.
                let width = vector_ty.lanes().expect("a vector") as i32;
                let group = ty.lanes().unwrap_or(1) as i32;
                let (rhs, y_offset) = if x_vector == y_vector {
                    (func.dfg.make_const(vector_ty, Constant::Poison), 0)
                } else {
                    (y_vector, width)
                };
                let mask = (x_start..x_start + group)
                    .chain(y_offset + y_start..y_offset + y_start + group)
                    .collect();
                return self.append(func, InstData::Shuffle { lhs: x_vector, rhs, mask }, wide);
            }
        }
        let x = self.extract_of(func, x).unwrap_or(x);
        let y = self.extract_of(func, y).unwrap_or(y);
        if x == y {
            if let Some(InstData::Splat { scalar, lanes }) =
                func.dfg.defining_inst(x).map(|def| func.dfg.inst(def).clone())
            {
                // A wider splat of the same scalar, not a splat joined to itself.
                return self.append(func, InstData::Splat { scalar, lanes: 2 * lanes }, wide);
            }
        }
        match ty.lanes() {
            Some(lanes) => {
                let mask = (0..2 * lanes as i32).collect();
                self.append(func, InstData::Shuffle { lhs: x, rhs: y, mask }, wide)
            }
            None if x == y => self.append(func, InstData::Splat { scalar: x, lanes: 2 }, wide),
            None => {
                let poison = func.dfg.make_const(wide.clone(), Constant::Poison);
                let zero = func.dfg.int_const(Type::Int(32), 0);
                let one = func.dfg.int_const(Type::Int(32), 1);
                let low = self.append(
                    func,
                    InstData::InsertElement { vector: poison, value: x, index: zero },
                    wide.clone(),
                );
                self.append(
                    func,
                    InstData::InsertElement { vector: low, value: y, index: one },
                    wide,
                )
            }
        }
    }
}

/// The element constants of a scalar or vector constant.
fn constant_elements(func: &mut Function, value: Value) -> Option<Vec<Value>> {
    let ty = func.dfg.value_type(value).clone();
    let ValueDef::Const(constant) = func.dfg.value_def(value).clone() else { return None };
    let Some(lanes) = ty.lanes() else { return Some(vec![value]) };
    let element = ty.scalar_type().clone();
    match constant {
        Constant::Aggregate(elements) => Some(elements),
        Constant::Zero | Constant::Null | Constant::Undef | Constant::Poison => {
            let element = func.dfg.make_const(element, constant);
            Some(vec![element; lanes as usize])
        }
        _ => None,
    }
}

/// Twice the lanes of `ty` (a scalar is one lane).
pub(crate) fn doubled(ty: &Type) -> Type {
    match ty {
        Type::Vector { elem, lanes } => Type::Vector { elem: elem.clone(), lanes: lanes * 2 },
        scalar => scalar.vector_of(2),
    }
}

/// The vector operation of the pair (`first`, `second`) over `operands`
/// (its lane operands, fused); flags both lanes do not share are dropped.
fn fused_data(
    func: &Function,
    first: Inst,
    second: Inst,
    kind: &OpKind,
    operands: &[Value],
) -> InstData {
    let other = func.dfg.inst(second);
    match func.dfg.inst(first).clone() {
        InstData::Binary { op, flags, .. } => {
            let flags = match other {
                InstData::Binary { flags: theirs, .. } if *theirs == flags => flags,
                _ => Default::default(),
            };
            InstData::Binary { op, lhs: operands[0], rhs: operands[1], flags }
        }
        InstData::Unary { op, flags, .. } => {
            let flags = match other {
                InstData::Unary { flags: theirs, .. } if *theirs == flags => flags,
                _ => Default::default(),
            };
            InstData::Unary { op, arg: operands[0], flags }
        }
        InstData::Icmp { pred, .. } => InstData::Icmp { pred, lhs: operands[0], rhs: operands[1] },
        InstData::Fcmp { pred, flags, .. } => {
            let flags = match other {
                InstData::Fcmp { flags: theirs, .. } if *theirs == flags => flags,
                _ => Default::default(),
            };
            InstData::Fcmp { pred, lhs: operands[0], rhs: operands[1], flags }
        }
        InstData::Select { flags, .. } => {
            let flags = match other {
                InstData::Select { flags: theirs, .. } if *theirs == flags => flags,
                _ => Default::default(),
            };
            InstData::Select {
                cond: operands[0],
                if_true: operands[1],
                if_false: operands[2],
                flags,
            }
        }
        InstData::Cast { op, to, flags, .. } => {
            let flags = match other {
                InstData::Cast { flags: theirs, .. } if *theirs == flags => flags,
                _ => Default::default(),
            };
            InstData::Cast { op, arg: operands[0], to: doubled(&to), flags }
        }
        InstData::Shuffle { lhs, mask, .. } => {
            // Lane g's mask entry k reads lane k of its lhs (k < n) or of
            // its rhs: lane g*n + k of the joined lhs, or of the joined rhs
            // (after the joined lhs's 2n lanes).
            let n = func.dfg.value_type(lhs).lanes().expect("shuffles take vectors") as i32;
            let other_mask = match other {
                InstData::Shuffle { mask, .. } => mask.clone(),
                _ => mask.clone(),
            };
            let joined = |group: i32, entry: i32| match entry {
                entry if entry < 0 => -1,
                entry if entry < n => group * n + entry,
                entry => 2 * n + group * n + entry - n,
            };
            let mask = mask
                .iter()
                .map(|entry| joined(0, *entry))
                .chain(other_mask.iter().map(|entry| joined(1, *entry)))
                .collect();
            InstData::Shuffle { lhs: operands[0], rhs: operands[1], mask }
        }
        InstData::Load { ty, addr, align, .. } => {
            InstData::Load { ty: doubled(&ty), addr, align, volatile: false }
        }
        InstData::Store { addr, align, .. } => {
            InstData::Store { value: operands[0], addr, align, volatile: false }
        }
        InstData::Call { args, ret_ty, effects, flags, .. } => {
            let OpKind::Intrinsic(base) = kind else {
                unreachable!("only elementwise intrinsic calls are fused")
            };
            let wide = doubled(&ret_ty);
            let suffix = intrinsic_type_suffix(&wide).expect("a vector of int or float elements");
            let scalar = super::candidates::scalar_operand_positions(base, &ret_ty);
            let mut lane_operands = operands.iter();
            let args = args
                .iter()
                .enumerate()
                .map(|(position, arg)| {
                    if scalar.contains(&position) {
                        *arg
                    } else {
                        *lane_operands.next().expect("one fused operand per lane operand")
                    }
                })
                .collect();
            let flags = match other {
                InstData::Call { flags: theirs, .. } if *theirs == flags => flags,
                _ => Default::default(),
            };
            InstData::Call {
                callee: Callee::Direct(format!("{base}.{suffix}")),
                args,
                ret_ty: wide,
                effects,
                flags,
            }
        }
        data => unreachable!("{} is not fusible", data.opcode_name()),
    }
}
