//! Load recurrences: header phis that carry a value loaded one iteration
//! earlier, turned back into loads.
//!
//! LLVM's GVN load PRE rewrites the stencil `in[i] + in[i + 1]` of a scalar
//! loop into a first-order recurrence: `in[i + 1]` is loaded once per
//! iteration and carried to the next one by a header phi, whose preheader
//! value is `in[start]` loaded before the loop:
//!
//! ```text
//! pre:    %init = load float, ptr @in                     ; in[start], start = 0
//! header: %prev = phi float [ %init, %pre ], [ %cur, %latch ]
//!         %iv   = phi i64 ...; %next = add i64 %iv, 1
//!         %cur  = load float, ptr (gep @in, %next)         ; in[i + 1]
//! ```
//!
//! Lanes of a SIMD chunk run consecutive iterations side by side, so a
//! value of the previous iteration is another lane's: the plan refuses such
//! phis. [`rematerialize_load_recurrences`] undoes the PRE instead: `%prev`
//! becomes a load in the header from the address `%cur` used one iteration
//! earlier, i.e. `%cur`'s address with `%next` replaced by `%iv`, which
//! widening then sees as an ordinary contiguous load.
//!
//! Conditions (anything else is left alone, and the plan refuses it):
//! - the back-edge value is a non-volatile load in the loop whose address
//!   depends on the loop only through the `next` values of inductions
//!   (`iv + step`), through GEPs, casts and non-trapping arithmetic;
//! - the preheader value is a non-volatile load of the same type from the
//!   address this expression gives for the first iteration (`next` replaced
//!   by the induction's start; a GEP whose indices are all zero is its base),
//!   so the first iteration reads what the preheader load read and every
//!   address read was read by the scalar loop too.
//!
//! That the reloaded memory still holds the carried value is what GVN proved
//! when it forwarded the load along the back edge (no store in between may
//! alias it); the SIMD chunk reorders the lanes' loads and stores as for any
//! other access of the body, which `#pragma omp simd` permits (no
//! loop-carried memory dependences among the loop's accesses).

use std::collections::{HashMap, HashSet};

use lanewise_analysis::loops::LoopInfo;
use lanewise_ir::{Block, Function, Inst, InstData, Type, Value};

use super::{induction_step, SimdLoopCandidate};

