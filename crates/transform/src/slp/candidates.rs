//! The candidate pairs of one block (Foss 2013, Algorithms 1-3).
//!
//! Algorithm 1 sorts operations by type ([`Shape`]: the operation, its
//! subtype, its types); `IsFusible` keeps the operations x86 has a vector
//! form of ([`fusible_shape`]). Algorithm 2 pairs operations of one shape
//! that are independent and whose fused vector fits the target (`AreFusible`,
//! [`Candidates::are_fusible`]), and two memory accesses only when the second
//! address follows the first. Pairs are ordered: lane 0, lane 1.
//!
//! The thesis forms all n²/2 pairs of a type; here the pairs grow outwards
//! from the pairs of adjacent memory accesses, to the pairs of their
//! operands and of their users, so only pairs that some tree can hold are
//! formed (on x86 a pair that neither feeds nor is fed by another pair pays
//! more in moves than it saves) and the work stays proportional to what can
//! be fused. Algorithm 3 (the pairs using both results of a pair) is
//! [`Candidates::user_pairs`], its converse [`Candidates::operand_pairs`].

use std::collections::{HashMap, VecDeque};

use lanewise_ir::vfabi::Isa;
use lanewise_ir::{
    BinaryOp, CastOp, DataLayout, FloatPredicate, Function, Inst, InstData, IntPredicate, Type,
    UnaryOp, Value,
};

use super::dependence::BlockGraph;
use super::memory::decompose;
use super::SlpConfig;
use crate::vector_math::{elementwise_intrinsic_base, vector_intrinsic};

/// Index of a pair in [`Candidates::pairs`].
pub(crate) type PairId = usize;

/// The node of a phi lane ([`Pair::nodes`]).
pub(crate) const NO_NODE: usize = usize::MAX;

/// Most pairs formed in one block per round (compile time).
const MAX_PAIRS: usize = 4096;

/// The operation of an instruction, with its subtype.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum OpKind {
    Binary(BinaryOp),
    Unary(UnaryOp),
    Icmp(IntPredicate),
    Fcmp(FloatPredicate),
    Select,
    Cast(CastOp),
    Load,
    Store,
    /// An elementwise LLVM intrinsic, by its name without type suffix.
    Intrinsic(String),
    /// Two binary operations of one family (`add`/`sub`, `fadd`/`fsub`),
    /// lane 0's and lane 1's: both computed on all lanes, then blended.
    Alternate(BinaryOp, BinaryOp),
    /// A `shufflevector` with this mask (each lane's shuffle reads only its
    /// own operands, so two of them are one shuffle of the joined operands).
    Shuffle(Vec<i32>),
    /// A phi of a block that loops to itself, entered from one other block:
    /// a value the loop carries (its lane operand is the value from the
    /// block itself; the entry value comes in once, before the loop).
    Phi,
}

/// What two operations must share to be fused (Algorithm 1's `OpType`).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Shape {
    pub kind: OpKind,
    /// The result type (`Void` for stores).
    pub result: Type,
    /// The type of the first lane operand (the stored value of a store, the
    /// loaded type of a load).
    pub operand: Type,
}

/// One ordered pair.
#[derive(Clone, Debug)]
pub(crate) struct Pair {
    pub lanes: [Inst; 2],
    /// The lanes' nodes in the block's dependence graph ([`NO_NODE`] for
    /// phis, which are not nodes: they take effect at the block's start).
    pub nodes: [usize; 2],
    /// Lane 1 of a commutative operation takes its operands the other way
    /// round.
    pub swapped: bool,
    pub shape: Shape,
}

/// The candidate pairs of one block and how they connect.
pub(crate) struct Candidates {
    pub pairs: Vec<Pair>,
    by_lanes: HashMap<(Inst, Inst), PairId>,
    /// Per pair, per lane operand: the pair computing that operand in both
    /// lanes, if any.
    pub operand_pairs: Vec<Vec<Option<PairId>>>,
    /// Per pair: the pairs that take its results (Algorithm 3).
    pub user_pairs: Vec<Vec<PairId>>,
    /// Per pair: each lane's fused operands ([`Candidates::lane_operands`]),
    /// kept for the scores.
    operands: Vec<[Vec<Value>; 2]>,
    /// The pairs of adjacent memory accesses, stores first, in block order.
    pub seeds: Vec<PairId>,
    /// Users of each value in the block (instructions of any block).
    users: HashMap<Value, Vec<Inst>>,
}

