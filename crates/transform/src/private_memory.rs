//! Interleaved layout of private arrays: lane-major cells instead of one copy
//! per lane.
//!
//! Every instance of a scalar function has its own stack memory, so widening
//! gives each lane a private copy of every alloca: lane `l`'s copy of a
//! `[257 x float]` starts at `base + l * 1028`. An access `values[j]` with a
//! uniform `j` then touches W addresses 1028 bytes apart, a gather (or W
//! guarded scalar stores) where the data could have been one vector.
//!
//! This pass changes the layout of the allocas it can prove are only read and
//! written cell by cell, in the spirit of the data layout transformation of
//! Pérard-Gayot et al. (WPMVP'18, Alg. 1/2: accept a private aggregate whose
//! users are only loads, stores and address arithmetic, then give each part
//! the shape it deserves). Where WPMVP'18 splits a struct into one alloca per
//! member, we interleave at the granularity of the accessed cells, which also
//! covers clang's byte-offset GEPs (LLVM 22 canonicalizes struct member GEPs to
//! `getelementptr i8`): if every load and store through the alloca touches `s`
//! bytes at an offset that is a multiple of `s`, cell `c` of lane `l` moves to
//! byte `c * s * W + l * s` of one alloca shared by all lanes. In the scalar
//! function this reads:
//!
//! ```text
//! shared = alloca [W * size x i8]            ; one copy for all lanes
//! lane   = shared + rv_lane_id() * s         ; Strided(s): contiguous cells
//! p      = lane + offset * W                 ; every GEP offset scaled by W
//! ```
//!
//! With `rv_lane_id() == 0` this is the original function on a W-times larger
//! buffer, so the rewrite keeps scalar semantics; in the vector function a
//! uniform offset gives a contiguous (maskable) vector access instead of a
//! gather or scatter, and varying offsets of nearby cells (a tree walk's stack
//! pointer) touch nearby cache lines.
//!
//! Accepted users (transitively from the alloca): GEPs (any indices whose byte
//! offsets are multiples of `s`), loads and stores of a scalar `s`-byte type
//! through the pointer (not storing the pointer itself), phis and selects
//! whose pointer operands all come from the same alloca, and lifetime markers.
//! Anything else (calls, memcpy/memset, pointer comparisons, `ptrtoint`,
//! returning or storing the pointer) keeps the alloca as it is. The shared
//! allocas are listed in [`Function::shared_allocas`], which the shape
//! analysis reads to give them a uniform address.
//!
//! *Wide cells.* x86 gathers and scatters move 32- and 64-bit elements
//! only: a byte or 16-bit access with a varying offset (a per-lane stack of
//! `bool` flags) became W guarded scalar accesses, and a per-lane tree walk
//! with such a stack ran at 0.62x of scalar, 1.09x with `int` flags. So an
//! array whose cells are `i8` or `i16`, accessed at an offset that varies
//! (`index_varies`, from the divergence analysis), gets 4-byte cells: cell
//! `c` of lane `l` at byte `(c * W + l) * 4`, each store writing its value
//! zero-extended to `i32`, each load reading the `i32` and truncating it.
//! Arrays accessed at uniform offsets keep their cells (one contiguous
//! vector access either way), and so do those whose wide copy would pass
//! [`MAX_WIDE_CELL_BYTES`].

use std::collections::{HashMap, HashSet};

use lanewise_ir::{
    ArithFlags, BinaryOp, CallEffects, Callee, CastFlags, CastOp, DataLayout, FastMathFlags,
    Function, Inst, InstData, Type, Value,
};

/// What [`interleave_private_arrays`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InterleaveReport {
    /// Allocas given the interleaved layout.
    pub interleaved: usize,
    /// Of those, the ones given 4-byte cells for their 1- or 2-byte values.
    pub wide_cells: usize,
}

/// The largest interleaved copy (all lanes) that wide cells may make.
pub const MAX_WIDE_CELL_BYTES: u64 = 64 * 1024;

/// The cell size of wide cells.
const WIDE_CELL_BYTES: u64 = 4;

