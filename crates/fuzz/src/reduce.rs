//! The reducer: greedy shrinking of a failing [`Program`] on its AST.
//!
//! Passes, coarse to fine, repeated until none makes progress: remove a
//! kernel, remove an uncalled function, empty a statement list, delete a
//! statement, replace a compound statement by one of its bodies, lower a
//! knob (the trip count `N`, loop bounds, `simdlen`, unused locals,
//! parameters, reductions, `lastprivate`s), replace an expression by a
//! literal or by a subexpression of its type. A candidate is kept when
//! the predicate (the same failure on the same -march) still holds and it
//! is smaller: shorter C text, or as long with lower knobs, so the
//! reduction ends. Candidates are well formed by construction or
//! skipped: a body is hoisted out of a loop only without free
//! `break`/`continue` (and the loop variable becomes 0), out of a `switch`
//! only without free `break`, out of a `goto` scope only without a `goto`
//! to its label. Every candidate is free of undefined behaviour because
//! the printer makes every node so (ast.rs).

use crate::ast::*;
use crate::print::{has_goto, print_program};
use std::collections::{BTreeSet, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Instant;

/// When to stop reducing.
#[derive(Clone, Debug)]
pub struct ReduceLimits {
    /// Predicate evaluations.
    pub max_checks: usize,
    pub deadline: Option<Instant>,
}

#[derive(Clone, Debug)]
pub struct Reduced {
    pub program: Program,
    /// Predicate evaluations.
    pub checks: usize,
    /// Candidates kept.
    pub steps: usize,
}

#[derive(Clone, Copy, Debug)]
enum Pass {
    RemoveKernel,
    RemoveFunction,
    ClearBlock,
    DeleteStmt,
    Flatten,
    Knob,
    ReplaceExpr,
}

const PASSES: [Pass; 7] = [
    Pass::RemoveKernel,
    Pass::RemoveFunction,
    Pass::ClearBlock,
    Pass::DeleteStmt,
    Pass::Flatten,
    Pass::Knob,
    Pass::ReplaceExpr,
];

/// Shrinks `program` while `still_fails(candidate, its C text)` holds.
pub fn reduce(
    program: &Program,
    limits: &ReduceLimits,
    still_fails: &mut dyn FnMut(&Program, &str) -> bool,
) -> Reduced {
    let mut current = program.clone();
    let mut current_measure = measure(&current, &print_program(&current));
    let mut tried: HashSet<u64> = HashSet::new();
    let mut checks = 0;
    let mut steps = 0;
    let out_of_budget = |checks: usize| {
        checks >= limits.max_checks
            || limits.deadline.is_some_and(|deadline| Instant::now() >= deadline)
    };
    loop {
        let mut progress = false;
        for pass in PASSES {
            let mut k = 0;
            loop {
                if out_of_budget(checks) {
                    return Reduced { program: current, checks, steps };
                }
                let Some(candidate) = candidate(pass, &current, k) else {
                    break;
                };
                let Some(candidate) = candidate else {
                    k += 1;
                    continue;
                };
                let source = print_program(&candidate);
                let candidate_measure = measure(&candidate, &source);
                let mut hasher = DefaultHasher::new();
                source.hash(&mut hasher);
                if candidate_measure >= current_measure || !tried.insert(hasher.finish()) {
                    k += 1;
                    continue;
                }
                checks += 1;
                if still_fails(&candidate, &source) {
                    current = candidate;
                    current_measure = candidate_measure;
                    steps += 1;
                    progress = true;
                } else {
                    k += 1;
                }
            }
        }
        if !progress {
            return Reduced { program: current, checks, steps };
        }
    }
}

/// Size of a program: its text, then its numeric knobs.
fn measure(program: &Program, source: &str) -> (usize, u64) {
    fn loop_knobs(stmts: &[Stmt]) -> u64 {
        stmts
            .iter()
            .map(|stmt| {
                let own = match stmt {
                    Stmt::While { bound, .. } => u64::from(*bound),
                    Stmt::For { mask, .. } => u64::from(*mask),
                    _ => 0,
                };
                own + stmt_blocks(stmt).iter().map(|block| loop_knobs(block)).sum::<u64>()
            })
            .sum()
    }
    let mut knobs = u64::from(program.n);
    for kernel in &program.kernels {
        knobs += u64::from(kernel.trip_offset) + loop_knobs(&kernel.body);
    }
    for function in &program.functions {
        knobs += loop_knobs(&function.body);
    }
    (source.len(), knobs)
}

/// The `k`-th candidate of a pass: `None` past the last one,
/// `Some(None)` where the `k`-th change does not apply.
fn candidate(pass: Pass, program: &Program, k: usize) -> Option<Option<Program>> {
    let mut next = program.clone();
    match pass {
        Pass::RemoveKernel => {
            if k >= program.kernels.len() {
                return None;
            }
            if program.kernels.len() < 2 {
                return Some(None);
            }
            next.kernels.remove(k);
            Some(Some(next))
        }
        Pass::RemoveFunction => {
            if k >= program.functions.len() {
                return None;
            }
            if program_names(program).contains(&program.functions[k].name) {
                return Some(None);
            }
            next.functions.remove(k);
            Some(Some(next))
        }
        Pass::ClearBlock => {
            let mut index = k;
            let mut outcome = None;
            for body in bodies_mut(&mut next) {
                outcome = nth_block(body, &mut index, &mut |block| {
                    let applies = !block.is_empty();
                    block.clear();
                    applies
                });
                if outcome.is_some() {
                    break;
                }
            }
            outcome.map(|applies| applies.then_some(next))
        }
        Pass::DeleteStmt => {
            let mut index = k;
            let mut outcome = None;
            for body in bodies_mut(&mut next) {
                outcome = nth_stmt(body, &mut index, &mut |block, position| {
                    block.remove(position);
                    true
                });
                if outcome.is_some() {
                    break;
                }
            }
            outcome.map(|applies| applies.then_some(next))
        }
        Pass::Flatten => {
            let mut index = k;
            let mut outcome = None;
            for body in bodies_mut(&mut next) {
                outcome =
                    nth_stmt_block(body, &mut index, &mut |block, position, which| match hoisted(
                        &block[position],
                        which,
                    ) {
                        Some(stmts) => {
                            block.splice(position..=position, stmts);
                            true
                        }
                        None => false,
                    });
                if outcome.is_some() {
                    break;
                }
            }
            outcome.map(|applies| applies.then_some(next))
        }
        Pass::Knob => knobs(program).into_iter().nth(k).map(Some),
        Pass::ReplaceExpr => {
            let mut index = k;
            for root in program_roots_mut(&mut next) {
                if replace_nth(root, &mut index) {
                    return Some(Some(next));
                }
            }
            None
        }
    }
}

fn bodies_mut(program: &mut Program) -> Vec<&mut Vec<Stmt>> {
    let mut bodies: Vec<&mut Vec<Stmt>> =
        program.functions.iter_mut().map(|function| &mut function.body).collect();
    for kernel in &mut program.kernels {
        if let Some(scan) = &mut kernel.scan {
            bodies.push(&mut scan.updates);
        }
        bodies.push(&mut kernel.body);
    }
    bodies
}

/// Applies `op` to the `index`-th statement list (preorder, `stmts`
/// itself first); `Some(applied)` when found.
fn nth_block(
    stmts: &mut Vec<Stmt>,
    index: &mut usize,
    op: &mut dyn FnMut(&mut Vec<Stmt>) -> bool,
) -> Option<bool> {
    if *index == 0 {
        return Some(op(stmts));
    }
    *index -= 1;
    for stmt in stmts.iter_mut() {
        for block in stmt_blocks_mut(stmt) {
            if let Some(applied) = nth_block(block, index, op) {
                return Some(applied);
            }
        }
    }
    None
}

/// Applies `op(list, position)` to the `index`-th statement (preorder).
fn nth_stmt(
    stmts: &mut Vec<Stmt>,
    index: &mut usize,
    op: &mut dyn FnMut(&mut Vec<Stmt>, usize) -> bool,
) -> Option<bool> {
    for position in 0..stmts.len() {
        if *index == 0 {
            return Some(op(stmts, position));
        }
        *index -= 1;
        for block in stmt_blocks_mut(&mut stmts[position]) {
            if let Some(applied) = nth_stmt(block, index, op) {
                return Some(applied);
            }
        }
    }
    None
}

/// Applies `op(list, position, which)` to the `index`-th pair of a
/// statement and one of its bodies (preorder).
fn nth_stmt_block(
    stmts: &mut Vec<Stmt>,
    index: &mut usize,
    op: &mut dyn FnMut(&mut Vec<Stmt>, usize, usize) -> bool,
) -> Option<bool> {
    for position in 0..stmts.len() {
        let count = stmt_blocks(&stmts[position]).len();
        if *index < count {
            return Some(op(stmts, position, *index));
        }
        *index -= count;
        for block in stmt_blocks_mut(&mut stmts[position]) {
            if let Some(applied) = nth_stmt_block(block, index, op) {
                return Some(applied);
            }
        }
    }
    None
}

/// The statements that replace `stmt` by its body number `which`, if that
/// keeps the program well formed.
fn hoisted(stmt: &Stmt, which: usize) -> Option<Vec<Stmt>> {
    let body = stmt_blocks(stmt)[which].clone();
    let (free_break, free_continue) = free_jumps(&body);
    match stmt {
        Stmt::If { .. } | Stmt::Rv { .. } | Stmt::CondInit { .. } => Some(body),
        Stmt::Switch { .. } => (!free_break).then_some(body),
        Stmt::While { counter: var, .. } | Stmt::For { var, .. } => {
            if free_break || free_continue {
                return None;
            }
            let mut body = body;
            substitute(&mut body, var, Lit::Int(0));
            Some(body)
        }
        Stmt::GotoScope { label, .. } => (!has_goto(&body, label)).then_some(body),
        _ => None,
    }
}

/// Whether `stmts` hold a `break` / `continue` that binds outside them.
fn free_jumps(stmts: &[Stmt]) -> (bool, bool) {
    let (mut free_break, mut free_continue) = (false, false);
    for stmt in stmts {
        match stmt {
            Stmt::Break => free_break = true,
            Stmt::Continue => free_continue = true,
            Stmt::While { .. } | Stmt::For { .. } => {}
            Stmt::Switch { .. } => {
                for block in stmt_blocks(stmt) {
                    free_continue |= free_jumps(block).1;
                }
            }
            _ => {
                for block in stmt_blocks(stmt) {
                    let (b, c) = free_jumps(block);
                    free_break |= b;
                    free_continue |= c;
                }
            }
        }
    }
    (free_break, free_continue)
}

fn substitute(stmts: &mut [Stmt], name: &str, lit: Lit) {
    fn visit(expr: &mut Expr, name: &str, lit: Lit) {
        if matches!(expr, Expr::Var(var, _) if var == name) {
            *expr = Expr::Lit(lit);
            return;
        }
        // Loop variables are never linear bases (gen.rs), so call
        // arguments other than varying ones never mention them.
        for child in expr.children_mut() {
            visit(child, name, lit);
        }
    }
    let mut roots = Vec::new();
    expr_roots_mut(stmts, &mut roots);
    for root in roots {
        visit(root, name, lit);
    }
}

/// Replaces the `index`-th replacement option of the expressions of
/// `expr` (preorder); true when done.
fn replace_nth(expr: &mut Expr, index: &mut usize) -> bool {
    let options = replacements(expr);
    if *index < options.len() {
        *expr = options[*index].clone();
        return true;
    }
    *index -= options.len();
    for child in expr.children_mut() {
        if replace_nth(child, index) {
            return true;
        }
    }
    false
}

/// Simpler expressions of the same type: zero, then the subexpressions.
fn replacements(expr: &Expr) -> Vec<Expr> {
    let ty = expr.ty();
    let zero = Expr::Lit(Lit::zero(ty));
    if let Expr::Lit(_) = expr {
        return if *expr == zero { Vec::new() } else { vec![zero] };
    }
    let mut options = vec![zero];
    if !matches!(expr, Expr::Var(..)) {
        options.push(Expr::Lit(Lit::one(ty)));
    }
    options.extend(expr.children().into_iter().filter(|child| child.ty() == ty).cloned());
    options
}

/// Every name an expression mentions (variables, arrays, functions).
fn expr_names(expr: &Expr, names: &mut BTreeSet<String>) {
    match expr {
        Expr::Var(name, _) => {
            names.insert(name.clone());
        }
        Expr::Load { base, .. } => {
            names.insert(array_variable(base).to_owned());
        }
        Expr::Call { function, args, .. } => {
            names.insert(function.clone());
            for arg in args {
                match arg {
                    Arg::LinearInt { base, .. } => {
                        names.insert(base.clone());
                    }
                    Arg::Pointer(PointerArg::Table(name) | PointerArg::Param(name)) => {
                        names.insert(name.clone());
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    for child in expr.children() {
        expr_names(child, names);
    }
}

fn stmt_names(stmts: &[Stmt], names: &mut BTreeSet<String>) {
    for stmt in stmts {
        match stmt {
            Stmt::Assign { name, .. }
            | Stmt::Reduce { var: name, .. }
            | Stmt::CondInit { target: name, .. }
            | Stmt::ShortVector { target: name, .. }
            | Stmt::Walk { target: name, .. } => {
                names.insert(name.clone());
            }
            Stmt::ArrayStore { array, .. } | Stmt::RecordCopy { array, .. } => {
                names.insert(array_variable(array).to_owned());
            }
            Stmt::PointerStore { pointer, .. } => {
                names.insert(pointer.clone());
            }
            Stmt::CallStmt { target: Some(target), .. } => {
                names.insert(target.clone());
            }
            _ => {}
        }
        for expr in stmt_exprs(stmt) {
            expr_names(expr, names);
        }
        for block in stmt_blocks(stmt) {
            stmt_names(block, names);
        }
    }
}

fn function_names(function: &Function) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for local in &function.locals {
        expr_names(&local.init, &mut names);
    }
    for array in &function.arrays {
        expr_names(&array.init, &mut names);
    }
    if let Some(recursion) = &function.recursion {
        expr_names(&recursion.base, &mut names);
    }
    stmt_names(&function.body, &mut names);
    expr_names(&function.result, &mut names);
    names
}

fn kernel_names(kernel: &Kernel) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for last in &kernel.lastprivates {
        expr_names(&last.value, &mut names);
    }
    for local in &kernel.locals {
        expr_names(&local.init, &mut names);
    }
    for array in &kernel.arrays {
        expr_names(&array.init, &mut names);
    }
    if let Some(scan) = &kernel.scan {
        stmt_names(&scan.updates, &mut names);
    }
    stmt_names(&kernel.body, &mut names);
    names
}

fn program_names(program: &Program) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for function in &program.functions {
        names.extend(function_names(function));
    }
    for kernel in &program.kernels {
        names.extend(kernel_names(kernel));
    }
    names
}

/// Removes argument `position` from every call of `function`.
fn remove_argument(program: &mut Program, function: &str, position: usize) {
    fn visit(expr: &mut Expr, function: &str, position: usize) {
        if let Expr::Call { function: callee, args, .. } = expr {
            if callee == function {
                args.remove(position);
            }
        }
        for child in expr.children_mut() {
            visit(child, function, position);
        }
    }
    for root in program_roots_mut(program) {
        visit(root, function, position);
    }
}

/// Every single-knob simplification of `program`.
fn knobs(program: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    let mut with = |change: &dyn Fn(&mut Program)| {
        let mut next = program.clone();
        change(&mut next);
        out.push(next);
    };
    for n in [1, 2, 4, 8, 16, 32, program.n / 2] {
        if n < program.n {
            with(&|p: &mut Program| p.n = n);
        }
    }
    for (k, kernel) in program.kernels.iter().enumerate() {
        if kernel.trip_offset != 0 {
            with(&|p: &mut Program| p.kernels[k].trip_offset = 0);
        }
        if kernel.simdlen.is_some() {
            with(&|p: &mut Program| p.kernels[k].simdlen = None);
        }
        let names = kernel_names(kernel);
        for (j, last) in kernel.lastprivates.iter().enumerate() {
            if !names.contains(&last.name) {
                with(&|p: &mut Program| {
                    p.kernels[k].lastprivates.remove(j);
                });
            }
        }
        for (j, linear) in kernel.linears.iter().enumerate() {
            if !names.contains(&linear.name) {
                with(&|p: &mut Program| {
                    p.kernels[k].linears.remove(j);
                });
            }
        }
        for (j, reduction) in kernel.reductions.iter().enumerate() {
            if !names.contains(&reduction.name) {
                with(&|p: &mut Program| {
                    p.kernels[k].reductions.remove(j);
                });
            }
        }
        for (j, local) in kernel.locals.iter().enumerate() {
            if !names.contains(&local.name) {
                with(&|p: &mut Program| {
                    p.kernels[k].locals.remove(j);
                });
            }
        }
        for (j, array) in kernel.arrays.iter().enumerate() {
            if !names.contains(&array.name) {
                with(&|p: &mut Program| {
                    p.kernels[k].arrays.remove(j);
                });
            }
        }
    }
    for (f, function) in program.functions.iter().enumerate() {
        if function.clauses.simdlen.is_some() {
            with(&|p: &mut Program| p.functions[f].clauses.simdlen = None);
        }
        if function.noinline {
            with(&|p: &mut Program| p.functions[f].noinline = false);
        }
        if function.lanes_independent {
            with(&|p: &mut Program| p.functions[f].lanes_independent = false);
        }
        let names = function_names(function);
        for (j, local) in function.locals.iter().enumerate() {
            if !names.contains(&local.name) {
                with(&|p: &mut Program| {
                    p.functions[f].locals.remove(j);
                });
            }
        }
        for (j, array) in function.arrays.iter().enumerate() {
            if !names.contains(&array.name) {
                with(&|p: &mut Program| {
                    p.functions[f].arrays.remove(j);
                });
            }
        }
        for (j, param) in function.params.iter().enumerate() {
            if !names.contains(&param.name) {
                let name = function.name.clone();
                with(&|p: &mut Program| {
                    p.functions[f].params.remove(j);
                    remove_argument(p, &name, j);
                });
            }
        }
    }
    // Loop bounds: every while bound and for mask down to 1.
    let mut loop_count = 0;
    let mut count = |stmts: &mut Vec<Stmt>| {
        for stmt in stmts.iter() {
            if matches!(stmt, Stmt::While { bound, .. } if *bound > 1)
                || matches!(stmt, Stmt::For { mask, .. } if *mask > 1)
            {
                loop_count += 1;
            }
        }
    };
    let mut scratch = program.clone();
    for body in bodies_mut(&mut scratch) {
        for_each_block_mut(body, &mut count);
    }
    for target in 0..loop_count {
        let mut next = program.clone();
        let mut seen = 0;
        let mut lower = |stmts: &mut Vec<Stmt>| {
            for stmt in stmts.iter_mut() {
                match stmt {
                    Stmt::While { bound, .. } if *bound > 1 => {
                        if seen == target {
                            *bound = 1;
                        }
                        seen += 1;
                    }
                    Stmt::For { mask, .. } if *mask > 1 => {
                        if seen == target {
                            *mask = 1;
                        }
                        seen += 1;
                    }
                    _ => {}
                }
            }
        };
        for body in bodies_mut(&mut next) {
            for_each_block_mut(body, &mut lower);
        }
        out.push(next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::generate;

    fn limits() -> ReduceLimits {
        ReduceLimits { max_checks: 20_000, deadline: None }
    }

    /// A synthetic failure: "the program still divides a float by
    /// something" shrinks to a program with little else.
    #[test]
    fn reducer_shrinks_a_synthetic_failure() {
        let mut checked = 0;
        for seed in 0..40 {
            let program = generate(seed);
            let source = print_program(&program);
            let needle = "sqrtf(";
            if !source.contains(needle) {
                continue;
            }
            checked += 1;
            let reduced = reduce(&program, &limits(), &mut |_, text| text.contains(needle));
            let text = print_program(&reduced.program);
            assert!(text.contains(needle));
            // The functions and kernels (after the fixed prelude) halve.
            let code = |text: &str| {
                let prelude_end = text.find("static double lw_double(void)").expect("the prelude");
                text.len() - prelude_end
            };
            assert!(
                code(&text) < code(&source) / 2,
                "seed {seed}: {} -> {} bytes of code\n{text}",
                code(&source),
                code(&text)
            );
            assert!(reduced.program.kernels.len() == 1);
            assert!(reduced.steps > 0 && reduced.checks >= reduced.steps);
            if checked == 3 {
                break;
            }
        }
        assert_eq!(checked, 3, "three of the first 40 seeds call sqrtf");
    }

    #[test]
    fn reducer_respects_its_check_budget() {
        let program = generate(3);
        let limits = ReduceLimits { max_checks: 5, deadline: None };
        let reduced = reduce(&program, &limits, &mut |_, _| true);
        assert_eq!(reduced.checks, 5);
    }

    #[test]
    fn hoisting_keeps_jumps_bound() {
        let body = vec![Stmt::If {
            cond: Expr::Var("k1".into(), Ty::Int),
            then_body: vec![Stmt::Break],
            else_body: Vec::new(),
        }];
        let loop_stmt = Stmt::For {
            var: "k1".into(),
            limit: Expr::Lit(Lit::Int(3)),
            mask: 3,
            body: body.clone(),
        };
        assert_eq!(hoisted(&loop_stmt, 0), None, "a free break cannot leave its loop");
        let quiet = Stmt::For {
            var: "k1".into(),
            limit: Expr::Lit(Lit::Int(3)),
            mask: 3,
            body: vec![Stmt::Assign { name: "x".into(), value: Expr::Var("k1".into(), Ty::Int) }],
        };
        assert_eq!(
            hoisted(&quiet, 0),
            Some(vec![Stmt::Assign { name: "x".into(), value: Expr::Lit(Lit::Int(0)) }]),
            "the loop variable becomes 0"
        );
        let scope = Stmt::GotoScope { label: "L1".into(), body: vec![Stmt::Goto("L1".into())] };
        assert_eq!(hoisted(&scope, 0), None);
    }
}
