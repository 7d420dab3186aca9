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
//! net.entry:    ticket = __lanewise_net_begin(@state)   // uniform
//!               lanes = rv_popcount(true)
//!               br (ticket & 1) != 0, net.per_lane, <the old entry>
//! net.per_lane: r = f(params)            // the scalar function itself
//!               jump net.exit
//! <the body>    ... every `ret v` becomes `jump net.exit`
//! net.exit:     v' = phi [r, net.per_lane], [v, ...]
//!               __lanewise_net_end(@state, ticket, lanes)
//!               ret v'
//! ```
//!
//! Widening turns the call of `f` into per-lane calls in the active lanes
//! (a variant never calls itself), and the two runtime functions into one
//! call for all lanes (they are group functions, `WidenConfig::group_functions`).
//! `@state` is a thread-local record per variant that the runtime (in the
//! LLVM bridge, next to the module it is linked into) keeps: it runs each
//! form for a few measured calls, timed with the cycle counter and
//! compared per active lane, then runs the faster one for a stretch of
//! calls that doubles while the same form keeps winning, and measures
//! again. Results do not depend on the choice: per-lane calls run what the
//! scalar code runs, in lane order, which OpenMP allows for `declare simd`
//! functions (GCC's clones are such loops).
//!
//! Only functions whose lanes do not see each other may run per lane
//! ([`may_run_per_lane`]): no SPMD builtins (`rv_shuffle` reads other
//! lanes, `rv_lane_id` would read 0) and no group functions.

use lanewise_ir::{
    BinaryOp, Block, CallEffects, Callee, Constant, Function, FunctionBuilder, InstData,
    IntPredicate, Type, Value,
};

/// The runtime function that chooses the form of a call: it returns a
/// ticket whose bit 0 asks for per-lane calls and whose bit 1 says the call
/// is measured (the start time is in the bits above).
pub const NET_BEGIN: &str = "__lanewise_net_begin";
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

/// Rewrites `func` as the module docs show: its first `scalar_params`
/// parameters are those of the scalar function `scalar_name` (a masked
/// variant's mask follows them). `state_symbol` names the variant's runtime
/// record; with [`SafetyNetMode::PerLane`] the body always takes the
/// per-lane path and no runtime is called. Returns `false` and leaves
/// `func` alone for [`SafetyNetMode::Off`] or a function without a body.
pub fn add_safety_net(
    func: &mut Function,
    scalar_name: &str,
    scalar_params: usize,
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
                vec![state],
                Type::I64,
                CallEffects::SideEffects,
            );
            let ticket = b.func.dfg.result(begin).expect("the begin call returns the ticket");
            let all = b.iconst(Type::BOOL, 1);
            let popcount = b.call(
                Callee::Direct("rv_popcount".to_owned()),
                vec![all],
                Type::I64,
                CallEffects::Pure,
            );
            (ticket, b.func.dfg.result(popcount))
        }
    };
    let one = b.iconst(Type::I64, 1);
    let per_lane_bit = b.binary(BinaryOp::And, ticket, one);
    let zero = b.iconst(Type::I64, 0);
    let wants_per_lane = b.icmp(IntPredicate::Ne, per_lane_bit, zero);
    b.branch(wants_per_lane, per_lane, old_entry);

    b.switch_to_block(per_lane);
    let call = b.call(
        Callee::Direct(scalar_name.to_owned()),
        args,
        ret_ty.clone(),
        CallEffects::SideEffects,
    );
    let per_lane_result = b.func.dfg.result(call);
    b.jump(exit);

    b.switch_to_block(exit);
    let result = per_lane_result.map(|first| {
        let mut incoming = vec![(per_lane, first)];
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
    let mut order: Vec<Block> = vec![entry, per_lane];
    order.extend(
        func.layout.blocks().iter().copied().filter(|b| ![entry, per_lane, exit].contains(b)),
    );
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

#[cfg(test)]
mod tests;
