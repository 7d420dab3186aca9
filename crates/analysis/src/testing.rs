//! Test support (compiled only for this crate's tests): functions built from
//! edge lists, and a generator of random *reducible* CFGs for property
//! tests of the block index and the divergence analysis.
//!
//! Every function built here has the signature `void f(i32 u, i32 v)` and is
//! analysed with the shapes `uv`: `u` is uniform, `v` varying. A block's
//! branch (or switch) decides on `u` or on `v`, so a test chooses which
//! branches are divergent by construction.
//!
//! The random generator lowers a random structured program: sequences,
//! `if`/`else`, switches, loops tested at the top or at the bottom,
//! conditional `break` out of one or two loops, `continue`, early `return`.
//! Joins of `if`s and switches get a phi of distinct constants, and later
//! conditions may test the most recent phi, so divergence also spreads
//! through sync dependence into data (the fixed point has work to do).
//! Structured lowering makes the CFG reducible by construction, every loop
//! has a single latch and an exit, and every block reaches a `ret`.

use lanewise_ir::vfabi::{parse_shapes, ParamSpec};
use lanewise_ir::{Block, Function, FunctionBuilder, InstData, IntPredicate, Type, Value};

/// The parameter shapes of every function built here: `u` uniform, `v` varying.
pub fn uniform_and_varying_params() -> Vec<ParamSpec> {
    parse_shapes("uv").expect("valid shapes")
}

/// A function whose blocks are named `names` (the first is the entry) with
/// the given edges, all branches uniform. See [`cfg_function_with_varying`].
pub fn cfg_function(names: &[&str], edges: &[(&str, &str)]) -> (Function, Vec<Block>) {
    cfg_function_with_varying(names, edges, &[])
}

/// A function whose blocks are named `names` (the first is the entry) with
/// the given edges, in order: no successor is a `ret`, one a jump, two a
/// branch, more a switch (the first successor is the switch default). The
/// blocks named in `varying` decide on the varying parameter, the others on
/// the uniform one. A block with several predecessors starts with an `i32`
/// phi of distinct constants, one per predecessor ([`first_phi`]): uniform
/// unless the block is a join of a divergent branch.
pub fn cfg_function_with_varying(
    names: &[&str],
    edges: &[(&str, &str)],
    varying: &[&str],
) -> (Function, Vec<Block>) {
    let mut func = Function::new("f", vec![Type::I32, Type::I32], Type::Void);
    let (uniform, varying_param) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let blocks: Vec<Block> = names.iter().map(|name| b.create_block(Some(name))).collect();
    let find = |name: &str| {
        let index = names.iter().position(|n| *n == name);
        blocks[index.unwrap_or_else(|| panic!("no block named {name}"))]
    };
    for (index, name) in names.iter().enumerate() {
        b.switch_to_block(blocks[index]);
        let targets: Vec<Block> =
            edges.iter().filter(|(from, _)| from == name).map(|(_, to)| find(to)).collect();
        let mut preds: Vec<Block> = Vec::new();
        for (from, to) in edges {
            if to == name && !preds.contains(&find(from)) {
                preds.push(find(from));
            }
        }
        if preds.len() >= 2 {
            let incoming: Vec<(Block, Value)> = preds
                .iter()
                .enumerate()
                .map(|(i, pred)| (*pred, b.iconst(Type::I32, i as i128)))
                .collect();
            let phi = b.phi(Type::I32, incoming);
            b.func.dfg.value_names[phi] = Some(format!("{name}.phi"));
        }
        let selector = if varying.contains(name) { varying_param } else { uniform };
        match targets.as_slice() {
            [] => {
                b.ret(None);
            }
            [dest] => {
                b.jump(*dest);
            }
            [then_dest, else_dest] => {
                let zero = b.iconst(Type::I32, 0);
                let cond = b.icmp(IntPredicate::Eq, selector, zero);
                b.branch(cond, *then_dest, *else_dest);
            }
            [default, cases @ ..] => {
                let cases = cases.iter().enumerate().map(|(i, dest)| (i as u128, *dest)).collect();
                b.ins(InstData::Switch { value: selector, default: *default, cases }, Type::Void);
            }
        }
    }
    (func, blocks)
}

