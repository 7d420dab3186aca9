//! Register copies of an iteration number turned back into loads.
//!
//! Where the assignment is inside an inner loop, or behind merges that
//! [`super::header_recurrence`] does not match, clang's `-O3` keeps the
//! number in phis of inner loop headers and merge blocks:
//!
//! ```text
//! body:   %p0 = load i32, ptr @.pl_cond.x.iv
//! inner:  %p = phi i32 [%p0, %body], [%u, %inner.latch]
//!         %older = icmp slt i64 %iv, (sext i32 %p)
//!         br i1 %older, label %inner.latch, label %assign
//! assign: store i32 %t, ptr @.pl_cond.x.iv ; ...
//! inner.latch: %u = phi i32 [%t, %assign], [%p, %inner]
//! ```
//!
//! At every point, a phi like `%p` equals what the global holds (its
//! incoming values are loads of it with no store in between, or the value
//! just stored to it). So a load of the global in place of `%p` computes
//! the same in the scalar loop; in the vector loop it sees the other
//! lanes' assignments too, which the protocol needs (see the parent
//! module).
//!
//! [`Mirrors`] is that fact as a forward must-analysis over the function:
//! the values known to equal the global's contents at the entry of each
//! block. A load of the global adds its result, a store makes its stored
//! value the only one, a call with side effects empties the set (only the
//! function itself names the global, but a callee might in principle run
//! the same loop), and at a block's entry the set is the intersection over
//! the predecessors plus the phis whose every incoming value is in its
//! predecessor's set. Everything else leaves the global alone:
//! [`only_loaded_and_stored`] checks that the global's address is used by
//! nothing but plain loads and stores of one type, so no other pointer
//! reaches it.
//!
//! Each reader of a copy held in a loop phi (a non-phi instruction, or a
//! phi after the loop through an edge from outside the loop)
//! then reads a fresh load at its point, and the phis that carried the
//! copy, now read only by each other, are removed. Where a copy is not
//! known to equal the global (a call with side effects in between), it
//! stays, and the parent module refuses the loop.

use std::collections::{BTreeSet, HashMap, HashSet};

use lanewise_ir::cfg::ControlFlowGraph;
use lanewise_ir::{Block, CallEffects, Function, Inst, InstData, Type, Value};

use super::iteration_number_global;

/// Rewrites the readers of register copies of every `.iv` global the loop
/// stores to (see the module docs); returns how many readers now load.
pub(super) fn reload_iteration_numbers(func: &mut Function, in_loop: &HashSet<Block>) -> usize {
    let mut reloaded = 0;
    for global in stored_globals(func, in_loop) {
        let Some(access) = only_loaded_and_stored(func, &global) else { continue };
        let mirrors = Mirrors::compute(func, &global);
        reloaded += reload(func, in_loop, &global, &access, &mirrors);
    }
    reloaded
}

/// The `.iv` globals that stores in the loop write.
fn stored_globals(func: &Function, in_loop: &HashSet<Block>) -> BTreeSet<String> {
    func.layout
        .blocks()
        .iter()
        .filter(|block| in_loop.contains(block))
        .flat_map(|block| func.layout.block_insts(*block).iter())
        .filter_map(|inst| match func.dfg.inst(*inst) {
            InstData::Store { addr, .. } => iteration_number_global(func, *addr),
            _ => None,
        })
        .map(str::to_owned)
        .collect()
}

/// How the function accesses a global: the type and alignment of its loads
/// and stores.
struct Access {
    ty: Type,
    align: u32,
}

/// If the global's address is used only as the address of non-volatile
/// loads and stores of one type, that type (and the smallest alignment).
fn only_loaded_and_stored(func: &Function, global: &str) -> Option<Access> {
    let is_global = |value: Value| iteration_number_global(func, value) == Some(global);
    let mut access: Option<Access> = None;
    for inst in func.layout.insts() {
        let data = func.dfg.inst(inst);
        let mut names_global = false;
        data.for_each_operand(|operand| names_global |= is_global(operand));
        if !names_global {
            continue;
        }
        let (ty, align) = match data {
            InstData::Load { ty, volatile: false, align, .. } => (ty.clone(), *align),
            InstData::Store { value, addr, volatile: false, align } if !is_global(*value) => {
                debug_assert!(is_global(*addr));
                (func.dfg.value_type(*value).clone(), *align)
            }
            _ => return None,
        };
        match &mut access {
            Some(known) if known.ty != ty => return None,
            Some(known) => known.align = known.align.min(align),
            None => access = Some(Access { ty, align }),
        }
    }
    access
}

