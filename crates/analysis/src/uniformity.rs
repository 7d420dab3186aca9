//! The uniform control-flow check.
//!
//! This milestone vectorizes only functions whose control flow is uniform:
//! every conditional branch and switch that can execute decides the same way
//! in all lanes, so the vectorized function keeps the scalar CFG unchanged and
//! needs no masks, no linearization and no blends (Karrenberg 2014, 5.6.10:
//! "a branch is uniform if its condition is uniform"). A branch on a
//! non-uniform condition is *divergent*; it is rejected here with an error
//! naming the function, the block and the condition.
//!
//! Under this restriction the shape analysis ([`crate::shapes`]) is exact as
//! a plain SSA fixed point: a phi joins values chosen by a uniform decision.
//! The next milestone lifts the restriction and adds sync dependence
//! (Moll & Hack, PLDI'18; thesis 5.6.5 blend phis and 5.6.12 divergent loops):
//! phis at the join points of divergent branches, and values leaving divergent
//! loops, become varying even when their incoming values are uniform.
//!
//! Branches in blocks unreachable from the entry are ignored, and so are
//! branches whose successors are all the same block (their condition decides
//! nothing).

use lanewise_ir::{Function, InstData};

use crate::shapes::{Shape, ShapeInfo};

/// The kind of terminator that diverges.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum DivergentTerminator {
    /// A conditional `br` on a non-uniform condition.
    Branch,
    /// A `switch` on a non-uniform value.
    Switch,
}

/// A conditional branch or switch whose decision may differ between lanes.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error(
    "function `{function}`: block `{block}` ends in {} on a {shape} {} (`{condition}`); \
     divergent control flow is not supported yet",
    match .terminator { DivergentTerminator::Branch => "a branch", DivergentTerminator::Switch => "a switch" },
    match .terminator { DivergentTerminator::Branch => "condition", DivergentTerminator::Switch => "value" }
)]
pub struct DivergenceError {
    pub function: String,
    pub block: String,
    pub terminator: DivergentTerminator,
    /// The condition (or switch value), as it is named in dumps (`%cmp`, `v7`).
    pub condition: String,
    /// `varying`, or `strided(k)` for a condition that differs lane by lane
    /// in a known way.
    pub shape: String,
}

