//! Calls that may throw (C++ `invoke`) in `#pragma omp simd` loop bodies.
//!
//! OpenMP requires an exception thrown in a `simd` region to be caught in
//! the same region by the thread that threw it (OpenMP 5.2, section 10.4:
//! "an exception thrown inside a simd region must cause execution to resume
//! within the same iteration of the simd region, and the same thread that
//! threw the exception must catch it"). clang enforces it: a `try` in an
//! `omp simd` body is an error, and every call of a function that may
//! throw becomes an `invoke` whose landing pad (`catch ptr null`) calls
//! `__clang_call_terminate` outside the loop. Only a `try` of a function
//! inlined into the body can still catch inside it.
//!
//! So the unwind edge of an `invoke` in the body either leaves the loop
//! (to a landing pad whose code never comes back into the loop: terminate,
//! cleanups, `resume`), which a conforming program never takes, or it
//! reaches a landing pad that the loop itself contains (a catch inside the
//! body). The first kind is treated as a call that does not unwind:
//! [`escaping_invokes`] accepts it, the outlined body calls the callee with
//! an ordinary `call` and continues at the normal destination
//! ([`call_for_invoke`]), W lanes call it one by one (or its vector
//! variant), and once the loop is rewritten [`drop_orphaned_landing_pads`]
//! removes the landing pads that only the loop reached. The second kind
//! would need W lanes to unwind and resume one by one: the loop is refused
//! with a remark naming the landing pad and the invoke.
//!
//! What changes for a non-conforming program (an exception that does leave
//! the body): the scalar loop calls `std::terminate` through clang's
//! landing pad; the vectorized one lets the exception propagate from the
//! call (the behaviour is undefined by OpenMP, and the function that clang
//! marked `nounwind` may then unwind).

use std::collections::HashSet;

use lanewise_ir::{Block, Callee, FastMathFlags, Function, Inst, InstData};

use super::LoopRefusal;

/// The `invoke`s in the loop (`in_loop`, in layout order) whose unwind
/// destination lies outside it, or a refusal when the loop holds exception
/// handling it cannot vectorize: a landing pad (a `catch` inside the body)
/// or a `resume`.
pub fn escaping_invokes(
    func: &Function,
    in_loop: &HashSet<Block>,
) -> Result<Vec<Inst>, LoopRefusal> {
    let mut escaping = Vec::new();
    for &block in func.layout.blocks().iter().filter(|block| in_loop.contains(block)) {
        for &inst in func.layout.block_insts(block) {
            let data = func.dfg.inst(inst);
            match data {
                InstData::Invoke { unwind_dest, .. } if !in_loop.contains(unwind_dest) => {
                    escaping.push(inst);
                }
                InstData::Invoke { unwind_dest, callee, .. } => {
                    return Err(LoopRefusal::new(format!(
                        "an exception is caught inside the loop body: `invoke`{} in block %{} \
                         unwinds to the landing pad in block %{}, which continues in the loop \
                         (W lanes cannot unwind and resume one by one)",
                        callee_name(callee),
                        func.block_name(block),
                        func.block_name(*unwind_dest)
                    )));
                }
                InstData::LandingPad { .. } | InstData::Resume { .. } => {
                    return Err(LoopRefusal::new(format!(
                        "the loop body holds exception handling (`{}` in block %{}): an \
                         exception caught inside the loop cannot be vectorized",
                        data.opcode_name(),
                        func.block_name(block)
                    )));
                }
                _ => {}
            }
        }
    }
    Ok(escaping)
}

/// The unwind destinations of `invokes`, without duplicates, in order.
pub fn unwind_destinations(func: &Function, invokes: &[Inst]) -> Vec<Block> {
    let mut blocks = Vec::new();
    for &invoke in invokes {
        if let InstData::Invoke { unwind_dest, .. } = func.dfg.inst(invoke) {
            if !blocks.contains(unwind_dest) {
                blocks.push(*unwind_dest);
            }
        }
    }
    blocks
}

/// The `call` that replaces the `invoke` `data` in the outlined body, and
/// the block the body continues at; `None` if `data` is no `invoke`.
pub fn call_for_invoke(data: &InstData) -> Option<(InstData, Block)> {
    let InstData::Invoke { callee, args, ret_ty, effects, normal_dest, .. } = data else {
        return None;
    };
    let call = InstData::Call {
        callee: callee.clone(),
        args: args.clone(),
        ret_ty: ret_ty.clone(),
        effects: *effects,
        flags: FastMathFlags::default(),
    };
    Some((call, *normal_dest))
}

/// After the loop's blocks (`loop_blocks`) left the layout: the landing
/// pads they unwound to (`pads`) lose those incoming edges; a pad nothing
/// else reaches is removed, with the blocks only it reached (its terminate
/// call, its cleanups). Returns how many blocks were removed.
pub fn drop_orphaned_landing_pads(
    func: &mut Function,
    pads: &[Block],
    loop_blocks: &[Block],
) -> usize {
    if pads.is_empty() {
        return 0;
    }
    for &pad in pads {
        if !func.layout.is_block_inserted(pad) {
            continue;
        }
        for phi in crate::cfg_canon::block_phis(func, pad) {
            if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
                incoming.retain(|(from, _)| !loop_blocks.contains(from));
            }
        }
    }
    crate::cfg_canon::remove_unreachable_blocks(func)
}

fn callee_name(callee: &Callee) -> String {
    match callee {
        Callee::Direct(name) => format!(" of `{name}`"),
        _ => String::new(),
    }
}
