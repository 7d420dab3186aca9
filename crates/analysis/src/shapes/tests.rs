use lanewise_ir::vfabi::parse_shapes;
use lanewise_ir::{
    ArithFlags, AtomicAttrs, AtomicOrdering, AtomicRmwOp, FunctionBuilder, InstData, IntPredicate,
    SyncScope,
};

use super::*;

fn specs(shapes: &str) -> Vec<ParamSpec> {
    parse_shapes(shapes).expect("valid shape string")
}

fn analyze(func: &Function, shapes: &str) -> ShapeInfo {
    ShapeInfo::compute(func, &DataLayout::default(), &specs(shapes)).expect("analysis succeeds")
}

/// `void kernel(float *p, long i) { p[i] = p[i] + 1; }` shaped `u l`.
#[test]
fn linear_index_into_uniform_pointer_is_contiguous() {
    let mut func = Function::new("kernel", vec![Type::PTR, Type::I64], Type::Void);
    let (p, i) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let address = b.gep(Type::F32, p, vec![i]);
    let loaded = b.load(Type::F32, address, 4);
    let one = b.f32const(1.0);
    let sum = b.binary(BinaryOp::FAdd, loaded, one);
    b.store(sum, address, 4);
    b.ret(None);

    let info = analyze(&func, "ua16l");
    assert_eq!(info.shape(address).shape, Shape::Strided(4));
    assert!(info.is_contiguous(address, 4));
    assert!(!info.is_contiguous(address, 8));
    assert_eq!(info.stride(address), Some(4));
    assert!(info.is_varying(loaded));
    assert!(info.is_varying(sum));
    assert!(info.is_uniform(one));
    // p is 16-aligned, i has unknown alignment: lane 0's address only 4.
    assert_eq!(info.align(address), 4);
    assert_eq!(info.all_lanes_align(address), 4);
}

#[test]
fn parameters_follow_their_specs() {
    let types = vec![Type::PTR, Type::I32, Type::I64, Type::PTR, Type::I32];
    let func = Function::new("params", types, Type::Void);
    let info = analyze(&func, "vul2ln8a32ls1");
    let shape = |index| info.shape(func.param_value(index));
    assert_eq!(shape(0), ValueShape::new(Shape::Varying, 1));
    assert_eq!(shape(1), ValueShape::new(Shape::Uniform, 1));
    assert_eq!(shape(2), ValueShape::new(Shape::Strided(2), 1));
    assert_eq!(shape(3), ValueShape::new(Shape::Strided(-8), 32));
    assert_eq!(shape(4).shape, Shape::Varying, "variable steps are varying for now");
}

#[test]
fn parameter_errors_name_the_function() {
    let func = Function::new("f", vec![Type::F32], Type::Void);
    let layout = DataLayout::default();
    let error = ShapeInfo::compute(&func, &layout, &specs("uu")).unwrap_err();
    assert_eq!(error.to_string(), "function `f` has 1 parameters but the shapes name 2");
    let error = ShapeInfo::compute(&func, &layout, &specs("l")).unwrap_err();
    assert!(matches!(error, ShapeError::LinearParamType { index: 0, .. }), "{error}");
}

/// `for (i = 0; i < n; i++) p[i + lane] ...` with uniform `n`: the
/// induction variable is uniform, the address strided.
#[test]
fn loop_phi_with_uniform_bound_is_uniform() {
    let mut func = Function::new("loop", vec![Type::PTR, Type::I64, Type::I64], Type::Void);
    let (p, n, lane) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("header"));
    let body = b.create_block(Some("body"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    let zero = b.iconst(Type::I64, 0);
    b.jump(header);
    b.switch_to_block(header);
    // The latch value is patched in below.
    let i = b.phi(Type::I64, vec![(entry, zero), (body, zero)]);
    let in_range = b.icmp(IntPredicate::Slt, i, n);
    b.branch(in_range, body, exit);
    b.switch_to_block(body);
    let index = b.binary(BinaryOp::Add, i, lane);
    let address = b.gep(Type::F64, p, vec![index]);
    let one = b.iconst(Type::I64, 1);
    let next = b.binary(BinaryOp::Add, i, one);
    b.jump(header);
    b.switch_to_block(exit);
    b.ret(None);
    let phi_inst = func.dfg.defining_inst(i).unwrap();
    if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi_inst) {
        incoming[1].1 = next;
    }

    let info = analyze(&func, "uul");
    assert!(info.is_uniform(i));
    assert!(info.is_uniform(next));
    assert!(info.is_uniform(in_range));
    assert_eq!(info.shape(index).shape, Shape::Strided(1));
    assert!(info.is_contiguous(address, 8));
}

