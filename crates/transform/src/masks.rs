//! Block and edge predicates as `i1` SSA values (Karrenberg 2014, 6.1;
//! Moll & Hack, PLDI'18, section 2.4).
//!
//! Runs on the scalar function after the divergent-loop transform and loop
//! canonicalization (dedicated preheaders, single latches, one return
//! block), before linearization. For every block `b` it creates `p(b)`, true
//! in the lanes that execute `b` (in the current iteration of every loop
//! around it), and for every CFG edge `a -> s` the edge predicate `p(a->s)`.
//!
//! - Entry: the entry predicate (the mask parameter of a masked variant) or
//!   the constant `true`.
//! - Header of a transformed divergent loop: its live mask, whose entry from
//!   the preheader is set here to `p(preheader)`; the loop's exit block gets
//!   `p(preheader)` (every lane that entered leaves through it).
//! - Header of another (uniform) loop: `phi [preheader: p(preheader->h)],
//!   [latch: p(latch->h)]`; a phi that only forwards one value is removed.
//! - A block control-equivalent to its immediate dominator (it post-dominates
//!   it in the acyclic iteration graph and both are in the same innermost
//!   loop) shares its predicate: the join block of a diamond has the
//!   predicate of the branch block (no blend of masks is needed).
//! - Any other block: the disjunction of its incoming edge predicates.
//! - Edges: `p(a)` for a jump; `select(p(a), c, false)` and
//!   `select(p(a), !c, false)` for a branch on `c` (a `select`, not an `and`,
//!   so that a poison condition in an inactive lane gives `false`, not
//!   poison); a switch compares the value with every case (`icmp eq`), the
//!   default edge is "none of the cases". The pure latch's edge back to the
//!   header is the continue mask of its loop.
//!
//! Next to each predicate this records whether it is *uniform*: built only
//! from the uniform entry and uniform branches. Such a block has a uniform
//! predicate (`uni(b)` of PLDI'18), and by Theorem 4.1 the linearized
//! function reaches it exactly when the predicate holds, so it needs no
//! masking in an unmasked variant.
//!
//! Predicates are placed where they are computed (block predicates at the
//! top of their block, edge predicates before the terminator of the source);
//! after linearization SSA repair makes them available where they are used,
//! with `false` on paths where they are not computed.

use std::collections::{HashMap, HashSet};

use lanewise_ir::dominators::GenericDominatorTree;
use lanewise_ir::{
    BinaryOp, Block, EntityRef, FastMathFlags, Function, InstData, IntPredicate, SecondaryMap,
    Type, Value,
};

use crate::cfg_canon::{
    block_phis, bool_const, insert_before_terminator, insert_phi, is_bool_const, phi_incoming,
    replace_uses, result_of, set_phi_incoming, CfgSnapshot,
};
use crate::divergent_loops::DivergentLoop;

/// What mask generation needs besides the function.
pub struct MaskInput<'a> {
    /// Blocks ending in a branch or switch that is folded (divergent).
    pub divergent_branches: &'a HashSet<Block>,
    /// Loops rewritten by the divergent-loop transform.
    pub divergent_loops: &'a [DivergentLoop],
    /// The mask parameter of a masked variant, `None` for all lanes.
    pub entry_predicate: Option<Value>,
}

/// Block and edge predicates of a function.
#[derive(Clone, Debug, Default)]
pub struct Masks {
    block: SecondaryMap<Block, Option<Value>>,
    block_uniform: SecondaryMap<Block, bool>,
    edge: HashMap<(Block, Block), Value>,
    edge_uniform: HashMap<(Block, Block), bool>,
    /// Every value that is a predicate (SSA repair completes them with `false`).
    pub mask_values: HashSet<Value>,
}

impl Masks {
    /// The predicate of `block`.
    pub fn block_predicate(&self, block: Block) -> Option<Value> {
        self.block[block]
    }

    /// Replaces the predicate of `block` (a value that equals it whenever
    /// `block` runs).
    pub fn set_block_predicate(&mut self, block: Block, predicate: Value) {
        self.block[block] = Some(predicate);
    }

    /// Whether the predicate of `block` is uniform.
    pub fn is_block_uniform(&self, block: Block) -> bool {
        self.block_uniform[block]
    }

