//! Which allocas get the interleaved layout, and what the rewrite produces.
//! Differential execution of interleaved functions is in `widen/tests.rs`
//! (`interleaved_private_arrays_*`), next to the other alloca tests.

use lanewise_ir::*;

use super::*;

/// `buf = alloca [16 x i32]; buf[k & 15] = x; return buf[(k + 1) & 15]`,
/// with `extra` adding one more use of `buf` before the return.
fn kernel(extra: impl FnOnce(&mut FunctionBuilder, Value, Value)) -> Function {
    kernel_of(Type::I32, |b, buf, x, p, q| {
        b.store(x, p, 16);
        extra(b, buf, x);
        b.load(Type::I32, q, 4)
    })
}

/// `f(T x, i32 k)` with `buf = alloca [16 x T]`, `p = &buf[k & 15]` and
/// `q = &buf[(k + 1) & 15]`; `body(b, buf, x, p, q)` emits the rest and
/// gives the value returned.
fn kernel_of(
    elem: Type,
    body: impl FnOnce(&mut FunctionBuilder, Value, Value, Value, Value) -> Value,
) -> Function {
    let mut func = Function::new("private", vec![elem.clone(), Type::I32], elem.clone());
    let (x, k) = (func.param_value(0), func.param_value(1));
    let array = Type::Array { elem: Box::new(elem), len: 16 };
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let one = b.iconst(Type::I32, 1);
    let fifteen = b.iconst(Type::I32, 15);
    let zero = b.iconst(Type::I32, 0);
    let buf = b.ins_value(InstData::Alloca { ty: array.clone(), count: one, align: 16 }, Type::PTR);
    let first = b.binary(BinaryOp::And, k, fifteen);
    let k1 = b.binary(BinaryOp::Add, k, one);
    let second = b.binary(BinaryOp::And, k1, fifteen);
    let p = b.gep(array.clone(), buf, vec![zero, first]);
    let q = b.gep(array, buf, vec![zero, second]);
    let result = body(&mut b, buf, x, p, q);
    b.ret(Some(result));
    func
}

/// The constant factors of the function's multiplications, in order.
fn scale_factors(func: &Function) -> Vec<u128> {
    func.layout
        .insts()
        .filter_map(|inst| match func.dfg.inst(inst) {
            InstData::Binary { op: BinaryOp::Mul, rhs, .. } => func.dfg.int_constant(*rhs),
            _ => None,
        })
        .collect()
}

fn allocas(func: &Function) -> Vec<Inst> {
    func.layout
        .insts()
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Alloca { .. }))
        .collect()
}

#[test]
fn cell_accesses_through_geps_are_interleaved() {
    let mut func = kernel(|_, _, _| {});
    let report = interleave_private_arrays(&mut func, 8, &DataLayout::default(), &|_| false);
    assert_eq!(report, InterleaveReport { interleaved: 1, wide_cells: 0 });
    verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));

    // One shared alloca of 8 interleaved copies, aligned for 8 x i32.
    let allocas = allocas(&func);
    assert_eq!(allocas.len(), 1);
    assert!(func.shared_allocas.contains(&allocas[0]));
    let InstData::Alloca { ty, align, .. } = func.dfg.inst(allocas[0]) else { unreachable!() };
    assert_eq!(*ty, Type::Array { elem: Box::new(Type::I8), len: 64 * 8 });
    assert_eq!(*align, 32);
    // The lane's cells start at rv_lane_id() * 4; GEPs step 8 times as far
    // (4 bytes per element, times W) and become byte GEPs.
    assert_eq!(
        func.layout
            .insts()
            .filter(|inst| func.dfg.callee_name(*inst) == Some("rv_lane_id"))
            .count(),
        1
    );
    assert_eq!(scale_factors(&func), [4, 32, 32]);
    // No access claims more alignment than a cell has.
    for inst in func.layout.insts() {
        if let InstData::Load { align, .. } | InstData::Store { align, .. } = func.dfg.inst(inst) {
            assert!(*align <= 4, "{inst} claims align {align}");
        }
    }
}

#[test]
fn allocas_with_other_users_keep_their_layout() {
    // Passed to a call.
    let mut escaped = kernel(|b, buf, _| {
        b.call(Callee::Direct("observe".into()), vec![buf], Type::Void, CallEffects::SideEffects);
    });
    // The pointer itself stored to memory.
    let mut stored = kernel(|b, buf, _| {
        b.store(buf, buf, 8);
    });
    // Accesses of two sizes.
    let mut mixed = kernel(|b, buf, _| {
        let wide = b.load(Type::I64, buf, 8);
        b.store(wide, buf, 8);
    });
    // A byte offset that is not a multiple of the 4-byte cell.
    let mut misaligned = kernel(|b, buf, x| {
        let two = b.iconst(Type::I64, 2);
        let odd = b.gep(Type::I8, buf, vec![two]);
        b.store(x, odd, 1);
    });
    for func in [&mut escaped, &mut stored, &mut mixed, &mut misaligned] {
        let before = func.to_string();
        assert_eq!(
            interleave_private_arrays(func, 8, &DataLayout::default(), &|_| false).interleaved,
            0
        );
        assert_eq!(func.to_string(), before, "a refused alloca is left untouched");
        assert!(func.shared_allocas.is_empty());
    }
}

