//! The uses of each loop's values outside the loop, from one pass over the
//! function.
//!
//! Transforms that rewrite a loop's live-outs (BOSCC's loop guards, the
//! divergent-loop transform) need, per loop, the values it defines that
//! something outside it reads, and where. Scanning the function for that
//! per loop made them quadratic in the function's size
//! (`scripts/scaling.sh`); [`LoopUses`] records every such use once, for
//! every loop the use leaves: a use in block `b` of a value defined in
//! block `d` is outside the loops that contain `d` but not `b`, found by
//! walking up the loop tree from `d`'s innermost loop. Each transform then
//! filters the uses it counts (the phis of an exit block, or phi entries
//! that come from inside the loop).
//!
//! Besides instruction operands, a use can be the predicate of a block (the
//! linearized function's block predicates are values of the function).

use std::collections::HashMap;

use lanewise_ir::{Block, Function, Inst, InstData, Value, ValueDef};

use crate::loops::{Loop, LoopInfo};

/// Where a value is used.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UseSite {
    /// The predicate of `block`.
    Predicate(Block),
    /// An operand of `inst` in `block`; for a phi, `from` is the incoming
    /// block of the entry that reads the value.
    Operand { block: Block, inst: Inst, from: Option<Block> },
}

impl UseSite {
    pub fn block(self) -> Block {
        match self {
            UseSite::Predicate(block) | UseSite::Operand { block, .. } => block,
        }
    }
}

/// Every use of a loop's values outside the loop (see the module docs).
#[derive(Debug, Default)]
pub struct LoopUses {
    /// Per loop, the uses outside it of the values defined in it, in layout
    /// order (block predicate first, then the instructions' operands).
    outside: HashMap<Loop, Vec<(Value, UseSite)>>,
    /// Per value, its uses outside the innermost loop that defines it.
    sites: HashMap<Value, Vec<UseSite>>,
}

impl LoopUses {
    /// Scans `func` once; `predicate` gives each block's predicate value,
    /// if block predicates count as uses.
    pub fn compute(
        func: &Function,
        loops: &LoopInfo,
        predicate: impl Fn(Block) -> Option<Value>,
    ) -> LoopUses {
        let mut uses = LoopUses::default();
        for &block in func.layout.blocks() {
            let mut block_uses: Vec<(Value, UseSite)> = Vec::new();
            if let Some(value) = predicate(block) {
                block_uses.push((value, UseSite::Predicate(block)));
            }
            for &inst in func.layout.block_insts(block) {
                match func.dfg.inst(inst) {
                    InstData::Phi { incoming, .. } => {
                        for &(from, value) in incoming {
                            let site = UseSite::Operand { block, inst, from: Some(from) };
                            block_uses.push((value, site));
                        }
                    }
                    data => data.for_each_operand(|value| {
                        block_uses.push((value, UseSite::Operand { block, inst, from: None }))
                    }),
                }
            }
            for (value, site) in block_uses {
                let ValueDef::Result(def) = func.dfg.value_def(value) else { continue };
                let Some(def_block) = func.layout.inst_block(*def) else { continue };
                let mut current = loops.innermost_loop(def_block);
                let mut outside_a_loop = false;
                while let Some(lp) = current.filter(|lp| !loops.contains(*lp, block)) {
                    outside_a_loop = true;
                    uses.outside.entry(lp).or_default().push((value, site));
                    current = loops.parent(lp);
                }
                if outside_a_loop {
                    uses.sites.entry(value).or_default().push(site);
                }
            }
        }
        uses
    }

    /// The uses outside `lp` of values defined in it, in layout order.
    pub fn outside(&self, lp: Loop) -> &[(Value, UseSite)] {
        self.outside.get(&lp).map_or(&[], Vec::as_slice)
    }

    /// The values defined in `lp` that a use outside it, as `counts`
    /// accepts, reads: each once, in the order of its first such use.
    pub fn live_outs(&self, lp: Loop, counts: impl Fn(UseSite) -> bool) -> Vec<Value> {
        let mut seen = std::collections::HashSet::new();
        self.outside(lp)
            .iter()
            .filter(|(value, site)| counts(*site) && seen.insert(*value))
            .map(|(value, _)| *value)
            .collect()
    }

    /// The uses of `value` outside the innermost loop defining it.
    pub fn sites(&self, value: Value) -> &[UseSite] {
        self.sites.get(&value).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use lanewise_ir::{BinaryOp, Function, FunctionBuilder, IntPredicate, Type};

    use super::*;
    use crate::{ControlFlowGraph, DominatorTree};

    /// `outer { inner { a = i + 1 } b = a * 2 } c = b + a`: `a` leaves the
    /// inner loop (read by `b`) and both loops (read by `c`), `b` the
    /// outer one.
    #[test]
    fn uses_are_recorded_for_every_loop_they_leave() {
        let mut func = Function::new("f", vec![Type::I32], Type::I32);
        let n = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let outer = b.create_block(Some("outer"));
        let inner = b.create_block(Some("inner"));
        let outer_latch = b.create_block(Some("outer.latch"));
        let exit = b.create_block(Some("exit"));
        b.switch_to_block(entry);
        b.jump(outer);
        b.switch_to_block(outer);
        let i = b.phi(Type::I32, vec![(entry, n)]);
        b.jump(inner);
        b.switch_to_block(inner);
        let one = b.iconst(Type::I32, 1);
        let a = b.binary(BinaryOp::Add, i, one);
        let again = b.icmp(IntPredicate::Slt, a, n);
        b.branch(again, inner, outer_latch);
        b.switch_to_block(outer_latch);
        let two = b.iconst(Type::I32, 2);
        let doubled = b.binary(BinaryOp::Mul, a, two);
        b.add_phi_incoming(i, outer_latch, doubled);
        let more = b.icmp(IntPredicate::Slt, doubled, n);
        b.branch(more, outer, exit);
        b.switch_to_block(exit);
        let c = b.binary(BinaryOp::Add, doubled, a);
        b.ret(Some(c));

        let cfg = ControlFlowGraph::compute(&func);
        let domtree = DominatorTree::compute(&func, &cfg);
        let loops = LoopInfo::compute(&func, &cfg, &domtree).unwrap();
        let inner_loop = loops.loop_of_header(inner).unwrap();
        let outer_loop = loops.loop_of_header(outer).unwrap();
        let uses = LoopUses::compute(&func, &loops, |_| None);
        assert_eq!(uses.live_outs(inner_loop, |_| true), [a]);
        // `c` reads `doubled`, then `a` (the header phi reads `doubled`
        // inside the outer loop: not a use outside it).
        assert_eq!(uses.live_outs(outer_loop, |_| true), [doubled, a]);
        let a_sites: Vec<Block> = uses.sites(a).iter().map(|site| site.block()).collect();
        assert_eq!(a_sites, [outer_latch, exit]);
    }
}
