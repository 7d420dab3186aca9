//! Step 5 of SIMD loop vectorization (see `loop_vectorize`): the loop
//! replaced by the chunk loop over the unmasked variant of `B`, the tail
//! (masked call, scalar remainder, or a run-time choice), the horizontal
//! reductions and the final values ([`rewrite_loop`]).

use lanewise_ir::{
    BinaryOp, Block, CallEffects, Callee, CastOp, Constant, DataLayout, Function, FunctionBuilder,
    InstData, IntPredicate, Type, Value,
};

use super::reduction::ReductionKind;
use super::{exceptions, Induction, LiveOut, LoopCallTargets, LoopPlan, LoopRefusal, TailForm};

/// Replaces `plan`'s loop in `func` by the vectorized chunk loop, the tail
/// (`tail`: masked, scalar or chosen at run time) and the horizontal
/// reductions (see the module docs). The loop's blocks leave the layout.
pub fn rewrite_loop(
    func: &mut Function,
    plan: &LoopPlan,
    targets: &LoopCallTargets,
    tail: TailForm,
    data_layout: &DataLayout,
) -> Result<(), LoopRefusal> {
    let width = targets.width;
    let tested = &plan.inductions[plan.exit_test.induction];
    let iv_ty = func.dfg.value_type(tested.phi).clone();
    let entry = func.entry_block().expect("the function has blocks");

    // Stack slots: [W x T] per reduction and lastprivate value, [W x i64]
    // per conditional assignment (its stamps).
    let slot_types: Vec<Type> = plan
        .reductions
        .iter()
        .map(|reduction| reduction.ty.clone())
        .chain(plan.last_private.iter().map(|value| func.dfg.value_type(*value).clone()))
        .chain(plan.conditional_assignments().map(|_| Type::I64))
        .collect();
    let mut slots = Vec::new();
    for (position, ty) in slot_types.iter().enumerate() {
        let count = func.dfg.int_const(Type::I64, u128::from(width));
        let align = data_layout.abi_align(ty).max(16) as u32;
        let alloca =
            func.dfg.make_inst(InstData::Alloca { ty: ty.clone(), count, align }, Type::PTR);
        func.layout.insert_inst_at(alloca, entry, position);
        let slot = func.dfg.result(alloca).expect("alloca has a result");
        func.dfg.value_names[slot] = Some(format!("simd.slot{position}"));
        slots.push(slot);
    }
    let (reduction_slots, rest) = slots.split_at(plan.reductions.len());
    let (last_private_slots, stamp_slots) = rest.split_at(plan.last_private.len());

    let preheader_jump = func.terminator(plan.preheader).expect("checked by plan_simd_loop");
    func.layout.remove_inst(preheader_jump);
    let mut b = FunctionBuilder::new(func);
    let chunk_check = b.create_block(Some("simd.chunks"));
    let chunk_body = b.create_block(Some("simd.chunk"));
    let tail_check = b.create_block(Some("simd.tail.check"));
    let tail_choice = match tail {
        TailForm::RunTime { .. } => Some(b.create_block(Some("simd.tail.choice"))),
        _ => None,
    };
    let remainder = tail.runs_scalar().then(|| b.create_block(Some("simd.remainder")));
    let masked_tail = tail.calls_masked().then(|| b.create_block(Some("simd.tail")));
    let finish = b.create_block(Some("simd.done"));
    // Place them after the preheader, in this order.
    let new_blocks: Vec<Block> = [chunk_check, chunk_body, tail_check]
        .into_iter()
        .chain(tail_choice)
        .chain(remainder)
        .chain(masked_tail)
        .chain([finish])
        .collect();
    for &block in &new_blocks {
        b.func.layout.remove_block(block);
    }
    let mut after = plan.preheader;
    for &block in &new_blocks {
        b.func.layout.insert_block_after(block, after);
        after = block;
    }

    // Preheader: trip count and reduction slots.
    b.switch_to_block(plan.preheader);
    let trip_count = emit_trip_count(&mut b, plan, &iv_ty);
    for (reduction, slot) in plan.reductions.iter().zip(reduction_slots) {
        let align = data_layout.abi_align(&reduction.ty) as u32;
        let neutral = match reduction.kind.identity(&reduction.ty) {
            Some(constant) => b.func.dfg.make_const(reduction.ty.clone(), constant),
            None => reduction.init, // idempotent operators: init in every lane
        };
        for lane in 0..width {
            let value = if lane == 0 { reduction.init } else { neutral };
            let index = b.iconst(Type::I64, i128::from(lane));
            let address = b.gep(reduction.ty.clone(), *slot, vec![index]);
            b.store(value, address, align);
        }
    }
    for slot in stamp_slots {
        let never = b.iconst(Type::I64, 0);
        for lane in 0..width {
            let index = b.iconst(Type::I64, i128::from(lane));
            let address = b.gep(Type::I64, *slot, vec![index]);
            b.store(never, address, 8);
        }
    }
    let width_value = b.iconst(iv_ty.clone(), i128::from(width));
    let chunks = b.binary(BinaryOp::UDiv, trip_count, width_value);
    b.func.dfg.value_names[chunks] = Some("simd.chunk.count".to_owned());
    b.jump(chunk_check);

    // Chunk loop.
    b.switch_to_block(chunk_check);
    let zero = b.iconst(iv_ty.clone(), 0);
    let chunk_phi = b.phi(iv_ty.clone(), vec![(plan.preheader, zero)]);
    b.func.dfg.value_names[chunk_phi] = Some("simd.chunk.index".to_owned());
    let more = b.icmp(IntPredicate::Ult, chunk_phi, chunks);
    b.branch(more, chunk_body, tail_check);

    b.switch_to_block(chunk_body);
    let first_iteration = b.binary(BinaryOp::Mul, chunk_phi, width_value);
    let args = body_call_args(&mut b, plan, first_iteration, &slots);
    b.call(Callee::Direct(targets.unmasked.clone()), args, Type::Void, CallEffects::SideEffects);
    let one = b.iconst(iv_ty.clone(), 1);
    let next_chunk = b.binary(BinaryOp::Add, chunk_phi, one);
    b.jump(chunk_check);
    let phi_inst = b.func.dfg.defining_inst(chunk_phi).expect("phi");
    if let InstData::Phi { incoming, .. } = b.func.dfg.inst_mut(phi_inst) {
        incoming.push((chunk_body, next_chunk));
    }

    // The tail: `remaining` iterations from `done` on.
    b.switch_to_block(tail_check);
    let done = b.binary(BinaryOp::Mul, chunks, width_value);
    let remaining = b.binary(BinaryOp::Sub, trip_count, done);
    b.func.dfg.value_names[remaining] = Some("simd.remaining".to_owned());
    let any_left = b.icmp(IntPredicate::Ne, remaining, zero);
    let first_tail_block = tail_choice.or(remainder).or(masked_tail).expect("a tail form");
    b.branch(any_left, first_tail_block, finish);

    if let (Some(choice), TailForm::RunTime { scalar_below }) = (tail_choice, tail) {
        b.switch_to_block(choice);
        let threshold = b.iconst(iv_ty.clone(), i128::from(scalar_below));
        let few = b.icmp(IntPredicate::Ult, remaining, threshold);
        let (Some(remainder), Some(masked_tail)) = (remainder, masked_tail) else {
            unreachable!("a run-time choice has both tails")
        };
        b.branch(few, remainder, masked_tail);
    }

    // Scalar remainder: iteration `done + j` runs the scalar body with the
    // slots of lane `j` (see `tail`).
    if let Some(remainder) = remainder {
        let entered_from = tail_choice.unwrap_or(tail_check);
        b.switch_to_block(remainder);
        let j = b.phi(iv_ty.clone(), vec![(entered_from, zero)]);
        b.func.dfg.value_names[j] = Some("simd.remainder.index".to_owned());
        let iteration = b.binary(BinaryOp::Add, done, j);
        let lane = match iv_ty.int_bits() {
            Some(bits) if bits < 64 => b.cast(CastOp::ZExt, j, Type::I64),
            Some(bits) if bits > 64 => b.cast(CastOp::Trunc, j, Type::I64),
            _ => j,
        };
        // A scan's running value is `slot[0]` in every iteration.
        let scans = plan.reductions.iter().map(|reduction| reduction.scan);
        let lane_slots: Vec<Value> = slot_types
            .iter()
            .zip(&slots)
            .zip(scans.chain(std::iter::repeat(false)))
            .map(
                |((ty, slot), scan)| {
                    if scan {
                        *slot
                    } else {
                        b.gep(ty.clone(), *slot, vec![lane])
                    }
                },
            )
            .collect();
        let args = body_call_args(&mut b, plan, iteration, &lane_slots);
        b.call(Callee::Direct(targets.scalar.clone()), args, Type::Void, CallEffects::SideEffects);
        let next_j = b.binary(BinaryOp::Add, j, one);
        let more = b.icmp(IntPredicate::Ult, next_j, remaining);
        b.branch(more, remainder, finish);
        let phi_inst = b.func.dfg.defining_inst(j).expect("phi");
        if let InstData::Phi { incoming, .. } = b.func.dfg.inst_mut(phi_inst) {
            incoming.push((remainder, next_j));
        }
    }

    // Masked tail: one call, lanes `0..remaining` active. The mask is built
    // from an opaque copy of `remaining`: with a constant trip count LLVM
    // folded it into a constant, inlined the masked body, and turned its
    // selects into shuffles with constant false lanes; with 8 of 16 lanes
    // left, LLVM 22's X86 back end then lost the zero-extension of the
    // 8-bit mask (a `kmovb` it treated as a plain copy after machine
    // sinking) and counted the 8 inactive lanes as active (fuzz seed 60300:
    // an atomic add in a `declare simd` callee ran 16 times; reproducer
    // tests/fuzz_regressions/026).
    if let Some(masked_tail) = masked_tail {
        b.switch_to_block(masked_tail);
        let mut args = body_call_args(&mut b, plan, done, &slots);
        let lane_numbers: Vec<Value> =
            (0..width).map(|lane| b.iconst(iv_ty.clone(), i128::from(lane))).collect();
        let lanes_ty = iv_ty.vector_of(width);
        let lanes = b.func.dfg.make_const(lanes_ty, Constant::Aggregate(lane_numbers));
        let opaque_remaining = b.opaque(remaining);
        let remaining_splat = b.splat(opaque_remaining, width);
        let active = b.icmp(IntPredicate::Ult, lanes, remaining_splat);
        args.extend(mask_arguments(&mut b, active, width, &targets.mask_param_types)?);
        b.call(Callee::Direct(targets.masked.clone()), args, Type::Void, CallEffects::SideEffects);
        b.jump(finish);
    }

    // Results.
    b.switch_to_block(finish);
    let mut reduced = Vec::new();
    let mut stamp_slots = stamp_slots.iter();
    for (reduction, slot) in plan.reductions.iter().zip(reduction_slots) {
        let align = data_layout.abi_align(&reduction.ty) as u32;
        // A conditional assignment: the value of the lane with the latest
        // stamp (stamps are unique but for zero, "never": then every lane
        // still holds the initial value).
        let stamps = (reduction.kind == ReductionKind::LastAssigned)
            .then(|| *stamp_slots.next().expect("a stamp slot per conditional assignment"));
        let mut total = None;
        let mut latest_stamp = None;
        for lane in 0..width {
            let index = b.iconst(Type::I64, i128::from(lane));
            let address = b.gep(reduction.ty.clone(), *slot, vec![index]);
            let part = b.load(reduction.ty.clone(), address, align);
            total = Some(match (total, stamps) {
                (None, None) => part,
                (None, Some(stamps)) => {
                    let address = b.gep(Type::I64, stamps, vec![index]);
                    latest_stamp = Some(b.load(Type::I64, address, 8));
                    part
                }
                (Some(total), None) => reduction.kind.combine(&mut b, total, part),
                (Some(total), Some(stamps)) => {
                    let address = b.gep(Type::I64, stamps, vec![index]);
                    let stamp = b.load(Type::I64, address, 8);
                    let latest = latest_stamp.expect("lane 0 set the stamp");
                    let later = b.icmp(IntPredicate::Ugt, stamp, latest);
                    latest_stamp = Some(b.select(later, stamp, latest));
                    b.select(later, part, total)
                }
            });
        }
        reduced.push(total.expect("width is at least 1"));
    }
    let last_iteration = b.binary(BinaryOp::Sub, trip_count, one);
    let last_lane = b.binary(BinaryOp::URem, last_iteration, width_value);
    let mut last_values = Vec::new();
    for (value, slot) in plan.last_private.iter().zip(last_private_slots) {
        let ty = b.func.dfg.value_type(*value).clone();
        let address = b.gep(ty.clone(), *slot, vec![last_lane]);
        last_values.push(b.load(ty.clone(), address, data_layout.abi_align(&ty) as u32));
    }
    let mut live_out_values = Vec::new();
    for (phi, live_out) in &plan.exit_phis {
        let value = match live_out {
            LiveOut::InductionLast(index) => {
                induction_value_at(&mut b, &plan.inductions[*index], last_iteration)
            }
            LiveOut::InductionEnd(index) => {
                induction_value_at(&mut b, &plan.inductions[*index], trip_count)
            }
            LiveOut::Reduction(index) => reduced[*index],
            LiveOut::LastPrivate(index) => last_values[*index],
            LiveOut::Outside(value) => *value,
        };
        live_out_values.push((*phi, value));
    }
    b.jump(plan.exit);

    for (phi, value) in live_out_values {
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
            for (block, incoming_value) in incoming.iter_mut() {
                if *block == plan.latch {
                    *block = finish;
                    *incoming_value = value;
                }
            }
        }
    }
    let latch_terminator = func.terminator(plan.latch);
    for &block in &plan.blocks {
        func.layout.remove_block(block);
    }
    if let Some(term) = latch_terminator {
        func.loop_hints.remove(&term);
    }
    exceptions::drop_orphaned_landing_pads(func, &plan.unwind_dests, &plan.blocks);
    Ok(())
}

