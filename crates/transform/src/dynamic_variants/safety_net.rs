//! The run-time safety net: a variant that may lose to scalar code chooses
//! at every call between its vector body and one call of the scalar
//! function per active lane (issue 16, item 4; the thesis's dynamic
//! variants, chapter 7, decide by a run-time test the same way).
//!
//! Divergent loops whose lanes leave at very different times (each lane
//! walking its own path through a tree with its own stack) keep few lanes
//! busy, and their gathers and scatters make a vector iteration cost
//! several scalar ones: such variants ran at 0.2x-0.9x of the scalar code.
//! Whether they do depends on the data, so the choice is made at run time.
//! The rewrite happens on the scalar code, before analysis and
//! linearization:
//!
//! ```text
//! net.entry:    ticket = __lanewise_net_begin(@state, @name)   // uniform
//!               lanes = rv_popcount(true)
//!               br (ticket & 1) != 0, net.per_lane, <the old entry>
//! net.per_lane: left = rv_ballot(true)                   // the active lanes
//! net.lanes:    while left != 0:                         // a uniform loop
//! net.lane:         k = cttz(left); left &= left - 1
//!                   r = __lanewise_net_call.f(rv_extract(p, k), ...)
//!                   rs = rv_insert(rs, k, r)
//! <the body>    ... every `ret v` becomes `jump net.exit`
//! net.exit:     v' = phi [rs, net.lanes], [v, ...]
//!               __lanewise_net_end(@state, ticket, lanes)
//!               ret v'
//! ```
//!
//! The runtime functions and `__lanewise_net_call.f` are group functions
//! (`WidenConfig::group_functions`): one call for all lanes, on lane `k`'s
//! arguments for the latter, which the bridge then points at `f` itself,
//! `noinline`: `f` inlined W times (per-lane calls from widening) ran a
//! tree walk 1.3x slower than the scalar program, and inlined once into
//! the loop 10-17% slower; called, it runs as fast as the scalar program's
//! own calls.
//!
//! `@state` is a thread-local record per variant that the runtime (in the
//! LLVM bridge, next to the module it is linked into) keeps: it runs each
//! form for a few measured calls, timed with the cycle counter and
//! compared per active lane, then runs the faster one for a stretch of
//! calls that doubles while the same form keeps winning (and is longer
//! the more the losing form costs to measure again), and measures again. Results do not depend on the choice: per-lane calls run what the
//! scalar code runs, in lane order, which OpenMP allows for `declare simd`
//! functions (GCC's clones are such loops).
//!
//! Only functions whose lanes do not see each other may run per lane
//! ([`may_run_per_lane`]): no SPMD builtins (`rv_shuffle` reads other
//! lanes, `rv_lane_id` would read 0) and no group functions.
//!
//! A function whose author declares that its lanes' results do not depend
//! on which lanes run together (`RV_LANES_INDEPENDENT` in `lanewise/rv.h`)
//! may use SPMD builtins and still run in another form: a lock-step walk
//! (`rv_any` pushes a child that any lane wants) visits the union of the
//! lanes' paths, which on incoherent queries costs more than the scalar
//! walk. Its net's other form ([`PerLaneForm::OneLaneVariant`]) is one call
//! of the same function with the builtins' one-lane meaning
//! (`one_lane_builtins::substitute_one_lane_builtins`), vectorized as a
//! variant of its own: each lane walks its own path, in vector registers,
//! and that variant has the usual net towards per-lane scalar calls.
//!
//! ```text
//! net.per_lane: rs = f.one_lane(p, ...)   // widened to a variant call
//!               jump net.exit
//! ```

use lanewise_ir::{
    BinaryOp, Block, CallEffects, Callee, Constant, Function, FunctionBuilder, InstData,
    IntPredicate, Type, Value,
};

/// The runtime function that chooses the form of a call: it returns a
/// ticket whose bit 0 asks for per-lane calls and whose bit 1 says the call
/// is measured (the start time is in the bits above).
pub const NET_BEGIN: &str = "__lanewise_net_begin";

/// The symbol of the C string with the variant's name that the net whose
/// record is `state_symbol` passes to [`NET_BEGIN`] (its runtime prints it
/// when `LANEWISE_NET_TRACE` is set); the module defines both.
pub fn net_name_symbol(state_symbol: &str) -> String {
    format!("{state_symbol}.name")
}
/// The runtime function that records a measured call's cycles and lanes.
pub const NET_END: &str = "__lanewise_net_end";

/// What a variant that may lose to scalar code does (`--safety-net`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SafetyNetMode {
    /// Chooses at run time between the vector body and per-lane calls.
    #[default]
    Adaptive,
    /// Always the vector body (no net).
    Off,
    /// Always per-lane calls of the scalar function (to test that form).
    PerLane,
}

