//! Definitions of the SPMD builtins with their one-lane meaning.
//!
//! Vectorized code never calls `rv_any`, `rv_lane_id`, ...: widening gives
//! them their W-lane meaning (`widen/builtins.rs`). The scalar function a
//! kernel was written as still calls them, and nothing defines them unless
//! the user compiled `lanewise/rv.h` with `LANEWISE_RV_SCALAR` somewhere.
//! So that a module Lanewise produced links on its own, the driver adds the
//! definition below for every builtin the module declares but does not
//! define (internal and always inlined: no symbol clash with a user's own
//! definition). The meanings are those of the header's bracketed W = 1
//! column: `rv_any(b) = b`, `rv_index(b) = 0`, `rv_load(p, k) = p[k]`, ...
//!
//! [`substitute_one_lane_builtins`] puts the same meanings in place of the
//! calls in a function: the one-lane form of a lanes-independent function
//! (`dynamic_variants::safety_net`), which is then vectorized like any
//! function without builtins, each lane on its own.

use std::collections::HashMap;

use lanewise_ir::{
    Callee, CastOp, Function, FunctionBuilder, Inst, InstData, IntPredicate, Type, Value,
};

/// The names of the SPMD builtins (`include/lanewise/rv.h`).
pub const SPMD_BUILTINS: &[&str] = &[
    "rv_any",
    "rv_all",
    "rv_ballot",
    "rv_popcount",
    "rv_index",
    "rv_mask",
    "rv_entry_mask",
    "rv_compact",
    "rv_lane_id",
    "rv_num_lanes",
    "rv_extract",
    "rv_insert",
    "rv_shuffle",
    "rv_load",
    "rv_store",
    "rv_align",
];

/// The one-lane definition of builtin `name` declared as `params -> ret`,
/// or `None` if `name` is not a builtin or the declaration does not have
/// the builtin's shape (then the module keeps its declaration).
pub fn one_lane_builtin(name: &str, params: &[Type], ret: &Type) -> Option<Function> {
    if !has_builtin_shape(name, params, ret) {
        return None;
    }
    let mut func = Function::new(name, params.to_vec(), ret.clone());
    let args: Vec<_> = func.params.iter().map(|param| param.value).collect();
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let result = emit_one_lane_meaning(&mut b, name, &args, ret);
    b.ret(result);
    Some(func)
}

/// Replaces every call of an SPMD builtin in `func` that has the builtin's
/// shape by the instructions of its one-lane meaning. Returns how many
/// calls were replaced.
pub fn substitute_one_lane_builtins(func: &mut Function) -> usize {
    let calls: Vec<(Inst, String)> = func
        .layout
        .insts()
        .filter_map(|inst| match func.dfg.inst(inst) {
            InstData::Call { callee: Callee::Direct(name), .. }
                if SPMD_BUILTINS.contains(&name.as_str()) =>
            {
                Some((inst, name.clone()))
            }
            _ => None,
        })
        .collect();
    let mut replacements: HashMap<Value, Value> = HashMap::new();
    let mut replaced = 0;
    for (call, name) in calls {
        let InstData::Call { args, .. } = func.dfg.inst(call) else { continue };
        let args = args.clone();
        let params: Vec<Type> = args.iter().map(|&arg| func.dfg.value_type(arg).clone()).collect();
        let result = func.dfg.result(call);
        let ret = result.map_or(Type::Void, |result| func.dfg.value_type(result).clone());
        if !has_builtin_shape(&name, &params, &ret) {
            continue;
        }
        let mut b = FunctionBuilder::new(func);
        let scratch = b.create_block(None);
        b.switch_to_block(scratch);
        let meaning = emit_one_lane_meaning(&mut b, &name, &args, &ret);
        for inst in func.layout.clear_block_insts(scratch) {
            func.layout.insert_inst_before(inst, call);
        }
        func.layout.remove_block(scratch);
        func.layout.remove_inst(call);
        if let (Some(result), Some(meaning)) = (result, meaning) {
            replacements.insert(result, meaning);
        }
        replaced += 1;
    }
    crate::cfg_canon::replace_uses(func, &replacements);
    replaced
}

