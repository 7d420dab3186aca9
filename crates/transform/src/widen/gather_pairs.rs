//! Pairs of gathers of neighbouring 32-bit elements become one gather of
//! 64-bit elements, after widening.
//!
//! Table lookups often read two neighbours per lane: `perm[A]` and
//! `perm[A + 1]` of Perlin noise (seven such pairs per octave), the `x` and
//! `y` fields of a point, the two bounds of a segment. Widened, each is a
//! gather of W 32-bit elements, and x86 gathers cost by the element: on the
//! machine of the benchmarks (AMD Zen 5), two `vpgatherdd` of 8 lanes took
//! 3.26 ns, one `vpgatherdq` of 8 lanes 1.88 ns with the split, two
//! `vpgatherdq` of 4 lanes (AVX2) 2.58 ns (`bash bench/gather_pairs/run.sh`,
//! 2026-11-29: `perm[x]` and `perm[x + 1]` from random `x`). `bash
//! scripts/bench.sh`: perlin 2.40x -> 2.59x at W=8 (2.96x -> 3.77x at
//! W=16), bvh/per-lane on camera rays 1.14x -> 1.27x (1.18x -> 1.37x).
//!
//! ```text
//!     lo = gather <W x i32> addrs, mask                  ; addrs + 4 bytes = addrs'
//!     hi = gather <W x i32> addrs', mask
//! becomes
//!     both = gather <W x i64> addrs, mask
//!     lo = trunc both                                    ; little-endian: lower address
//!     hi = trunc (lshr both, 32)
//! ```
//!
//! The wide gather reads exactly the bytes the two gathers read, in the
//! same lanes: the pair has the same mask, and the second address of every
//! lane is 4 bytes past the first (`addrs' = gep addrs, c` with constant
//! offsets, off one common root). No instruction between the two may write
//! memory, so reading both at the first one's place sees what each saw.
//! The 64-bit elements need only the first one's alignment: x86 gathers
//! take any alignment. Elements of `f32` are paired as integers and cast
//! back bit for bit.
//!
//! Only targets with gather instructions (AVX2 and AVX-512) pair; without
//! them a gather is W scalar loads either way. `--gather-pairs off` turns
//! the pass off (ablation).

use std::collections::HashMap;

use lanewise_ir::vfabi::Isa;
use lanewise_ir::{
    BinaryOp, Block, CastOp, Constant, DataLayout, Function, Inst, InstData, Type, Value,
};

/// Pairs the gathers of neighbouring 32-bit elements in `func` (see the
/// module docs); returns how many pairs became one gather.
pub fn pair_adjacent_gathers(func: &mut Function, data_layout: &DataLayout, isa: Isa) -> usize {
    if !matches!(isa, Isa::Avx2 | Isa::Avx512) {
        return 0;
    }
    let mut paired = 0;
    for block in func.layout.blocks().to_vec() {
        for pair in pairs_in_block(func, data_layout, block) {
            fuse(func, &pair);
            paired += 1;
        }
    }
    paired
}

/// A gather that may be paired: its address as an offset from a root.
#[derive(Clone, Copy)]
struct Candidate {
    inst: Inst,
    position: usize,
    root: Value,
    offset: i64,
}

/// Two gathers to fuse: `low` reads 4 bytes below `high` in every lane,
/// under the same mask.
struct Pair {
    low: Candidate,
    high: Candidate,
}

/// The pairs of `block`, each gather in at most one: candidates grouped by
/// root, mask and type width, sorted by offset, paired greedily from the
/// lowest offset with the one 4 bytes above it.
fn pairs_in_block(func: &Function, data_layout: &DataLayout, block: Block) -> Vec<Pair> {
    let insts = func.layout.block_insts(block);
    // writes_before[i]: instructions that may write memory among insts[..i].
    let mut writes_before = Vec::with_capacity(insts.len() + 1);
    writes_before.push(0usize);
    let mut groups: HashMap<(Value, MaskKey, u32), Vec<Candidate>> = HashMap::new();
    for (position, &inst) in insts.iter().enumerate() {
        let data = func.dfg.inst(inst);
        let writes = usize::from(data.has_side_effects());
        writes_before.push(writes_before[position] + writes);
        let InstData::Gather { ty, addrs, mask, passthru, .. } = data else { continue };
        let four_byte_elements = data_layout.alloc_size(ty.scalar_type()) == 4
            && (ty.scalar_type().is_int() || ty.scalar_type().is_float());
        let no_passthru =
            matches!(func.dfg.constant(*passthru), Some(Constant::Poison | Constant::Undef));
        let Some(lanes) = ty.lanes() else { continue };
        if !four_byte_elements || !no_passthru {
            continue;
        }
        let (root, offset) = root_and_offset(func, data_layout, *addrs);
        groups.entry((root, mask_key(func, *mask), lanes)).or_default().push(Candidate {
            inst,
            position,
            root,
            offset,
        });
    }
    let mut pairs = Vec::new();
    for mut candidates in groups.into_values() {
        candidates.sort_by_key(|candidate| (candidate.offset, candidate.position));
        let mut taken = vec![false; candidates.len()];
        for low_index in 0..candidates.len() {
            if taken[low_index] {
                continue;
            }
            let low = candidates[low_index];
            let high_index = (low_index + 1..candidates.len()).find(|&index| {
                let high = candidates[index];
                let (first, last) =
                    (low.position.min(high.position), low.position.max(high.position));
                !taken[index]
                    && high.offset == low.offset + 4
                    && writes_before[last] == writes_before[first + 1]
            });
            if let Some(high_index) = high_index {
                taken[low_index] = true;
                taken[high_index] = true;
                pairs.push(Pair { low, high: candidates[high_index] });
            }
        }
    }
    pairs
}

