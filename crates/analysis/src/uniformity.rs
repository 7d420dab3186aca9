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
