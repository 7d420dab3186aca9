//! The per-lane calls of a widened safety net read their arguments from a
//! stack copy of the vectors, one scalar load per lane.
//!
//! Widened, the net's loop over the active lanes (`net.lanes`, `net.lane`,
//! see the parent module) takes each lane's arguments with an
//! `extractelement` of the vector parameter. The vector then lives in a
//! vector register across every call; the calling convention saves no
//! vector register, so before each call LLVM stores it, clears the upper
//! halves (`vzeroupper`) and, after the call, reloads the whole vector to
//! extract the next lane (`vmovups`, `vextractps`). For a function that
//! costs 60 cycles a call (bench/kernels/ragged on short counts), per-lane
//! calls ran 12% slower than the scalar program's own calls; the same calls
//! reading each lane's argument with a scalar load from a stack copy ran
//! 4% slower (a C wrapper of each form, fastest of 6 runs: 6.47 and 5.92
//! ms, the scalar program 5.69 ms).
//!
//! So each vector defined outside the loop and extracted inside it at the
//! lane index is stored once, before the loop, to a stack slot, and each
//! extraction becomes a load of the lane's element from the slot. The loads
//! are volatile: LLVM would otherwise forward the stored vector to them and
//! make them extractions again. Vectors of `i1` (bit-packed in memory) and
//! splats of uniform arguments (whose extraction LLVM folds) keep their
//! extractions.

use lanewise_ir::{Block, Function, Inst, InstData, Type, Value};

/// Rewrites the lane arguments of the safety net's per-lane loop of
/// `func` (a widened variant) as loads from stack copies; returns how many
/// extractions it replaced (0 without a net).
pub fn read_lane_arguments_from_memory(func: &mut Function) -> usize {
    let Some((preheader, loop_blocks)) = per_lane_loop(func) else { return 0 };
    let Some(entry) = func.layout.entry_block() else { return 0 };
    let lane_block = loop_blocks[1];
    let defined_in_loop = |func: &Function, value: Value| {
        func.dfg
            .defining_inst(value)
            .and_then(|inst| func.layout.inst_block(inst))
            .is_some_and(|block| loop_blocks.contains(&block))
    };
    let extractions: Vec<(Inst, Value, Value)> = func
        .layout
        .block_insts(lane_block)
        .iter()
        .filter_map(|&inst| match func.dfg.inst(inst) {
            InstData::ExtractElement { vector, index }
                if func.dfg.constant(*index).is_none() && !defined_in_loop(func, *vector) =>
            {
                Some((inst, *vector, *index))
            }
            _ => None,
        })
        .filter(|(_, vector, _)| {
            lane_bytes(func.dfg.value_type(*vector)).is_some() && !is_splat(func, *vector)
        })
        .collect();
    let mut slots: Vec<(Value, Value)> = Vec::new();
    for &(extraction, vector, index) in &extractions {
        let vector_ty = func.dfg.value_type(vector).clone();
        let element_ty = vector_ty.scalar_type().clone();
        let element_bytes = lane_bytes(&vector_ty).expect("extractions of whole-byte lanes");
        let slot = match slots.iter().find(|(stored, _)| *stored == vector) {
            Some((_, slot)) => *slot,
            None => {
                let slot = stack_copy(func, entry, preheader, vector, &vector_ty, element_bytes);
                slots.push((vector, slot));
                slot
            }
        };
        let gep = InstData::Gep {
            source_ty: element_ty.clone(),
            base: slot,
            indices: vec![index],
            inbounds: true,
        };
        let gep = func.dfg.make_inst(gep, Type::PTR);
        func.layout.insert_inst_before(gep, extraction);
        let addr = func.dfg.result(gep).expect("a GEP has a result");
        *func.dfg.inst_mut(extraction) =
            InstData::Load { ty: element_ty, addr, align: element_bytes, volatile: true };
    }
    extractions.len()
}

/// The net's per-lane loop: the block entering `net.lanes` from outside,
/// and the loop's blocks `[net.lanes, net.lane]`, if the function has them
/// as built.
fn per_lane_loop(func: &Function) -> Option<(Block, [Block; 2])> {
    let named = |name: &str| {
        func.layout.blocks().iter().copied().find(|&block| func.block_name(block) == name)
    };
    let (header, body) = (named("net.lanes")?, named("net.lane")?);
    let entering: Vec<Block> = func
        .layout
        .blocks()
        .iter()
        .copied()
        .filter(|&block| block != body && func.successors(block).contains(&header))
        .collect();
    match entering[..] {
        [preheader] if func.successors(preheader) == [header] => Some((preheader, [header, body])),
        _ => None,
    }
}

/// A slot in the entry block holding `vector`, stored at the end of
/// `preheader` (which the vector's definition dominates: the loop uses it
/// and is entered from there only).
fn stack_copy(
    func: &mut Function,
    entry: Block,
    preheader: Block,
    vector: Value,
    vector_ty: &Type,
    element_bytes: u32,
) -> Value {
    let one = func.dfg.int_const(Type::I32, 1);
    let lanes = vector_ty.lanes().unwrap_or(1);
    // The vector's own alignment, at most a cache line's.
    let align = (element_bytes * lanes).min(64);
    let alloca = InstData::Alloca { ty: vector_ty.clone(), count: one, align };
    let alloca = func.dfg.make_inst(alloca, Type::PTR);
    func.layout.insert_inst_at(alloca, entry, 0);
    let slot = func.dfg.result(alloca).expect("an alloca has a result");
    let store =
        InstData::Store { value: vector, addr: slot, align: element_bytes, volatile: false };
    let store = func.dfg.make_inst(store, Type::Void);
    let terminator = func.terminator(preheader).expect("the preheader branches to the loop");
    func.layout.insert_inst_before(store, terminator);
    slot
}

/// Whether `vector` repeats one value in every lane (a uniform argument,
/// whose extraction LLVM folds to the value).
fn is_splat(func: &Function, vector: Value) -> bool {
    func.dfg
        .defining_inst(vector)
        .is_some_and(|inst| matches!(func.dfg.inst(inst), InstData::Splat { .. }))
}

/// The bytes of each lane of the vector type `ty`, if its lanes take
/// whole bytes in memory (not `i1`: a vector of them is bit-packed).
fn lane_bytes(ty: &Type) -> Option<u32> {
    ty.lanes()?;
    ty.scalar_type().scalar_bits().filter(|bits| bits % 8 == 0).map(|bits| bits / 8)
}