/// Whether `params -> ret` is the signature of builtin `name` (scalar
/// types only; element types may vary where the header says so).
fn has_builtin_shape(name: &str, params: &[Type], ret: &Type) -> bool {
    let shape_fits = match name {
        "rv_any" | "rv_all" => params == [Type::BOOL] && *ret == Type::BOOL,
        "rv_ballot" | "rv_popcount" | "rv_index" => params == [Type::BOOL] && ret.is_int(),
        "rv_mask" | "rv_entry_mask" => params.is_empty() && *ret == Type::BOOL,
        "rv_align" => {
            params.len() == 2 && params[0] == Type::PTR && params[1].is_int() && *ret == Type::PTR
        }
        "rv_lane_id" | "rv_num_lanes" => params.is_empty() && ret.is_int(),
        "rv_compact" => params.len() == 2 && params[0] == *ret && params[1] == Type::BOOL,
        "rv_extract" | "rv_shuffle" => params.len() == 2 && params[0] == *ret && params[1].is_int(),
        "rv_insert" => {
            params.len() == 3 && params[0] == *ret && params[1].is_int() && params[2] == *ret
        }
        "rv_load" => params.len() == 2 && params[0] == Type::PTR && params[1].is_int(),
        "rv_store" => {
            params.len() == 3 && params[0] == Type::PTR && params[1].is_int() && *ret == Type::Void
        }
        _ => false,
    };
    shape_fits && !ret.is_vector() && !params.iter().any(Type::is_vector)
}

/// Emits the one-lane meaning of builtin `name` (of a checked shape) on
/// `args` into the builder's current block; returns its value, if any.
fn emit_one_lane_meaning(
    b: &mut FunctionBuilder<'_>,
    name: &str,
    args: &[Value],
    ret: &Type,
) -> Option<Value> {
    match name {
        "rv_any" | "rv_all" | "rv_compact" | "rv_extract" | "rv_shuffle" | "rv_align" => {
            Some(args[0])
        }
        "rv_ballot" | "rv_popcount" => Some(b.cast(CastOp::ZExt, args[0], ret.clone())),
        "rv_index" | "rv_lane_id" => Some(b.iconst(ret.clone(), 0)),
        "rv_num_lanes" => Some(b.iconst(ret.clone(), 1)),
        "rv_mask" | "rv_entry_mask" => Some(b.iconst(Type::BOOL, 1)),
        "rv_insert" => {
            let lane_ty = b.ty(args[1]);
            let zero = b.iconst(lane_ty, 0);
            let first = b.icmp(IntPredicate::Eq, args[1], zero);
            Some(b.select(first, args[2], args[0]))
        }
        "rv_load" => {
            let element = b.gep(ret.clone(), args[0], vec![args[1]]);
            Some(b.load(ret.clone(), element, 1))
        }
        "rv_store" => {
            let value_ty = b.ty(args[2]);
            let element = b.gep(value_ty, args[0], vec![args[1]]);
            b.store(args[2], element, 1);
            None
        }
        _ => unreachable!("the shape check admits builtins only"),
    }
}

#[cfg(test)]
mod tests {
    use lanewise_ir::verify_function;

    use super::*;
    use crate::interp::{Interpreter, Memory, Val};

    fn int(bits: u32, value: u128) -> Val {
        Val::int(bits, value)
    }

