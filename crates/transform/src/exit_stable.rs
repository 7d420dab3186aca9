//! Exit-stable loops: loops whose state stops changing once a lane leaves.
//!
//! A linearized divergent loop keeps running a lane that has left until the
//! last lane leaves; the values the lane leaves with are kept by a tracker
//! (`divergent_loops`: a header phi and a select per value and iteration).
//! Some loops need none: a lane that left keeps computing, but its state is
//! a fixed point of the loop body, so the values it computes are the ones it
//! left with. Clearing the lowest set bit until none is left,
//!
//! ```text
//! loop: x = phi [x0, pre], [x.next, loop]      r = phi [0, pre], [r.next, loop]
//!       low = x & -x;  r.next = r | low * K;  x.next = x ^ low
//!       br low != x, loop, exit                ; leaves with x.next = 0
//! ```
//!
//! leaves with `x.next = 0`; from `x = 0` the body computes `low = 0`,
//! `r.next = r` and `x.next = 0` again. The trackers of `r.next` and
//! `x.next` are then redundant: their last values are the lane's.
//! (tests/programs/reduce_int_bitwise: its tracker blends are two of the
//! fourteen vector operations of an iteration at 32 lanes.)
//!
//! [`exit_stable_values`] proves it by evaluating the loop body
//! symbolically, twice, for a loop of one path (its blocks in a chain; the
//! last is the only latch and the only exiting block):
//!
//! 1. **The leaving iteration**, with the header phis unknown and the exit
//!    condition's fact assumed: a lane leaves when `icmp eq a, b` (for the
//!    exit successor) holds, or `icmp ne a, b` fails (for the loop
//!    successor), so `a` reads as `b` (or `b` as `a` when `a` is the
//!    constant). It gives each header phi's next value, the
//!    lane's *exit state*: a constant where the fact decides it
//!    (`x.next = x ^ x = 0`), else unknown (`r.next`).
//! 2. **An iteration after it**, from the exit state. If every header phi's
//!    next value is its exit state again (the constant, or the same
//!    unknown: `r | 0 * K = r`), the state is a fixed point and every value
//!    a header phi takes on the back edge keeps its exit value: those are
//!    the values returned.
//!
//! The evaluation folds integer constants (with the reference interpreter's
//! arithmetic, [`crate::interp`]) and identities (`a & 0`, `a | 0`,
//! `a ^ a`, `a - a`, `a * 0`, selects of a constant condition, ...); any
//! other operation is an unknown of its own, which the second step never
//! finds equal to an exit state. The lanes that left must also keep
//! computing from the exit state: `divergent_loops` then gives the
//! header phis their back-edge values on the exit edges too, not poison.

use std::collections::{HashMap, HashSet};

use lanewise_analysis::Loop;
use lanewise_ir::dfg::sign_extend;
use lanewise_ir::{ArithFlags, BinaryOp, Block, Function, InstData, IntPredicate, Value, ValueDef};

use crate::cfg_canon::{block_phis, phi_incoming, result_of, CfgSnapshot};
use crate::interp::{self, truncate, InterpError, Val};

/// A value of the symbolic evaluation: an integer constant of a width, the
/// (unknown) value an SSA value has in the iteration evaluated, or the
/// value a back-edge value had when the lane left (second step only).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Symbol {
    Const { bits: u32, value: u128 },
    Unknown(Value),
    AtExit(Value),
}

impl Symbol {
    /// The constant as an interpreter value.
    fn constant(self) -> Option<Val> {
        match self {
            Symbol::Const { bits, value } => Some(Val::int(bits, value)),
            _ => None,
        }
    }

    /// An interpreter result as a constant: `None` for poison, a trap or a
    /// value that is not an integer.
    fn folded(result: Result<Val, InterpError>) -> Option<Symbol> {
        match result {
            Ok(Val::Int { bits, value }) => Some(Symbol::Const { bits, value }),
            _ => None,
        }
    }
}