impl Candidates {
    /// The candidate pairs of the block of `graph` grown from the memory
    /// pairs whose lane 0 is one of the nodes `seed_window` (a long block
    /// is taken a window at a time, so that the work per window stays
    /// bounded and no part of the block starves for [`MAX_PAIRS`]).
    pub fn find(
        func: &Function,
        graph: &BlockGraph,
        data_layout: &DataLayout,
        config: &SlpConfig,
        seed_window: std::ops::Range<usize>,
    ) -> Candidates {
        let mut users: HashMap<Value, Vec<Inst>> = HashMap::new();
        for inst in func.layout.insts() {
            func.dfg.inst(inst).for_each_operand(|operand| {
                users.entry(operand).or_default().push(inst);
            });
        }
        for list in users.values_mut() {
            list.dedup();
        }
        let mut candidates = Candidates {
            pairs: Vec::new(),
            by_lanes: HashMap::new(),
            operand_pairs: Vec::new(),
            user_pairs: Vec::new(),
            operands: Vec::new(),
            seeds: Vec::new(),
            users,
        };
        let mut queue = VecDeque::new();
        let seeds = memory_seeds(func, graph, data_layout).into_iter().filter(|(first, _)| {
            graph.node(*first).is_some_and(|node| seed_window.contains(&node))
        });
        let phi_seeds = if seed_window.start == 0 {
            loop_phi_seeds(func, graph, &candidates.users)
        } else {
            Vec::new()
        };
        // Memory pairs first: among trees of equal score the earlier root wins.
        for (first, second) in seeds.chain(phi_seeds) {
            if let Some(id) = candidates.add(func, graph, data_layout, config, first, second) {
                candidates.seeds.push(id);
                queue.push_back(id);
            }
        }
        while let Some(id) = queue.pop_front() {
            if candidates.pairs.len() >= MAX_PAIRS {
                break;
            }
            for (first, second) in candidates.neighbours(func, graph, id) {
                let before = candidates.pairs.len();
                if let Some(new) = candidates.add(func, graph, data_layout, config, first, second) {
                    if candidates.pairs.len() > before {
                        queue.push_back(new);
                    }
                }
            }
        }
        candidates.link(func);
        candidates
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The pair with these lanes, in this order.
    pub fn pair_of(&self, first: Inst, second: Inst) -> Option<PairId> {
        self.by_lanes.get(&(first, second)).copied()
    }

    /// The users of `value` (anywhere in the function).
    pub fn users(&self, value: Value) -> &[Inst] {
        self.users.get(&value).map_or(&[], Vec::as_slice)
    }

    /// Lane `lane`'s fused operands of `pair`, as they were when the
    /// candidates were found.
    pub fn operands_of(&self, pair: PairId, lane: usize) -> &[Value] {
        &self.operands[pair][lane]
    }

    /// Lane `lane`'s fused operands of `pair`.
    pub fn lane_operands(&self, func: &Function, pair: PairId, lane: usize) -> Vec<Value> {
        let data = &self.pairs[pair];
        let mut operands = lane_operands(func, data.lanes[lane]);
        if lane == 1 && data.swapped {
            operands.swap(0, 1);
        }
        operands
    }

    /// Adds the pair (`first`, `second`) if it is fusible; its id (also when
    /// it was there already).
    fn add(
        &mut self,
        func: &Function,
        graph: &BlockGraph,
        data_layout: &DataLayout,
        config: &SlpConfig,
        first: Inst,
        second: Inst,
    ) -> Option<PairId> {
        if let Some(id) = self.pair_of(first, second) {
            return Some(id);
        }
        let shape = self.are_fusible(func, graph, data_layout, config, first, second)?;
        let node_of = |inst: Inst| {
            graph.node(inst).or_else(|| is_loop_phi(func, graph, inst).then_some(NO_NODE))
        };
        let nodes = [node_of(first)?, node_of(second)?];
        let swapped = prefers_swapped_operands(func, first, second);
        let id = self.pairs.len();
        self.pairs.push(Pair { lanes: [first, second], nodes, swapped, shape });
        self.by_lanes.insert((first, second), id);
        Some(id)
    }

    /// `AreFusible`: the shape of the pair if `first` and `second` can be
    /// fused into one vector operation, lane 0 and lane 1.
    fn are_fusible(
        &self,
        func: &Function,
        graph: &BlockGraph,
        data_layout: &DataLayout,
        config: &SlpConfig,
        first: Inst,
        second: Inst,
    ) -> Option<Shape> {
        if first == second {
            return None;
        }
        let mut shape = fusible_shape(func, first, config)?;
        let second_shape = fusible_shape(func, second, config)?;
        if second_shape != shape {
            let (OpKind::Binary(first_op), OpKind::Binary(second_op)) =
                (&shape.kind, &second_shape.kind)
            else {
                return None;
            };
            let alternating = matches!(
                (first_op, second_op),
                (BinaryOp::Add, BinaryOp::Sub)
                    | (BinaryOp::Sub, BinaryOp::Add)
                    | (BinaryOp::FAdd, BinaryOp::FSub)
                    | (BinaryOp::FSub, BinaryOp::FAdd)
            );
            if !alternating
                || shape.result != second_shape.result
                || shape.operand != second_shape.operand
            {
                return None;
            }
            shape.kind = OpKind::Alternate(*first_op, *second_op);
        }
        if shape.kind == OpKind::Phi {
            // Phis take effect together; both must come in from one block.
            let entry = |inst: Inst| entry_of(func, graph, inst);
            return (entry(first)? == entry(second)?).then_some(shape);
        }
        let (a, b) = (graph.node(first)?, graph.node(second)?);
        if !graph.independent(a, b) {
            return None;
        }
        let (first_data, second_data) = (func.dfg.inst(first), func.dfg.inst(second));
        match (first_data, second_data) {
            (InstData::Load { addr: a, .. }, InstData::Load { addr: b, .. })
            | (InstData::Store { addr: a, .. }, InstData::Store { addr: b, .. }) => {
                let size = data_layout.store_size(if shape.kind == OpKind::Load {
                    &shape.result
                } else {
                    &shape.operand
                });
                let distance = decompose(func, *a, data_layout).distance_to(&decompose(
                    func,
                    *b,
                    data_layout,
                ))?;
                (u64::try_from(distance).ok()? == size).then_some(())?;
            }
            (
                InstData::Binary {
                    op: BinaryOp::Shl | BinaryOp::LShr | BinaryOp::AShr,
                    rhs: a,
                    ..
                },
                InstData::Binary { rhs: b, .. },
            ) if config.isa == Isa::Sse || config.isa == Isa::Avx => {
                // Before AVX2 a vector shifts all lanes by one amount.
                (a == b).then_some(())?;
            }
            (InstData::Call { args: a, ret_ty, .. }, InstData::Call { args: b, .. }) => {
                let OpKind::Intrinsic(base) = &shape.kind else { return None };
                for &position in scalar_operand_positions(base, ret_ty) {
                    (a.get(position) == b.get(position)).then_some(())?;
                }
            }
            _ => {}
        }
        Some(shape)
    }

    /// The pairs next to `id`: of its operands, lane by lane, and of its
    /// users that take lane 0's result where lane 1's user takes lane 1's.
    fn neighbours(&self, func: &Function, graph: &BlockGraph, id: PairId) -> Vec<(Inst, Inst)> {
        let mut found = Vec::new();
        let first_ops = self.lane_operands(func, id, 0);
        let second_ops = self.lane_operands(func, id, 1);
        for (x, y) in first_ops.iter().zip(&second_ops) {
            if x == y {
                continue;
            }
            let (Some(x_def), Some(y_def)) =
                (func.dfg.defining_inst(*x), func.dfg.defining_inst(*y))
            else {
                continue;
            };
            let in_block =
                |inst: Inst| graph.node(inst).is_some() || is_loop_phi(func, graph, inst);
            if in_block(x_def) && in_block(y_def) {
                found.push((x_def, y_def));
            }
        }
        let [first, second] = self.pairs[id].lanes;
        let (Some(first_value), Some(second_value)) =
            (func.dfg.result(first), func.dfg.result(second))
        else {
            return found;
        };
        for &u in self.users(first_value) {
            if graph.node(u).is_none() {
                continue;
            }
            let u_ops = lane_operands(func, u);
            for &v in self.users(second_value) {
                if u == v || graph.node(v).is_none() {
                    continue;
                }
                let v_ops = lane_operands(func, v);
                let matches = |v_ops: &[Value]| {
                    u_ops.iter().zip(v_ops).any(|(p, q)| *p == first_value && *q == second_value)
                };
                let mut swapped_v = v_ops.clone();
                if swapped_v.len() == 2 {
                    swapped_v.swap(0, 1);
                }
                if matches(&v_ops) || matches(&swapped_v) {
                    found.push((u, v));
                }
            }
        }
        found
    }

    /// Fills [`Candidates::operand_pairs`] and [`Candidates::user_pairs`].
    fn link(&mut self, func: &Function) {
        let count = self.pairs.len();
        self.operand_pairs = vec![Vec::new(); count];
        self.user_pairs = vec![Vec::new(); count];
        self.operands = (0..count)
            .map(|id| [self.lane_operands(func, id, 0), self.lane_operands(func, id, 1)])
            .collect();
        for id in 0..count {
            let [first_ops, second_ops] = &self.operands[id];
            let links: Vec<Option<PairId>> = first_ops
                .iter()
                .zip(second_ops)
                .map(|(x, y)| {
                    let x_def = func.dfg.defining_inst(*x)?;
                    let y_def = func.dfg.defining_inst(*y)?;
                    self.pair_of(x_def, y_def)
                })
                .collect();
            for producer in links.iter().flatten() {
                if !self.user_pairs[*producer].contains(&id) {
                    self.user_pairs[*producer].push(id);
                }
            }
            self.operand_pairs[id] = links;
        }
    }
}

/// The operands an instruction's vector form takes lane by lane (not the
/// address of a memory access, not the scalar operands of an intrinsic).
pub(crate) fn lane_operands(func: &Function, inst: Inst) -> Vec<Value> {
    match func.dfg.inst(inst) {
        InstData::Binary { lhs, rhs, .. }
        | InstData::Icmp { lhs, rhs, .. }
        | InstData::Fcmp { lhs, rhs, .. }
        | InstData::Shuffle { lhs, rhs, .. } => vec![*lhs, *rhs],
        InstData::Unary { arg, .. } | InstData::Cast { arg, .. } => vec![*arg],
        InstData::Select { cond, if_true, if_false, .. } => vec![*cond, *if_true, *if_false],
        InstData::Store { value, .. } => vec![*value],
        InstData::Phi { incoming, .. } => {
            let block = func.layout.inst_block(inst);
            incoming
                .iter()
                .filter(|(from, _)| Some(*from) == block)
                .map(|(_, value)| *value)
                .take(1)
                .collect()
        }
        InstData::Call { args, ret_ty, callee, .. } => {
            let base = match callee {
                lanewise_ir::Callee::Direct(name) => elementwise_intrinsic_base(name, ret_ty),
                _ => None,
            };
            let scalar = base.map_or(&[][..], |base| scalar_operand_positions(base, ret_ty));
            args.iter()
                .enumerate()
                .filter(|(position, _)| !scalar.contains(position))
                .map(|(_, arg)| *arg)
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The operand positions of intrinsic `base` that stay scalar in its
/// vector form (the `is_zero_poison` flag of `llvm.ctlz`).
pub(crate) fn scalar_operand_positions(base: &str, ret_ty: &Type) -> &'static [usize] {
    let element = ret_ty.scalar_type();
    let Some(suffix) = crate::vector_math::intrinsic_type_suffix(element) else { return &[] };
    vector_intrinsic(&format!("{base}.{suffix}"), element, 2)
        .map_or(&[][..], |intrinsic| intrinsic.scalar_operands)
}

/// `IsFusible`: the shape of `inst` if x86 has a vector form of it whose
/// doubled width fits `config`.
pub(crate) fn fusible_shape(func: &Function, inst: Inst, config: &SlpConfig) -> Option<Shape> {
    let data = func.dfg.inst(inst);
    let result =
        func.dfg.result(inst).map_or(Type::Void, |value| func.dfg.value_type(value).clone());
    let value_ty = |value: &Value| func.dfg.value_type(*value).clone();
    let avx512 = config.isa == Isa::Avx512;
    let (kind, operand) = match data {
        InstData::Binary { op, lhs, .. } => {
            let element = result.scalar_type();
            let allowed = match op {
                BinaryOp::UDiv
                | BinaryOp::SDiv
                | BinaryOp::URem
                | BinaryOp::SRem
                | BinaryOp::FRem => false,
                BinaryOp::Mul => match element.int_bits() {
                    Some(8) => false,
                    Some(64) => avx512,
                    _ => true,
                },
                _ => true,
            };
            allowed.then_some(())?;
            (OpKind::Binary(*op), value_ty(lhs))
        }
        InstData::Unary { op, arg, .. } => (OpKind::Unary(*op), value_ty(arg)),
        InstData::Icmp { pred, lhs, .. } => (OpKind::Icmp(*pred), value_ty(lhs)),
        InstData::Fcmp { pred, lhs, .. } => (OpKind::Fcmp(*pred), value_ty(lhs)),
        InstData::Select { cond, .. } => {
            // The condition must be per element: `i1` for scalars, a vector
            // of `i1` for vectors.
            (value_ty(cond).lanes() == result.lanes()).then_some(())?;
            (OpKind::Select, value_ty(cond))
        }
        InstData::Cast { op, arg, .. } => {
            let from = value_ty(arg);
            let allowed = match op {
                CastOp::Trunc | CastOp::ZExt | CastOp::SExt | CastOp::FPExt | CastOp::FPTrunc => {
                    true
                }
                CastOp::SIToFP => from.scalar_type().int_bits() == Some(32) || avx512,
                CastOp::FPToSI => result.scalar_type().int_bits() == Some(32) || avx512,
                CastOp::UIToFP | CastOp::FPToUI => avx512,
                CastOp::Bitcast => from.is_scalar() && result.is_scalar(),
                _ => false,
            };
            allowed.then_some(())?;
            (OpKind::Cast(*op), from)
        }
        InstData::Shuffle { lhs, mask, .. } => (OpKind::Shuffle(mask.clone()), value_ty(lhs)),
        InstData::Phi { ty, incoming } => {
            let block = func.layout.inst_block(inst)?;
            let from_itself = incoming.iter().filter(|(from, _)| *from == block).count();
            (incoming.len() == 2 && from_itself == 1).then_some(())?;
            (OpKind::Phi, ty.clone())
        }
        InstData::Load { ty, volatile: false, .. } => (OpKind::Load, ty.clone()),
        InstData::Store { value, volatile: false, .. } => (OpKind::Store, value_ty(value)),
        InstData::Call { callee: lanewise_ir::Callee::Direct(name), args, ret_ty, .. } => {
            let base = elementwise_intrinsic_base(name, ret_ty)?;
            let element = ret_ty.scalar_type();
            let suffix = crate::vector_math::intrinsic_type_suffix(element)?;
            let intrinsic = vector_intrinsic(&format!("{base}.{suffix}"), element, 2)?;
            // The libm ones expand to one scalar call per lane.
            intrinsic.libm_name.is_none().then_some(())?;
            let first = args.first().map(value_ty)?;
            (OpKind::Intrinsic(base.to_owned()), first)
        }
        _ => return None,
    };
    let shape = Shape { kind, result, operand };
    for ty in [&shape.result, &shape.operand] {
        if *ty != Type::Void && !fits_doubled(ty, &shape, config) {
            return None;
        }
    }
    Some(shape)
}

/// Whether `ty` (a scalar or a vector of int or float elements) can be
/// doubled within the target's vectors.
fn fits_doubled(ty: &Type, shape: &Shape, config: &SlpConfig) -> bool {
    let element = ty.scalar_type();
    let is_bool = *element == Type::BOOL;
    let valid_element = match element {
        Type::F32 | Type::F64 => true,
        Type::Int(8 | 16 | 32 | 64) => true,
        // Comparison results and select conditions only.
        Type::Int(1) => matches!(shape.kind, OpKind::Icmp(_) | OpKind::Fcmp(_) | OpKind::Select),
        _ => false,
    };
    if !valid_element {
        return false;
    }
    if is_bool {
        return ty.lanes().unwrap_or(1) * 2 <= 64;
    }
    let Some(element_bits) = element.scalar_bits() else { return false };
    let lanes = ty.lanes().unwrap_or(1);
    let limit = if element.is_int() && config.isa == Isa::Avx {
        // AVX has 256-bit floating-point operations only.
        config.max_vector_bits.min(128)
    } else {
        config.max_vector_bits
    };
    element_bits * lanes * 2 <= limit
}

/// Whether lane 1 of a commutative operation should take its operands the
/// other way round to line up with lane 0's.
fn prefers_swapped_operands(func: &Function, first: Inst, second: Inst) -> bool {
    let commutative = matches!(
        func.dfg.inst(second),
        InstData::Binary {
            op: BinaryOp::Add
                | BinaryOp::Mul
                | BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Xor
                | BinaryOp::FAdd
                | BinaryOp::FMul,
            ..
        }
    );
    if !commutative {
        return false;
    }
    let first_ops = lane_operands(func, first);
    let second_ops = lane_operands(func, second);
    let alike = |x: Value, y: Value| -> u32 {
        if x == y {
            return 2;
        }
        match (func.dfg.defining_inst(x), func.dfg.defining_inst(y)) {
            (Some(a), Some(b)) => {
                u32::from(same_operation(func.dfg.inst(a), func.dfg.inst(b)))
                    + u32::from(func.dfg.value_type(x) == func.dfg.value_type(y))
            }
            (None, None) => {
                u32::from(func.dfg.constant(x).is_some() && func.dfg.constant(y).is_some())
            }
            _ => 0,
        }
    };
    let straight = alike(first_ops[0], second_ops[0]) + alike(first_ops[1], second_ops[1]);
    let crossed = alike(first_ops[0], second_ops[1]) + alike(first_ops[1], second_ops[0]);
    crossed > straight
}

fn same_operation(a: &InstData, b: &InstData) -> bool {
    match (a, b) {
        (InstData::Binary { op: x, .. }, InstData::Binary { op: y, .. }) => x == y,
        (InstData::Cast { op: x, .. }, InstData::Cast { op: y, .. }) => x == y,
        _ => std::mem::discriminant(a) == std::mem::discriminant(b),
    }
}

/// Pairs of adjacent plain loads and of adjacent plain stores of `graph`'s
/// block: lane 1's address is lane 0's plus the access size. Loads pair
/// with both neighbours; stores pair up from the lowest address of each run
/// of adjacent stores (0-1, 2-3, ...), so that the next round can pair the
/// pairs.
fn memory_seeds(
    func: &Function,
    graph: &BlockGraph,
    data_layout: &DataLayout,
) -> Vec<(Inst, Inst)> {
    // (is a store, accessed type, base, variable terms) -> (offset, access).
    type RunKey = (bool, Type, Value, Vec<(Value, i64)>);
    let mut groups: HashMap<RunKey, Vec<(i64, Inst)>> = HashMap::new();
    let mut group_order = Vec::new();
    for &inst in &graph.nodes {
        let (is_store, ty, addr) = match func.dfg.inst(inst) {
            InstData::Load { ty, addr, volatile: false, .. } => (false, ty.clone(), *addr),
            InstData::Store { value, addr, volatile: false, .. } => {
                (true, func.dfg.value_type(*value).clone(), *addr)
            }
            _ => continue,
        };
        let address = decompose(func, addr, data_layout);
        let key = (is_store, ty, address.base, address.terms);
        let entry = groups.entry(key.clone()).or_default();
        if entry.is_empty() {
            group_order.push(key);
        }
        entry.push((address.offset, inst));
    }
    let mut stores = Vec::new();
    let mut loads = Vec::new();
    for key in group_order {
        let (is_store, ty, _, _) = &key;
        let size = i64::try_from(data_layout.store_size(ty)).unwrap_or(i64::MAX);
        let mut accesses = groups.remove(&key).unwrap_or_default();
        accesses.sort_by_key(|(offset, inst)| (*offset, graph.node(*inst)));
        accesses.dedup_by_key(|(offset, _)| *offset);
        let mut run_position = 0usize;
        for window in accesses.windows(2) {
            let [(offset, first), (next_offset, second)] = window else { continue };
            if next_offset.wrapping_sub(*offset) != size {
                run_position = 0;
                continue;
            }
            if *is_store {
                if run_position.is_multiple_of(2) {
                    stores.push((*first, *second));
                }
                run_position += 1;
            } else {
                loads.push((*first, *second));
            }
        }
    }
    stores.extend(loads);
    stores
}

/// Whether `inst` is a phi of the block of `graph` and that block loops to
/// itself.
pub(crate) fn is_loop_phi(func: &Function, graph: &BlockGraph, inst: Inst) -> bool {
    matches!(func.dfg.inst(inst), InstData::Phi { .. })
        && func.layout.inst_block(inst) == Some(graph.block)
        && func.successors(graph.block).contains(&graph.block)
}

/// The block a loop phi of `graph`'s block comes in from (its other
/// incoming block).
pub(crate) fn entry_of(
    func: &Function,
    graph: &BlockGraph,
    inst: Inst,
) -> Option<lanewise_ir::Block> {
    let InstData::Phi { incoming, .. } = func.dfg.inst(inst) else { return None };
    incoming.iter().map(|(from, _)| *from).find(|from| *from != graph.block)
}

/// Pairs of the phis of a block that loops to itself: the values the loop
/// carries, which may travel as vectors from one iteration to the next.
/// Pairs of phis of one type whose users pair up (the same operation
/// reading them at the same operand); at most 64 phis.
fn loop_phi_seeds(
    func: &Function,
    graph: &BlockGraph,
    users: &HashMap<Value, Vec<Inst>>,
) -> Vec<(Inst, Inst)> {
    if !func.successors(graph.block).contains(&graph.block) {
        return Vec::new();
    }
    let phis: Vec<Inst> = func
        .layout
        .block_insts(graph.block)
        .iter()
        .copied()
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Phi { .. }))
        .take(64)
        .collect();
    let users_of = |phi: Inst| -> &[Inst] {
        func.dfg.result(phi).and_then(|value| users.get(&value)).map_or(&[], Vec::as_slice)
    };
    let reads_at = |user: Inst, phi: Inst| -> Vec<usize> {
        let Some(value) = func.dfg.result(phi) else { return Vec::new() };
        lane_operands(func, user)
            .iter()
            .enumerate()
            .filter(|(_, operand)| **operand == value)
            .map(|(position, _)| position)
            .collect()
    };
    // Each phi in one seed at most (the first partner in block order whose
    // users pair up with its own): a loop with k carried values has about
    // k/2 seeds, not k^2, whose trees would each cover the whole body.
    let mut seeds = Vec::new();
    let mut matched: Vec<Inst> = Vec::new();
    for &p in &phis {
        if matched.contains(&p) {
            continue;
        }
        for &q in &phis {
            if p == q || matched.contains(&q) {
                continue;
            }
            let same_type = func.dfg.result(p).map(|v| func.dfg.value_type(v).clone())
                == func.dfg.result(q).map(|v| func.dfg.value_type(v).clone());
            if !same_type {
                continue;
            }
            let users_pair_up = users_of(p).iter().any(|u| {
                graph.node(*u).is_some()
                    && users_of(q).iter().any(|v| {
                        u != v
                            && graph.node(*v).is_some()
                            && same_operation(func.dfg.inst(*u), func.dfg.inst(*v))
                            && reads_at(*u, p).iter().any(|at| reads_at(*v, q).contains(at))
                    })
            });
            if users_pair_up {
                seeds.push((p, q));
                matched.extend([p, q]);
                break;
            }
        }
    }
    seeds
}