/// Gives every alloca of `func` that is only accessed in `s`-byte cells the
/// interleaved layout for `width` lanes, with wide cells where a 1- or
/// 2-byte cell is accessed at an offset that `index_varies` says varies
/// (see the module docs).
pub fn interleave_private_arrays(
    func: &mut Function,
    width: u32,
    data_layout: &DataLayout,
    index_varies: &dyn Fn(Value) -> bool,
) -> InterleaveReport {
    let mut report = InterleaveReport::default();
    if width <= 1 {
        return report;
    }
    // Only entry-block allocas: one elsewhere allocates anew on every
    // execution, which a single shared buffer would not model.
    let Some(entry) = func.entry_block() else { return report };
    let allocas: Vec<Inst> = func
        .layout
        .block_insts(entry)
        .iter()
        .copied()
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Alloca { .. }))
        .filter(|inst| !func.shared_allocas.contains(inst))
        .collect();
    for alloca in allocas {
        let users = user_map(func);
        if let Some(mut plan) = plan_interleaving(func, alloca, &users, data_layout) {
            if wide_cells_pay(func, alloca, &plan, width, data_layout, index_varies) {
                plan.cell_stride = WIDE_CELL_BYTES;
                report.wide_cells += 1;
            }
            rewrite(func, alloca, &plan, width, data_layout);
            report.interleaved += 1;
        }
    }
    report
}

/// The pointers derived from one alloca and the cell size of its accesses.
struct InterleavePlan {
    cell_bytes: u64,
    /// The bytes between a lane's cell and the next lane's: `cell_bytes`,
    /// or [`WIDE_CELL_BYTES`] for wide cells.
    cell_stride: u64,
    /// GEPs whose offsets get scaled, in layout order.
    geps: Vec<Inst>,
    /// Loads and stores through derived pointers.
    accesses: Vec<Inst>,
    /// Lifetime markers of the alloca.
    lifetime_markers: Vec<Inst>,
}

fn user_map(func: &Function) -> HashMap<Value, Vec<Inst>> {
    let mut users: HashMap<Value, Vec<Inst>> = HashMap::new();
    for inst in func.layout.insts() {
        func.dfg
            .inst(inst)
            .for_each_operand(|operand| users.entry(operand).or_default().push(inst));
    }
    users
}

/// Checks that `alloca` is only used cell by cell (the accepted users of the
/// module docs) and collects what the rewrite changes; `None` if not.
fn plan_interleaving(
    func: &Function,
    alloca: Inst,
    users: &HashMap<Value, Vec<Inst>>,
    data_layout: &DataLayout,
) -> Option<InterleavePlan> {
    let InstData::Alloca { ty, count, .. } = func.dfg.inst(alloca) else { return None };
    let count = func.dfg.int_constant(*count)?;
    let alloca_bytes = u128::from(data_layout.alloc_size(ty)).checked_mul(count)?;
    let root = func.dfg.result(alloca)?;

    let mut derived: HashSet<Value> = HashSet::from([root]);
    let mut worklist = vec![root];
    let mut plan = InterleavePlan {
        cell_bytes: 0,
        cell_stride: 0,
        geps: Vec::new(),
        accesses: Vec::new(),
        lifetime_markers: Vec::new(),
    };
    // Phis, selects and comparisons of derived pointers: fine only if every
    // pointer operand comes from this alloca.
    let mut merges = Vec::new();
    let mut cell_sizes = HashSet::new();
    let mut visited_users = HashSet::new();
    while let Some(pointer) = worklist.pop() {
        for &user in users.get(&pointer).map(Vec::as_slice).unwrap_or_default() {
            if !visited_users.insert((pointer, user)) {
                continue;
            }
            match func.dfg.inst(user) {
                InstData::Gep { base, indices, .. } if *base == pointer => {
                    if indices.contains(&pointer) || func.dfg.value_type(pointer).is_vector() {
                        return None;
                    }
                    plan.geps.push(user);
                    let result = func.dfg.result(user)?;
                    if !func.dfg.value_type(result).is_ptr() {
                        return None;
                    }
                    if derived.insert(result) {
                        worklist.push(result);
                    }
                }
                InstData::Load { ty, addr, volatile: false, .. } if *addr == pointer => {
                    if !ty.is_scalar() {
                        return None;
                    }
                    cell_sizes.insert(data_layout.store_size(ty));
                    plan.accesses.push(user);
                }
                InstData::Store { value, addr, volatile: false, .. }
                    if *addr == pointer && *value != pointer =>
                {
                    let ty = func.dfg.value_type(*value);
                    if !ty.is_scalar() {
                        return None;
                    }
                    cell_sizes.insert(data_layout.store_size(ty));
                    plan.accesses.push(user);
                }
                InstData::Phi { .. } | InstData::Select { .. } => {
                    let result = func.dfg.result(user)?;
                    if let InstData::Select { cond, .. } = func.dfg.inst(user) {
                        if *cond == pointer {
                            return None;
                        }
                    }
                    merges.push(user);
                    if derived.insert(result) {
                        worklist.push(result);
                    }
                }
                InstData::Icmp { .. } => merges.push(user),
                InstData::Call { callee: Callee::Direct(name), args, .. }
                    if name.starts_with("llvm.lifetime.") && pointer == root =>
                {
                    if args.iter().filter(|arg| **arg == root).count() != 1 {
                        return None;
                    }
                    plan.lifetime_markers.push(user);
                }
                _ => return None,
            }
        }
    }
    // Scaling every offset by W keeps the order of two pointers into the same
    // lane's cells, so comparisons between them keep their result; a pointer
    // from elsewhere would not move with them.
    for merge in merges {
        let merged: Vec<Value> = match func.dfg.inst(merge) {
            InstData::Phi { incoming, .. } => incoming.iter().map(|(_, value)| *value).collect(),
            InstData::Select { if_true, if_false, .. } => vec![*if_true, *if_false],
            InstData::Icmp { lhs, rhs, .. } => vec![*lhs, *rhs],
            _ => unreachable!("merges holds phis, selects and comparisons"),
        };
        if !merged.iter().all(|value| derived.contains(value)) {
            return None;
        }
    }
    if cell_sizes.len() != 1 {
        return None;
    }
    plan.cell_bytes = cell_sizes.into_iter().next()?;
    plan.cell_stride = plan.cell_bytes;
    if plan.cell_bytes == 0 || alloca_bytes % u128::from(plan.cell_bytes) != 0 {
        return None;
    }
    for &gep in &plan.geps {
        if !gep_offsets_are_cell_multiples(func, gep, plan.cell_bytes, data_layout) {
            return None;
        }
    }
    Some(plan)
}