    /// The predicate of the edge `source -> target`.
    pub fn edge_predicate(&self, source: Block, target: Block) -> Option<Value> {
        self.edge.get(&(source, target)).copied()
    }

    /// Replaces predicate values (after a value was found redundant or repaired).
    pub fn rename(&mut self, replacements: &HashMap<Value, Value>) {
        let resolve = |value: Value| {
            let mut value = value;
            while let Some(next) = replacements.get(&value) {
                value = *next;
            }
            value
        };
        let blocks: Vec<Block> = self.block.keys().collect();
        for block in blocks {
            if let Some(value) = self.block[block] {
                self.block[block] = Some(resolve(value));
            }
        }
        for value in self.edge.values_mut() {
            *value = resolve(*value);
        }
    }
}

/// Emits predicate instructions into blocks.
struct MaskBuilder<'f> {
    func: &'f mut Function,
    mask_values: HashSet<Value>,
    true_value: Value,
    false_value: Value,
}

impl MaskBuilder<'_> {
    fn record(&mut self, inst: lanewise_ir::Inst) -> Value {
        let value = result_of(self.func, inst);
        self.mask_values.insert(value);
        value
    }

    /// `select(p, c, false)` before the terminator of `block`.
    fn and_at_end(&mut self, block: Block, predicate: Value, cond: Value) -> Value {
        if is_bool_const(self.func, predicate, true) {
            return cond;
        }
        if is_bool_const(self.func, cond, true) {
            return predicate;
        }
        if is_bool_const(self.func, predicate, false) || is_bool_const(self.func, cond, false) {
            return self.false_value;
        }
        let data = InstData::Select {
            cond: predicate,
            if_true: cond,
            if_false: self.false_value,
            flags: FastMathFlags::default(),
        };
        let inst = insert_before_terminator(self.func, block, data, Type::BOOL);
        self.record(inst)
    }

    fn binary_at_end(&mut self, block: Block, op: BinaryOp, lhs: Value, rhs: Value) -> Value {
        let data = InstData::Binary { op, lhs, rhs, flags: Default::default() };
        let inst = insert_before_terminator(self.func, block, data, Type::BOOL);
        self.record(inst)
    }

    fn not_at_end(&mut self, block: Block, cond: Value) -> Value {
        if is_bool_const(self.func, cond, true) {
            return self.false_value;
        }
        if is_bool_const(self.func, cond, false) {
            return self.true_value;
        }
        self.binary_at_end(block, BinaryOp::Xor, cond, self.true_value)
    }

    fn or_at_end(&mut self, block: Block, lhs: Value, rhs: Value) -> Value {
        if is_bool_const(self.func, lhs, false) {
            return rhs;
        }
        if is_bool_const(self.func, rhs, false) {
            return lhs;
        }
        if is_bool_const(self.func, lhs, true) || is_bool_const(self.func, rhs, true) {
            return self.true_value;
        }
        self.binary_at_end(block, BinaryOp::Or, lhs, rhs)
    }

    /// The disjunction of `values` at the top of `block` (after its phis and
    /// the predicate code already placed there).
    fn or_at_top(&mut self, block: Block, cursor: &mut usize, values: &[Value]) -> Value {
        let mut result = self.false_value;
        for value in values {
            if is_bool_const(self.func, *value, false) {
                continue;
            }
            if is_bool_const(self.func, result, false) {
                result = *value;
                continue;
            }
            if is_bool_const(self.func, *value, true) || is_bool_const(self.func, result, true) {
                result = self.true_value;
                continue;
            }
            let data = InstData::Binary {
                op: BinaryOp::Or,
                lhs: result,
                rhs: *value,
                flags: Default::default(),
            };
            let inst = self.func.dfg.make_inst(data, Type::BOOL);
            let position = block_phis(self.func, block).len() + *cursor;
            self.func.layout.insert_inst_at(inst, block, position);
            *cursor += 1;
            result = self.record(inst);
        }
        result
    }
}

