//! CFG canonicalization for linearization, and small CFG-editing helpers.
//!
//! Partial linearization (Moll & Hack, PLDI'18, section 2.1) assumes a CFG in
//! which every block is reachable, every loop has a single latch, and
//! complete paths end in one exit block: a block with no successors cannot
//! honour deferred edges (Figure 5 would drop them). The design brief's
//! pipeline names these steps "canonicalize (single exit, loop-simplify)".
//! This module provides them as plain functions over a [`Function`]:
//!
//! - [`remove_unreachable_blocks`]: blocks the entry cannot reach leave the
//!   layout (phi entries from them are dropped).
//! - [`fold_branches_to_unreachable`]: edges into blocks that do nothing but
//!   `unreachable` are dropped, as LLVM's SimplifyCFG does (taking them is
//!   undefined behaviour). clang leaves them for a `switch` whose default
//!   cannot happen; inside a SIMD loop such an edge would count as a second
//!   exit, and in a variant as a divergent branch.
//! - [`unify_exits`]: every `ret` and `unreachable` becomes a jump to one
//!   return block whose phi collects the return values (`poison` from former
//!   `unreachable` blocks: a lane reaching them had undefined behaviour, and
//!   a linearized `unreachable` would run for inactive lanes).
//! - [`ensure_preheader`]: a dedicated preheader, the only predecessor of the
//!   header outside the loop, ending in a jump to the header.
//! - [`ensure_jump_latch`]: a single latch ending in `jump header`.
//!
//! Each helper keeps phis consistent with the new predecessors. None keeps
//! analyses up to date: recompute a [`CfgSnapshot`] after every edit.

use std::collections::{HashMap, HashSet};

use lanewise_analysis::{IrreducibleError, Loop, LoopInfo};
use lanewise_ir::cfg::ControlFlowGraph;
use lanewise_ir::dominators::DominatorTree;
use lanewise_ir::{Block, Constant, Function, Inst, InstData, Type, Value};

/// The CFG, dominator tree and loop forest of a function at one moment.
pub struct CfgSnapshot {
    pub cfg: ControlFlowGraph,
    pub domtree: DominatorTree,
    pub loops: LoopInfo,
}

impl CfgSnapshot {
    /// Computes all three; fails on irreducible control flow.
    pub fn compute(func: &Function) -> Result<CfgSnapshot, IrreducibleError> {
        let cfg = ControlFlowGraph::compute(func);
        let domtree = DominatorTree::compute(func, &cfg);
        let loops = LoopInfo::compute(func, &cfg, &domtree)?;
        Ok(CfgSnapshot { cfg, domtree, loops })
    }

    /// Whether `source -> target` is a back edge (its target is the header
    /// of a loop containing its source).
    pub fn is_back_edge(&self, source: Block, target: Block) -> bool {
        self.loops.loop_of_header(target).is_some_and(|lp| self.loops.contains(lp, source))
    }

    /// Loops ordered innermost first (deeper loops before their parents).
    pub fn loops_innermost_first(&self) -> Vec<Loop> {
        let mut loops: Vec<Loop> = self.loops.loops().collect();
        loops.sort_by_key(|lp| std::cmp::Reverse(self.loops.depth(*lp)));
        loops
    }
}

/// The phi instructions at the top of `block`.
pub fn block_phis(func: &Function, block: Block) -> Vec<Inst> {
    func.layout
        .block_insts(block)
        .iter()
        .copied()
        .take_while(|inst| matches!(func.dfg.inst(*inst), InstData::Phi { .. }))
        .collect()
}

/// The incoming entries of a phi instruction.
pub fn phi_incoming(func: &Function, phi: Inst) -> Vec<(Block, Value)> {
    match func.dfg.inst(phi) {
        InstData::Phi { incoming, .. } => incoming.clone(),
        _ => Vec::new(),
    }
}

/// Replaces the incoming entries of a phi instruction.
pub fn set_phi_incoming(func: &mut Function, phi: Inst, entries: Vec<(Block, Value)>) {
    if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
        *incoming = entries;
    }
}

/// The result value of an instruction that has one.
pub fn result_of(func: &Function, inst: Inst) -> Value {
    func.dfg.result(inst).expect("instruction with a result")
}

/// Creates a phi at the top of `block` (after its other phis).
pub fn insert_phi(
    func: &mut Function,
    block: Block,
    ty: Type,
    incoming: Vec<(Block, Value)>,
) -> Value {
    let position = block_phis(func, block).len();
    let inst = func.dfg.make_inst(InstData::Phi { ty: ty.clone(), incoming }, ty);
    func.layout.insert_inst_at(inst, block, position);
    result_of(func, inst)
}