/// Whether `alloca` (planned as `plan`) should get wide cells: its values
/// are `i8` or `i16`, some GEP offset into it varies, and its wide copy for
/// `width` lanes stays within [`MAX_WIDE_CELL_BYTES`].
fn wide_cells_pay(
    func: &Function,
    alloca: Inst,
    plan: &InterleavePlan,
    width: u32,
    data_layout: &DataLayout,
    index_varies: &dyn Fn(Value) -> bool,
) -> bool {
    if plan.cell_bytes >= WIDE_CELL_BYTES {
        return false;
    }
    let InstData::Alloca { ty, count, .. } = func.dfg.inst(alloca) else { return false };
    let Some(count) = func.dfg.int_constant(*count) else { return false };
    let cells = u128::from(data_layout.alloc_size(ty)) * count / u128::from(plan.cell_bytes);
    let wide_bytes = cells * u128::from(WIDE_CELL_BYTES) * u128::from(width);
    let cell_bits = plan.cell_bytes * 8;
    let integer_cells = plan.accesses.iter().all(|&access| {
        let ty = match func.dfg.inst(access) {
            InstData::Load { ty, .. } => ty,
            InstData::Store { value, .. } => func.dfg.value_type(*value),
            _ => return false,
        };
        ty.int_bits() == Some(cell_bits as u32)
    });
    let varying_offset = plan.geps.iter().any(|&gep| {
        gep_offset_terms(func, gep, data_layout).is_some_and(|terms| {
            terms.iter().any(|term| match term {
                OffsetTerm::Scaled { index, .. } => index_varies(*index),
                OffsetTerm::Constant(_) => false,
            })
        })
    });
    integer_cells && varying_offset && wide_bytes <= u128::from(MAX_WIDE_CELL_BYTES)
}

/// One term of a GEP's byte offset: `index * scale` (or a constant).
pub(crate) enum OffsetTerm {
    Constant(i128),
    Scaled { index: Value, scale: u64 },
}

/// The byte offset of a GEP as a sum of terms; `None` for shapes we do not
/// follow (vector GEPs, non-constant struct indices).
pub(crate) fn gep_offset_terms(
    func: &Function,
    gep: Inst,
    data_layout: &DataLayout,
) -> Option<Vec<OffsetTerm>> {
    let InstData::Gep { source_ty, indices, .. } = func.dfg.inst(gep) else { return None };
    let mut terms = Vec::new();
    let mut indexed_ty: Option<&Type> = None;
    for index in indices {
        if !func.dfg.value_type(*index).is_int() {
            return None;
        }
        let element_size = match indexed_ty {
            None => {
                indexed_ty = Some(source_ty);
                data_layout.alloc_size(source_ty)
            }
            Some(Type::Struct { fields, packed }) => {
                let field = func.dfg.int_constant(*index)? as usize;
                let field_ty = fields.get(field)?;
                let offset = data_layout.field_offset(fields, *packed, field);
                terms.push(OffsetTerm::Constant(i128::from(offset)));
                indexed_ty = Some(field_ty);
                continue;
            }
            Some(Type::Array { elem, .. }) => {
                indexed_ty = Some(elem);
                data_layout.alloc_size(elem)
            }
            Some(_) => return None,
        };
        match func.dfg.signed_int_constant(*index) {
            Some(constant) => {
                terms.push(OffsetTerm::Constant(constant.checked_mul(i128::from(element_size))?))
            }
            None => terms.push(OffsetTerm::Scaled { index: *index, scale: element_size }),
        }
    }
    Some(terms)
}

