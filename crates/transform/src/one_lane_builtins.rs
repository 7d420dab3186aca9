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

use lanewise_ir::{CastOp, Function, FunctionBuilder, IntPredicate, Type};

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
    if !shape_fits || ret.is_vector() || params.iter().any(Type::is_vector) {
        return None;
    }
    let mut func = Function::new(name, params.to_vec(), ret.clone());
    let args: Vec<_> = func.params.iter().map(|param| param.value).collect();
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block(Some("entry"));
    b.switch_to_block(entry);
    let result = match name {
        "rv_any" | "rv_all" | "rv_compact" | "rv_extract" | "rv_shuffle" | "rv_align" => {
            Some(args[0])
        }
        "rv_ballot" | "rv_popcount" => Some(b.cast(CastOp::ZExt, args[0], ret.clone())),
        "rv_index" | "rv_lane_id" => Some(b.iconst(ret.clone(), 0)),
        "rv_num_lanes" => Some(b.iconst(ret.clone(), 1)),
        "rv_mask" | "rv_entry_mask" => Some(b.iconst(Type::BOOL, 1)),
        "rv_insert" => {
            let zero = b.iconst(params[1].clone(), 0);
            let first = b.icmp(IntPredicate::Eq, args[1], zero);
            Some(b.select(first, args[2], args[0]))
        }
        "rv_load" => {
            let element = b.gep(ret.clone(), args[0], vec![args[1]]);
            Some(b.load(ret.clone(), element, 1))
        }
        "rv_store" => {
            let element = b.gep(params[2].clone(), args[0], vec![args[1]]);
            b.store(args[2], element, 1);
            None
        }
        _ => unreachable!("checked above"),
    };
    b.ret(result);
    Some(func)
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

    #[test]
    fn declarations_of_another_shape_get_no_definition() {
        assert!(one_lane_builtin("rv_any", &[Type::I32], &Type::BOOL).is_none());
        assert!(one_lane_builtin("rv_extract", &[Type::F32], &Type::F32).is_none());
        assert!(one_lane_builtin("not_a_builtin", &[], &Type::Void).is_none());
    }
}
