//! WFV-SLP (the WFV thesis, section 7.4): independent calls of one vector
//! math function under a mask with few active lanes, packed into one call.
//!
//! A masked block that calls, say, `expf` on three independent values
//! (`expf(x) + expf(y) + expf(z)`) makes three W-lane calls of libmvec's
//! variant whatever the number of active lanes. When k lanes are active and
//! 3k <= W, the active lanes of the three arguments fit in one vector:
//!
//! ```text
//!   B:        ... the block up to the last call, without the calls and
//!             without what uses their results
//!             n = popcount(mask); br n * m <= W, packed, unpacked
//!   packed:   P = compress(a1, mask)                       lanes 0..n
//!             P = expand(compress(a2, mask), P, lanes n..2n)     ...
//!             R = f(P)                                      one call
//!             r1 = expand(R, 0, mask)
//!             r2 = expand(compress(R, lanes n..2n), 0, mask)  ...
//!   unpacked: r1 = f(a1); r2 = f(a2); ...                  the original calls
//!   join:     phis of r1, r2, ...; what used them; the rest of B
//! ```
//!
//! (`compress` is `llvm.experimental.vector.compress`, `expand`
//! `llvm.x86.avx512.mask.expand`: one instruction each on AVX-512, which is
//! why only AVX-512 variants with one register per vector do this.) Lanes
//! of a packed result outside the mask are zero; the original calls filled
//! them with the function of inactive lanes' data, which nothing reads.
//! Each lane computes the same function of the same value in both paths,
//! so results are bit-identical.
//!
//! When it pays: bench/wfv_slp measures the thesis's example by hand on
//! AMD Zen 5 at W = 16: for libmvec's `expf` the packed form takes 0.70 of
//! the time of three calls at every k from 1 to 5; for three cheap
//! arithmetic instructions it takes 1.7x as long (the shuffles cost more
//! than they save). So only calls are packed, only libmvec's (an
//! intrinsic such as `llvm.sqrt` is one instruction), only where the widener
//! knows the block's mask, and only calls whose results no other packed
//! call reads (directly or through other instructions of the block). The
//! instructions between the first and the last call that use a call's
//! result move after the join; the group ends before an instruction with
//! memory effects that would have to move.

use std::collections::{HashMap, HashSet};

use lanewise_ir::{
    ArithFlags, BinaryOp, Block, CallEffects, Callee, CastFlags, CastOp, Constant, FastMathFlags,
    Function, Inst, InstData, IntPredicate, Type, Value,
};

use crate::cfg_canon::{rename_phi_predecessor, replace_uses};
use crate::narrow_loops::{append_value, compress_call, register_expand};

/// A vector math call the widener emitted in a block with a mask.
#[derive(Copy, Clone, Debug)]
pub struct PackableCall {
    pub call: Inst,
    /// The block's `<W x i1>` mask.
    pub mask: Value,
}

/// Packs the groups of independent `calls` (see the module's docs) of a
/// function of `width` lanes; returns the number of groups packed.
pub fn pack_math_calls(func: &mut Function, calls: &[PackableCall], width: u32) -> usize {
    let mask_of: HashMap<Inst, Value> = calls.iter().map(|call| (call.call, call.mask)).collect();
    let mut packed = 0;
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    for block in blocks {
        // After a rewrite the block's tail lives in the join block: look
        // there for more groups.
        let mut current = Some(block);
        while let Some(block) = current {
            current = None;
            let Some(group) = find_group(func, block, &mask_of) else { continue };
            current = Some(rewrite_group(func, block, &group, width));
            packed += 1;
        }
    }
    packed
}

/// Calls of one function under one mask, to be packed, and the
/// instructions between them that use their results.
struct Group {
    calls: Vec<Inst>,
    mask: Value,
    moved: Vec<Inst>,
}