/// The values the header phis of `lp` take on its back edge, when `lp` is
/// exit-stable (module docs): each keeps, in the iterations after a lane
/// leaves, the value the lane left with. Empty when `lp` is not.
pub fn exit_stable_values(func: &Function, snapshot: &CfgSnapshot, lp: Loop) -> HashSet<Value> {
    prove(func, snapshot, lp).unwrap_or_default()
}

fn prove(func: &Function, snapshot: &CfgSnapshot, lp: Loop) -> Option<HashSet<Value>> {
    let loops = &snapshot.loops;
    let header = loops.header(lp);
    let [latch] = loops.latches(lp) else { return None };
    let latch = *latch;
    let chain = one_path(func, snapshot, lp, header, latch)?;
    let InstData::Branch { cond, then_dest, else_dest } =
        func.dfg.inst(func.terminator(latch)?).clone()
    else {
        return None;
    };
    let leaves_on_true = match (then_dest == header, else_dest == header) {
        (false, true) => true,
        (true, false) => false,
        _ => return None,
    };
    // The fact of leaving: `a == b`.
    let ValueDef::Result(compare) = *func.dfg.value_def(cond) else { return None };
    let InstData::Icmp { pred, lhs, rhs } = func.dfg.inst(compare).clone() else { return None };
    let equal_on_exit = match pred {
        IntPredicate::Eq => leaves_on_true,
        IntPredicate::Ne => !leaves_on_true,
        _ => return None,
    };
    if !equal_on_exit {
        return None;
    }

    let phis = block_phis(func, header);
    let back_edge =
        |phi| phi_incoming(func, phi).into_iter().find(|(from, _)| *from == latch).map(|(_, v)| v);
    let next_values: Vec<(Value, Value)> = phis
        .iter()
        .map(|&phi| Some((result_of(func, phi), back_edge(phi)?)))
        .collect::<Option<_>>()?;

    // 1. The leaving iteration: header phis unknown, one side of the exit
    // compare reads as the other.
    let mut leaving = Evaluation::new(func);
    for &(phi, _) in &next_values {
        leaving.known.insert(phi, Symbol::Unknown(phi));
    }
    // The side that is not a constant reads as the other.
    let fact = if func.dfg.int_constant(lhs).is_some() { (rhs, lhs) } else { (lhs, rhs) };
    leaving.run(&chain, header, Some(fact));
    let exit_state: Vec<Symbol> =
        next_values.iter().map(|&(_, next)| leaving.symbol(next)).collect();

    // 2. An iteration from the exit state: a next value the leaving
    // iteration could not fold is the value the lane left with.
    let mut after = Evaluation::new(func);
    let expected: Vec<Symbol> = next_values
        .iter()
        .zip(&exit_state)
        .map(|(&(_, next), state)| match state {
            Symbol::Const { .. } => *state,
            _ => Symbol::AtExit(next),
        })
        .collect();
    for (&(phi, _), start) in next_values.iter().zip(&expected) {
        after.known.insert(phi, *start);
    }
    after.run(&chain, header, None);
    let stable =
        next_values.iter().zip(&expected).all(|(&(_, next), start)| after.symbol(next) == *start);
    stable.then(|| next_values.iter().map(|&(_, next)| next).collect())
}

/// The blocks of `lp` from `header` to `latch` when they form one path:
/// every block but the latch jumps to the next, and only the latch leaves.
fn one_path(
    func: &Function,
    snapshot: &CfgSnapshot,
    lp: Loop,
    header: Block,
    latch: Block,
) -> Option<Vec<Block>> {
    let loops = &snapshot.loops;
    let mut chain = vec![header];
    let mut block = header;
    while block != latch {
        let [next] = func.successors(block)[..] else { return None };
        if !loops.contains(lp, next) || next == header || chain.contains(&next) {
            return None;
        }
        chain.push(next);
        block = next;
    }
    (chain.len() == loops.blocks(lp).len()).then_some(chain)
}

/// One symbolic run over the loop body.
struct Evaluation<'f> {
    func: &'f Function,
    known: HashMap<Value, Symbol>,
}

