//! Step 3 of SIMD loop vectorization (see `loop_vectorize`): the loop body
//! as a function `B(iv linear, live-ins uniform, slots uniform)` that runs
//! one iteration ([`outline_loop_body`]), with reductions and `lastprivate`
//! values in per-lane slots, scans as prefixes across the lanes (`scan`),
//! and the same body with one-lane builtins for the scalar remainder
//! ([`scalar_remainder_body`]).

use std::collections::{HashMap, HashSet};

use lanewise_ir::{
    BinaryOp, Block, CallEffects, Callee, CastOp, Constant, DataLayout, Function, FunctionBuilder,
    Inst, InstData, Type, Value,
};

use super::reduction::Reduction;
use super::{exceptions, scan, LoopPlan};

/// Copies `value` of `source` into `target` for use there: constants are
/// re-created (aggregates element by element), everything else is looked up
/// in `map`.
fn copy_value(
    source: &Function,
    target: &mut Function,
    map: &HashMap<Value, Value>,
    value: Value,
) -> Value {
    if let Some(mapped) = map.get(&value) {
        return *mapped;
    }
    match source.dfg.constant(value) {
        Some(constant) => {
            let ty = source.dfg.value_type(value).clone();
            let constant = match constant {
                Constant::Aggregate(elements) => Constant::Aggregate(
                    elements
                        .iter()
                        .map(|element| copy_value(source, target, map, *element))
                        .collect(),
                ),
                other => other.clone(),
            };
            target.dfg.make_const(ty, constant)
        }
        None => panic!("copy_value: {value} is neither mapped nor a constant"),
    }
}

/// The name of the SPMD builtin that numbers the lanes (see
/// `widen::builtins`): `i` in lane `i` of the vector function, `0` in the
/// scalar one.
pub const LANE_ID_BUILTIN: &str = "rv_lane_id";