/// The first group of at least two packable calls in `block`.
fn find_group(func: &Function, block: Block, mask_of: &HashMap<Inst, Value>) -> Option<Group> {
    let insts = func.layout.block_insts(block).to_vec();
    for (start, &first) in insts.iter().enumerate() {
        let Some(&mask) = mask_of.get(&first) else { continue };
        let callee = func.dfg.callee_name(first);
        let mut calls = vec![first];
        // Values that depend on the group's results.
        let mut tainted: HashSet<Value> = func.dfg.result(first).into_iter().collect();
        let mut dependents = Vec::new();
        for &inst in &insts[start + 1..] {
            let data = func.dfg.inst(inst);
            let mut uses_group = false;
            data.for_each_operand(|value| uses_group |= tainted.contains(&value));
            let same_kind =
                mask_of.get(&inst) == Some(&mask) && func.dfg.callee_name(inst) == callee;
            if same_kind && !uses_group {
                calls.push(inst);
                tainted.extend(func.dfg.result(inst));
                continue;
            }
            if !uses_group {
                continue;
            }
            if !is_movable(data) {
                break;
            }
            dependents.push(inst);
            tainted.extend(func.dfg.result(inst));
        }
        if calls.len() < 2 {
            continue;
        }
        let last = *calls.last().expect("two calls");
        let last_position = insts.iter().position(|inst| *inst == last).expect("in the block");
        let before_last: HashSet<Inst> = insts[..last_position].iter().copied().collect();
        let moved = dependents.into_iter().filter(|inst| before_last.contains(inst)).collect();
        return Some(Group { calls, mask, moved });
    }
    None
}

/// Whether an instruction that uses a packed call's result may move after
/// the join: it computes a value and touches no memory.
fn is_movable(data: &InstData) -> bool {
    match data {
        InstData::Call { effects, .. } => *effects == CallEffects::Pure,
        InstData::Binary { .. }
        | InstData::Unary { .. }
        | InstData::Icmp { .. }
        | InstData::Fcmp { .. }
        | InstData::Select { .. }
        | InstData::Cast { .. }
        | InstData::Shuffle { .. }
        | InstData::ExtractElement { .. }
        | InstData::InsertElement { .. }
        | InstData::Splat { .. }
        | InstData::Gep { .. } => true,
        _ => false,
    }
}