/// Rewrites the load recurrences of the candidate loop (see the module
/// documentation) into header loads; returns how many phis were replaced.
pub fn rematerialize_load_recurrences(
    func: &mut Function,
    loops: &LoopInfo,
    candidate: &SimdLoopCandidate,
) -> usize {
    let header = candidate.header;
    let in_loop: HashSet<Block> = loops.blocks(candidate.lp).iter().copied().collect();
    let [latch] = loops.latches(candidate.lp) else {
        return 0;
    };
    let latch = *latch;
    let phis: Vec<Inst> = func
        .layout
        .block_insts(header)
        .iter()
        .copied()
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Phi { .. }))
        .collect();
    let entries = |func: &Function, phi: Inst| -> Option<(Value, Value)> {
        let InstData::Phi { incoming, .. } = func.dfg.inst(phi) else { return None };
        let [(first_block, first), (second_block, second)] = incoming[..] else { return None };
        if first_block == latch && !in_loop.contains(&second_block) {
            Some((second, first))
        } else if second_block == latch && !in_loop.contains(&first_block) {
            Some((first, second))
        } else {
            None
        }
    };
    // Induction `next` value -> (phi, start).
    let mut next_values: HashMap<Value, (Value, Value)> = HashMap::new();
    for &phi in &phis {
        let value = func.dfg.result(phi).expect("phis have results");
        if let Some((start, next)) = entries(func, phi) {
            if func.dfg.value_type(value).is_int() && induction_step(func, value, next).is_some() {
                next_values.insert(next, (value, start));
            }
        }
    }
    let mut replaced = 0;
    for &phi in &phis {
        let value = func.dfg.result(phi).expect("phis have results");
        let Some((init, carried)) = entries(func, phi) else { continue };
        if next_values.contains_key(&carried) {
            continue;
        }
        let Some((ty, addr, align)) = plain_load(func, carried) else { continue };
        if !func.dfg.defining_inst(carried).is_some_and(|inst| {
            func.layout.inst_block(inst).is_some_and(|block| in_loop.contains(&block))
        }) {
            continue;
        }
        let Some((init_ty, init_addr, _)) = plain_load(func, init) else { continue };
        if init_ty != ty {
            continue;
        }
        let context = Context { in_loop: &in_loop, next_values: &next_values };
        if !context.is_shiftable(func, addr, 0) || !context.same_at_start(func, addr, init_addr) {
            continue;
        }
        // Clone the address with `next` -> `phi` at the top of the header.
        let mut position = func
            .layout
            .block_insts(header)
            .iter()
            .take_while(|inst| matches!(func.dfg.inst(**inst), InstData::Phi { .. }))
            .count();
        let mut cloned: HashMap<Value, Value> = HashMap::new();
        let shifted = context.clone_shifted(func, addr, header, &mut position, &mut cloned);
        let load = func.dfg.make_inst(
            InstData::Load { ty: ty.clone(), addr: shifted, align, volatile: false },
            ty,
        );
        func.layout.insert_inst_at(load, header, position);
        let reloaded = func.dfg.result(load).expect("a load has a result");
        let insts: Vec<Inst> = func.layout.insts().collect();
        for inst in insts {
            if inst != phi {
                func.dfg.inst_mut(inst).map_operands(|operand| {
                    if operand == value {
                        reloaded
                    } else {
                        operand
                    }
                });
            }
        }
        func.layout.remove_inst(phi);
        replaced += 1;
    }
    replaced
}

/// `(type, address, align)` of a non-volatile load defining `value`.
fn plain_load(func: &Function, value: Value) -> Option<(Type, Value, u32)> {
    match func.dfg.inst(func.dfg.defining_inst(value)?) {
        InstData::Load { ty, addr, align, volatile: false } => Some((ty.clone(), *addr, *align)),
        _ => None,
    }
}

/// The deepest address expression followed.
const MAX_DEPTH: usize = 8;

struct Context<'a> {
    in_loop: &'a HashSet<Block>,
    next_values: &'a HashMap<Value, (Value, Value)>,
}