/// The trip count of the loop (see the module docs), in the preheader.
fn emit_trip_count(b: &mut FunctionBuilder<'_>, plan: &LoopPlan, iv_ty: &Type) -> Value {
    let test = &plan.exit_test;
    let induction = &plan.inductions[test.induction];
    let step = induction.step;
    let magnitude = b.iconst(iv_ty.clone(), i128::from(step.unsigned_abs()));
    // With the test on `iv` rather than `iv + step`, the bound is one step further.
    let mut bound = test.bound;
    if !test.tests_next {
        let step_value = b.iconst(iv_ty.clone(), i128::from(step));
        bound = b.binary(BinaryOp::Add, bound, step_value);
    }
    use IntPredicate::*;
    let trip_count = match test.continue_while {
        Ne => {
            let distance = if step > 0 {
                b.binary(BinaryOp::Sub, bound, induction.start)
            } else {
                b.binary(BinaryOp::Sub, induction.start, bound)
            };
            b.binary(BinaryOp::UDiv, distance, magnitude)
        }
        pred => {
            let inclusive = matches!(pred, Sle | Ule | Sge | Uge);
            let signed = matches!(pred, Slt | Sle | Sgt | Sge);
            if inclusive {
                let one = b.iconst(iv_ty.clone(), if step > 0 { 1 } else { -1 });
                bound = b.binary(BinaryOp::Add, bound, one);
            }
            // distance = how far the bound lies ahead in the step direction.
            let (ahead, distance) = if step > 0 {
                let ahead = if signed { Sgt } else { Ugt };
                (
                    b.icmp(ahead, bound, induction.start),
                    b.binary(BinaryOp::Sub, bound, induction.start),
                )
            } else {
                let ahead = if signed { Slt } else { Ult };
                (
                    b.icmp(ahead, bound, induction.start),
                    b.binary(BinaryOp::Sub, induction.start, bound),
                )
            };
            let one = b.iconst(iv_ty.clone(), 1);
            let distance = b.select(ahead, distance, one);
            let rounding = b.iconst(iv_ty.clone(), i128::from(step.unsigned_abs() - 1));
            let rounded = b.binary(BinaryOp::Add, distance, rounding);
            b.binary(BinaryOp::UDiv, rounded, magnitude)
        }
    };
    b.func.dfg.value_names[trip_count] = Some("simd.trip.count".to_owned());
    trip_count
}