impl<'f> Evaluation<'f> {
    fn new(func: &'f Function) -> Self {
        Evaluation { func, known: HashMap::new() }
    }

    /// The symbol of `value`: evaluated, an integer constant, or itself.
    fn symbol(&self, value: Value) -> Symbol {
        if let Some(symbol) = self.known.get(&value) {
            return *symbol;
        }
        match (self.func.dfg.value_type(value).int_bits(), self.func.dfg.int_constant(value)) {
            (Some(bits), Some(constant)) => Symbol::Const { bits, value: constant },
            _ => Symbol::Unknown(value),
        }
    }

    /// Evaluates the non-phi instructions of `chain` in order; with
    /// `fact = (b, a)`, `b` reads as `a` once both are evaluated (from the
    /// start when neither is computed in `chain`: header phis, values from
    /// outside the loop, constants).
    fn run(&mut self, chain: &[Block], header: Block, fact: Option<(Value, Value)>) {
        let func = self.func;
        let computed: HashSet<Value> = chain
            .iter()
            .flat_map(|&block| func.layout.block_insts(block))
            .filter(|&&inst| !matches!(func.dfg.inst(inst), InstData::Phi { .. }))
            .filter_map(|&inst| func.dfg.result(inst))
            .collect();
        let is_evaluated = |known: &HashMap<Value, Symbol>, value| {
            known.contains_key(&value) || !computed.contains(&value)
        };
        if let Some((alias, original)) = fact {
            if is_evaluated(&self.known, alias) && is_evaluated(&self.known, original) {
                let original = self.symbol(original);
                self.known.insert(alias, original);
            }
        }
        for &block in chain {
            for &inst in func.layout.block_insts(block) {
                let data = func.dfg.inst(inst);
                if block == header && matches!(data, InstData::Phi { .. }) {
                    continue;
                }
                let Some(result) = func.dfg.result(inst) else { continue };
                let bits = func.dfg.value_type(result).int_bits();
                let symbol = self.evaluate(data, bits).unwrap_or(Symbol::Unknown(result));
                self.known.insert(result, symbol);
                if let Some((alias, original)) = fact {
                    if result == alias || result == original {
                        let (alias_known, original_known) =
                            (is_evaluated(&self.known, alias), is_evaluated(&self.known, original));
                        if alias_known && original_known {
                            let original = self.symbol(original);
                            self.known.insert(alias, original);
                        }
                    }
                }
            }
        }
    }