/// Checks that every reachable conditional branch and switch of `func`
/// decides on a uniform value; returns the first divergent one in layout
/// order otherwise.
pub fn check_uniform_control_flow(
    func: &Function,
    shapes: &ShapeInfo,
) -> Result<(), DivergenceError> {
    let reachable = crate::reachable_blocks(func);
    for block in func.layout.blocks() {
        if !reachable[*block] {
            continue;
        }
        let Some(terminator) = func.terminator(*block) else { continue };
        let data = func.dfg.inst(terminator);
        let (kind, condition) = match data {
            InstData::Branch { cond, .. } => (DivergentTerminator::Branch, *cond),
            InstData::Switch { value, .. } => (DivergentTerminator::Switch, *value),
            _ => continue,
        };
        if func.successors(*block).len() < 2 {
            continue;
        }
        let shape = shapes.shape(condition).shape;
        if shape == Shape::Uniform {
            continue;
        }
        let shape = match shape {
            Shape::Strided(_) => shape.to_string(),
            _ => "varying".to_owned(),
        };
        return Err(DivergenceError {
            function: func.name.clone(),
            block: func.block_name(*block),
            terminator: kind,
            condition: func.dfg.display_value(condition),
            shape,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use lanewise_ir::vfabi::parse_shapes;
    use lanewise_ir::{BinaryOp, DataLayout, FunctionBuilder, InstData, IntPredicate, Type};

    use super::*;

    fn check(func: &Function, shapes: &str) -> Result<(), DivergenceError> {
        let specs = parse_shapes(shapes).unwrap();
        let info = ShapeInfo::compute(func, &DataLayout::default(), &specs).unwrap();
        check_uniform_control_flow(func, &info)
    }

    /// `for (i = 0; i < n; i++) p[lane] += 1` with `n` uniform.
    fn counted_loop() -> Function {
        let mut func = Function::new("count", vec![Type::I64, Type::I64], Type::I64);
        let (n, lane) = (func.param_value(0), func.param_value(1));
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let header = b.create_block(Some("loop"));
        let exit = b.create_block(Some("exit"));
        b.switch_to_block(entry);
        let zero = b.iconst(Type::I64, 0);
        b.jump(header);
        b.switch_to_block(header);
        let i = b.phi(Type::I64, vec![(entry, zero), (header, zero)]);
        let sum = b.phi(Type::I64, vec![(entry, lane), (header, lane)]);
        let one = b.iconst(Type::I64, 1);
        let next = b.binary(BinaryOp::Add, i, one);
        let next_sum = b.binary(BinaryOp::Add, sum, lane);
        let more = b.icmp(IntPredicate::Slt, next, n);
        b.func.dfg.value_names[more] = Some("more".to_owned());
        b.branch(more, header, exit);
        b.switch_to_block(exit);
        b.ret(Some(next_sum));
        for (phi, latch_value) in [(i, next), (sum, next_sum)] {
            let inst = func.dfg.defining_inst(phi).unwrap();
            if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(inst) {
                incoming[1].1 = latch_value;
            }
        }
        func
    }

    #[test]
    fn accepts_a_loop_with_a_uniform_trip_count() {
        assert_eq!(check(&counted_loop(), "ul"), Ok(()));
    }

    #[test]
    fn rejects_a_loop_whose_trip_count_varies() {
        let error = check(&counted_loop(), "vl").unwrap_err();
        assert_eq!(error.block, "loop");
        assert_eq!(error.condition, "%more");
    }

    /// `if (x > 0) y = 1; else y = 2;` with `x` varying.
    #[test]
    fn rejects_a_varying_if_naming_the_block_and_the_condition() {
        let mut func = Function::new("foo", vec![Type::I32], Type::I32);
        let x = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let then_block = b.create_block(Some("if.then"));
        let else_block = b.create_block(Some("if.else"));
        let join = b.create_block(Some("if.end"));
        b.switch_to_block(entry);
        b.jump(then_block);
        b.switch_to_block(then_block);
        let zero = b.iconst(Type::I32, 0);
        let cmp = b.icmp(IntPredicate::Sgt, x, zero);
        b.func.dfg.value_names[cmp] = Some("cmp".to_owned());
        b.branch(cmp, else_block, join);
        b.switch_to_block(else_block);
        b.jump(join);
        b.switch_to_block(join);
        b.ret(Some(x));

        let error = check(&func, "v").unwrap_err();
        assert_eq!(
            error.to_string(),
            "function `foo`: block `if.then` ends in a branch on a varying condition (`%cmp`); \
             divergent control flow is not supported yet"
        );
        assert_eq!(error.terminator, DivergentTerminator::Branch);
        assert_eq!(check(&func, "u"), Ok(()));
    }

    #[test]
    fn rejects_a_switch_on_a_strided_value() {
        let mut func = Function::new("sw", vec![Type::I32], Type::Void);
        let x = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let one = b.create_block(Some("one"));
        let other = b.create_block(Some("other"));
        b.switch_to_block(entry);
        b.ins(InstData::Switch { value: x, default: other, cases: vec![(1, one)] }, Type::Void);
        b.switch_to_block(one);
        b.ret(None);
        b.switch_to_block(other);
        b.ret(None);
        let error = check(&func, "l").unwrap_err();
        assert_eq!(error.terminator, DivergentTerminator::Switch);
        assert_eq!(
            error.to_string(),
            "function `sw`: block `entry` ends in a switch on a strided(1) value (`v0`); \
             divergent control flow is not supported yet"
        );
    }

    #[test]
    fn ignores_branches_that_decide_nothing_or_cannot_run() {
        let mut func = Function::new("trivial", vec![Type::BOOL], Type::Void);
        let flag = func.param_value(0);
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        let next = b.create_block(Some("next"));
        let dead = b.create_block(Some("dead"));
        b.switch_to_block(entry);
        b.branch(flag, next, next);
        b.switch_to_block(next);
        b.ret(None);
        b.switch_to_block(dead);
        b.branch(flag, entry, next);
        assert_eq!(check(&func, "v"), Ok(()));
    }
}