/// Whether every lane of `func` may run on its own, one after another,
/// through a call of the scalar function: no SPMD builtin (`rv_*`) and no
/// call of one of `group_functions`.
pub fn may_run_per_lane(func: &Function, group_functions: &[String]) -> bool {
    func.layout.insts().all(|inst| match func.dfg.inst(inst) {
        InstData::Call { callee: Callee::Direct(name), .. }
        | InstData::Invoke { callee: Callee::Direct(name), .. } => {
            !name.starts_with("rv_") && !group_functions.contains(name)
        }
        _ => true,
    })
}

/// What the net's other form runs instead of the vector body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerLaneForm<'a> {
    /// One call of the scalar function per active lane, in lane order.
    ScalarCalls,
    /// One call of the named function for all lanes: the one-lane form of
    /// a lanes-independent function, whose vector variant the widener
    /// calls (the caller puts it in the callee variant table).
    OneLaneVariant(&'a str),
}

/// Rewrites `func` as the module docs show: its first `scalar_params`
/// parameters are those of the scalar function `scalar_name` (a masked
/// variant's mask follows them); `per_lane_form` is what the other form runs.
/// `state_symbol` names the variant's runtime record; with
/// [`SafetyNetMode::PerLane`] the body always takes the per-lane path and
/// no runtime is called. Returns `false` and leaves `func` alone for
/// [`SafetyNetMode::Off`] or a function without a body.
pub fn add_safety_net(
    func: &mut Function,
    scalar_name: &str,
    scalar_params: usize,
    per_lane_form: PerLaneForm<'_>,
    mode: SafetyNetMode,
    state_symbol: &str,
) -> bool {
    let Some(old_entry) = func.layout.entry_block() else { return false };
    if mode == SafetyNetMode::Off {
        return false;
    }
    let returns: Vec<(Block, Option<Value>)> = func
        .layout
        .blocks()
        .iter()
        .filter_map(|&block| {
            let terminator = func.terminator(block)?;
            match func.dfg.inst(terminator) {
                InstData::Return { value } => Some((block, *value)),
                _ => None,
            }
        })
        .collect();
    let ret_ty = func.ret_ty.clone();
    let state = func.dfg.make_const(Type::PTR, Constant::Symbol(state_symbol.to_owned()));
    let name = func.dfg.make_const(Type::PTR, Constant::Symbol(net_name_symbol(state_symbol)));
    let args: Vec<Value> = func.params[..scalar_params].iter().map(|param| param.value).collect();

    let mut b = FunctionBuilder::new(func);
    let entry = b.create_block(Some("net.entry"));
    let per_lane = b.create_block(Some("net.per_lane"));
    let exit = b.create_block(Some("net.exit"));

    b.switch_to_block(entry);
    let (ticket, lanes) = match mode {
        SafetyNetMode::PerLane => (b.iconst(Type::I64, 1), None),
        _ => {
            let begin = b.call(
                Callee::Direct(NET_BEGIN.to_owned()),
                vec![state, name],
                Type::I64,
                CallEffects::SideEffects,
            );
            let ticket = b.func.dfg.result(begin).expect("the begin call returns the ticket");
            let all = b.iconst(Type::BOOL, 1);
            (ticket, Some(spmd_call(&mut b, "rv_popcount", vec![all], Type::I64)))
        }
    };
    let one = b.iconst(Type::I64, 1);
    let per_lane_bit = b.binary(BinaryOp::And, ticket, one);
    let zero = b.iconst(Type::I64, 0);
    let wants_per_lane = b.icmp(IntPredicate::Ne, per_lane_bit, zero);
    b.branch(wants_per_lane, per_lane, old_entry);

    b.switch_to_block(per_lane);
    let (per_lane_blocks, per_lane_result) = match per_lane_form {
        PerLaneForm::ScalarCalls => {
            let (lane_blocks, results) = per_lane_scalar_calls(&mut b, scalar_name, &args, exit);
            (std::iter::once(per_lane).chain(lane_blocks).collect(), results)
        }
        PerLaneForm::OneLaneVariant(callee) => {
            let call = b.call(
                Callee::Direct(callee.to_owned()),
                args.clone(),
                ret_ty.clone(),
                CallEffects::SideEffects,
            );
            let result = b.func.dfg.result(call);
            b.jump(exit);
            (vec![per_lane], result.map(|r| (per_lane, r)))
        }
    };

    b.switch_to_block(exit);
    let result = per_lane_result.map(|first| {
        let mut incoming = vec![first];
        incoming.extend(returns.iter().filter_map(|(block, value)| Some((*block, (*value)?))));
        b.phi(ret_ty.clone(), incoming)
    });
    if let Some(lanes) = lanes {
        b.call(
            Callee::Direct(NET_END.to_owned()),
            vec![state, ticket, lanes],
            Type::Void,
            CallEffects::SideEffects,
        );
    }
    b.ret(result);

    for (block, _) in &returns {
        let terminator = func.terminator(*block).expect("a return block has its return");
        *func.dfg.inst_mut(terminator) = InstData::Jump { dest: exit };
    }
    // The new blocks go first, the exit last; fixed-size stack slots stay
    // in the entry block, where the memory passes look for them.
    let mut order: Vec<Block> = std::iter::once(entry).chain(per_lane_blocks).collect();
    let placed = order.clone();
    order
        .extend(func.layout.blocks().iter().copied().filter(|b| !placed.contains(b) && *b != exit));
    order.push(exit);
    func.layout.set_block_order(order);
    let allocas: Vec<_> = func
        .layout
        .block_insts(old_entry)
        .iter()
        .copied()
        .filter(|&inst| match func.dfg.inst(inst) {
            InstData::Alloca { count, .. } => func.dfg.int_constant(*count).is_some(),
            _ => false,
        })
        .collect();
    for (position, inst) in allocas.into_iter().enumerate() {
        func.layout.remove_inst(inst);
        func.layout.insert_inst_at(inst, entry, position);
    }
    true
}