/// Builds the body function `B` of `plan`'s loop (see the module docs):
/// parameters are the inductions (lane-0 values, linear), the live-ins
/// (uniform), then one slot pointer per reduction and per lastprivate value
/// (uniform).
pub fn outline_loop_body(
    func: &Function,
    plan: &LoopPlan,
    name: &str,
    data_layout: &DataLayout,
) -> Function {
    let mut param_types: Vec<Type> = plan
        .inductions
        .iter()
        .map(|induction| func.dfg.value_type(induction.phi).clone())
        .collect();
    param_types.extend(plan.live_ins.iter().map(|value| func.dfg.value_type(*value).clone()));
    param_types.extend(std::iter::repeat_n(Type::PTR, plan.slot_count()));
    if plan.has_conditional_assignments() {
        param_types.push(Type::I64); // the iteration number, linear
    }
    let mut body = Function::new(name, param_types, Type::Void);
    let mut map: HashMap<Value, Value> = HashMap::new();
    let mut next_param = 0;
    for induction in &plan.inductions {
        let param = body.param_value(next_param);
        body.dfg.value_names[param] = func.dfg.value_names[induction.phi].clone();
        map.insert(induction.phi, param);
        next_param += 1;
    }
    for value in &plan.live_ins {
        let param = body.param_value(next_param);
        body.dfg.value_names[param] = func.dfg.value_names[*value].clone();
        map.insert(*value, param);
        next_param += 1;
    }
    let slots: Vec<Value> =
        (next_param..next_param + plan.slot_count()).map(|i| body.param_value(i)).collect();
    let (reduction_slots, rest) = slots.split_at(plan.reductions.len());
    let (last_private_slots, stamp_slots) = rest.split_at(plan.last_private.len());
    let iteration = plan.has_conditional_assignments().then(|| {
        let param = body.param_value(next_param + plan.slot_count());
        body.dfg.value_names[param] = Some("iteration".to_owned());
        param
    });

    let mut blocks = HashMap::new();
    for &block in &plan.blocks {
        let new_block = body.dfg.make_block(func.dfg.blocks[block].name.clone());
        body.layout.append_block(new_block);
        blocks.insert(block, new_block);
    }
    let entry = blocks[&plan.header];

    // The entry: the lane number and the accumulators.
    let mut builder = FunctionBuilder::new(&mut body);
    builder.switch_to_block(entry);
    let lane_call = builder.call(
        Callee::Direct(LANE_ID_BUILTIN.to_owned()),
        Vec::new(),
        Type::I64,
        CallEffects::Pure,
    );
    let lane = builder.func.dfg.result(lane_call).expect("rv_lane_id returns the lane");
    builder.func.dfg.value_names[lane] = Some("lane".to_owned());
    // The iteration's private stack slots: the body's own allocas (the
    // whole-function pipeline gives each lane its own part).
    for &slot in &plan.private_allocas {
        let def = func.dfg.defining_inst(slot).expect("an alloca");
        let InstData::Alloca { ty, count, align } = func.dfg.inst(def).clone() else {
            unreachable!("private_stack_slots keeps allocas only")
        };
        let count = copy_value(func, builder.func, &map, count);
        let alloca = builder.ins_value(InstData::Alloca { ty, count, align }, Type::PTR);
        builder.func.dfg.value_names[alloca] = func.dfg.value_names[slot].clone();
        map.insert(slot, alloca);
    }
    for &address in &plan.private_addresses {
        let def = func.dfg.defining_inst(address).expect("an address instruction");
        let mut data = func.dfg.inst(def).clone();
        data.map_operands(|value| copy_value(func, builder.func, &map, value));
        let ty = func.dfg.value_type(address).clone();
        let copy = builder.ins_value(data, ty);
        builder.func.dfg.value_names[copy] = func.dfg.value_names[address].clone();
        map.insert(address, copy);
    }
    // A reduction's lane accumulates in `slot[lane]`; a scan's running
    // value is the uniform `slot[0]` (`scan`).
    let zero_index = builder.iconst(Type::I64, 0);
    for (reduction, slot) in plan.reductions.iter().zip(reduction_slots) {
        let index = if reduction.scan { zero_index } else { lane };
        let address = builder.gep(reduction.ty.clone(), *slot, vec![index]);
        let align = data_layout.abi_align(&reduction.ty) as u32;
        let accumulator = builder.load(reduction.ty.clone(), address, align);
        builder.func.dfg.value_names[accumulator] = func.dfg.value_names[reduction.phi].clone();
        map.insert(reduction.phi, accumulator);
    }

    // The loop's instructions, header phis left out; operands are mapped in
    // a second pass (phis may use values defined later).
    let header_phis: HashSet<Value> = plan
        .inductions
        .iter()
        .map(|induction| induction.phi)
        .chain(plan.reductions.iter().map(|reduction| reduction.phi))
        .collect();
    let latch_terminator = func.terminator(plan.latch).expect("checked by plan_simd_loop");
    let mut copied = Vec::new();
    for &block in &plan.blocks {
        for &inst in func.layout.block_insts(block) {
            if inst == latch_terminator
                || func.dfg.result(inst).is_some_and(|value| header_phis.contains(&value))
            {
                continue;
            }
            let result_ty =
                func.dfg.result(inst).map(|v| func.dfg.value_type(v).clone()).unwrap_or(Type::Void);
            let new_inst = body.append(blocks[&block], InstData::Unreachable, result_ty);
            if let (Some(old), Some(new)) = (func.dfg.result(inst), body.dfg.result(new_inst)) {
                map.insert(old, new);
                body.dfg.value_names[new] = func.dfg.value_names[old].clone();
            }
            // An invoke becomes a call and a jump to its normal destination
            // (`exceptions`: its unwind edge leaves the loop).
            if let Some((_, normal_dest)) = exceptions::call_for_invoke(func.dfg.inst(inst)) {
                body.append(
                    blocks[&block],
                    InstData::Jump { dest: blocks[&normal_dest] },
                    Type::Void,
                );
            }
            copied.push((inst, new_inst));
        }
    }
    for (inst, new_inst) in copied {
        let mut data = func.dfg.inst(inst).clone();
        if let Some((call, _)) = exceptions::call_for_invoke(&data) {
            data = call;
        }
        data.map_operands(|value| copy_value(func, &mut body, &map, value));
        data.map_successors(|block| blocks[&block]);
        if let InstData::Phi { incoming, .. } = &mut data {
            for (block, _) in incoming.iter_mut() {
                *block = blocks[block];
            }
        }
        *body.dfg.inst_mut(new_inst) = data;
    }

    // Scans: the prefix across the lanes, read in place of the running value.
    let scan_inclusive: Vec<Option<Value>> = plan
        .reductions
        .iter()
        .map(|reduction| {
            reduction.scan.then(|| {
                let (carried, update) = (map[&reduction.phi], map[&reduction.update]);
                scan::emit_prefix(&mut body, reduction, carried, update, lane)
            })
        })
        .collect();

    // Conditional assignments: whether this iteration assigned the value.
    let assigned: Vec<Value> = plan
        .conditional_assignments()
        .map(|reduction| assigned_in_iteration(func, &mut body, &map, &blocks, reduction))
        .collect();

    // The end of an iteration: updates and lastprivate values to their slots.
    let mut builder = FunctionBuilder::new(&mut body);
    builder.switch_to_block(blocks[&plan.latch]);
    if let Some(iteration) = iteration {
        // The stamp of an assignment: the iteration number plus one (zero:
        // never assigned in this lane).
        let one = builder.iconst(Type::I64, 1);
        let stamp = builder.binary(BinaryOp::Add, iteration, one);
        for (assigned, slot) in assigned.iter().zip(stamp_slots) {
            let address = builder.gep(Type::I64, *slot, vec![lane]);
            let old_stamp = builder.load(Type::I64, address, 8);
            let new_stamp = builder.select(*assigned, stamp, old_stamp);
            builder.store(new_stamp, address, 8);
        }
    }
    for ((reduction, slot), inclusive) in
        plan.reductions.iter().zip(reduction_slots).zip(scan_inclusive)
    {
        let (value, index) = match inclusive {
            Some(inclusive) => {
                let total = scan::chunk_total(&mut builder, inclusive, &reduction.ty);
                (total, builder.iconst(Type::I64, 0))
            }
            None => (copy_value(func, builder.func, &map, reduction.update), lane),
        };
        let address = builder.gep(reduction.ty.clone(), *slot, vec![index]);
        builder.store(value, address, data_layout.abi_align(&reduction.ty) as u32);
    }
    for (value, slot) in plan.last_private.iter().zip(last_private_slots) {
        let ty = func.dfg.value_type(*value).clone();
        let mapped = copy_value(func, builder.func, &map, *value);
        let address = builder.gep(ty.clone(), *slot, vec![lane]);
        builder.store(mapped, address, data_layout.abi_align(&ty) as u32);
    }
    builder.ret(None);
    body
}