/// A mask as the pairing compares it: constants by their lanes (each
/// all-true mask of the widened code is a constant of its own), other
/// values by identity.
#[derive(Clone, PartialEq, Eq, Hash)]
enum MaskKey {
    Lanes(Vec<u128>),
    Value(Value),
}

fn mask_key(func: &Function, mask: Value) -> MaskKey {
    if let Some(Constant::Aggregate(lanes)) = func.dfg.constant(mask) {
        let bits: Option<Vec<u128>> =
            lanes.iter().map(|lane| func.dfg.int_constant(*lane)).collect();
        if let Some(bits) = bits {
            return MaskKey::Lanes(bits);
        }
    }
    MaskKey::Value(mask)
}

/// `addrs` as a root vector of pointers and a constant byte offset: GEPs
/// whose indices are all constants are stripped (`gep i8, <W x ptr> p, 4`
/// is `p` and 4).
fn root_and_offset(func: &Function, data_layout: &DataLayout, addrs: Value) -> (Value, i64) {
    let mut current = addrs;
    let mut offset: i64 = 0;
    while let Some(inst) = func.dfg.defining_inst(current) {
        let InstData::Gep { source_ty, base, indices, .. } = func.dfg.inst(inst) else { break };
        if indices.len() != 1 || !func.dfg.value_type(*base).is_vector() {
            break;
        }
        let Some(index) = func.dfg.signed_int_constant(indices[0]) else { break };
        let size = i128::from(data_layout.alloc_size(source_ty));
        let Some(step) = i64::try_from(index * size).ok().and_then(|step| offset.checked_add(step))
        else {
            break;
        };
        offset = step;
        current = *base;
    }
    (current, offset)
}

/// Rewrites `pair` into one gather of 64-bit elements at the earlier of
/// the two places; each gather's result becomes its half of it.
fn fuse(func: &mut Function, pair: &Pair) {
    let (low, high) = (pair.low, pair.high);
    let earlier = if low.position < high.position { low.inst } else { high.inst };
    let InstData::Gather { ty: low_ty, mask, align, .. } = func.dfg.inst(low.inst).clone() else {
        unreachable!("a candidate is a gather")
    };
    let InstData::Gather { ty: high_ty, .. } = func.dfg.inst(high.inst).clone() else {
        unreachable!("a candidate is a gather")
    };
    let lanes = low_ty.lanes().expect("a vector gather");
    let wide_ty = Type::I64.vector_of(lanes);
    let half_ty = Type::I32.vector_of(lanes);
    let addrs_ty = func.dfg.value_type(low.root).clone();
    let insert_before = |func: &mut Function, data: InstData, ty: Type, before: Inst| {
        let inst = func.dfg.make_inst(data, ty);
        func.layout.insert_inst_before(inst, before);
        func.dfg.result(inst).expect("a value")
    };
    let addrs = if low.offset == 0 {
        low.root
    } else {
        let offset = func.dfg.int_const(Type::I64, low.offset as u128);
        let gep = InstData::Gep {
            source_ty: Type::I8,
            base: low.root,
            indices: vec![offset],
            inbounds: false,
        };
        insert_before(func, gep, addrs_ty, earlier)
    };
    let passthru = func.dfg.make_const(wide_ty.clone(), Constant::Poison);
    let both = insert_before(
        func,
        InstData::Gather { ty: wide_ty.clone(), addrs, mask, passthru, align },
        wide_ty.clone(),
        earlier,
    );
    let thirty_two: Vec<Value> = (0..lanes).map(|_| func.dfg.int_const(Type::I64, 32)).collect();
    let thirty_two = func.dfg.make_const(wide_ty.clone(), Constant::Aggregate(thirty_two));
    let shifted = insert_before(
        func,
        InstData::Binary {
            op: BinaryOp::LShr,
            lhs: both,
            rhs: thirty_two,
            flags: Default::default(),
        },
        wide_ty,
        high.inst,
    );
    for (gather, ty, wide) in [(low.inst, low_ty, both), (high.inst, high_ty, shifted)] {
        let truncate = |arg: Value| InstData::Cast {
            op: CastOp::Trunc,
            arg,
            to: half_ty.clone(),
            flags: Default::default(),
        };
        *func.dfg.inst_mut(gather) = if ty == half_ty {
            truncate(wide)
        } else {
            let half = insert_before(func, truncate(wide), half_ty.clone(), gather);
            InstData::Cast { op: CastOp::Bitcast, arg: half, to: ty, flags: Default::default() }
        };
    }
}