/// A phi cycle carrying a strided value around a loop, joined with a
/// varying value on the back edge, must end up varying.
#[test]
fn phi_of_strided_and_varying_is_varying() {
    let mut func = Function::new("mix", vec![Type::I64, Type::I64, Type::BOOL], Type::I64);
    let (linear, vector, flag) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("header"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    b.jump(header);
    b.switch_to_block(header);
    let x = b.phi(Type::I64, vec![(entry, linear), (header, vector)]);
    let y = b.phi(Type::I64, vec![(entry, linear), (header, linear)]);
    b.branch(flag, header, exit);
    b.switch_to_block(exit);
    b.ret(Some(x));

    let info = analyze(&func, "lvu");
    assert!(info.is_varying(x));
    assert_eq!(info.shape(y).shape, Shape::Strided(1), "equal strides stay strided");
}

#[test]
fn strided_and_uniform_phi_is_varying() {
    let mut func = Function::new("join", vec![Type::I64, Type::I64, Type::BOOL], Type::I64);
    let (linear, uniform, flag) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let other = b.create_block(Some("other"));
    let join = b.create_block(Some("join"));
    b.switch_to_block(entry);
    b.branch(flag, other, join);
    b.switch_to_block(other);
    b.jump(join);
    b.switch_to_block(join);
    let x = b.phi(Type::I64, vec![(entry, linear), (other, uniform)]);
    b.ret(Some(x));
    let info = analyze(&func, "luu");
    assert!(info.is_varying(x));
}

/// `struct S { char c; double d; int k; }; &s[i].k` and `&s->arr[i]`.
#[test]
fn struct_geps_add_field_offsets_and_scale_indices() {
    let s = Type::Struct { fields: vec![Type::I8, Type::F64, Type::I32], packed: false };
    let with_array = Type::Struct {
        fields: vec![Type::I32, Type::Array { elem: Box::new(Type::Int(16)), len: 10 }],
        packed: false,
    };
    let mut func = Function::new("structs", vec![Type::PTR, Type::I64], Type::Void);
    let (p, i) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let zero32 = b.iconst(Type::I32, 0);
    let two32 = b.iconst(Type::I32, 2);
    let one32 = b.iconst(Type::I32, 1);
    let field_k = b.gep(s.clone(), p, vec![i, two32]);
    let field_d = b.gep(s.clone(), p, vec![i, one32]);
    let zero64 = b.iconst(Type::I64, 0);
    let array_element = b.gep(with_array, p, vec![zero64, one32, i]);
    let first_field = b.gep(s, p, vec![zero64, zero32]);
    b.ret(None);

    let info = analyze(&func, "ua32l");
    assert_eq!(info.shape(field_k), ValueShape::new(Shape::Strided(24), 8));
    assert_eq!(info.shape(field_d), ValueShape::new(Shape::Strided(24), 8));
    assert_eq!(info.shape(array_element), ValueShape::new(Shape::Strided(2), 2));
    assert_eq!(info.shape(first_field), ValueShape::new(Shape::Uniform, 32));
}

#[test]
fn alignment_propagates_through_arithmetic_and_geps() {
    let mut func = Function::new("align", vec![Type::PTR, Type::I64, Type::I64], Type::Void);
    let (p, i, n) = (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let eight = b.iconst(Type::I64, 8);
    let four = b.iconst(Type::I64, 4);
    let three = b.iconst(Type::I64, 3);
    let minus_sixteen = b.iconst(Type::I64, -16);
    let scaled = b.binary(BinaryOp::Mul, i, eight); // i*8: strided(8), align 8*align(i)
    let shifted = b.binary(BinaryOp::Shl, i, three); // same as i*8
    let plus_four = b.binary(BinaryOp::Add, scaled, four); // align 4
    let masked = b.binary(BinaryOp::And, n, minus_sixteen); // uniform, align 16
    let address = b.gep(Type::I8, p, vec![plus_four]);
    let aligned_address = b.gep(Type::F32, p, vec![masked]);
    let sum_of_aligned = b.binary(BinaryOp::Add, masked, scaled);
    b.ret(None);

    let info = analyze(&func, "ua64la4u");
    assert_eq!(info.shape(scaled), ValueShape::new(Shape::Strided(8), 32));
    assert_eq!(info.shape(shifted), ValueShape::new(Shape::Strided(8), 32));
    assert_eq!(info.shape(plus_four), ValueShape::new(Shape::Strided(8), 4));
    assert_eq!(info.shape(masked), ValueShape::new(Shape::Uniform, 16));
    assert_eq!(info.shape(address), ValueShape::new(Shape::Strided(8), 4));
    assert_eq!(info.shape(aligned_address), ValueShape::new(Shape::Uniform, 64));
    assert_eq!(info.shape(sum_of_aligned), ValueShape::new(Shape::Strided(8), 16));
    assert_eq!(info.all_lanes_align(sum_of_aligned), 8);
}

#[test]
fn allocas_get_one_interleaved_copy_per_lane() {
    let mut func = Function::new("private", vec![Type::I32], Type::Void);
    let n = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let one = b.iconst(Type::I32, 1);
    let three = b.iconst(Type::I32, 3);
    let point = Type::Struct { fields: vec![Type::F32, Type::F32, Type::F32], packed: false };
    let single = b.ins_value(InstData::Alloca { ty: point, count: one, align: 16 }, Type::PTR);
    let array = b.ins_value(InstData::Alloca { ty: Type::F64, count: three, align: 0 }, Type::PTR);
    let zero = b.iconst(Type::I64, 0);
    let field = b.gep(Type::F64, array, vec![zero]);
    b.ret(None);
    let info = analyze(&func, "u");
    // 12 bytes aligned to 16: the lanes' copies are 16 bytes apart.
    assert_eq!(info.shape(single), ValueShape::new(Shape::Strided(16), 16));
    assert_eq!(info.shape(array), ValueShape::new(Shape::Strided(24), 8));
    assert_eq!(info.shape(field), ValueShape::new(Shape::Strided(24), 8));

    // A variable-size alloca is an error naming it.
    let mut b = FunctionBuilder::new(&mut func);
    b.switch_to_block(entry);
    let terminator = b.func.layout.last_inst(entry).unwrap();
    b.func.layout.remove_inst(terminator);
    let dynamic = b.ins_value(InstData::Alloca { ty: Type::I8, count: n, align: 1 }, Type::PTR);
    b.func.dfg.value_names[dynamic] = Some("buf".to_owned());
    b.func.dfg.value_names[n] = Some("n".to_owned());
    b.ret(None);
    let error = ShapeInfo::compute(&func, &DataLayout::default(), &specs("u")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "function `private`: block `entry`: `%buf` is an alloca with a non-constant element \
         count (`%n`); only constant-size allocas can be given one copy per lane"
    );
}

#[test]
fn casts_keep_strides_of_wide_types_only() {
    let mut func = Function::new("casts", vec![Type::I32, Type::I8, Type::I64], Type::Void);
    let (i32_linear, i8_linear, i64_linear) =
        (func.param_value(0), func.param_value(1), func.param_value(2));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let widened = b.cast(CastOp::SExt, i32_linear, Type::I64);
    let narrow_widened = b.cast(CastOp::ZExt, i8_linear, Type::I32);
    let zero_extended = b.cast(CastOp::ZExt, i32_linear, Type::I64);
    let nneg = CastFlags { nneg: true, ..CastFlags::default() };
    let nneg_extended = b.ins_value(
        InstData::Cast { op: CastOp::ZExt, arg: i32_linear, to: Type::I64, flags: nneg },
        Type::I64,
    );
    let truncated = b.cast(CastOp::Trunc, i64_linear, Type::I8);
    let as_float = b.cast(CastOp::SIToFP, i32_linear, Type::F32);
    let as_pointer = b.cast(CastOp::IntToPtr, i64_linear, Type::PTR);
    let back = b.cast(CastOp::PtrToInt, as_pointer, Type::I64);
    b.ret(None);
    let info = analyze(&func, "ll3l256");
    assert_eq!(info.shape(widened).shape, Shape::Strided(1));
    assert!(info.is_varying(narrow_widened), "i8 lanes may wrap within a group");
    assert!(info.is_varying(zero_extended), "-2, -1, 0, 1 do not zero-extend linearly");
    assert_eq!(info.shape(nneg_extended).shape, Shape::Strided(1));
    assert!(info.is_uniform(truncated), "256 is 0 modulo 2^8");
    assert!(info.is_varying(as_float));
    assert_eq!(info.shape(as_pointer).shape, Shape::Strided(256));
    assert_eq!(info.shape(back).shape, Shape::Strided(256));
}

#[test]
fn compares_selects_loads_and_calls() {
    let types = vec![Type::PTR, Type::I64, Type::I64, Type::I64, Type::BOOL];
    let mut func = Function::new("misc", types, Type::Void);
    let params: Vec<Value> = (0..5).map(|index| func.param_value(index)).collect();
    let (p, a, c, u, flag) = (params[0], params[1], params[2], params[3], params[4]);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let equal_strides = b.icmp(IntPredicate::Eq, a, c);
    let ordered_strides = b.icmp(IntPredicate::Slt, a, c);
    let mixed = b.icmp(IntPredicate::Eq, a, u);
    let difference = b.binary(BinaryOp::Sub, a, c);
    let picked = b.select(flag, a, c);
    let picked_varying = b.select(mixed, u, u);
    let uniform_load = b.load(Type::I64, p, 8);
    let address = b.gep(Type::I64, p, vec![a]);
    let strided_load = b.load(Type::I64, address, 8);
    let pure = b.call(Callee::Direct("sqrt".into()), vec![u], Type::I64, CallEffects::Pure);
    let pure = b.func.dfg.result(pure).unwrap();
    let effect = b.call(Callee::Direct("rand".into()), vec![], Type::I64, CallEffects::SideEffects);
    let effect = b.func.dfg.result(effect).unwrap();
    let lane = b.call(Callee::Direct("rv_lane_id".into()), vec![], Type::I32, CallEffects::Pure);
    let lane = b.func.dfg.result(lane).unwrap();
    let disjoint = b.ins_value(
        InstData::Binary {
            op: BinaryOp::Or,
            lhs: u,
            rhs: a,
            flags: ArithFlags { disjoint: true, ..ArithFlags::default() },
        },
        Type::I64,
    );
    let attrs = AtomicAttrs {
        ordering: AtomicOrdering::SeqCst,
        scope: SyncScope::System,
        align: 8,
        volatile: false,
    };
    // Every lane sees what the lanes before it left: varying even with
    // a uniform address and operand.
    let atomic = b.ins_value(
        InstData::AtomicRmw { op: AtomicRmwOp::Add, addr: p, value: u, attrs },
        Type::I64,
    );
    let pair = Type::Struct { fields: vec![Type::I64, Type::BOOL], packed: false };
    let exchanged = b.ins_value(
        InstData::CmpXchg {
            addr: p,
            expected: u,
            new: u,
            attrs,
            failure_ordering: AtomicOrdering::Monotonic,
            weak: false,
        },
        pair,
    );
    b.ret(None);

    let info = analyze(&func, "ulluu");
    assert!(info.is_uniform(equal_strides));
    assert!(info.is_varying(ordered_strides));
    assert!(info.is_varying(mixed));
    assert!(info.is_uniform(difference));
    assert_eq!(info.shape(picked).shape, Shape::Strided(1));
    assert!(info.is_varying(picked_varying));
    assert!(info.is_uniform(uniform_load));
    assert!(info.is_varying(strided_load));
    assert!(info.is_uniform(pure));
    assert!(info.is_varying(effect));
    assert_eq!(info.shape(lane), ValueShape::new(Shape::Strided(1), MAX_TRACKED_ALIGN));
    assert_eq!(info.shape(disjoint).shape, Shape::Strided(1));
    assert!(info.is_varying(atomic));
    assert!(info.is_varying(exchanged));
}

/// A pointer bumped by one element per iteration keeps the stride of its
/// strided start; the dump lists every value.
#[test]
fn strided_pointer_induction_and_dump() {
    let mut func = Function::new("walk", vec![Type::PTR, Type::I64], Type::Void);
    let (start, n) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let header = b.create_block(Some("loop"));
    let exit = b.create_block(Some("exit"));
    b.switch_to_block(entry);
    b.jump(header);
    b.switch_to_block(header);
    let p = b.phi(Type::PTR, vec![(entry, start), (header, start)]);
    let one = b.iconst(Type::I64, 1);
    let next = b.gep(Type::F32, p, vec![one]);
    let done = b.icmp(IntPredicate::Eq, next, start);
    b.branch(done, exit, header);
    b.switch_to_block(exit);
    b.ret(None);
    let phi_inst = b.func.dfg.defining_inst(p).unwrap();
    if let InstData::Phi { incoming, .. } = b.func.dfg.inst_mut(phi_inst) {
        incoming[1].1 = next;
    }
    for (value, name) in [(start, "start"), (n, "n"), (p, "p"), (next, "next")] {
        func.dfg.value_names[value] = Some(name.to_owned());
    }
    let info = analyze(&func, "l4a16u");
    assert_eq!(info.shape(p), ValueShape::new(Shape::Strided(4), 4));
    assert!(info.is_uniform(done), "equal strides compare uniformly for equality");
    assert_eq!(
        info.dump(&func),
        "%start = strided(4) align 16\n%n = uniform\n%p = strided(4) align 4\n\
         %next = strided(4) align 4\nv5 = uniform\n"
    );
}

/// Scalar code may hold vector values (clang's own SIMD code); uniform
/// operands still give uniform results.
#[test]
fn vector_typed_values_are_uniform_or_varying() {
    let v4 = Type::I32.vector_of(4);
    let mut func = Function::new("vectors", vec![v4.clone(), v4], Type::Void);
    let (a, c) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let uniform_sum = b.binary(BinaryOp::Add, a, a);
    let varying_sum = b.binary(BinaryOp::Add, a, c);
    b.ret(None);
    let info = analyze(&func, "uv");
    assert!(info.is_uniform(uniform_sum));
    assert!(info.is_varying(varying_sum));
}

#[test]
fn multiplication_by_a_non_constant_uniform_is_varying() {
    let mut func = Function::new("scale", vec![Type::I64, Type::I64], Type::Void);
    let (i, n) = (func.param_value(0), func.param_value(1));
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let product = b.binary(BinaryOp::Mul, i, n);
    b.ret(None);
    let info = analyze(&func, "lu");
    assert!(info.is_varying(product));
}

/// Values in unreachable code may stay `Undef`; everything reachable
/// gets a real shape.
#[test]
fn only_unreachable_values_stay_undef() {
    let mut func = Function::new("dead", vec![Type::I64], Type::I64);
    let x = func.param_value(0);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let dead = b.create_block(Some("dead"));
    b.switch_to_block(entry);
    let doubled = b.binary(BinaryOp::Add, x, x);
    b.ret(Some(doubled));
    b.switch_to_block(dead);
    // A self-referential phi only an unreachable block can hold.
    let phi = b.phi(Type::I64, vec![]);
    let phi_inst = b.func.dfg.defining_inst(phi).unwrap();
    if let InstData::Phi { incoming, .. } = b.func.dfg.inst_mut(phi_inst) {
        incoming.push((dead, phi));
    }
    b.jump(dead);
    let info = analyze(&func, "l");
    assert_eq!(info.shape(doubled).shape, Shape::Strided(2));
    assert_eq!(info.shape(phi).shape, Shape::Undef);
}