fn gep_offsets_are_cell_multiples(
    func: &Function,
    gep: Inst,
    cell_bytes: u64,
    data_layout: &DataLayout,
) -> bool {
    let Some(terms) = gep_offset_terms(func, gep, data_layout) else { return false };
    terms.iter().all(|term| match term {
        OffsetTerm::Constant(bytes) => bytes % i128::from(cell_bytes) == 0,
        OffsetTerm::Scaled { scale, .. } => scale % cell_bytes == 0,
    })
}

fn rewrite(
    func: &mut Function,
    alloca: Inst,
    plan: &InterleavePlan,
    width: u32,
    data_layout: &DataLayout,
) {
    let InstData::Alloca { ty, count, align } = func.dfg.inst(alloca).clone() else {
        unreachable!("plan_interleaving accepted an alloca")
    };
    let old_root = func.dfg.result(alloca).expect("an alloca has a result");
    let count = func.dfg.int_constant(count).expect("plan_interleaving checked the count");
    let bytes = u64::try_from(u128::from(data_layout.alloc_size(&ty)) * count)
        .expect("alloca size fits u64");
    let cell = plan.cell_stride;
    // Offsets in the old layout count `cell_bytes` per cell.
    let widening = plan.cell_stride / plan.cell_bytes;
    let width_u64 = u64::from(width);

    // The shared alloca: W interleaved copies, aligned for a whole vector of
    // cells (capped at 64 bytes, a cache line).
    let old_align = if align == 0 { data_layout.abi_align(&ty) } else { u64::from(align) };
    let vector_align = (cell * width_u64).next_power_of_two().min(64);
    let shared_align = old_align.max(vector_align) as u32;
    let one = func.dfg.int_const(Type::I32, 1);
    let shared_ty = Type::Array { elem: Box::new(Type::I8), len: bytes * widening * width_u64 };
    let shared_inst = func
        .dfg
        .make_inst(InstData::Alloca { ty: shared_ty, count: one, align: shared_align }, Type::PTR);
    func.layout.insert_inst_before(shared_inst, alloca);
    let shared = func.dfg.result(shared_inst).expect("an alloca has a result");
    func.shared_allocas.insert(shared_inst);

    // lane = shared + rv_lane_id() * cell
    let lane_id = insert_before(
        func,
        alloca,
        InstData::Call {
            callee: Callee::Direct("rv_lane_id".into()),
            args: vec![],
            ret_ty: Type::I64,
            effects: CallEffects::Pure,
            flags: FastMathFlags::default(),
        },
        Type::I64,
    );
    let cell_value = func.dfg.int_const(Type::I64, u128::from(cell));
    let lane_offset = insert_before(
        func,
        alloca,
        InstData::Binary {
            op: BinaryOp::Mul,
            lhs: lane_id,
            rhs: cell_value,
            flags: ArithFlags { nuw: true, nsw: true, ..ArithFlags::default() },
        },
        Type::I64,
    );
    let lane_base = insert_before(
        func,
        alloca,
        InstData::Gep {
            source_ty: Type::I8,
            base: shared,
            indices: vec![lane_offset],
            inbounds: true,
        },
        Type::PTR,
    );

    // Every GEP rooted at the alloca steps W times as far.
    for &gep in &plan.geps {
        let terms = gep_offset_terms(func, gep, data_layout).expect("checked by the plan");
        let scaled = scaled_offset(func, gep, &terms, width_u64 * widening);
        let InstData::Gep { base, inbounds, .. } = func.dfg.inst(gep).clone() else {
            unreachable!("plan.geps holds GEPs")
        };
        *func.dfg.inst_mut(gep) =
            InstData::Gep { source_ty: Type::I8, base, indices: vec![scaled], inbounds };
    }
    // Lane cells are only `cell` bytes apart: no access may claim more.
    for &access in &plan.accesses {
        match func.dfg.inst_mut(access) {
            InstData::Load { align, .. } | InstData::Store { align, .. } => {
                *align = (*align).min(cell as u32).max(1);
            }
            _ => unreachable!("plan.accesses holds loads and stores"),
        }
        if widening > 1 {
            widen_cell_access(func, access);
        }
    }
    // Lifetime markers name the shared alloca; everything else sees the lane.
    for &marker in &plan.lifetime_markers {
        func.dfg
            .inst_mut(marker)
            .map_operands(|value| if value == old_root { shared } else { value });
    }
    let markers: HashSet<Inst> = plan.lifetime_markers.iter().copied().collect();
    let all: Vec<Inst> = func.layout.insts().collect();
    for inst in all {
        if inst == alloca || markers.contains(&inst) {
            continue;
        }
        func.dfg
            .inst_mut(inst)
            .map_operands(|value| if value == old_root { lane_base } else { value });
    }
    func.layout.remove_inst(alloca);
}

