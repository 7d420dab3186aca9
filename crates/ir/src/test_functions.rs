//! Small functions with known control flow, shared by the unit tests of the
//! CFG, the dominator trees, the printer and the verifier.

use crate::builder::FunctionBuilder;
use crate::function::Function;
use crate::instructions::{BinaryOp, IntPredicate};
use crate::types::Type;

/// ```text
/// block0: br (v0 < 0), block1, block2
/// block1: v3 = 0 - v0; br block3
/// block2: v4 = v0 + 1; br block3
/// block3: v5 = phi [v3, block1], [v4, block2]; ret v5
/// ```
pub fn diamond() -> Function {
    let mut func = Function::new("diamond", vec![Type::I32], Type::I32);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let then_block = b.create_block(None);
    let else_block = b.create_block(None);
    let join = b.create_block(Some("join"));
    let arg = b.func.param_value(0);
    b.switch_to_block(entry);
    let zero = b.iconst(Type::I32, 0);
    let negative = b.icmp(IntPredicate::Slt, arg, zero);
    b.branch(negative, then_block, else_block);
    b.switch_to_block(then_block);
    let zero_again = b.iconst(Type::I32, 0);
    let negated = b.binary(BinaryOp::Sub, zero_again, arg);
    b.jump(join);
    b.switch_to_block(else_block);
    let one = b.iconst(Type::I32, 1);
    let incremented = b.binary(BinaryOp::Add, arg, one);
    b.jump(join);
    b.switch_to_block(join);
    let merged = b.phi(Type::I32, vec![(then_block, negated), (else_block, incremented)]);
    b.ret(Some(merged));
    func
}

/// ```text
/// block0: br block1
/// block1: i = phi [0, block0], [i2, block2]; br (i < n), block2, block3
/// block2: i2 = i + 1; br block1
/// block3: ret i
/// ```
pub fn counting_loop() -> Function {
    let mut func = Function::new("counting_loop", vec![Type::I32], Type::I32);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(None);
    let header = b.create_block(Some("header"));
    let body = b.create_block(None);
    let exit = b.create_block(None);
    let limit = b.func.param_value(0);
    b.switch_to_block(entry);
    b.jump(header);
    b.switch_to_block(header);
    let zero = b.iconst(Type::I32, 0);
    // The back-edge value is not built yet: patch the phi below.
    let counter = b.phi(Type::I32, vec![(entry, zero)]);
    let keep_going = b.icmp(IntPredicate::Slt, counter, limit);
    b.branch(keep_going, body, exit);
    b.switch_to_block(body);
    let one = b.iconst(Type::I32, 1);
    let next = b.binary(BinaryOp::Add, counter, one);
    b.jump(header);
    b.switch_to_block(exit);
    b.ret(Some(counter));
    let phi = func.dfg.defining_inst(counter).unwrap();
    if let crate::InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
        incoming.push((body, next));
    }
    func
}

/// Three returns and a shared tail:
/// ```text
/// block0: br v0, block1, block2
/// block1: ret 1
/// block2: br v1, block3, block4
/// block3: br block5
/// block4: br block5
/// block5: ret 2
/// block6: ret 3            (unreachable)
/// ```
pub fn several_returns() -> Function {
    let mut func = Function::new("several_returns", vec![Type::BOOL, Type::BOOL], Type::I32);
    let mut b = FunctionBuilder::new(&mut func);
    let blocks: Vec<_> = (0..7).map(|_| b.create_block(None)).collect();
    let (first_cond, second_cond) = (b.func.param_value(0), b.func.param_value(1));
    b.switch_to_block(blocks[0]);
    b.branch(first_cond, blocks[1], blocks[2]);
    b.switch_to_block(blocks[1]);
    let one = b.iconst(Type::I32, 1);
    b.ret(Some(one));
    b.switch_to_block(blocks[2]);
    b.branch(second_cond, blocks[3], blocks[4]);
    b.switch_to_block(blocks[3]);
    b.jump(blocks[5]);
    b.switch_to_block(blocks[4]);
    b.jump(blocks[5]);
    b.switch_to_block(blocks[5]);
    let two = b.iconst(Type::I32, 2);
    b.ret(Some(two));
    b.switch_to_block(blocks[6]);
    let three = b.iconst(Type::I32, 3);
    b.ret(Some(three));
    func
}

/// C++ exception handling (the result of the invoke exists on its normal
/// edge only):
/// ```text
/// function @guarded(ptr v0) -> i32 personality @__gxx_personality_v0
/// block0: v1 = invoke i32 @may_throw(ptr v0) to block1 unwind block2
/// block1: ret v1
/// block2: v2 = landingpad { ptr, i32 } cleanup catch ptr @_ZTIi
///         call void @release(ptr v0)
///         resume v2
/// ```
pub fn invoke_with_landing_pad() -> Function {
    use crate::dfg::Constant;
    use crate::instructions::{CallEffects, Callee, InstData, LandingPadClause};
    let mut func = Function::new("guarded", vec![Type::PTR], Type::I32);
    func.personality = Some("__gxx_personality_v0".to_owned());
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    let normal = b.create_block(Some("ok"));
    let unwind = b.create_block(Some("lpad"));
    let pointer = b.func.param_value(0);
    b.switch_to_block(entry);
    let invoke = b.ins(
        InstData::Invoke {
            callee: Callee::Direct("may_throw".to_owned()),
            args: vec![pointer],
            ret_ty: Type::I32,
            effects: CallEffects::SideEffects,
            normal_dest: normal,
            unwind_dest: unwind,
        },
        Type::I32,
    );
    let result = b.func.dfg.result(invoke).expect("invoke of i32 has a result");
    b.switch_to_block(normal);
    b.ret(Some(result));
    b.switch_to_block(unwind);
    let type_info = b.func.dfg.make_const(Type::PTR, Constant::Symbol("_ZTIi".to_owned()));
    let exception_ty = Type::Struct { fields: vec![Type::PTR, Type::I32], packed: false };
    let pad = b.ins(
        InstData::LandingPad {
            ty: exception_ty.clone(),
            cleanup: true,
            clauses: vec![LandingPadClause::Catch(type_info)],
        },
        exception_ty,
    );
    let exception = b.func.dfg.result(pad).expect("landingpad has a result");
    b.call(
        Callee::Direct("release".to_owned()),
        vec![pointer],
        Type::Void,
        CallEffects::SideEffects,
    );
    b.ins(InstData::Resume { value: exception }, Type::Void);
    func
}