/// Creates an instruction right before the terminator of `block`.
pub fn insert_before_terminator(
    func: &mut Function,
    block: Block,
    data: InstData,
    ty: Type,
) -> Inst {
    let inst = func.dfg.make_inst(data, ty);
    match func.terminator(block) {
        Some(terminator) => func.layout.insert_inst_before(inst, terminator),
        None => func.layout.append_inst(inst, block),
    }
    inst
}

/// Creates a new empty block placed in the layout right after `after`.
pub fn new_block_after(func: &mut Function, after: Block, name: String) -> Block {
    let block = func.dfg.make_block(Some(name));
    func.layout.insert_block_after(block, after);
    block
}

/// A poison constant of type `ty`.
pub fn poison(func: &mut Function, ty: Type) -> Value {
    func.dfg.make_const(ty, Constant::Poison)
}

/// The `i1` constant `value`.
pub fn bool_const(func: &mut Function, value: bool) -> Value {
    func.dfg.int_const(Type::BOOL, u128::from(value))
}

/// Whether `value` is the `i1` constant `expected`.
pub fn is_bool_const(func: &Function, value: Value, expected: bool) -> bool {
    func.dfg.value_type(value) == &Type::BOOL
        && func.dfg.int_constant(value) == Some(u128::from(expected))
}

/// Replaces every use of the keys of `replacements` (operands and phi
/// entries) by their values, following chains (`a -> b -> c`).
pub fn replace_uses(func: &mut Function, replacements: &HashMap<Value, Value>) {
    if replacements.is_empty() {
        return;
    }
    let resolve = |mut value: Value| {
        let mut steps = 0;
        while let Some(next) = replacements.get(&value) {
            value = *next;
            steps += 1;
            if steps > replacements.len() {
                break;
            }
        }
        value
    };
    let insts: Vec<Inst> = func.layout.insts().collect();
    for inst in insts {
        func.dfg.inst_mut(inst).map_operands(resolve);
    }
}

/// Renames the incoming block `from` to `to` in every phi of `block`.
pub fn rename_phi_predecessor(func: &mut Function, block: Block, from: Block, to: Block) {
    for phi in block_phis(func, block) {
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
            for entry in incoming.iter_mut() {
                if entry.0 == from {
                    entry.0 = to;
                }
            }
        }
    }
}

/// Whether `block` does nothing but `unreachable` (phis aside): reaching it
/// is undefined behaviour. A block that calls a function first (`abort`,
/// `__assert_fail`) is a real path and does not count.
fn is_dead_end(func: &Function, block: Block) -> bool {
    let insts = func.layout.block_insts(block);
    matches!(insts.last().map(|inst| func.dfg.inst(*inst)), Some(InstData::Unreachable))
        && insts[..insts.len() - 1]
            .iter()
            .all(|inst| matches!(func.dfg.inst(*inst), InstData::Phi { .. }))
}

/// Drops the branch and switch edges into dead-end blocks (see
/// [`is_dead_end`]): a conditional branch with one dead-end target becomes a
/// jump to the other; a switch loses its dead-end cases, and a dead-end
/// default is replaced by the target of the last live case (whose cases
/// then go, being the default). Terminators whose targets are all dead ends
/// stay. Blocks no longer reached are removed. Returns how many terminators
/// changed.
pub fn fold_branches_to_unreachable(func: &mut Function) -> usize {
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    let dead: HashSet<Block> =
        blocks.iter().copied().filter(|block| is_dead_end(func, *block)).collect();
    if dead.is_empty() {
        return 0;
    }
    let mut changed = 0;
    for block in blocks {
        let Some(terminator) = func.terminator(block) else { continue };
        let replacement = match func.dfg.inst(terminator) {
            InstData::Branch { then_dest, else_dest, .. } => {
                match (dead.contains(then_dest), dead.contains(else_dest)) {
                    (true, false) => Some(InstData::Jump { dest: *else_dest }),
                    (false, true) => Some(InstData::Jump { dest: *then_dest }),
                    _ => None,
                }
            }
            InstData::Switch { value, default, cases } => {
                let live: Vec<(u128, Block)> =
                    cases.iter().copied().filter(|(_, dest)| !dead.contains(dest)).collect();
                match (dead.contains(default), live.last()) {
                    (false, _) if live.len() == cases.len() => None,
                    (false, _) => {
                        Some(InstData::Switch { value: *value, default: *default, cases: live })
                    }
                    (true, None) => None,
                    (true, Some(&(_, new_default))) => {
                        let cases: Vec<(u128, Block)> =
                            live.into_iter().filter(|(_, dest)| *dest != new_default).collect();
                        Some(if cases.is_empty() {
                            InstData::Jump { dest: new_default }
                        } else {
                            InstData::Switch { value: *value, default: new_default, cases }
                        })
                    }
                }
            }
            _ => None,
        };
        if let Some(data) = replacement {
            *func.dfg.inst_mut(terminator) = data;
            changed += 1;
            for target in &dead {
                if !func.successors(block).contains(target) {
                    for phi in block_phis(func, *target) {
                        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
                            incoming.retain(|(from, _)| *from != block);
                        }
                    }
                }
            }
        }
    }
    remove_unreachable_blocks(func);
    changed
}