/// The values that equal a global's contents, at the entry of each block
/// (see the module docs).
struct Mirrors<'a> {
    global: &'a str,
    /// Absent for unreachable blocks.
    at_entry: HashMap<Block, HashSet<Value>>,
}

impl<'a> Mirrors<'a> {
    fn compute(func: &Function, global: &'a str) -> Mirrors<'a> {
        let cfg = ControlFlowGraph::compute(func);
        let mut mirrors = Mirrors { global, at_entry: HashMap::new() };
        let mut at_exit: HashMap<Block, HashSet<Value>> = HashMap::new();
        // Optimistic: a block not reached yet constrains nothing; the sets
        // only shrink from one round to the next.
        loop {
            let mut changed = false;
            for &block in cfg.reverse_post_order() {
                let preds: Vec<(Block, &HashSet<Value>)> = cfg
                    .preds(block)
                    .iter()
                    .filter_map(|pred| Some((*pred, at_exit.get(pred)?)))
                    .collect();
                let entry = if Some(block) == cfg.entry_block() {
                    HashSet::new()
                } else if preds.is_empty() {
                    continue;
                } else {
                    mirrors.meet(func, block, &preds)
                };
                let exit = mirrors.through(func, block, entry.clone(), |_, _| {});
                mirrors.at_entry.insert(block, entry);
                if at_exit.get(&block) != Some(&exit) {
                    at_exit.insert(block, exit);
                    changed = true;
                }
            }
            if !changed {
                return mirrors;
            }
        }
    }

    /// The set at the entry of `block` from its predecessors' sets at exit.
    fn meet(
        &self,
        func: &Function,
        block: Block,
        preds: &[(Block, &HashSet<Value>)],
    ) -> HashSet<Value> {
        let (_, first) = preds[0];
        let mut entry: HashSet<Value> = first
            .iter()
            .copied()
            .filter(|value| preds.iter().all(|(_, set)| set.contains(value)))
            .collect();
        for &inst in func.layout.block_insts(block) {
            let InstData::Phi { incoming, .. } = func.dfg.inst(inst) else { continue };
            let Some(result) = func.dfg.result(inst) else { continue };
            // The phi's result is a new value here, whatever it was before.
            entry.remove(&result);
            let mirrors_everywhere = incoming.iter().all(|(pred, value)| {
                preds.iter().all(|(known, set)| known != pred || set.contains(value))
            });
            if mirrors_everywhere {
                entry.insert(result);
            }
        }
        entry
    }

    /// The set after the instructions of `block`, from the set at its
    /// entry; `visit` sees each non-phi instruction with the set before it.
    fn through(
        &self,
        func: &Function,
        block: Block,
        mut set: HashSet<Value>,
        mut visit: impl FnMut(Inst, &HashSet<Value>),
    ) -> HashSet<Value> {
        for &inst in func.layout.block_insts(block) {
            let data = func.dfg.inst(inst);
            if matches!(data, InstData::Phi { .. }) {
                continue;
            }
            visit(inst, &set);
            let result = func.dfg.result(inst);
            if let Some(result) = result {
                set.remove(&result);
            }
            match data {
                InstData::Load { addr, .. } if self.is_global(func, *addr) => {
                    set.extend(result);
                }
                InstData::Store { value, addr, .. } if self.is_global(func, *addr) => {
                    set.clear();
                    set.insert(*value);
                }
                InstData::Call { effects: CallEffects::SideEffects, .. }
                | InstData::Invoke { effects: CallEffects::SideEffects, .. } => set.clear(),
                _ => {}
            }
        }
        set
    }

    fn is_global(&self, func: &Function, value: Value) -> bool {
        iteration_number_global(func, value) == Some(self.global)
    }

    /// The set at the end of `block`, before its terminator.
    fn before_terminator(&self, func: &Function, block: Block) -> Option<HashSet<Value>> {
        let entry = self.at_entry.get(&block)?.clone();
        let terminator = func.terminator(block)?;
        let mut before = None;
        self.through(func, block, entry, |inst, set| {
            if inst == terminator {
                before = Some(set.clone());
            }
        });
        before
    }
}

/// Where a fresh load of the global replaces a copy.
enum Reader {
    /// Operand `copy` of a non-phi instruction.
    Inst { inst: Inst, copy: Value },
    /// The incoming value from `pred` (outside the loop) of a phi outside
    /// the loop; the load goes before `pred`'s terminator.
    PhiEdge { phi: Inst, pred: Block, copy: Value },
}

fn reload(
    func: &mut Function,
    in_loop: &HashSet<Block>,
    global: &str,
    access: &Access,
    mirrors: &Mirrors<'_>,
) -> usize {
    // The copies: phis in the loop that equal the global at their block.
    let loop_blocks: Vec<Block> =
        func.layout.blocks().iter().copied().filter(|block| in_loop.contains(block)).collect();
    let mut copies: HashSet<Value> = HashSet::new();
    for &block in &loop_blocks {
        let Some(entry) = mirrors.at_entry.get(&block) else { continue };
        for &inst in func.layout.block_insts(block) {
            if matches!(func.dfg.inst(inst), InstData::Phi { .. }) {
                copies.extend(func.dfg.result(inst).filter(|result| entry.contains(result)));
            }
        }
    }
    if copies.is_empty() {
        return 0;
    }

    let mut readers = Vec::new();
    for &block in func.layout.blocks() {
        let Some(entry) = mirrors.at_entry.get(&block) else { continue };
        mirrors.through(func, block, entry.clone(), |inst, set| {
            let mut read = BTreeSet::new();
            func.dfg.inst(inst).for_each_operand(|operand| {
                if copies.contains(&operand) && set.contains(&operand) {
                    read.insert(operand);
                }
            });
            readers.extend(read.into_iter().map(|copy| Reader::Inst { inst, copy }));
        });
    }
    for block in func.layout.blocks().iter().copied().filter(|block| !in_loop.contains(block)) {
        for &inst in func.layout.block_insts(block) {
            let InstData::Phi { incoming, .. } = func.dfg.inst(inst) else { continue };
            for &(pred, value) in incoming {
                if !copies.contains(&value) || in_loop.contains(&pred) {
                    continue;
                }
                if mirrors.before_terminator(func, pred).is_some_and(|set| set.contains(&value)) {
                    readers.push(Reader::PhiEdge { phi: inst, pred, copy: value });
                }
            }
        }
    }

    let global_address = func
        .layout
        .insts()
        .find_map(|inst| {
            let mut address = None;
            func.dfg.inst(inst).for_each_operand(|operand| {
                if iteration_number_global(func, operand) == Some(global) {
                    address = Some(operand);
                }
            });
            address
        })
        .expect("the loop stores to the global");
    let reloaded = readers.len();
    for reader in readers {
        let load = func.dfg.make_inst(
            InstData::Load {
                ty: access.ty.clone(),
                addr: global_address,
                align: access.align,
                volatile: false,
            },
            access.ty.clone(),
        );
        let loaded = func.dfg.result(load).expect("a load has a result");
        match reader {
            Reader::Inst { inst, copy } => {
                func.layout.insert_inst_before(load, inst);
                func.dfg.inst_mut(inst).map_operands(|operand| {
                    if operand == copy {
                        loaded
                    } else {
                        operand
                    }
                });
            }
            Reader::PhiEdge { phi, pred, copy } => {
                let terminator = func.terminator(pred).expect("a block ends in a terminator");
                func.layout.insert_inst_before(load, terminator);
                if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
                    for (from, value) in incoming.iter_mut() {
                        if *from == pred && *value == copy {
                            *value = loaded;
                        }
                    }
                }
            }
        }
    }
    remove_dead_copies(func, &copies);
    reloaded
}

/// Removes the phis among `copies` that only phis among them read.
fn remove_dead_copies(func: &mut Function, copies: &HashSet<Value>) {
    let mut dead: HashSet<Value> = copies.clone();
    loop {
        let mut live = Vec::new();
        for inst in func.layout.insts() {
            let reader_is_dead = func.dfg.result(inst).is_some_and(|result| dead.contains(&result));
            if reader_is_dead {
                continue;
            }
            func.dfg.inst(inst).for_each_operand(|operand| {
                if dead.contains(&operand) {
                    live.push(operand);
                }
            });
        }
        if live.is_empty() {
            break;
        }
        for value in live {
            dead.remove(&value);
        }
    }
    let dead_insts: Vec<Inst> = func
        .layout
        .insts()
        .filter(|inst| func.dfg.result(*inst).is_some_and(|result| dead.contains(&result)))
        .collect();
    for inst in dead_insts {
        func.layout.remove_inst(inst);
    }
}