    fn evaluate(&self, data: &InstData, bits: Option<u32>) -> Option<Symbol> {
        match *data {
            InstData::Binary { op, lhs, rhs, flags } => {
                binary(op, flags, bits?, self.symbol(lhs), self.symbol(rhs))
            }
            InstData::Icmp { pred, lhs, rhs } => {
                let (lhs, rhs) = (self.symbol(lhs).constant()?, self.symbol(rhs).constant()?);
                Symbol::folded(interp::icmp(pred, &lhs, &rhs))
            }
            InstData::Select { cond, if_true, if_false, .. } => {
                let (if_true, if_false) = (self.symbol(if_true), self.symbol(if_false));
                match self.symbol(cond) {
                    Symbol::Const { value, .. } => {
                        Some(if value != 0 { if_true } else { if_false })
                    }
                    _ => (if_true == if_false).then_some(if_true),
                }
            }
            InstData::Cast { op, arg, ref to, .. } => {
                Symbol::folded(interp::cast(op, &self.symbol(arg).constant()?, to))
            }
            InstData::Freeze { arg } => match self.symbol(arg) {
                constant @ Symbol::Const { .. } => Some(constant),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Folds an integer operation of `bits`-bit operands, or `None` (an unknown
/// result, or poison: constants that overflow an `nsw`/`nuw` operation,
/// lose bits of an `exact` shift or overlap in a `disjoint` or). The
/// identities never make poison (`a + 0`, `a * 0`, `a | 0`, `a - a`, ...).
fn binary(op: BinaryOp, flags: ArithFlags, bits: u32, lhs: Symbol, rhs: Symbol) -> Option<Symbol> {
    let constant = |value: u128| Symbol::Const { bits, value: truncate(value, bits) };
    match (lhs, rhs) {
        (Symbol::Const { value: a, .. }, Symbol::Const { value: b, .. }) => {
            if !flags_hold(op, flags, bits, a, b) {
                return None;
            }
            // The reference interpreter's arithmetic (a trap is no fold).
            Symbol::folded(interp::binary(op, &Val::int(bits, a), &Val::int(bits, b)))
        }
        (Symbol::Const { value, .. }, other) | (other, Symbol::Const { value, .. }) => {
            let constant_on_right = matches!(rhs, Symbol::Const { .. });
            match (op, value) {
                (BinaryOp::And | BinaryOp::Mul, 0) => Some(constant(0)),
                (BinaryOp::Or | BinaryOp::Xor | BinaryOp::Add, 0) => Some(other),
                (BinaryOp::Sub | BinaryOp::Shl | BinaryOp::LShr | BinaryOp::AShr, 0)
                    if constant_on_right =>
                {
                    Some(other)
                }
                (BinaryOp::Mul, 1) => Some(other),
                (BinaryOp::And, v) if v == ones(bits) => Some(other),
                (BinaryOp::Or, v) if v == ones(bits) => Some(constant(v)),
                _ => None,
            }
        }
        (a, b) if a == b => match op {
            BinaryOp::Xor | BinaryOp::Sub => Some(constant(0)),
            BinaryOp::And | BinaryOp::Or => Some(a),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `a op b` keeps the promises of `flags` (else it is poison).
fn flags_hold(op: BinaryOp, flags: ArithFlags, bits: u32, a: u128, b: u128) -> bool {
    let (sa, sb) = (sign_extend(a, bits), sign_extend(b, bits));
    let signed_fits =
        |value: Option<i128>| value.is_some_and(|value| sign_extend(value as u128, bits) == value);
    let unsigned_fits = |value: Option<u128>| value.is_some_and(|value| value <= ones(bits));
    let (nsw, nuw) = match op {
        BinaryOp::Add => (signed_fits(sa.checked_add(sb)), unsigned_fits(a.checked_add(b))),
        BinaryOp::Sub => (signed_fits(sa.checked_sub(sb)), a >= b),
        BinaryOp::Mul => (signed_fits(sa.checked_mul(sb)), unsigned_fits(a.checked_mul(b))),
        BinaryOp::Shl if b < u128::from(bits) => {
            let shifted = (a << b) & ones(bits);
            (sign_extend(shifted, bits) >> b == sa, shifted >> b == a)
        }
        _ => (true, true),
    };
    let exact = match op {
        BinaryOp::LShr | BinaryOp::AShr if b < u128::from(bits) => a & ones(b as u32) == 0,
        _ => true,
    };
    (!flags.nsw || nsw)
        && (!flags.nuw || nuw)
        && (!flags.exact || exact)
        && (!flags.disjoint || a & b == 0)
}

/// All ones in the low `bits` bits.
fn ones(bits: u32) -> u128 {
    truncate(u128::MAX, bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanewise_ir::{FunctionBuilder, Type};

    /// `x = x0; r = 0; do { body(x, r) -> (x', r', exit condition) } while`:
    /// a one-block loop built by `body` from the phis `x` and `r`, which
    /// returns their next values and the loop's condition to continue.
    fn one_block_loop(
        body: impl FnOnce(&mut FunctionBuilder, Value, Value) -> (Value, Value, Value),
    ) -> (Function, Value, Value) {
        let mut func = Function::new("f", vec![Type::I32], Type::I32);
        let x0 = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let header = b.create_block(Some("loop"));
        let exit = b.create_block(Some("exit"));
        b.switch_to_block(entry);
        let zero = b.iconst(Type::I32, 0);
        b.jump(header);
        b.switch_to_block(header);
        let x = b.phi(Type::I32, vec![(entry, x0)]);
        let r = b.phi(Type::I32, vec![(entry, zero)]);
        let (x_next, r_next, more) = body(&mut b, x, r);
        b.add_phi_incoming(x, header, x_next);
        b.add_phi_incoming(r, header, r_next);
        b.branch(more, header, exit);
        b.switch_to_block(exit);
        b.ret(Some(r_next));
        (func, x_next, r_next)
    }

    fn stable_values(func: &Function) -> HashSet<Value> {
        let snapshot = CfgSnapshot::compute(func).unwrap();
        let lp = snapshot.loops.loops().next().expect("a loop");
        exit_stable_values(func, &snapshot, lp)
    }

    #[test]
    fn clearing_the_lowest_bit_is_exit_stable() {
        // low = x & -x; r' = r | low * K; x' = x ^ low; continue while low != x.
        let (func, x_next, r_next) = one_block_loop(|b, x, r| {
            let zero = b.iconst(Type::I32, 0);
            let negated = b.binary(BinaryOp::Sub, zero, x);
            let low = b.binary(BinaryOp::And, x, negated);
            let factor = b.iconst(Type::I32, 0x9e37_79b9);
            let spread = b.binary(BinaryOp::Mul, low, factor);
            let r_next = b.binary(BinaryOp::Or, spread, r);
            let x_next = b.binary(BinaryOp::Xor, low, x);
            let more = b.icmp(IntPredicate::Ne, low, x);
            (x_next, r_next, more)
        });
        assert_eq!(stable_values(&func), HashSet::from([x_next, r_next]));
    }

    #[test]
    fn shifting_until_zero_is_exit_stable() {
        // r' = r ^ x; x' = x >> 3; continue while x' != 0.
        let (func, x_next, r_next) = one_block_loop(|b, x, r| {
            let r_next = b.binary(BinaryOp::Xor, r, x);
            let three = b.iconst(Type::I32, 3);
            let x_next = b.binary(BinaryOp::LShr, x, three);
            let zero = b.iconst(Type::I32, 0);
            let more = b.icmp(IntPredicate::Ne, x_next, zero);
            (x_next, r_next, more)
        });
        assert_eq!(stable_values(&func), HashSet::from([x_next, r_next]));
    }

    #[test]
    fn a_fact_on_a_header_phi_counts_from_the_start() {
        // r' = r | x; x' = x >> 1; continue while x != 0: x is 0 on leaving.
        let (func, x_next, r_next) = one_block_loop(|b, x, r| {
            let r_next = b.binary(BinaryOp::Or, r, x);
            let one = b.iconst(Type::I32, 1);
            let x_next = b.binary(BinaryOp::LShr, x, one);
            let zero = b.iconst(Type::I32, 0);
            let more = b.icmp(IntPredicate::Ne, x, zero);
            (x_next, r_next, more)
        });
        assert_eq!(stable_values(&func), HashSet::from([x_next, r_next]));
    }

    #[test]
    fn a_counter_is_not_exit_stable() {
        // r' = r + 1; x' = x >> 1; continue while x' != 0: r keeps counting.
        let (func, _, _) = one_block_loop(|b, x, r| {
            let one = b.iconst(Type::I32, 1);
            let r_next = b.binary(BinaryOp::Add, r, one);
            let x_next = b.binary(BinaryOp::LShr, x, one);
            let zero = b.iconst(Type::I32, 0);
            let more = b.icmp(IntPredicate::Ne, x_next, zero);
            (x_next, r_next, more)
        });
        assert!(stable_values(&func).is_empty());
    }

    #[test]
    fn a_state_that_moves_after_the_exit_is_not_exit_stable() {
        // x' = x - 1 (x is 0 when the lane leaves, -1 an iteration later).
        let (func, _, _) = one_block_loop(|b, x, r| {
            let one = b.iconst(Type::I32, 1);
            let x_next = b.binary(BinaryOp::Sub, x, one);
            let r_next = b.binary(BinaryOp::Or, r, x_next);
            let more = b.icmp(IntPredicate::Ne, x, one);
            (x_next, r_next, more)
        });
        assert!(stable_values(&func).is_empty());
    }
}