/// Removes the blocks the entry cannot reach; drops phi entries from them.
/// Returns how many blocks were removed.
pub fn remove_unreachable_blocks(func: &mut Function) -> usize {
    let cfg = ControlFlowGraph::compute(func);
    let unreachable: Vec<Block> =
        func.layout.blocks().iter().copied().filter(|block| !cfg.is_reachable(*block)).collect();
    for block in &unreachable {
        func.layout.remove_block(*block);
    }
    if !unreachable.is_empty() {
        let blocks: Vec<Block> = func.layout.blocks().to_vec();
        for block in blocks {
            for phi in block_phis(func, block) {
                if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
                    incoming.retain(|(from, _)| !unreachable.contains(from));
                }
            }
        }
    }
    unreachable.len()
}

/// Makes one block the only one that returns. Returns the exit block, or
/// `None` if no block returns or ends in `unreachable` (the function never
/// exits, which linearization cannot handle).
pub fn unify_exits(func: &mut Function) -> Option<Block> {
    let mut returns = Vec::new();
    let mut unreachables = Vec::new();
    for &block in func.layout.blocks() {
        let Some(terminator) = func.terminator(block) else { continue };
        match func.dfg.inst(terminator) {
            InstData::Return { value } => returns.push((block, terminator, *value)),
            InstData::Unreachable => unreachables.push((block, terminator)),
            _ => {}
        }
    }
    if returns.len() == 1 && unreachables.is_empty() {
        return Some(returns[0].0);
    }
    if returns.is_empty() && unreachables.is_empty() {
        return None;
    }
    let last = *func.layout.blocks().last().expect("function with blocks");
    let exit = new_block_after(func, last, "exit.unified".to_owned());
    let ret_ty = func.ret_ty.clone();
    let mut incoming = Vec::new();
    for (block, terminator, value) in &returns {
        if let Some(value) = value {
            incoming.push((*block, *value));
        }
        *func.dfg.inst_mut(*terminator) = InstData::Jump { dest: exit };
    }
    for (block, terminator) in &unreachables {
        if ret_ty != Type::Void {
            let undefined = poison(func, ret_ty.clone());
            incoming.push((*block, undefined));
        }
        *func.dfg.inst_mut(*terminator) = InstData::Jump { dest: exit };
    }
    let value = if ret_ty == Type::Void {
        None
    } else if incoming.iter().all(|(_, value)| *value == incoming[0].1) {
        Some(incoming[0].1)
    } else {
        Some(insert_phi(func, exit, ret_ty, incoming))
    };
    func.append(exit, InstData::Return { value }, Type::Void);
    Some(exit)
}

/// Moves the phi entries of `header` that come from `moved_preds` into a new
/// phi of `new_pred` (or forwards the single common value), and lets the
/// header's phi take that value from `new_pred`.
fn route_phi_entries_through(
    func: &mut Function,
    header: Block,
    moved_preds: &[Block],
    new_pred: Block,
) {
    for phi in block_phis(func, header) {
        let ty = func.dfg.value_type(result_of(func, phi)).clone();
        let incoming = phi_incoming(func, phi);
        let (moved, kept): (Vec<_>, Vec<_>) =
            incoming.into_iter().partition(|(block, _)| moved_preds.contains(block));
        let Some(first) = moved.first() else { continue };
        let forwarded = if moved.iter().all(|(_, value)| *value == first.1) {
            first.1
        } else {
            insert_phi(func, new_pred, ty, moved)
        };
        let mut entries = kept;
        entries.push((new_pred, forwarded));
        set_phi_incoming(func, phi, entries);
    }
}