/// In the body, an `i1` that is true when the iteration assigned the
/// conditional assignment `reduction` a new value: a parallel copy of its
/// merges, with `true` for the operands that are not derived from the
/// accumulator and `false` for the accumulator itself.
fn assigned_in_iteration(
    func: &Function,
    body: &mut Function,
    map: &HashMap<Value, Value>,
    blocks: &HashMap<Block, Block>,
    reduction: &Reduction,
) -> Value {
    let members: HashSet<Value> = reduction.members.iter().copied().collect();
    let yes = body.dfg.int_const(Type::BOOL, 1);
    let no = body.dfg.int_const(Type::BOOL, 0);
    // First a placeholder per merge (phis may refer to later merges), then
    // the operands.
    let mut parallel: HashMap<Value, Value> = HashMap::from([(reduction.phi, no)]);
    let mut merges = Vec::new();
    for &member in &reduction.members {
        let Some(inst) = func.dfg.defining_inst(member) else { continue };
        let data = func.dfg.inst(inst);
        if member == reduction.phi
            || !matches!(data, InstData::Phi { .. } | InstData::Select { .. })
        {
            continue;
        }
        let copy = map[&member];
        let block = body.dfg.defining_inst(copy).and_then(|copy| body.layout.inst_block(copy));
        let block = block.expect("the copied merge is in the body");
        let placeholder = body.dfg.make_inst(InstData::Unreachable, Type::BOOL);
        match data {
            InstData::Phi { .. } => body.layout.insert_inst_at(placeholder, block, 0),
            _ => {
                let copy_inst = body.dfg.defining_inst(copy).expect("a copied select");
                body.layout.insert_inst_before(placeholder, copy_inst);
            }
        }
        let value = body.dfg.result(placeholder).expect("an i1 result");
        parallel.insert(member, value);
        merges.push((inst, placeholder));
    }
    let flag = |value: &Value| -> Value {
        if members.contains(value) {
            parallel[value]
        } else {
            yes
        }
    };
    for (inst, placeholder) in merges {
        let data = match func.dfg.inst(inst) {
            InstData::Phi { incoming, .. } => InstData::Phi {
                ty: Type::BOOL,
                incoming: incoming
                    .iter()
                    .map(|(block, value)| (blocks[block], flag(value)))
                    .collect(),
            },
            InstData::Select { cond, if_true, if_false, .. } => InstData::Select {
                cond: copy_value(func, body, map, *cond),
                if_true: flag(if_true),
                if_false: flag(if_false),
                flags: Default::default(),
            },
            _ => unreachable!("only merges have placeholders"),
        };
        *body.dfg.inst_mut(placeholder) = data;
    }
    parallel[&reduction.update]
}

