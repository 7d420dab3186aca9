//! Folding of nested blends that share an arm, after linearization.
//!
//! The divergent-loop transform updates each tracker of a value leaving the
//! loop with `select(live, update, tracker)`, and linearization turns the
//! pure latch's `update` phi into `select(continued, tracker, value)`. The
//! tracker so costs two blends per iteration where one suffices:
//!
//! ```text
//! select(a, select(b, x, y), x)  ==  select(a & !b, y, x)
//! select(a, select(b, y, x), x)  ==  select(a & b, y, x)
//! select(a, x, select(b, x, y))  ==  select(a | b, x, y)
//! select(a, x, select(b, y, x))  ==  select(a | !b, x, y)
//! ```
//!
//! The combined conditions are mask operations (shared by all trackers of a
//! loop, and in AVX-512 mask registers nearly free); the blends are full
//! vector operations on every register of a value. LLVM's InstCombine does
//! not fold these vector select chains. Only blends of data (not `i1`
//! masks, which the block predicates may name) whose inner select has no
//! other use are folded; the inner select is left for dead-code elimination.

use std::collections::HashMap;

use lanewise_ir::{BinaryOp, Function, Inst, InstData, Type, Value};

/// Folds the select chains of `func` (see the module docs); returns how
/// many selects were rewritten. A fold trades a blend for a mask operation;
/// mask operations have fewer ports than blends (AVX-512 `k` registers), so
/// only conditions that at least two folds share are combined (the trackers
/// of one loop share theirs; LLVM's CSE merges the copies).
pub fn fold_nested_selects(func: &mut Function) -> usize {
    let mut folded = 0;
    loop {
        let uses = use_counts(func);
        let mut by_condition: HashMap<(BinaryOp, bool, Value, Value), Vec<Fold>> = HashMap::new();
        for inst in func.layout.insts() {
            if let Some(fold) = match_fold(func, inst, &uses) {
                by_condition.entry(fold.condition_key()).or_default().push(fold);
            }
        }
        let mut changed = false;
        for folds in by_condition.into_values().filter(|folds| folds.len() >= 2) {
            for fold in folds {
                apply(func, &fold);
                folded += 1;
                changed = true;
            }
        }
        if !changed {
            return folded;
        }
    }
}

/// How many operands (phi entries included) read each value.
fn use_counts(func: &Function) -> HashMap<Value, usize> {
    let mut counts = HashMap::new();
    for inst in func.layout.insts() {
        func.dfg.inst(inst).for_each_operand(|value| *counts.entry(value).or_insert(0) += 1);
    }
    counts
}

/// One foldable select: `outer` becomes `select(a OP (b or !b), chosen, kept)`.
struct Fold {
    outer: Inst,
    op: BinaryOp,
    negate_b: bool,
    a: Value,
    b: Value,
    chosen: Value,
    kept: Value,
}

impl Fold {
    fn condition_key(&self) -> (BinaryOp, bool, Value, Value) {
        (self.op, self.negate_b, self.a, self.b)
    }
}

/// Whether `outer` matches one of the four patterns, and how it folds.
fn match_fold(func: &Function, outer: Inst, uses: &HashMap<Value, usize>) -> Option<Fold> {
    let InstData::Select { cond: a, if_true, if_false, .. } = func.dfg.inst(outer) else {
        return None;
    };
    let (a, if_true, if_false) = (*a, *if_true, *if_false);
    let result = func.dfg.result(outer)?;
    if *func.dfg.value_type(result).scalar_type() == Type::BOOL
        || func.dfg.value_type(a) != &Type::BOOL
    {
        return None;
    }
    let inner_select = |value: Value| -> Option<(Value, Value, Value)> {
        if uses.get(&value) != Some(&1) {
            return None;
        }
        let inst = func.dfg.defining_inst(value)?;
        func.layout.inst_block(inst)?;
        match func.dfg.inst(inst) {
            InstData::Select { cond, if_true, if_false, .. }
                if func.dfg.value_type(*cond) == &Type::BOOL =>
            {
                Some((*cond, *if_true, *if_false))
            }
            _ => None,
        }
    };
    let fold = |op, negate_b, b, chosen, kept| Fold { outer, op, negate_b, a, b, chosen, kept };
    if let Some((b, x, y)) = inner_select(if_true) {
        if x == if_false {
            return Some(fold(BinaryOp::And, true, b, y, if_false)); // select(a & !b, y, x)
        }
        if y == if_false {
            return Some(fold(BinaryOp::And, false, b, x, if_false)); // select(a & b, y, x)
        }
    }
    if let Some((b, x, y)) = inner_select(if_false) {
        if x == if_true {
            return Some(fold(BinaryOp::Or, false, b, if_true, y)); // select(a | b, x, y)
        }
        if y == if_true {
            return Some(fold(BinaryOp::Or, true, b, if_true, x)); // select(a | !b, x, y)
        }
    }
    None
}