/// `start + iteration * step` of `induction` (`iteration` of the tested
/// induction's type, converted if the induction is of another width).
fn induction_value_at(
    b: &mut FunctionBuilder<'_>,
    induction: &Induction,
    iteration: Value,
) -> Value {
    let ty = b.ty(induction.phi);
    let iteration_ty = b.ty(iteration);
    let iteration = match (iteration_ty.int_bits(), ty.int_bits()) {
        (Some(from), Some(to)) if from > to => b.cast(CastOp::Trunc, iteration, ty.clone()),
        (Some(from), Some(to)) if from < to => b.cast(CastOp::ZExt, iteration, ty.clone()),
        _ => iteration,
    };
    let step = b.iconst(ty, i128::from(induction.step));
    let offset = b.binary(BinaryOp::Mul, iteration, step);
    b.binary(BinaryOp::Add, induction.start, offset)
}

/// The arguments of a body call whose lane 0 runs iteration `first_iteration`.
fn body_call_args(
    b: &mut FunctionBuilder<'_>,
    plan: &LoopPlan,
    first_iteration: Value,
    slots: &[Value],
) -> Vec<Value> {
    let mut args: Vec<Value> = plan
        .inductions
        .iter()
        .map(|induction| induction_value_at(b, induction, first_iteration))
        .collect();
    args.extend(plan.live_ins.iter().copied());
    args.extend(slots.iter().copied());
    if plan.has_conditional_assignments() {
        // The iteration number of lane 0, as i64 (counts are non-negative).
        let iteration = match b.ty(first_iteration).int_bits() {
            Some(bits) if bits < 64 => b.cast(CastOp::ZExt, first_iteration, Type::I64),
            Some(bits) if bits > 64 => b.cast(CastOp::Trunc, first_iteration, Type::I64),
            _ => first_iteration,
        };
        args.push(iteration);
    }
    args
}

