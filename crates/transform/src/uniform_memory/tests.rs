//! Which allocas stay one shared copy. That the shared copy keeps the
//! function's meaning is checked on machine code by the corpus kernels
//! `div_lockstep_*` (tests/corpus), lane by lane against the scalar function.

use lanewise_analysis::{DivergenceInfo, LoopInfo};
use lanewise_ir::cfg::ControlFlowGraph;
use lanewise_ir::dominators::{DominatorTree, PostDominatorTree};
use lanewise_ir::vfabi::parse_shapes;
use lanewise_ir::*;

use super::*;

fn divergence(func: &Function) -> Result<DivergenceInfo, String> {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let postdom = PostDominatorTree::compute(func, &cfg);
    let loops = LoopInfo::compute(func, &cfg, &domtree).map_err(|error| error.to_string())?;
    DivergenceInfo::compute(
        func,
        &cfg,
        &domtree,
        &postdom,
        &loops,
        &DataLayout::default(),
        &parse_shapes("uv").expect("valid shapes"),
    )
    .map_err(|error| error.to_string())
}

/// `f(u uniform, v varying)`: a stack of 8 i32 cells driven by a uniform
/// counter, the shape of a lock-step traversal:
///
/// ```text
/// stack[0] = u; top = 1; acc = 0
/// loop: top -= 1; node = stack[top]; acc += node * v
///       if (node < 40 && top < 7) { stack[top] = 2*node+1; stack[top+1] = 2*node+2; top += 2 }
///       if (top > 0) goto loop
/// return acc
/// ```
///
/// `store_guard` decides the condition of the push: uniform (`node < 40`)
/// or varying (`node < v`). With `varying_slot` the push writes
/// `stack[top + (v & 1)]` instead of `stack[top]`.
fn traversal(varying_guard: bool, varying_slot: bool) -> (Function, Inst) {
    let mut func = Function::new("walk", vec![Type::I32, Type::I32], Type::I32);
    let (u, v) = (func.param_value(0), func.param_value(1));
    let array = Type::Array { elem: Box::new(Type::I32), len: 8 };
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("header"));
    let push = b.create_block(Some("push"));
    let latch = b.create_block(Some("latch"));
    let exit = b.create_block(Some("exit"));

    b.switch_to_block(entry);
    let one = b.iconst(Type::I32, 1);
    let zero = b.iconst(Type::I32, 0);
    let stack =
        b.ins_value(InstData::Alloca { ty: array.clone(), count: one, align: 16 }, Type::PTR);
    b.store(u, stack, 4);
    b.jump(header);

    b.switch_to_block(header);
    let placeholder = b.iconst(Type::I32, 0);
    let top = b.phi(Type::I32, vec![(entry, one), (latch, placeholder)]);
    let acc = b.phi(Type::I32, vec![(entry, zero), (latch, placeholder)]);
    let popped = b.binary(BinaryOp::Sub, top, one);
    let slot = b.gep(array.clone(), stack, vec![zero, popped]);
    let node = b.load(Type::I32, slot, 4);
    let product = b.binary(BinaryOp::Mul, node, v);
    let acc_next = b.binary(BinaryOp::Add, acc, product);
    let forty = b.iconst(Type::I32, 40);
    let bound = if varying_guard { v } else { forty };
    let inner = b.icmp(IntPredicate::Slt, node, bound);
    let seven = b.iconst(Type::I32, 7);
    let room = b.icmp(IntPredicate::Slt, popped, seven);
    let both = b.binary(BinaryOp::And, inner, room);
    b.branch(both, push, latch);

    b.switch_to_block(push);
    let two = b.iconst(Type::I32, 2);
    let doubled = b.binary(BinaryOp::Mul, node, two);
    let left = b.binary(BinaryOp::Add, doubled, one);
    let right = b.binary(BinaryOp::Add, doubled, two);
    let left_index = if varying_slot {
        let parity = b.binary(BinaryOp::And, v, one);
        b.binary(BinaryOp::Add, popped, parity)
    } else {
        popped
    };
    let left_slot = b.gep(array.clone(), stack, vec![zero, left_index]);
    b.store(left, left_slot, 4);
    let right_index = b.binary(BinaryOp::Add, popped, one);
    let right_slot = b.gep(array, stack, vec![zero, right_index]);
    b.store(right, right_slot, 4);
    let pushed = b.binary(BinaryOp::Add, popped, two);
    b.jump(latch);

    b.switch_to_block(latch);
    let top_next = b.phi(Type::I32, vec![(header, popped), (push, pushed)]);
    let more = b.icmp(IntPredicate::Sgt, top_next, zero);
    b.branch(more, header, exit);

    b.switch_to_block(exit);
    b.ret(Some(acc_next));

    for (phi, next) in [(top, top_next), (acc, acc_next)] {
        let inst = func.dfg.defining_inst(phi).unwrap();
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(inst) {
            incoming[1].1 = next;
        }
    }
    verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));
    let alloca = func.dfg.defining_inst(stack).unwrap();
    (func, alloca)
}

#[test]
fn a_stack_pushed_and_popped_in_lock_step_is_shared() {
    let (mut func, alloca) = traversal(false, false);
    // Without the shared copy the popped node is Varying (one copy per lane).
    let before = divergence(&func).unwrap();
    let node_before = first_load(&func);
    assert!(!before.shapes.is_uniform(node_before));

    assert_eq!(share_uniform_allocas(&mut func, divergence).unwrap(), vec![alloca]);
    assert!(func.shared_allocas.contains(&alloca));
    // Under the shared copy the node, the pushes and the loop are uniform:
    // the fixed point needed the popped value to make the pushed one uniform.
    let after = divergence(&func).unwrap();
    assert!(after.shapes.is_uniform(first_load(&func)));
    assert!(after.divergent_branches().is_empty());
    assert!(after.divergent_loops().is_empty());
}

#[test]
fn a_push_under_a_varying_condition_keeps_one_copy_per_lane() {
    let (mut func, _) = traversal(true, false);
    assert_eq!(share_uniform_allocas(&mut func, divergence).unwrap(), vec![]);
    assert!(func.shared_allocas.is_empty());
    let info = divergence(&func).unwrap();
    assert!(!info.shapes.is_uniform(first_load(&func)));
}

#[test]
fn a_push_to_a_varying_slot_keeps_one_copy_per_lane() {
    let (mut func, _) = traversal(false, true);
    assert_eq!(share_uniform_allocas(&mut func, divergence).unwrap(), vec![]);
    assert!(func.shared_allocas.is_empty());
}

#[test]
fn an_escaping_alloca_keeps_one_copy_per_lane() {
    let (mut func, alloca) = traversal(false, false);
    let stack = func.dfg.result(alloca).unwrap();
    let entry = func.entry_block().unwrap();
    let terminator = func.terminator(entry).unwrap();
    let call = func.dfg.make_inst(
        InstData::Call {
            callee: Callee::Direct("observe".into()),
            args: vec![stack],
            ret_ty: Type::Void,
            effects: CallEffects::SideEffects,
            flags: FastMathFlags::default(),
        },
        Type::Void,
    );
    func.layout.insert_inst_before(call, terminator);
    assert_eq!(share_uniform_allocas(&mut func, divergence).unwrap(), vec![]);
}

fn first_load(func: &Function) -> Value {
    func.layout
        .insts()
        .find(|inst| matches!(func.dfg.inst(*inst), InstData::Load { .. }))
        .and_then(|inst| func.dfg.result(inst))
        .expect("the function loads")
}
