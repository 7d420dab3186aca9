//! SSA repair after linearization (Karrenberg 2014, 6.3.6).
//!
//! Linearization keeps every instruction where it was but changes the CFG,
//! so a definition may no longer dominate its uses: a value computed in one
//! arm of a folded branch is used after the join, or a blend reads a value
//! from a block that a kept uniform branch may skip. This pass restores
//! dominance by reading each such value on demand, in the manner of Braun et
//! al.'s SSA construction: at a block with one predecessor the value is read
//! at the end of that predecessor; at a block with several a phi is created
//! (before its operands are read, so cycles through loops terminate).
//! Where the value is not defined on a path it becomes a default:
//!
//! - `false` for predicates (a block that did not run has no active lane),
//! - `poison` for anything else (no active lane reads it there: the blends
//!   select it away).
//!
//! A read that reaches the header of a loop containing the definition yields
//! the default too, instead of the value from the previous iteration: a lane
//! active at the use executed the definition in the *current* iteration (the
//! original path is embedded in the linearized one, PLDI'18 Theorem 3.2), and
//! a stale predicate from the previous iteration would be wrong.

use std::collections::HashMap;

use lanewise_ir::{Block, Constant, Function, Inst, InstData, Type, Value, ValueDef};

use crate::cfg_canon::{insert_phi, CfgSnapshot};

struct Repair<'a> {
    snapshot: &'a CfgSnapshot,
    is_mask: &'a dyn Fn(Value) -> bool,
    /// `(value, block)` -> the value at the entry of `block`.
    at_entry: HashMap<(Value, Block), Value>,
    inserted_phis: usize,
    /// Whether a read reaching the header of a loop that contains the
    /// definition yields the default (linearization: see the module docs)
    /// instead of a phi over the loop's entries and back edges.
    defaults_at_headers: bool,
}

impl Repair<'_> {
    fn default_value(&self, func: &mut Function, value: Value) -> Value {
        let ty = func.dfg.value_type(value).clone();
        if ty == Type::BOOL && (self.is_mask)(value) {
            func.dfg.int_const(Type::BOOL, 0)
        } else {
            func.dfg.make_const(ty, Constant::Poison)
        }
    }

    fn read_at_end(
        &mut self,
        func: &mut Function,
        value: Value,
        def_block: Block,
        block: Block,
    ) -> Value {
        if def_block == block || self.snapshot.domtree.dominates(def_block, block) {
            return value;
        }
        self.read_at_entry(func, value, def_block, block)
    }

    fn read_at_entry(
        &mut self,
        func: &mut Function,
        value: Value,
        def_block: Block,
        block: Block,
    ) -> Value {
        if let Some(known) = self.at_entry.get(&(value, block)) {
            return *known;
        }
        let loops = &self.snapshot.loops;
        let stale = self.defaults_at_headers
            && loops.loop_of_header(block).is_some_and(|lp| loops.contains(lp, def_block));
        let preds = self.snapshot.cfg.preds(block).to_vec();
        let result = if Some(block) == self.snapshot.cfg.entry_block() || stale || preds.is_empty()
        {
            self.default_value(func, value)
        } else if let [single] = preds.as_slice() {
            self.read_at_end(func, value, def_block, *single)
        } else {
            let ty = func.dfg.value_type(value).clone();
            let phi = insert_phi(func, block, ty, Vec::new());
            self.inserted_phis += 1;
            self.at_entry.insert((value, block), phi);
            let mut incoming = Vec::new();
            for pred in preds {
                incoming.push((pred, self.read_at_end(func, value, def_block, pred)));
            }
            let phi_inst = func.dfg.defining_inst(phi).expect("phi");
            if let InstData::Phi { incoming: entries, .. } = func.dfg.inst_mut(phi_inst) {
                *entries = incoming;
            }
            phi
        };
        self.at_entry.insert((value, block), result);
        result
    }
}

/// Where an operand is used.
enum UseSite {
    /// Operand of a non-phi instruction.
    Inst(Inst),
    /// Entry `index` of a phi (used at the end of the incoming block).
    PhiEntry(Inst, usize),
}