/// A load or store of a narrow integer cell made one of its whole wide
/// cell: the store writes the value zero-extended, the load reads the cell
/// and the old load becomes the truncation (its result stays the value).
fn widen_cell_access(func: &mut Function, access: Inst) {
    let wide = Type::Int(WIDE_CELL_BYTES as u32 * 8);
    match func.dfg.inst(access).clone() {
        InstData::Load { ty, addr, volatile, .. } => {
            let load =
                InstData::Load { ty: wide.clone(), addr, align: WIDE_CELL_BYTES as u32, volatile };
            let whole = insert_before(func, access, load, wide);
            *func.dfg.inst_mut(access) = InstData::Cast {
                op: CastOp::Trunc,
                arg: whole,
                to: ty,
                flags: CastFlags::default(),
            };
        }
        InstData::Store { value, .. } => {
            let zext = InstData::Cast {
                op: CastOp::ZExt,
                arg: value,
                to: wide.clone(),
                flags: CastFlags::default(),
            };
            let extended = insert_before(func, access, zext, wide);
            if let InstData::Store { value, align, .. } = func.dfg.inst_mut(access) {
                *value = extended;
                *align = WIDE_CELL_BYTES as u32;
            }
        }
        _ => unreachable!("plan.accesses holds loads and stores"),
    }
}

/// `(sum of terms) * width` as an `i64`, computed right before `gep`.
fn scaled_offset(func: &mut Function, gep: Inst, terms: &[OffsetTerm], width: u64) -> Value {
    let mut constant: i128 = 0;
    let mut scaled = Vec::new();
    for term in terms {
        match term {
            OffsetTerm::Constant(bytes) => constant += bytes * i128::from(width),
            OffsetTerm::Scaled { index, scale } => scaled.push((*index, scale * width)),
        }
    }
    byte_offset_before(func, gep, constant, &scaled)
}

/// `constant + sum(index * scale)` as an `i64` (indices sign-extended or
/// truncated to 64 bits), computed right before `before`. Used for byte
/// offsets here and for element indices by [`crate::struct_split`].
pub(crate) fn byte_offset_before(
    func: &mut Function,
    before: Inst,
    constant: i128,
    scaled: &[(Value, u64)],
) -> Value {
    let flags = ArithFlags { nsw: true, ..ArithFlags::default() };
    let mut sum: Option<Value> = None;
    for &(index, scale) in scaled {
        let cast = match func.dfg.value_type(index).int_bits() {
            Some(64) => None,
            Some(bits) if bits < 64 => Some(CastOp::SExt),
            _ => Some(CastOp::Trunc),
        };
        let wide = match cast {
            None => index,
            Some(op) => insert_before(
                func,
                before,
                InstData::Cast { op, arg: index, to: Type::I64, flags: CastFlags::default() },
                Type::I64,
            ),
        };
        let factor = func.dfg.int_const(Type::I64, u128::from(scale));
        let product = insert_before(
            func,
            before,
            InstData::Binary { op: BinaryOp::Mul, lhs: wide, rhs: factor, flags },
            Type::I64,
        );
        sum = Some(match sum {
            None => product,
            Some(previous) => insert_before(
                func,
                before,
                InstData::Binary { op: BinaryOp::Add, lhs: previous, rhs: product, flags },
                Type::I64,
            ),
        });
    }
    let constant_value = func.dfg.int_const(Type::I64, constant as u128);
    match sum {
        None => constant_value,
        Some(sum) if constant == 0 => sum,
        Some(sum) => insert_before(
            func,
            before,
            InstData::Binary { op: BinaryOp::Add, lhs: sum, rhs: constant_value, flags },
            Type::I64,
        ),
    }
}

pub(crate) fn insert_before(func: &mut Function, before: Inst, data: InstData, ty: Type) -> Value {
    let inst = func.dfg.make_inst(data, ty);
    func.layout.insert_inst_before(inst, before);
    func.dfg.result(inst).expect("the instruction has a result")
}

#[cfg(test)]
mod tests;