/// The result of the first instruction of `block` if it is a phi.
pub fn first_phi(func: &Function, block: Block) -> Option<Value> {
    let first = *func.layout.block_insts(block).first()?;
    match func.dfg.inst(first) {
        InstData::Phi { .. } => func.dfg.result(first),
        _ => None,
    }
}

/// A small deterministic generator (xorshift64*), so that a proptest seed
/// fully determines a function.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..bound` (`bound > 0`).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }

    /// True with probability `percent`%.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// What a random condition decides on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum ConditionSource {
    Uniform,
    Varying,
    /// The most recent join phi that dominates the condition.
    LastPhi,
}

/// Lowers a random structured program; see the module docs.
struct RandomLowering<'f> {
    b: FunctionBuilder<'f>,
    rng: Rng,
    /// Per enclosing loop, innermost last: (latch, exit).
    loops: Vec<(Block, Block)>,
    last_phi: Option<Value>,
    block_budget: usize,
    blocks_made: usize,
    uniform: Value,
    varying: Value,
    varying_percent: u64,
}

impl RandomLowering<'_> {
    fn new_block(&mut self) -> Block {
        self.blocks_made += 1;
        self.b.create_block(None)
    }

    fn out_of_budget(&self) -> bool {
        self.blocks_made >= self.block_budget
    }

    fn source(&mut self) -> ConditionSource {
        if self.last_phi.is_some() && self.rng.chance(25) {
            ConditionSource::LastPhi
        } else if self.rng.chance(self.varying_percent) {
            ConditionSource::Varying
        } else {
            ConditionSource::Uniform
        }
    }

    /// An `i32` selector in the current block.
    fn selector(&mut self) -> Value {
        match self.source() {
            ConditionSource::Uniform => self.uniform,
            ConditionSource::Varying => self.varying,
            ConditionSource::LastPhi => self.last_phi.expect("checked by source()"),
        }
    }

    /// A boolean condition in the current block.
    fn condition(&mut self) -> Value {
        let selector = self.selector();
        let constant = self.b.iconst(Type::I32, self.rng.below(3) as i128);
        self.b.icmp(IntPredicate::Eq, selector, constant)
    }

    /// Ends the current block with a branch on a fresh condition to `taken`
    /// or to a new block, and continues in the new block.
    fn conditional_exit(&mut self, taken: Block) {
        let cond = self.condition();
        let next = self.new_block();
        self.b.branch(cond, taken, next);
        self.b.switch_to_block(next);
    }

    /// A join block with a phi of distinct constants over `ends`; continues there.
    fn join(&mut self, ends: &[Block]) {
        let join = self.new_block();
        for end in ends {
            self.b.switch_to_block(*end);
            self.b.jump(join);
        }
        self.b.switch_to_block(join);
        let incoming: Vec<(Block, Value)> = ends
            .iter()
            .enumerate()
            .map(|(i, end)| (*end, self.b.iconst(Type::I32, i as i128)))
            .collect();
        self.last_phi = Some(self.b.phi(Type::I32, incoming));
    }

    fn sequence(&mut self, depth: u32) {
        let statements = 1 + self.rng.below(3);
        for _ in 0..statements {
            if self.out_of_budget() {
                return;
            }
            self.statement(depth);
        }
    }

    /// Lowers a nested sequence starting in a new block; returns the block
    /// it ends in. The last phi of the nested scope does not escape it.
    fn nested(&mut self, start: Block, depth: u32) -> Block {
        let saved_phi = self.last_phi;
        self.b.switch_to_block(start);
        self.sequence(depth + 1);
        self.last_phi = saved_phi;
        self.b.current_block().expect("a current block")
    }

    fn statement(&mut self, depth: u32) {
        let nesting_allowed = depth < 3;
        match self.rng.below(10) {
            0 => {
                let next = self.new_block();
                self.b.jump(next);
                self.b.switch_to_block(next);
            }
            1 | 2 if nesting_allowed => {
                let cond = self.condition();
                let (then_block, else_block) = (self.new_block(), self.new_block());
                self.b.branch(cond, then_block, else_block);
                let then_end = self.nested(then_block, depth);
                let else_end = self.nested(else_block, depth);
                self.join(&[then_end, else_end]);
            }
            3 if nesting_allowed => {
                let selector = self.selector();
                let arms: Vec<Block> =
                    (0..2 + self.rng.below(2)).map(|_| self.new_block()).collect();
                let cases =
                    arms[1..].iter().enumerate().map(|(i, arm)| (i as u128, *arm)).collect();
                self.b
                    .ins(InstData::Switch { value: selector, default: arms[0], cases }, Type::Void);
                let ends: Vec<Block> = arms.iter().map(|arm| self.nested(*arm, depth)).collect();
                self.join(&ends);
            }
            4..=6 if nesting_allowed => self.lower_loop(depth),
            7 if !self.loops.is_empty() => {
                let levels = if self.loops.len() >= 2 && self.rng.chance(40) { 2 } else { 1 };
                let (_, exit) = self.loops[self.loops.len() - levels];
                self.conditional_exit(exit);
            }
            8 if !self.loops.is_empty() => {
                let (latch, _) = *self.loops.last().expect("in a loop");
                self.conditional_exit(latch);
            }
            9 => {
                let early_return = self.new_block();
                let current = self.b.current_block().expect("a current block");
                self.b.switch_to_block(early_return);
                self.b.ret(None);
                self.b.switch_to_block(current);
                self.conditional_exit(early_return);
            }
            _ => {
                let next = self.new_block();
                self.b.jump(next);
                self.b.switch_to_block(next);
            }
        }
    }

    /// `while (c) { body }` or `do { body } while (c)`; the body may break
    /// out of this loop or the enclosing one and may continue.
    fn lower_loop(&mut self, depth: u32) {
        let header = self.new_block();
        let latch = self.new_block();
        let exit = self.new_block();
        self.b.jump(header);
        self.b.switch_to_block(header);
        let test_at_top = self.rng.chance(50);
        let body = if test_at_top {
            let body = self.new_block();
            let cond = self.condition();
            self.b.branch(cond, body, exit);
            body
        } else {
            header
        };
        self.loops.push((latch, exit));
        let saved_phi = self.last_phi;
        if body != header {
            self.b.switch_to_block(body);
        }
        self.sequence(depth + 1);
        self.last_phi = saved_phi;
        self.b.jump(latch);
        self.loops.pop();
        self.b.switch_to_block(latch);
        if test_at_top {
            self.b.jump(header);
        } else {
            let cond = self.condition();
            self.b.branch(cond, header, exit);
        }
        self.b.switch_to_block(exit);
    }
}