#[test]
fn comparisons_and_phis_of_pointers_into_the_same_alloca_are_accepted() {
    let mut func = kernel(|b, buf, x| {
        let four = b.iconst(Type::I64, 4);
        let top = b.gep(Type::I32, buf, vec![four]);
        let is_empty = b.icmp(IntPredicate::Eq, top, buf);
        let chosen = b.select(is_empty, buf, top);
        b.store(x, chosen, 4);
    });
    assert_eq!(
        interleave_private_arrays(&mut func, 4, &DataLayout::default(), &|_| false).interleaved,
        1
    );
    verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));

    // A comparison with a pointer from elsewhere is refused.
    let mut foreign = kernel(|b, buf, _| {
        let null = b.iconst(Type::I64, 0);
        let other = b.cast(CastOp::IntToPtr, null, Type::PTR);
        b.icmp(IntPredicate::Eq, buf, other);
    });
    assert_eq!(
        interleave_private_arrays(&mut foreign, 4, &DataLayout::default(), &|_| false).interleaved,
        0
    );
}

#[test]
fn width_one_changes_nothing() {
    let mut func = kernel(|_, _, _| {});
    let before = func.to_string();
    assert_eq!(
        interleave_private_arrays(&mut func, 1, &DataLayout::default(), &|_| false).interleaved,
        0
    );
    assert_eq!(func.to_string(), before);
}

/// `buf = alloca [16 x i8]; buf[k & 15] = x; buf[(k + 1) & 15] = 7;
/// return buf[k & 15]` (that is, `x`).
fn byte_kernel() -> Function {
    kernel_of(Type::I8, |b, _, x, p, q| {
        b.store(x, p, 1);
        let seven = b.iconst(Type::I8, 7);
        b.store(seven, q, 1);
        b.load(Type::I8, p, 1)
    })
}

#[test]
fn byte_cells_at_varying_offsets_become_wide_cells() {
    let original = byte_kernel();
    let mut func = original.clone();
    let report = interleave_private_arrays(&mut func, 8, &DataLayout::default(), &|_| true);
    assert_eq!(report, InterleaveReport { interleaved: 1, wide_cells: 1 });
    verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));

    // 16 cells of 4 bytes per lane; the lane's cells start at
    // rv_lane_id() * 4 and offsets step 4 * 8 bytes per element.
    let allocas = allocas(&func);
    let InstData::Alloca { ty, .. } = func.dfg.inst(allocas[0]) else { unreachable!() };
    assert_eq!(*ty, Type::Array { elem: Box::new(Type::I8), len: 16 * 4 * 8 });
    assert_eq!(scale_factors(&func), [4, 32, 32]);
    // Every access moves a whole i32 cell.
    for inst in func.layout.insts() {
        match func.dfg.inst(inst) {
            InstData::Load { ty, align, .. } => assert_eq!((ty, *align), (&Type::I32, 4)),
            InstData::Store { value, align, .. } => {
                assert_eq!((func.dfg.value_type(*value), *align), (&Type::I32, 4))
            }
            _ => {}
        }
    }
    // With rv_lane_id() = 0 the function computes what it did.
    for (x, k) in [(5u128, 0u128), (200, 3), (9, 15)] {
        let run = |func: &Function| {
            let mut interpreter = crate::interp::Interpreter::new(
                crate::interp::Memory::new(0x1000, 4096),
                |callee, _| match callee {
                    "rv_lane_id" => Ok(Some(crate::interp::Val::int(64, 0))),
                    other => panic!("unexpected call of {other}"),
                },
            );
            let args = [crate::interp::Val::int(8, x), crate::interp::Val::int(32, k)];
            interpreter.run(func, &args).unwrap().unwrap()
        };
        assert!(run(&func).same_as(&run(&original)), "x = {x}, k = {k}\n{func}");
    }
}

#[test]
fn byte_cells_at_uniform_offsets_stay_bytes() {
    let mut func = byte_kernel();
    let report = interleave_private_arrays(&mut func, 8, &DataLayout::default(), &|_| false);
    assert_eq!(report, InterleaveReport { interleaved: 1, wide_cells: 0 });
    let allocas = allocas(&func);
    let InstData::Alloca { ty, .. } = func.dfg.inst(allocas[0]) else { unreachable!() };
    assert_eq!(*ty, Type::Array { elem: Box::new(Type::I8), len: 16 * 8 });
}