/// `active` (`<W x i1>`) in the form of the masked variant's mask parameters:
/// one parameter, or (when the vector ABI splits W lanes over several
/// registers, as 32 `float` lanes on AVX-512) several of the same type, part
/// `j` holding lanes `[j*W/n, (j+1)*W/n)`. A part is a vector of integers
/// (0/1) or floats (0.0/1.0), or an integer bit mask.
fn mask_arguments(
    b: &mut FunctionBuilder<'_>,
    active: Value,
    width: u32,
    mask_param_types: &[Type],
) -> Result<Vec<Value>, LoopRefusal> {
    let unsupported = || {
        LoopRefusal::new(format!(
            "unsupported mask parameters of the masked body: {}",
            mask_param_types.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
        ))
    };
    let parts = mask_param_types.len() as u32;
    let [first, ..] = mask_param_types else { return Err(unsupported()) };
    if mask_param_types.iter().any(|ty| ty != first) || !width.is_multiple_of(parts) {
        return Err(unsupported());
    }
    let lanes = width / parts;
    let mut arguments = Vec::new();
    for part in 0..parts {
        let part_mask = if parts == 1 {
            active
        } else {
            let lane_indices = (part * lanes..(part + 1) * lanes).map(|lane| lane as i32).collect();
            b.ins_value(
                InstData::Shuffle { lhs: active, rhs: active, mask: lane_indices },
                Type::BOOL.vector_of(lanes),
            )
        };
        let argument = match first {
            Type::Vector { lanes: param_lanes, .. } if *param_lanes != lanes => {
                return Err(unsupported());
            }
            ty @ Type::Vector { .. } if ty.scalar_type().is_int() => {
                b.cast(CastOp::ZExt, part_mask, ty.clone())
            }
            ty @ Type::Vector { .. } if ty.scalar_type().is_float() => {
                b.cast(CastOp::UIToFP, part_mask, ty.clone())
            }
            Type::Int(bits) if *bits >= lanes => {
                let packed = b.cast(CastOp::Bitcast, part_mask, Type::Int(lanes));
                if *bits > lanes {
                    b.cast(CastOp::ZExt, packed, Type::Int(*bits))
                } else {
                    packed
                }
            }
            _ => return Err(unsupported()),
        };
        arguments.push(argument);
    }
    Ok(arguments)
}
