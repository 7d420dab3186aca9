//! Which allocas are split and what the accesses become. That split
//! functions keep their meaning is checked in the interpreter here and on
//! machine code by the corpus kernel `div_lockstep_bvh_stack`.

use lanewise_ir::*;

use super::*;
use crate::interp::{Interpreter, Memory, Val};

fn entry_type() -> Type {
    Type::Struct { fields: vec![Type::F32, Type::I32], packed: false }
}

/// `f(d, n, k)`: `stack = alloca [8 x {float, i32}]`;
/// `stack[k & 7] = {d, n}; stack[(k + 1) & 7].node = n + 1;`
/// returns `stack[k & 7].distance + (float) stack[k & 7].node`, with member
/// accesses written as LLVM 22 does (`gep %struct, p, i` then `gep i8, _, 4`).
/// `extra` may add uses of the alloca before the return.
fn stack_kernel(extra: impl FnOnce(&mut FunctionBuilder, Value)) -> Function {
    let mut func = Function::new("stack", vec![Type::F32, Type::I32, Type::I32], Type::F32);
    let (d, n, k) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let array = Type::Array { elem: Box::new(entry_type()), len: 8 };
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let one = b.iconst(Type::I32, 1);
    let seven = b.iconst(Type::I32, 7);
    let four = b.iconst(Type::I64, 4);
    let stack = b.ins_value(InstData::Alloca { ty: array, count: one, align: 16 }, Type::PTR);
    let slot = b.binary(BinaryOp::And, k, seven);
    let k1 = b.binary(BinaryOp::Add, k, one);
    let next_slot = b.binary(BinaryOp::And, k1, seven);
    let entry_ptr = b.gep(entry_type(), stack, vec![slot]);
    let node_ptr = b.gep(Type::I8, entry_ptr, vec![four]);
    b.store(d, entry_ptr, 8);
    b.store(n, node_ptr, 4);
    let next_entry = b.gep(entry_type(), stack, vec![next_slot]);
    let next_node = b.gep(Type::I8, next_entry, vec![four]);
    let n1 = b.binary(BinaryOp::Add, n, one);
    b.store(n1, next_node, 4);
    extra(&mut b, stack);
    let distance = b.load(Type::F32, entry_ptr, 8);
    let node = b.load(Type::I32, node_ptr, 4);
    let node_float = b.cast(CastOp::SIToFP, node, Type::F32);
    let sum = b.binary(BinaryOp::FAdd, distance, node_float);
    b.ret(Some(sum));
    verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));
    func
}

fn allocas(func: &Function) -> Vec<Type> {
    func.layout
        .insts()
        .filter_map(|inst| match func.dfg.inst(inst) {
            InstData::Alloca { ty, .. } => Some(ty.clone()),
            _ => None,
        })
        .collect()
}

fn run(func: &Function, args: &[Val]) -> Val {
    let mut interpreter =
        Interpreter::new(Memory::new(0x1000, 4096), |callee, _| panic!("unexpected call {callee}"));
    interpreter.run(func, args).expect("runs").expect("returns a value")
}

#[test]
fn an_array_of_structs_becomes_one_array_per_member() {
    let original = stack_kernel(|_, _| {});
    let mut split = original.clone();
    assert_eq!(split_private_structs(&mut split, &DataLayout::default()), 1);
    verify_function(&split).unwrap_or_else(|errors| panic!("{errors}\n{split}"));
    assert_eq!(
        allocas(&split),
        vec![
            Type::Array { elem: Box::new(Type::F32), len: 8 },
            Type::Array { elem: Box::new(Type::I32), len: 8 },
        ]
    );
    // Every access now goes through a GEP off a member alloca that steps
    // over the member's type (4 bytes per element, not the struct's 8).
    for inst in split.layout.insts() {
        if let InstData::Load { addr, .. } | InstData::Store { addr, .. } = split.dfg.inst(inst) {
            let gep = split.dfg.defining_inst(*addr).expect("an address from a GEP");
            let InstData::Gep { base, source_ty, .. } = split.dfg.inst(gep) else {
                panic!("{split}")
            };
            assert!(*source_ty == Type::F32 || *source_ty == Type::I32, "{split}");
            let base_inst = split.dfg.defining_inst(*base).unwrap();
            assert!(matches!(split.dfg.inst(base_inst), InstData::Alloca { .. }), "{split}");
        }
    }
    for k in [0u128, 3, 7, 12] {
        let args = [Val::F32(1.5), Val::int(32, 40), Val::int(32, k)];
        assert!(run(&original, &args).same_as(&run(&split, &args)), "k = {k}");
    }
}

#[test]
fn structs_with_other_users_stay_whole() {
    // Passed to a call.
    let mut escaped = stack_kernel(|b, stack| {
        b.call(Callee::Direct("observe".into()), vec![stack], Type::Void, CallEffects::SideEffects);
    });
    // An 8-byte load of a whole entry.
    let mut whole = stack_kernel(|b, stack| {
        let both = b.load(Type::I64, stack, 8);
        b.store(both, stack, 8);
    });
    // An access into the middle of a member.
    let mut misaligned = stack_kernel(|b, stack| {
        let two = b.iconst(Type::I64, 2);
        let inside = b.gep(Type::I8, stack, vec![two]);
        let byte = b.iconst(Type::I8, 1);
        b.store(byte, inside, 1);
    });
    for func in [&mut escaped, &mut whole, &mut misaligned] {
        let before = func.to_string();
        assert_eq!(split_private_structs(func, &DataLayout::default()), 0);
        assert_eq!(func.to_string(), before, "a refused alloca is left untouched");
    }
}

#[test]
fn arrays_of_scalars_are_not_split() {
    let mut func = Function::new("scalars", vec![Type::I32], Type::I32);
    let x = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let one = b.iconst(Type::I32, 1);
    let array = Type::Array { elem: Box::new(Type::I32), len: 4 };
    let buf = b.ins_value(InstData::Alloca { ty: array, count: one, align: 4 }, Type::PTR);
    b.store(x, buf, 4);
    let loaded = b.load(Type::I32, buf, 4);
    b.ret(Some(loaded));
    assert_eq!(split_private_structs(&mut func, &DataLayout::default()), 0);
}