/// Rewrites `fold.outer` into the folded select.
fn apply(func: &mut Function, fold: &Fold) {
    let InstData::Select { flags, .. } = func.dfg.inst(fold.outer).clone() else {
        unreachable!("a matched fold is a select");
    };
    let b = if fold.negate_b {
        let true_value = func.dfg.int_const(Type::BOOL, 1);
        insert_before(func, fold.outer, BinaryOp::Xor, fold.b, true_value)
    } else {
        fold.b
    };
    let cond = insert_before(func, fold.outer, fold.op, fold.a, b);
    *func.dfg.inst_mut(fold.outer) =
        InstData::Select { cond, if_true: fold.chosen, if_false: fold.kept, flags };
}

/// A new `lhs OP rhs` on `i1` right before `before`; returns its result.
fn insert_before(func: &mut Function, before: Inst, op: BinaryOp, lhs: Value, rhs: Value) -> Value {
    let inst = func
        .dfg
        .make_inst(InstData::Binary { op, lhs, rhs, flags: Default::default() }, Type::BOOL);
    func.layout.insert_inst_before(inst, before);
    func.dfg.result(inst).expect("a binary operation has a result")
}

#[cfg(test)]
mod tests {
    use lanewise_ir::{verify_function, FunctionBuilder};

    use super::*;
    use crate::interp::{Interpreter, Memory, Val};

    /// `f(a, b, x, y)` returning `i32`: two selects built by `build` from the
    /// conditions and arms, combined as `first * 1000 + second`.
    fn function(
        build: impl Fn(&mut FunctionBuilder<'_>, Value, Value, Value, Value) -> Value,
    ) -> Function {
        let params = vec![Type::BOOL, Type::BOOL, Type::I32, Type::I32];
        let mut func = Function::new("f", params, Type::I32);
        let [a, b, x, y] = [0, 1, 2, 3].map(|index| func.param_value(index));
        let mut builder = FunctionBuilder::new(&mut func);
        let entry = builder.create_block(Some("entry"));
        builder.switch_to_block(entry);
        // Two selects with the same conditions (the trackers of one loop),
        // the second on other arms.
        let first = build(&mut builder, a, b, x, y);
        let seven = builder.iconst(Type::I32, 7);
        let y7 = builder.binary(BinaryOp::Add, y, seven);
        let second = build(&mut builder, a, b, x, y7);
        let thousand = builder.iconst(Type::I32, 1000);
        let scaled = builder.binary(BinaryOp::Mul, first, thousand);
        let sum = builder.binary(BinaryOp::Add, scaled, second);
        builder.ret(Some(sum));
        func
    }

    fn results(func: &Function) -> Vec<u128> {
        let mut results = Vec::new();
        for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
            let mut interpreter =
                Interpreter::new(Memory::new(0x1000, 16), |name: &str, _: &[Val]| {
                    panic!("unexpected call of {name}")
                });
            let args = [Val::bool(a), Val::bool(b), Val::int(32, 3), Val::int(32, 5)];
            match interpreter.run(func, &args).expect("the function runs") {
                Some(Val::Int { value, .. }) => results.push(value),
                other => panic!("unexpected result {other:?}"),
            }
        }
        results
    }

    /// Folds `func`, checks the fold count, the verifier and that every
    /// combination of conditions gives the same result as before.
    fn check_folds(func: Function, expected_folds: usize) {
        let before = results(&func);
        let mut folded = func.clone();
        assert_eq!(fold_nested_selects(&mut folded), expected_folds);
        verify_function(&folded).expect("the folded function verifies");
        assert_eq!(results(&folded), before);
    }

    #[test]
    fn all_four_patterns_keep_their_meaning() {
        // select(a, select(b, x, y), x), select(a, select(b, y, x), x),
        // select(a, x, select(b, x, y)), select(a, x, select(b, y, x)).
        for inner_arms_swapped in [false, true] {
            for inner_on_false_side in [false, true] {
                check_folds(
                    function(|b, c1, c2, x, y| {
                        let (first, second) = if inner_arms_swapped { (y, x) } else { (x, y) };
                        let inner = b.select(c2, first, second);
                        if inner_on_false_side {
                            b.select(c1, x, inner)
                        } else {
                            b.select(c1, inner, x)
                        }
                    }),
                    2,
                );
            }
        }
    }

    #[test]
    fn a_lone_chain_or_a_shared_inner_select_stays() {
        // One chain per condition pair: folding would trade a blend for a
        // mask operation, not save one.
        let mut params_only =
            Function::new("g", vec![Type::BOOL, Type::BOOL, Type::I32], Type::I32);
        let [a, c, x] = [0, 1, 2].map(|index| params_only.param_value(index));
        let mut builder = FunctionBuilder::new(&mut params_only);
        let entry = builder.create_block(Some("entry"));
        builder.switch_to_block(entry);
        let one = builder.iconst(Type::I32, 1);
        let inner = builder.select(c, x, one);
        let outer = builder.select(a, inner, x);
        builder.ret(Some(outer));
        assert_eq!(fold_nested_selects(&mut params_only.clone()), 0);

        // The inner select has a second use: it must stay as it is.
        check_folds(
            function(|b, c1, c2, x, y| {
                let inner = b.select(c2, x, y);
                let outer = b.select(c1, inner, x);
                b.binary(BinaryOp::Add, outer, inner)
            }),
            0,
        );
    }
}