/// The per-lane form's loop over the active lanes, built from the current
/// block on: one call of the scalar function `scalar_name` per lane, lowest
/// first, then a jump to `exit`. Returns the loop's blocks and, for a
/// function with a result, the block that jumps to `exit` and the lanes'
/// results there.
fn per_lane_scalar_calls(
    b: &mut FunctionBuilder<'_>,
    scalar_name: &str,
    args: &[Value],
    exit: Block,
) -> (Vec<Block>, Option<(Block, Value)>) {
    // One call site in a loop over the active lanes, lowest first: LLVM
    // inlines it at most once, and its branches learn from every lane.
    let ret_ty = b.func.ret_ty.clone();
    let start = b.current_block().expect("the per-lane path has a block");
    let lane_loop = b.create_block(Some("net.lanes"));
    let lane_call = b.create_block(Some("net.lane"));
    let all = b.iconst(Type::BOOL, 1);
    let active = spmd_call(b, "rv_ballot", vec![all], Type::I64);
    b.jump(lane_loop);

    b.switch_to_block(lane_loop);
    let lanes_left = b.phi(Type::I64, vec![(start, active)]);
    let results = (ret_ty != Type::Void).then(|| {
        let poison = b.func.dfg.make_const(ret_ty.clone(), Constant::Poison);
        b.phi(ret_ty.clone(), vec![(start, poison)])
    });
    let none = b.iconst(Type::I64, 0);
    let more = b.icmp(IntPredicate::Ne, lanes_left, none);
    b.branch(more, lane_call, exit);

    b.switch_to_block(lane_call);
    let zero_is_poison = b.iconst(Type::BOOL, 1);
    let lane = spmd_call(b, "llvm.cttz.i64", vec![lanes_left, zero_is_poison], Type::I64);
    let one = b.iconst(Type::I64, 1);
    let below = b.binary(BinaryOp::Sub, lanes_left, one);
    let rest = b.binary(BinaryOp::And, lanes_left, below);
    let lane_args: Vec<Value> = args
        .iter()
        .map(|&arg| {
            let ty = b.ty(arg);
            spmd_call(b, "rv_extract", vec![arg, lane], ty)
        })
        .collect();
    let call = b.call(
        Callee::Direct(per_lane_callee(scalar_name)),
        lane_args,
        ret_ty.clone(),
        CallEffects::SideEffects,
    );
    b.add_phi_incoming(lanes_left, lane_call, rest);
    if let (Some(results), Some(result)) = (results, b.func.dfg.result(call)) {
        let inserted = spmd_call(b, "rv_insert", vec![results, lane, result], ret_ty);
        b.add_phi_incoming(results, lane_call, inserted);
    }
    b.jump(lane_loop);
    (vec![lane_loop, lane_call], results.map(|results| (lane_loop, results)))
}

/// The name the per-lane path calls the scalar function `scalar_name` by:
/// a group function (one call for all lanes, on lane `k`'s arguments) whose
/// calls the bridge points at the scalar function after lowering
/// (`LlvmModule::redirect_calls`). Its result is uniform by name in the
/// shape analysis.
pub fn per_lane_callee(scalar_name: &str) -> String {
    format!("{NET_CALL_PREFIX}{scalar_name}")
}

/// The prefix of [`per_lane_callee`] names.
pub const NET_CALL_PREFIX: &str = "__lanewise_net_call.";

/// A pure call (an SPMD builtin or an intrinsic) and its result.
fn spmd_call(b: &mut FunctionBuilder<'_>, name: &str, args: Vec<Value>, ret_ty: Type) -> Value {
    let call = b.call(Callee::Direct(name.to_owned()), args, ret_ty, CallEffects::Pure);
    b.func.dfg.result(call).expect("the call returns a value")
}

mod lane_arguments;
pub use lane_arguments::read_lane_arguments_from_memory;

#[cfg(test)]
mod tests;