    /// A builtin, its declared signature, arguments and expected result.
    type Case = (&'static str, Vec<Type>, Type, Vec<Val>, Option<Val>);

    #[test]
    fn builtins_have_their_one_lane_meaning() {
        let cases: Vec<Case> = vec![
            ("rv_any", vec![Type::BOOL], Type::BOOL, vec![int(1, 1)], Some(int(1, 1))),
            ("rv_all", vec![Type::BOOL], Type::BOOL, vec![int(1, 0)], Some(int(1, 0))),
            ("rv_ballot", vec![Type::BOOL], Type::I32, vec![int(1, 1)], Some(int(32, 1))),
            ("rv_popcount", vec![Type::BOOL], Type::I32, vec![int(1, 0)], Some(int(32, 0))),
            ("rv_index", vec![Type::BOOL], Type::I32, vec![int(1, 1)], Some(int(32, 0))),
            ("rv_mask", vec![], Type::BOOL, vec![], Some(int(1, 1))),
            ("rv_entry_mask", vec![], Type::BOOL, vec![], Some(int(1, 1))),
            (
                "rv_align",
                vec![Type::PTR, Type::I32],
                Type::PTR,
                vec![Val::Ptr(0x1010), int(32, 16)],
                Some(Val::Ptr(0x1010)),
            ),
            ("rv_lane_id", vec![], Type::I32, vec![], Some(int(32, 0))),
            ("rv_num_lanes", vec![], Type::I32, vec![], Some(int(32, 1))),
            (
                "rv_extract",
                vec![Type::F32, Type::I32],
                Type::F32,
                vec![Val::F32(2.5), int(32, 3)],
                Some(Val::F32(2.5)),
            ),
            (
                "rv_insert",
                vec![Type::F32, Type::I32, Type::F32],
                Type::F32,
                vec![Val::F32(2.5), int(32, 0), Val::F32(7.0)],
                Some(Val::F32(7.0)),
            ),
            (
                "rv_insert",
                vec![Type::F32, Type::I32, Type::F32],
                Type::F32,
                vec![Val::F32(2.5), int(32, 1), Val::F32(7.0)],
                Some(Val::F32(2.5)),
            ),
        ];
        for (name, params, ret, args, expected) in cases {
            let func = one_lane_builtin(name, &params, &ret).expect(name);
            verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));
            let mut interpreter = Interpreter::new(Memory::new(0x1000, 64), |callee, _| {
                panic!("unexpected call of {callee}")
            });
            let result =
                interpreter.run(&func, &args).unwrap_or_else(|error| panic!("{name}: {error}"));
            let same = match (&result, &expected) {
                (Some(result), Some(expected)) => result.same_as(expected),
                (None, None) => true,
                _ => false,
            };
            assert!(same, "{name}({args:?}) = {result:?}, expected {expected:?}");
        }
    }

    /// `f(b, v, p) = { rv_store(p, 1, rv_insert(v, 0, 2.0)); return
    /// rv_ballot(rv_any(b)) }`: after the substitution no builtin is called,
    /// and the function computes the one-lane meanings.
    #[test]
    fn substitution_puts_the_one_lane_meanings_in_place_of_the_calls() {
        let mut func = Function::new("f", vec![Type::BOOL, Type::F32, Type::PTR], Type::I32);
        let (flag, value, pointer) =
            (func.param_value(0), func.param_value(1), func.param_value(2));
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        b.switch_to_block(entry);
        let pure = lanewise_ir::CallEffects::Pure;
        let any = b.call(Callee::Direct("rv_any".into()), vec![flag], Type::BOOL, pure);
        let any = b.func.dfg.result(any).unwrap();
        let ballot = b.call(Callee::Direct("rv_ballot".into()), vec![any], Type::I32, pure);
        let ballot = b.func.dfg.result(ballot).unwrap();
        let (lane, x) = (b.iconst(Type::I32, 0), b.f32const(2.0));
        let insert =
            b.call(Callee::Direct("rv_insert".into()), vec![value, lane, x], Type::F32, pure);
        let inserted = b.func.dfg.result(insert).unwrap();
        let one = b.iconst(Type::I32, 1);
        let effects = lanewise_ir::CallEffects::SideEffects;
        b.call(
            Callee::Direct("rv_store".into()),
            vec![pointer, one, inserted],
            Type::Void,
            effects,
        );
        b.ret(Some(ballot));

        assert_eq!(substitute_one_lane_builtins(&mut func), 4);
        verify_function(&func).unwrap_or_else(|errors| panic!("{errors}\n{func}"));
        assert!(func.layout.insts().all(|inst| func.dfg.callee_name(inst).is_none()), "{func}");
        for (flag, expected) in [(1, 1), (0, 0)] {
            let mut interpreter = Interpreter::new(Memory::new(0x1000, 64), |callee, _| {
                panic!("unexpected call of {callee}")
            });
            let args = [int(1, flag), Val::F32(5.0), Val::Ptr(0x1000)];
            let result = interpreter.run(&func, &args).unwrap();
            assert!(result.unwrap().same_as(&int(32, expected)), "{func}");
            let stored = interpreter.memory.read(0x1004, 4).unwrap();
            assert_eq!(stored, 2.0f32.to_le_bytes(), "{func}");
        }
    }

    #[test]
    fn declarations_of_another_shape_get_no_definition() {
        assert!(one_lane_builtin("rv_any", &[Type::I32], &Type::BOOL).is_none());
        assert!(one_lane_builtin("rv_extract", &[Type::F32], &Type::F32).is_none());
        assert!(one_lane_builtin("not_a_builtin", &[], &Type::Void).is_none());
    }
}