/// Gives loop `lp` a dedicated preheader and returns it.
pub fn ensure_preheader(func: &mut Function, snapshot: &CfgSnapshot, lp: Loop) -> Block {
    let header = snapshot.loops.header(lp);
    let outside: Vec<Block> = snapshot
        .cfg
        .preds(header)
        .iter()
        .copied()
        .filter(|pred| !snapshot.loops.contains(lp, *pred))
        .collect();
    if let [single] = outside.as_slice() {
        if func.successors(*single) == vec![header] {
            return *single;
        }
    }
    let name = format!("{}.preheader", func.block_name(header));
    let position = func.layout.blocks().iter().position(|block| *block == header).unwrap_or(1);
    let after = func.layout.blocks()[position.saturating_sub(1)];
    let preheader = new_block_after(func, after, name);
    for pred in &outside {
        let terminator = func.terminator(*pred).expect("predecessor ends in a terminator");
        func.dfg.inst_mut(terminator).replace_successor(header, preheader);
    }
    route_phi_entries_through(func, header, &outside, preheader);
    func.append(preheader, InstData::Jump { dest: header }, Type::Void);
    preheader
}

/// Gives loop `lp` a single latch ending in `jump header` and returns it.
pub fn ensure_jump_latch(func: &mut Function, snapshot: &CfgSnapshot, lp: Loop) -> Block {
    let header = snapshot.loops.header(lp);
    let latches = snapshot.loops.latches(lp).to_vec();
    if let [single] = latches.as_slice() {
        let terminator = func.terminator(*single).expect("latch ends in a terminator");
        if matches!(func.dfg.inst(terminator), InstData::Jump { .. }) {
            return *single;
        }
    }
    let name = format!("{}.latch", func.block_name(header));
    let last_latch = *latches.last().expect("a loop has a latch");
    let latch = new_block_after(func, last_latch, name);
    for old in &latches {
        let terminator = func.terminator(*old).expect("latch ends in a terminator");
        func.dfg.inst_mut(terminator).replace_successor(header, latch);
    }
    route_phi_entries_through(func, header, &latches, latch);
    func.append(latch, InstData::Jump { dest: header }, Type::Void);
    latch
}

#[cfg(test)]
mod tests {
    use lanewise_ir::{BinaryOp, CallEffects, Callee, FunctionBuilder, IntPredicate};

    use super::*;

    /// `switch (x & 3)` whose default is `unreachable` (as clang emits when
    /// every value has a case), plus a branch to an `unreachable` block and
    /// one to a block that calls `abort` first (a real path, kept).
    #[test]
    fn edges_into_unreachable_blocks_are_dropped() {
        let mut func = Function::new("f", vec![Type::I32], Type::I32);
        let x = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let case0 = b.create_block(Some("case0"));
        let case1 = b.create_block(Some("case1"));
        let impossible = b.create_block(Some("impossible"));
        let checked = b.create_block(Some("checked"));
        let aborts = b.create_block(Some("aborts"));
        let end = b.create_block(Some("end"));
        b.switch_to_block(entry);
        let one = b.iconst(Type::I32, 1);
        let low = b.binary(BinaryOp::And, x, one);
        b.ins(
            InstData::Switch {
                value: low,
                default: impossible,
                cases: vec![(0, case0), (1, case1)],
            },
            Type::Void,
        );
        b.switch_to_block(case0);
        let negative = b.icmp(IntPredicate::Slt, x, one);
        b.branch(negative, impossible, checked);
        b.switch_to_block(case1);
        b.jump(checked);
        b.switch_to_block(checked);
        let big = b.icmp(IntPredicate::Sgt, x, one);
        b.branch(big, aborts, end);
        b.switch_to_block(aborts);
        b.call(Callee::Direct("abort".into()), vec![], Type::Void, CallEffects::SideEffects);
        b.ins(InstData::Unreachable, Type::Void);
        b.switch_to_block(impossible);
        b.ins(InstData::Unreachable, Type::Void);
        b.switch_to_block(end);
        b.ret(Some(x));

        assert_eq!(fold_branches_to_unreachable(&mut func), 2);
        assert!(!func.layout.blocks().contains(&impossible));
        assert!(func.layout.blocks().contains(&aborts));
        assert_eq!(func.successors(entry), vec![case1, case0]);
        assert_eq!(func.successors(case0), vec![checked]);
        assert_eq!(func.successors(checked), vec![aborts, end]);
        lanewise_ir::verifier::verify_function(&func).expect("valid after folding");
    }
}