/// A random reducible function `void random(i32 u, i32 v)` of about
/// `block_budget` blocks, determined by `seed`. `varying_percent` is the
/// chance that a condition decides on the varying parameter.
pub fn random_structured_function(
    seed: u64,
    block_budget: usize,
    varying_percent: u64,
) -> Function {
    let mut func = Function::new("random", vec![Type::I32, Type::I32], Type::Void);
    let (uniform, varying) = (func.param_value(0), func.param_value(1));
    let mut lowering = RandomLowering {
        b: FunctionBuilder::new(&mut func),
        rng: Rng::new(seed),
        loops: Vec::new(),
        last_phi: None,
        block_budget,
        blocks_made: 1,
        uniform,
        varying,
        varying_percent,
    };
    let entry = lowering.b.create_block(Some("entry"));
    lowering.b.switch_to_block(entry);
    while !lowering.out_of_budget() {
        lowering.sequence(0);
    }
    lowering.b.ret(None);
    func
}

#[cfg(test)]
mod tests {
    use lanewise_ir::cfg::ControlFlowGraph;
    use lanewise_ir::dominators::{DominatorTree, PostDominatorTree};
    use lanewise_ir::verify_function;

    use super::*;
    use crate::loops::LoopInfo;

    #[test]
    fn random_functions_are_valid_reducible_and_exit() {
        for seed in 0..200 {
            let func = random_structured_function(seed, 24, 40);
            if let Err(errors) = verify_function(&func) {
                panic!("seed {seed}: {errors:?}");
            }
            let cfg = ControlFlowGraph::compute(&func);
            let domtree = DominatorTree::compute(&func, &cfg);
            let postdom = PostDominatorTree::compute(&func, &cfg);
            LoopInfo::compute(&func, &cfg, &domtree).expect("structured lowering is reducible");
            for block in cfg.reverse_post_order() {
                assert!(postdom.reaches_exit(*block), "seed {seed}: {block} reaches no exit");
            }
        }
    }
}