/// Restores SSA dominance in `func` (see the module docs); `is_mask` says
/// which `i1` values are predicates. `needed_at_entry` lists values that must
/// be available at the top of a block (block predicates for widening); it is
/// updated in place with the value to use there. Returns the number of phis
/// inserted.
pub fn repair_ssa(
    func: &mut Function,
    snapshot: &CfgSnapshot,
    is_mask: &dyn Fn(Value) -> bool,
    needed_at_entry: &mut [(Value, Block)],
) -> usize {
    repair(func, snapshot, is_mask, needed_at_entry, true)
}

/// Restores SSA dominance in `func` after a CFG edit that kept every
/// execution path's values, only routing paths differently (loop-nest
/// flattening, `divergent_loops::flatten_nests`): a use reads the value its
/// path last defined, through phis wherever paths meet, loop headers
/// included (Braun et al.); where no path defines it, `poison`. Returns
/// the number of phis inserted.
pub fn repair_ssa_along_paths(func: &mut Function, snapshot: &CfgSnapshot) -> usize {
    repair(func, snapshot, &|_| false, &mut [], false)
}

fn repair(
    func: &mut Function,
    snapshot: &CfgSnapshot,
    is_mask: &dyn Fn(Value) -> bool,
    needed_at_entry: &mut [(Value, Block)],
    defaults_at_headers: bool,
) -> usize {
    let def_block_of = |func: &Function, value: Value| match func.dfg.value_def(value) {
        ValueDef::Result(inst) => func.layout.inst_block(*inst),
        _ => None,
    };
    // Collect the broken uses first: repair inserts phis that are correct by
    // construction.
    let mut broken: Vec<(UseSite, Value, Block)> = Vec::new();
    let mut position_in_block: HashMap<Inst, usize> = HashMap::new();
    for &block in func.layout.blocks() {
        for (position, &inst) in func.layout.block_insts(block).iter().enumerate() {
            position_in_block.insert(inst, position);
        }
    }
    for &block in snapshot.cfg.reverse_post_order() {
        for &inst in func.layout.block_insts(block) {
            match func.dfg.inst(inst) {
                InstData::Phi { incoming, .. } => {
                    for (index, (from, value)) in incoming.iter().enumerate() {
                        let Some(def_block) = def_block_of(func, *value) else { continue };
                        if def_block != *from && !snapshot.domtree.dominates(def_block, *from) {
                            broken.push((UseSite::PhiEntry(inst, index), *value, *from));
                        }
                    }
                }
                data => {
                    data.for_each_operand(|value| {
                        let Some(def_block) = def_block_of(func, value) else { return };
                        let dominated = if def_block == block {
                            let def_inst = func.dfg.defining_inst(value).expect("result");
                            position_in_block[&def_inst] < position_in_block[&inst]
                        } else {
                            snapshot.domtree.dominates(def_block, block)
                        };
                        if !dominated {
                            broken.push((UseSite::Inst(inst), value, block));
                        }
                    });
                }
            }
        }
    }
    let mut repair = Repair {
        snapshot,
        is_mask,
        at_entry: HashMap::new(),
        inserted_phis: 0,
        defaults_at_headers,
    };
    let mut per_inst: HashMap<Inst, HashMap<Value, Value>> = HashMap::new();
    for (site, value, block) in broken {
        let def_block = def_block_of(func, value).expect("instruction result in the layout");
        match site {
            UseSite::PhiEntry(phi, index) => {
                let repaired = repair.read_at_end(func, value, def_block, block);
                if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
                    incoming[index].1 = repaired;
                }
            }
            UseSite::Inst(inst) => {
                let repaired = if def_block == block {
                    // Defined later in the same block: only the previous
                    // execution could be meant; nothing valid reads it.
                    repair.default_value(func, value)
                } else {
                    repair.read_at_entry(func, value, def_block, block)
                };
                per_inst.entry(inst).or_default().insert(value, repaired);
            }
        }
    }
    for (inst, map) in per_inst {
        func.dfg.inst_mut(inst).map_operands(|value| map.get(&value).copied().unwrap_or(value));
    }
    for (value, block) in needed_at_entry.iter_mut() {
        let Some(def_block) = def_block_of(func, *value) else { continue };
        if def_block == *block || snapshot.domtree.dominates(def_block, *block) {
            continue;
        }
        *value = repair.read_at_entry(func, *value, def_block, *block);
    }
    repair.inserted_phis
}