/// Rewrites `block` around `group` (see the module's docs); returns the
/// join block, which holds the rest of the block.
fn rewrite_group(func: &mut Function, block: Block, group: &Group, width: u32) -> Block {
    let insts = func.layout.clear_block_insts(block);
    let last = *group.calls.last().expect("two calls");
    let last_position = insts.iter().position(|inst| *inst == last).expect("in the block");
    let is_call: HashSet<Inst> = group.calls.iter().copied().collect();
    let is_moved: HashSet<Inst> = group.moved.iter().copied().collect();
    for &inst in &insts[..=last_position] {
        if !is_call.contains(&inst) && !is_moved.contains(&inst) {
            func.layout.append_inst(inst, block);
        }
    }
    let name = func.block_name(block);
    let packed = func.dfg.make_block(Some(format!("{name}.packed")));
    let unpacked = func.dfg.make_block(Some(format!("{name}.unpacked")));
    let join = func.dfg.make_block(Some(format!("{name}.packed.join")));
    func.layout.insert_block_after(packed, block);
    func.layout.insert_block_after(unpacked, packed);
    func.layout.insert_block_after(join, unpacked);

    // B: does the group fit in one vector?
    let count = group.calls.len() as u128;
    let bits_ty = Type::Int(width);
    let cast = InstData::Cast {
        op: CastOp::Bitcast,
        arg: group.mask,
        to: bits_ty.clone(),
        flags: CastFlags::default(),
    };
    let bits = append_value(func, block, cast, bits_ty.clone());
    let popcount = InstData::Call {
        callee: Callee::Direct(format!("llvm.ctpop.i{width}")),
        args: vec![bits],
        ret_ty: bits_ty.clone(),
        effects: CallEffects::Pure,
        flags: FastMathFlags::default(),
    };
    let active = append_value(func, block, popcount, bits_ty.clone());
    let count_value = func.dfg.int_const(bits_ty.clone(), count);
    let needed = append_value(
        func,
        block,
        InstData::Binary {
            op: BinaryOp::Mul,
            lhs: active,
            rhs: count_value,
            flags: ArithFlags::default(),
        },
        bits_ty.clone(),
    );
    let lanes = func.dfg.int_const(bits_ty.clone(), u128::from(width));
    let fits = append_value(
        func,
        block,
        InstData::Icmp { pred: IntPredicate::Ule, lhs: needed, rhs: lanes },
        Type::BOOL,
    );
    func.append(
        block,
        InstData::Branch { cond: fits, then_dest: packed, else_dest: unpacked },
        Type::Void,
    );

    // unpacked: the original calls.
    for &call in &group.calls {
        func.layout.append_inst(call, unpacked);
    }
    func.append(unpacked, InstData::Jump { dest: join }, Type::Void);

    // packed: one call on the packed arguments.
    let InstData::Call { callee, args, ret_ty, effects, flags } =
        func.dfg.inst(group.calls[0]).clone()
    else {
        unreachable!("a call")
    };
    let mask_ty = Type::BOOL.vector_of(width);
    // The lanes [i n, (i + 1) n) as a mask, for i = 1..m.
    let ones = {
        let one = func.dfg.int_const(bits_ty.clone(), 1);
        let shifted = append_value(
            func,
            packed,
            InstData::Binary {
                op: BinaryOp::Shl,
                lhs: one,
                rhs: active,
                flags: ArithFlags::default(),
            },
            bits_ty.clone(),
        );
        append_value(
            func,
            packed,
            InstData::Binary {
                op: BinaryOp::Sub,
                lhs: shifted,
                rhs: one,
                flags: ArithFlags::default(),
            },
            bits_ty.clone(),
        )
    };
    let mut slice_masks = vec![None];
    for index in 1..group.calls.len() {
        let index_value = func.dfg.int_const(bits_ty.clone(), index as u128);
        let offset = append_value(
            func,
            packed,
            InstData::Binary {
                op: BinaryOp::Mul,
                lhs: active,
                rhs: index_value,
                flags: ArithFlags::default(),
            },
            bits_ty.clone(),
        );
        let slice_bits = append_value(
            func,
            packed,
            InstData::Binary {
                op: BinaryOp::Shl,
                lhs: ones,
                rhs: offset,
                flags: ArithFlags::default(),
            },
            bits_ty.clone(),
        );
        let cast = InstData::Cast {
            op: CastOp::Bitcast,
            arg: slice_bits,
            to: mask_ty.clone(),
            flags: CastFlags::default(),
        };
        slice_masks.push(Some(append_value(func, packed, cast, mask_ty.clone())));
    }
    let mut packed_args = Vec::new();
    for position in 0..args.len() {
        let arg_ty = func.dfg.value_type(args[position]).clone();
        let zero = func.dfg.make_const(arg_ty.clone(), Constant::Zero);
        let mut joined = None;
        for (index, &call) in group.calls.iter().enumerate() {
            let InstData::Call { args: call_args, .. } = func.dfg.inst(call) else {
                unreachable!()
            };
            let arg = call_args[position];
            let compressed = compress_call(func, packed, arg, group.mask, zero);
            joined = Some(match (joined, slice_masks[index]) {
                (None, _) => compressed,
                (Some(so_far), Some(slice)) => {
                    register_expand(func, packed, compressed, so_far, slice)
                }
                (Some(_), None) => unreachable!("only the first slice has no mask"),
            });
        }
        packed_args.push(joined.expect("two calls"));
    }
    let packed_call =
        InstData::Call { callee, args: packed_args, ret_ty: ret_ty.clone(), effects, flags };
    let packed_result = append_value(func, packed, packed_call, ret_ty.clone());
    let zero = func.dfg.make_const(ret_ty.clone(), Constant::Zero);
    let mut packed_results = Vec::new();
    for slice in &slice_masks {
        let slice_first = match slice {
            None => packed_result,
            Some(slice) => compress_call(func, packed, packed_result, *slice, zero),
        };
        packed_results.push(register_expand(func, packed, slice_first, zero, group.mask));
    }
    func.append(packed, InstData::Jump { dest: join }, Type::Void);

    // join: the results, what used them, the rest of the block.
    let mut replacements = HashMap::new();
    let mut phis = Vec::new();
    for (&call, &packed_value) in group.calls.iter().zip(&packed_results) {
        let original = func.dfg.result(call).expect("a result");
        let phi = InstData::Phi { ty: ret_ty.clone(), incoming: vec![(packed, packed_value)] };
        let merged = append_value(func, join, phi, ret_ty.clone());
        replacements.insert(original, merged);
        phis.push((merged, original));
    }
    for &inst in &group.moved {
        func.layout.append_inst(inst, join);
    }
    for &inst in &insts[last_position + 1..] {
        func.layout.append_inst(inst, join);
    }
    replace_uses(func, &replacements);
    for (merged, original) in phis {
        let phi = func.dfg.defining_inst(merged).expect("a phi");
        if let InstData::Phi { incoming, .. } = func.dfg.inst_mut(phi) {
            incoming.push((unpacked, original));
        }
    }
    for successor in func.successors(join) {
        rename_phi_predecessor(func, successor, block, join);
    }
    join
}