impl Context<'_> {
    fn loop_inst(&self, func: &Function, value: Value) -> Option<Inst> {
        func.dfg
            .defining_inst(value)
            .filter(|inst| func.layout.inst_block(*inst).is_some_and(|b| self.in_loop.contains(&b)))
    }

    /// Whether `value` depends on the loop only through induction `next`
    /// values, by GEPs, casts and non-trapping binary operations.
    fn is_shiftable(&self, func: &Function, value: Value, depth: usize) -> bool {
        if self.next_values.contains_key(&value) {
            return true;
        }
        let Some(inst) = self.loop_inst(func, value) else {
            return true;
        };
        if depth >= MAX_DEPTH {
            return false;
        }
        match func.dfg.inst(inst) {
            InstData::Gep { .. } | InstData::Cast { .. } => {}
            InstData::Binary { op, .. } if !op.can_trap() => {}
            _ => return false,
        }
        let mut all = true;
        func.dfg.inst(inst).for_each_operand(|operand| {
            all &= self.is_shiftable(func, operand, depth + 1);
        });
        all
    }

    /// The integer constant `value` has once `next` values are their
    /// inductions' starts, if it is one.
    fn constant_at_start(&self, func: &Function, value: Value) -> Option<i128> {
        let value = match self.next_values.get(&value) {
            Some((_, start)) => *start,
            None => value,
        };
        if let Some(constant) = func.dfg.signed_int_constant(value) {
            return Some(constant);
        }
        match func.dfg.inst(self.loop_inst(func, value)?) {
            InstData::Cast { arg, .. } => {
                self.constant_at_start(func, *arg).filter(|constant| *constant == 0)
            }
            _ => None,
        }
    }

    /// Whether `expr` (a shiftable address) evaluated with every `next`
    /// value replaced by its induction's start is `init`: structurally equal,
    /// with a GEP whose indices are all zero equal to its base.
    fn same_at_start(&self, func: &Function, expr: Value, init: Value) -> bool {
        if expr == init {
            return true;
        }
        if let Some((_, start)) = self.next_values.get(&expr) {
            return *start == init;
        }
        let Some(inst) = self.loop_inst(func, expr) else {
            return false;
        };
        let data = func.dfg.inst(inst);
        if let InstData::Gep { base, indices, .. } = data {
            if indices.iter().all(|index| self.constant_at_start(func, *index) == Some(0))
                && self.same_at_start(func, *base, init)
            {
                return true;
            }
        }
        let Some(init_inst) = func.dfg.defining_inst(init) else {
            return false;
        };
        let init_data = func.dfg.inst(init_inst);
        if std::mem::discriminant(data) != std::mem::discriminant(init_data) {
            return false;
        }
        let mut expr_operands = Vec::new();
        data.for_each_operand(|operand| expr_operands.push(operand));
        let mut init_operands = Vec::new();
        init_data.for_each_operand(|operand| init_operands.push(operand));
        let mut stripped = data.clone();
        stripped.map_operands(|_| init);
        let mut init_stripped = init_data.clone();
        init_stripped.map_operands(|_| init);
        stripped == init_stripped
            && expr_operands.len() == init_operands.len()
            && expr_operands
                .iter()
                .zip(&init_operands)
                .all(|(expr, init)| self.same_at_start(func, *expr, *init))
    }

    /// A copy of `value` with every `next` value replaced by its induction,
    /// instructions inserted in `header` from `position` on.
    fn clone_shifted(
        &self,
        func: &mut Function,
        value: Value,
        header: Block,
        position: &mut usize,
        cloned: &mut HashMap<Value, Value>,
    ) -> Value {
        if let Some((phi, _)) = self.next_values.get(&value) {
            return *phi;
        }
        if let Some(copy) = cloned.get(&value) {
            return *copy;
        }
        let Some(inst) = self.loop_inst(func, value) else {
            return value;
        };
        let mut data = func.dfg.inst(inst).clone();
        let mut operands = Vec::new();
        data.for_each_operand(|operand| operands.push(operand));
        let copies: HashMap<Value, Value> = operands
            .into_iter()
            .map(|operand| (operand, self.clone_shifted(func, operand, header, position, cloned)))
            .collect();
        data.map_operands(|operand| copies[&operand]);
        let ty = func.dfg.value_type(value).clone();
        let copy_inst = func.dfg.make_inst(data, ty);
        func.layout.insert_inst_at(copy_inst, header, *position);
        *position += 1;
        let copy = func.dfg.result(copy_inst).expect("address instructions have results");
        cloned.insert(value, copy);
        copy
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use lanewise_analysis::{ControlFlowGraph, DominatorTree};
    use lanewise_ir::{verify_function, BinaryOp, FunctionBuilder, IntPredicate, LoopHints, Type};

    use super::*;
    use crate::interp::{Interpreter, Memory, Val};
    use crate::loop_vectorize::find_simd_loops;

    /// `f(p, n)`: `sum = 0; prev = p[init_index]; for (i = 0; i != n; i++)
    /// { cur = p[i + 1]; sum += prev * 1000 + cur; prev = cur; } return sum;`
    /// (GVN's load PRE form of `sum += p[i] * 1000 + p[i + 1]` when
    /// `init_index` is 0).
    fn carried_load_loop(init_index: i128) -> Function {
        let mut func = Function::new("f", vec![Type::PTR, Type::I64], Type::I64);
        let (base, bound) = (func.param_value(0), func.param_value(1));
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let header = b.create_block(Some("header"));
        let exit = b.create_block(Some("exit"));
        b.switch_to_block(entry);
        let zero = b.iconst(Type::I64, 0);
        let init_offset = b.iconst(Type::I64, init_index);
        let init_addr =
            if init_index == 0 { base } else { b.gep(Type::I64, base, vec![init_offset]) };
        let init = b.load(Type::I64, init_addr, 8);
        b.jump(header);
        b.switch_to_block(header);
        let iv = b.phi(Type::I64, vec![(entry, zero)]);
        let prev = b.phi(Type::I64, vec![(entry, init)]);
        let sum = b.phi(Type::I64, vec![(entry, zero)]);
        let one = b.iconst(Type::I64, 1);
        let next = b.binary(BinaryOp::Add, iv, one);
        let cur_addr = b.gep(Type::I64, base, vec![next]);
        let cur = b.load(Type::I64, cur_addr, 8);
        let thousand = b.iconst(Type::I64, 1000);
        let scaled = b.binary(BinaryOp::Mul, prev, thousand);
        let term = b.binary(BinaryOp::Add, scaled, cur);
        let sum_next = b.binary(BinaryOp::Add, sum, term);
        let continues = b.icmp(IntPredicate::Ne, next, bound);
        let latch_branch = b.branch(continues, header, exit);
        for (phi, value) in [(iv, next), (prev, cur), (sum, sum_next)] {
            let inst = b.func.dfg.defining_inst(phi).unwrap();
            if let InstData::Phi { incoming, .. } = b.func.dfg.inst_mut(inst) {
                incoming.push((header, value));
            }
        }
        b.switch_to_block(exit);
        let result = b.phi(Type::I64, vec![(header, sum_next)]);
        b.ret(Some(result));
        func.loop_hints.insert(latch_branch, LoopHints::simd_loop());
        verify_function(&func).unwrap();
        func
    }

    fn rewrite(func: &mut Function) -> usize {
        let cfg = ControlFlowGraph::compute(func);
        let domtree = DominatorTree::compute(func, &cfg);
        let loops = LoopInfo::compute(func, &cfg, &domtree).unwrap();
        let candidates = find_simd_loops(func, &loops, &HashSet::new());
        assert_eq!(candidates.len(), 1);
        rematerialize_load_recurrences(func, &loops, &candidates[0])
    }

    fn run(func: &Function, trip_count: u64) -> u128 {
        let mut memory = Memory::new(0x1000, 1 << 12);
        let base = memory.allocate(8 * 16, 8);
        for index in 0..16u64 {
            memory.write(base + 8 * index, &(index * index + 3).to_le_bytes()).unwrap();
        }
        let mut interpreter = Interpreter::new(memory, |name, _| panic!("unexpected call {name}"));
        match interpreter.run(func, &[Val::Ptr(base), Val::int(64, trip_count.into())]).unwrap() {
            Some(Val::Int { value, .. }) => value,
            other => panic!("result {other:?}"),
        }
    }

    fn header_phis(func: &Function) -> usize {
        func.layout
            .insts()
            .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Phi { .. }))
            .count()
    }

    #[test]
    fn a_carried_load_becomes_a_load_of_the_same_address() {
        let original = carried_load_loop(0);
        let mut rewritten = original.clone();
        assert_eq!(rewrite(&mut rewritten), 1);
        verify_function(&rewritten).unwrap();
        assert_eq!(header_phis(&rewritten), header_phis(&original) - 1);
        for trip_count in [1, 2, 7, 15] {
            assert_eq!(run(&rewritten, trip_count), run(&original, trip_count), "n={trip_count}");
        }
    }

    /// The preheader load reads another address than the first iteration
    /// would: the phi is not a plain recurrence and stays.
    #[test]
    fn a_mismatched_initial_load_is_left_alone() {
        let mut func = carried_load_loop(5);
        assert_eq!(rewrite(&mut func), 0);
    }
}