/// Creates the block and edge predicates of `func` (see the module docs).
pub fn generate_masks(func: &mut Function, snapshot: &CfgSnapshot, input: &MaskInput<'_>) -> Masks {
    let cfg = &snapshot.cfg;
    let loops = &snapshot.loops;
    let domtree = &snapshot.domtree;

    // Post-dominators of the acyclic iteration graph (back edges removed,
    // blocks without other successors lead to a virtual sink).
    let sink = Block::new(func.dfg.blocks.len());
    let mut dag_preds: HashMap<Block, Vec<Block>> = HashMap::new();
    for &block in cfg.reverse_post_order() {
        let forward: Vec<Block> = cfg
            .succs(block)
            .iter()
            .copied()
            .filter(|succ| !snapshot.is_back_edge(block, *succ))
            .collect();
        if forward.is_empty() {
            dag_preds.entry(sink).or_default().push(block);
        }
        for succ in forward {
            dag_preds.entry(succ).or_default().push(block);
        }
    }
    let postdom = GenericDominatorTree::compute(sink, |node: Block| {
        dag_preds.get(&node).cloned().unwrap_or_default()
    });

    let divergent_by_header: HashMap<Block, &DivergentLoop> =
        input.divergent_loops.iter().map(|record| (record.header, record)).collect();
    let divergent_by_exit: HashMap<Block, &DivergentLoop> =
        input.divergent_loops.iter().map(|record| (record.exit_block, record)).collect();
    let pure_latches: HashSet<Block> =
        input.divergent_loops.iter().map(|record| record.pure_latch).collect();

    let true_value = bool_const(func, true);
    let false_value = bool_const(func, false);
    let mut masks = Masks::default();
    let mut builder = MaskBuilder { func, mask_values: HashSet::new(), true_value, false_value };
    for record in input.divergent_loops {
        builder.mask_values.extend(record.mask_values.iter().copied());
    }
    let mut uniform_header_phis: Vec<(Block, lanewise_ir::Inst)> = Vec::new();
    let entry = cfg.entry_block();

    for &block in cfg.reverse_post_order() {
        let mut cursor = 0;
        // The block predicate.
        let (predicate, uniform) = if Some(block) == entry {
            match input.entry_predicate {
                Some(mask) => (mask, false),
                None => (true_value, true),
            }
        } else if let Some(record) = divergent_by_header.get(&block) {
            let entry_mask = masks.edge[&(record.preheader, block)];
            let live_inst =
                builder.func.dfg.defining_inst(record.live_mask).expect("live mask is a phi");
            let entries: Vec<(Block, Value)> = phi_incoming(builder.func, live_inst)
                .into_iter()
                .map(
                    |(from, value)| {
                        if from == record.preheader {
                            (from, entry_mask)
                        } else {
                            (from, value)
                        }
                    },
                )
                .collect();
            set_phi_incoming(builder.func, live_inst, entries);
            (record.live_mask, false)
        } else if let Some(record) = divergent_by_exit.get(&block) {
            (
                masks.block[record.preheader].expect("preheader visited"),
                masks.block_uniform[record.preheader],
            )
        } else if let Some(lp) = loops.loop_of_header(block) {
            let incoming: Vec<(Block, Value)> = cfg
                .preds(block)
                .iter()
                .filter(|pred| !loops.contains(lp, **pred))
                .map(|pred| (*pred, masks.edge[&(*pred, block)]))
                .collect();
            let uniform = cfg
                .preds(block)
                .iter()
                .filter(|pred| !loops.contains(lp, **pred))
                .all(|pred| masks.edge_uniform[&(*pred, block)]);
            let phi = insert_phi(builder.func, block, Type::BOOL, incoming);
            builder.mask_values.insert(phi);
            uniform_header_phis.push((block, builder.func.dfg.defining_inst(phi).expect("phi")));
            (phi, uniform)
        } else {
            let idom = domtree.idom(block).expect("reachable block has an immediate dominator");
            let equivalent = postdom.dominates(block, idom)
                && loops.innermost_loop(block) == loops.innermost_loop(idom);
            if equivalent {
                (masks.block[idom].expect("dominator visited"), masks.block_uniform[idom])
            } else {
                let preds = cfg.preds(block).to_vec();
                let values: Vec<Value> =
                    preds.iter().map(|pred| masks.edge[&(*pred, block)]).collect();
                let uniform = preds.iter().all(|pred| masks.edge_uniform[&(*pred, block)]);
                (builder.or_at_top(block, &mut cursor, &values), uniform)
            }
        };
        masks.block[block] = Some(predicate);
        masks.block_uniform[block] = uniform;

        // Edge predicates.
        let Some(terminator) = builder.func.terminator(block) else { continue };
        let data = builder.func.dfg.inst(terminator).clone();
        let folded = input.divergent_branches.contains(&block);
        let branch_uniform = uniform && !folded;
        if pure_latches.contains(&block) {
            let record = input
                .divergent_loops
                .iter()
                .find(|record| record.pure_latch == block)
                .expect("pure latch has a record");
            masks.edge.insert((block, record.header), record.continue_mask);
            masks.edge_uniform.insert((block, record.header), false);
            continue;
        }
        match data {
            InstData::Jump { dest } => {
                masks.edge.insert((block, dest), predicate);
                masks.edge_uniform.insert((block, dest), uniform);
            }
            InstData::Branch { cond, then_dest, else_dest } => {
                if then_dest == else_dest {
                    masks.edge.insert((block, then_dest), predicate);
                    masks.edge_uniform.insert((block, then_dest), uniform);
                } else {
                    let taken = builder.and_at_end(block, predicate, cond);
                    let negated = builder.not_at_end(block, cond);
                    let not_taken = builder.and_at_end(block, predicate, negated);
                    masks.edge.insert((block, then_dest), taken);
                    masks.edge.insert((block, else_dest), not_taken);
                    masks.edge_uniform.insert((block, then_dest), branch_uniform);
                    masks.edge_uniform.insert((block, else_dest), branch_uniform);
                }
            }
            InstData::Switch { value, default, cases } => {
                let ty = builder.func.dfg.value_type(value).clone();
                let mut equalities: Vec<(Block, Value)> = Vec::new();
                for (case, target) in &cases {
                    let constant = builder.func.dfg.int_const(ty.clone(), *case);
                    let data = InstData::Icmp { pred: IntPredicate::Eq, lhs: value, rhs: constant };
                    let inst = insert_before_terminator(builder.func, block, data, Type::BOOL);
                    equalities.push((*target, builder.record(inst)));
                }
                let mut any_case = false_value;
                for (_, equal) in &equalities {
                    any_case = builder.or_at_end(block, any_case, *equal);
                }
                let no_case = builder.not_at_end(block, any_case);
                let mut targets: Vec<Block> = vec![default];
                targets.extend(cases.iter().map(|(_, target)| *target));
                let mut seen = Vec::new();
                for target in targets {
                    if seen.contains(&target) {
                        continue;
                    }
                    seen.push(target);
                    let mut cond = if target == default { no_case } else { false_value };
                    for (case_target, equal) in &equalities {
                        if *case_target == target {
                            cond = builder.or_at_end(block, cond, *equal);
                        }
                    }
                    let edge = builder.and_at_end(block, predicate, cond);
                    masks.edge.insert((block, target), edge);
                    masks.edge_uniform.insert((block, target), branch_uniform);
                }
            }
            _ => {}
        }
    }

    // Latch entries of the uniform loops' header predicates; phis that only
    // forward one value are replaced by it.
    let mut replacements: HashMap<Value, Value> = HashMap::new();
    for (header, phi) in uniform_header_phis {
        let phi_value = result_of(builder.func, phi);
        let lp = loops.loop_of_header(header).expect("header of a loop");
        let mut entries = phi_incoming(builder.func, phi);
        for latch in loops.latches(lp) {
            entries.push((*latch, masks.edge[&(*latch, header)]));
        }
        set_phi_incoming(builder.func, phi, entries.clone());
        let others: HashSet<Value> =
            entries.iter().map(|(_, value)| *value).filter(|value| *value != phi_value).collect();
        if others.len() == 1 {
            let only = *others.iter().next().expect("one value");
            builder.func.layout.remove_inst(phi);
            replacements.insert(phi_value, only);
        }
    }
    replace_uses(builder.func, &replacements);
    masks.rename(&replacements);
    masks.mask_values = builder.mask_values;
    masks
}