/// The bodies [`rewrite_loop`](super::rewrite::rewrite_loop) calls.
#[derive(Clone, Debug)]
pub struct LoopCallTargets {
    pub width: u32,
    /// The unmasked variant: the body's parameters, widened.
    pub unmasked: String,
    /// The masked variant: the same plus the mask parameters.
    pub masked: String,
    /// The scalar remainder body ([`scalar_remainder_body`]).
    pub scalar: String,
    /// The types of the masked variant's mask parameters (the widener's
    /// mask ABI: `<W x iN>`/`<W x fN>` with non-zero lanes active, or one
    /// integer of at least W bits with lane `i` in bit `i`).
    pub mask_param_types: Vec<Type>,
}

/// The outlined body `B` as the scalar remainder loop calls it, named
/// `name`: `rv_lane_id()` is 0, so every slot access is `slot[0]` and the
/// caller passes `&slot[j]` for remainder iteration `j` (see [`tail`](super::tail)), and
/// the builtins a scan uses (`scan`) have their one-lane meaning:
/// `rv_shuffle(v, s)` and `rv_extract(v, k)` are `v`, `rv_popcount(b)` is
/// `b`. The result is ordinary scalar code, independent of the SPMD
/// builtins.
pub fn scalar_remainder_body(body: &Function, name: &str) -> Function {
    let mut scalar = body.clone();
    scalar.name = name.to_owned();
    let builtin_calls: Vec<(Inst, String)> = scalar
        .layout
        .insts()
        .filter_map(|inst| match scalar.dfg.inst(inst) {
            InstData::Call { callee: Callee::Direct(callee), .. }
                if [LANE_ID_BUILTIN, "rv_shuffle", "rv_extract", "rv_popcount"]
                    .contains(&callee.as_str()) =>
            {
                Some((inst, callee.clone()))
            }
            _ => None,
        })
        .collect();
    let mut one_lane = HashMap::new();
    for (call, callee) in builtin_calls {
        let Some(result) = scalar.dfg.result(call) else { continue };
        let InstData::Call { args, .. } = scalar.dfg.inst(call).clone() else { unreachable!() };
        let ty = scalar.dfg.value_type(result).clone();
        match callee.as_str() {
            "rv_popcount" => {
                *scalar.dfg.inst_mut(call) = InstData::Cast {
                    op: CastOp::ZExt,
                    arg: args[0],
                    to: ty,
                    flags: Default::default(),
                };
            }
            LANE_ID_BUILTIN => {
                one_lane.insert(result, scalar.dfg.int_const(ty, 0));
                scalar.layout.remove_inst(call);
            }
            _ => {
                one_lane.insert(result, args[0]);
                scalar.layout.remove_inst(call);
            }
        }
    }
    crate::cfg_canon::replace_uses(&mut scalar, &one_lane);
    scalar
}
