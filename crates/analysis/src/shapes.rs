//! Vector shape analysis (Karrenberg 2014, section 2.4 and chapter 5,
//! "Vectorization Analysis"; transfer functions in 5.6.2-5.6.12).
//!
//! For every SSA value of a scalar function this computes how the value
//! varies across the W lanes of the vectorized function:
//!
//! ```text
//!              Varying
//!            /    |     \
//!    Uniform  Strided(k) Strided(k') ...
//!            \    |     /
//!              Undef
//! ```
//!
//! plus the alignment of the lane-0 value (bytes for pointers, the largest
//! known power of two dividing it for integers). `Strided(1)` is the thesis'
//! *consecutive*; other strides are the *strided* extension the thesis
//! suggests in 5.6.9. The thesis' *aligned* is `align` here, tracked as a
//! number instead of "multiple of S".
//!
//! # Semantics of `Strided(k)`
//!
//! For an integer of `n` bits, `Strided(k)` claims that lane i holds
//! `lane0 + i*k` **modulo 2^n**, with `k` kept as the signed `n`-bit
//! residue. Modular arithmetic makes `add`, `sub`, `mul`, `shl` and `trunc`
//! exact ring homomorphisms, so their rules need no assumption at all. For
//! pointers the same holds modulo the pointer width (`k` in bytes).
//!
//! # The fixed point
//!
//! An optimistic worklist iteration over SSA: parameters and constants are
//! seeded, every instruction starts at `Undef`, an instruction whose
//! (non-phi) operand is still `Undef` stays `Undef` until that operand is
//! known, and a phi joins the incoming values that are known. A value's new
//! shape is always joined with its old one, so every value moves up the
//! lattice at most twice and the iteration terminates. Loop phis such as
//! `i = phi [0, entry], [i + 1, latch]` with a uniform bound come out uniform.
//!
//! This plain SSA fixed point is exact only because this milestone vectorizes
//! functions with **uniform control flow** (see [`crate::uniformity`]): a phi
//! then joins values chosen by a decision that is the same in every lane. The
//! next milestone adds *sync dependence* (Moll & Hack PLDI'18; thesis 5.6.5
//! "blend" phis and 5.6.12 divergent loops): a phi at the join point of a
//! divergent branch, or a value leaving a divergent loop, becomes varying
//! although its incoming values are uniform.
//!
//! # Transfer rules (and the assumptions they make)
//!
//! - Parameters (from [`ParamSpec`]): `v` → Varying, `u` → Uniform,
//!   `l<k>` → `Strided(k)` (bytes for pointers, as in the VFABI), `ls<p>` →
//!   Varying for now (a stride held in a parameter is not a constant; widening
//!   treats the parameter as a vector), `a<n>` → alignment `n`.
//! - Constants and global symbols: Uniform. An integer constant's alignment is
//!   the largest power of two dividing it, zero and `null` get
//!   [`MAX_TRACKED_ALIGN`]; symbols get 1 (we do not see the global's
//!   alignment here).
//! - `add`, `or disjoint`: (u, u) → u; (u, k) → k; (k1, k2) → k1 + k2
//!   (uniform if that is 0). `sub`: the same with k1 − k2, and (u, k) → −k.
//! - `mul` and `shl` by a uniform **constant** c: stride × c (resp. × 2^c).
//!   A multiplication of a strided value by a uniform value that is not a
//!   constant is Varying: its stride is not a compile-time number.
//! - Every other binary operation: uniform iff both operands are uniform.
//! - `getelementptr`: the base's shape plus, for every index, its shape times
//!   the bytes that index steps over ([`DataLayout::alloc_size`] of the
//!   indexed type; struct fields are constant indices and add
//!   [`DataLayout::field_offset`]). `gep float, ptr %p, i64 %i` with `%p`
//!   uniform and `%i` `Strided(1)` is `Strided(4)`.
//! - Casts: `trunc` keeps the stride reduced modulo the narrower width (exact;
//!   a stride that becomes 0 there makes the value uniform). `sext`/`zext` keep
//!   the stride **assuming the lane values do not wrap** in the source type
//!   within one group of W lanes — the promise of OpenMP's `linear` clause
//!   and the assumption clang's and GCC's SIMD clones make. Because that
//!   assumption is realistic only for wide types, an extension from a type
//!   narrower than 32 bits makes a strided value Varying. A plain `zext`
//!   of a strided value is Varying too: "no wrap" of a signed `linear`
//!   value does not cover the unsigned wrap at zero (lanes -2, 1, 4, 7
//!   extend to 2^32 - 2, 1, 4, 7). `zext nneg` keeps the stride: the lanes
//!   whose result means anything hold non-negative values, for which it is
//!   `sext` (widening computes the lane-0 value accordingly, since lane 0
//!   itself may be an inactive, negative lane). A GEP index
//!   narrower than the pointer is sign-extended by the GEP and follows the same
//!   rule. `ptrtoint`, `inttoptr` and `bitcast` keep shapes (as truncations or
//!   extensions when the widths differ). Int↔float conversions, `fptrunc`,
//!   `fpext` and `addrspacecast` of a non-uniform value are Varying.
//! - `icmp`: uniform iff both operands are uniform, and also for `eq`/`ne` of
//!   two values with the *same* stride (`a + i*k == b + i*k` iff `a == b`,
//!   exact in modular arithmetic). Orderings of equal-stride values would
//!   additionally need "no wrap within the group", which we cannot prove
//!   without value ranges, so they are Varying. `fcmp`: uniform iff both
//!   operands are uniform.
//! - `select`: uniform iff all operands are uniform; with a uniform condition
//!   and two arms of the same stride k it is `Strided(k)` (every lane takes the
//!   same arm).
//! - `phi`: the join of the incoming values (equal strides stay strided).
//! - `load`: a non-volatile load from a uniform address is uniform (all lanes
//!   read the same memory state); anything else is Varying. Loaded values are
//!   never strided (we do not reason about memory contents, thesis 5.6.6).
//! - `call`: uniform iff the callee is direct, its effects are not
//!   [`CallEffects::SideEffects`] and all arguments are uniform; Varying
//!   otherwise. The SPMD builtins are known: `rv_lane_id()` is `Strided(1)`
//!   starting at 0; `rv_num_lanes()`, `rv_any`, `rv_all`, `rv_ballot`,
//!   `rv_popcount` and `rv_extract` are uniform (they combine all lanes);
//!   `rv_mask`, `rv_insert`, `rv_shuffle`, `rv_compact`, `rv_index` and
//!   `rv_load` are Varying (`rv_store` has no result).
//! - `alloca ty, count`: `Strided(stride)` with the alloca's alignment, where
//!   `stride` is `alloc_size(ty) * count` rounded up to the alignment
//!   ([`alloca_lane_stride`]): widening gives every lane its own copy, lane
//!   i's copy at `base + i * stride`, so every copy is as aligned as the
//!   scalar alloca (the scalar code's `align` on accesses stays true in every
//!   lane). A non-constant count is a [`ShapeError::AllocaVariableCount`].
//! - `extractvalue`, `insertvalue`, `extractelement`, `insertelement`,
//!   `shufflevector`, `splat`, `fneg`: uniform iff all operands are uniform.
//!   `freeze` keeps its operand's shape (a frozen poison lane may take any
//!   value; `lane0 + i*k` is one of them).
//! - Anything else (masked and gather/scatter operations, which only widening
//!   creates) is Varying.
//!
//! Only integer and pointer values can be `Strided`; a rule that would give a
//! float or vector value a stride gives Varying instead.
//!
//! # Alignment
//!
//! `align` is a divisibility fact about the lane-0 value. Because every
//! operation is lane-wise, it is an ordinary scalar analysis: sums, phis and
//! selects take the minimum (the gcd of powers of two), products multiply,
//! `shl c` multiplies by 2^c, `and` takes the maximum, a GEP takes the minimum
//! of its base and of every offset term, casts between integers and pointers
//! keep it, loads give 1 (the `align` of a load instruction is about its
//! address, not its value). [`ShapeInfo::all_lanes_align`] derives the
//! alignment that holds in every lane.
//!
//! Nothing is updated incrementally: recompute after changing the function.

use std::collections::VecDeque;
use std::fmt;

use lanewise_ir::vfabi::{ParamKind, ParamSpec};
use lanewise_ir::{
    BinaryOp, CallEffects, Callee, CastFlags, CastOp, Constant, DataLayout, Function, InstData,
    IntPredicate, SecondaryMap, Type, Value, ValueDef,
};

/// The distance in bytes between the lanes' copies of a private (alloca)
/// object of `count` elements of `element_bytes` with alignment `align`: the
/// object's size rounded up to its alignment, so every copy keeps it.
pub fn alloca_lane_stride(element_bytes: u64, count: u128, align: u64) -> i128 {
    let bytes = i128::from(element_bytes).wrapping_mul(count as i128);
    let align = i128::from(align.max(1));
    (bytes + align - 1) / align * align
}

/// How a value varies across the W lanes of the vectorized function.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Shape {
    /// Not yet known (bottom of the lattice during the fixed point; never a
    /// final answer for a value that is used).
    #[default]
    Undef,
    /// The same value in every lane.
    Uniform,
    /// Lane i holds `lane0 + i * stride` (`stride != 0`; in bytes for
    /// pointers, in units of the integer for integers).
    Strided(i64),
    /// Anything else.
    Varying,
}

/// A shape plus what is known of the alignment of the lane-0 value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct ValueShape {
    pub shape: Shape,
    /// The lane-0 value is a multiple of this (bytes for pointers); 1 if unknown.
    pub align: u64,
}

impl Default for ValueShape {
    fn default() -> Self {
        ValueShape { shape: Shape::Undef, align: 1 }
    }
}

/// Shapes of all values of one function.
#[derive(Clone, Debug, Default)]
pub struct ShapeInfo {
    pub shapes: SecondaryMap<Value, ValueShape>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    #[error("function `{function}` has {actual} parameters but the shapes name {expected}")]
    ParamCount { function: String, expected: usize, actual: usize },
    /// A `linear` parameter whose type is neither an integer nor a pointer.
    #[error(
        "function `{function}`: parameter {index} has type `{ty}`, but only integer and \
         pointer parameters can be linear"
    )]
    LinearParamType { function: String, index: usize, ty: String },
    /// An alloca whose element count is not a constant: the per-lane copies
    /// would have no fixed stride.
    #[error(
        "function `{function}`: block `{block}`: `{alloca}` is an alloca with a non-constant \
         element count (`{count}`); only constant-size allocas can be given one copy per lane"
    )]
    AllocaVariableCount { function: String, block: String, alloca: String, count: String },
}

/// The shape fixed point as a reusable, incremental solver, for analyses
/// that know facts the plain SSA fixed point cannot see. The divergence
/// analysis ([`crate::divergence`]) forces phis at the join points of
/// divergent branches and values leaving divergent loops to Varying, then
/// lets the solver propagate that to their users. [`ShapeInfo::compute`] is
/// `new` + `solve` + `into_info`.
///
/// Forcing is monotone: a value's shape only ever moves up the lattice (the
/// solver joins every recomputed shape with the old one), so a forced
/// Varying sticks and repeated rounds terminate.
pub struct ShapeSolver<'a> {
    analysis: ShapeAnalysis<'a>,
    state: SolverState,
}

/// The worklist state kept between rounds of [`ShapeSolver::solve`].
struct SolverState {
    users: SecondaryMap<Value, Vec<lanewise_ir::Inst>>,
    reachable: SecondaryMap<lanewise_ir::Block, bool>,
    worklist: VecDeque<lanewise_ir::Inst>,
    queued: SecondaryMap<lanewise_ir::Inst, bool>,
}

impl<'a> ShapeSolver<'a> {
    /// Seeds parameters and constants and queues every instruction; the
    /// errors are those of [`ShapeInfo::compute`].
    pub fn new(
        func: &'a Function,
        data_layout: &'a DataLayout,
        params: &[ParamSpec],
    ) -> Result<Self, ShapeError> {
        let mut analysis = ShapeAnalysis { func, data_layout, shapes: SecondaryMap::new() };
        analysis.seed_params(params)?;
        analysis.seed_constants();
        analysis.check_allocas()?;
        let mut users: SecondaryMap<Value, Vec<lanewise_ir::Inst>> = SecondaryMap::new();
        for inst in func.layout.insts() {
            func.dfg.inst(inst).for_each_operand(|operand| users[operand].push(inst));
        }
        let worklist: VecDeque<lanewise_ir::Inst> = func.layout.insts().collect();
        let mut queued: SecondaryMap<lanewise_ir::Inst, bool> = SecondaryMap::new();
        worklist.iter().for_each(|inst| queued[*inst] = true);
        let reachable = crate::reachable_blocks(func);
        Ok(ShapeSolver { analysis, state: SolverState { users, reachable, worklist, queued } })
    }

    /// Runs the fixed point until nothing changes.
    pub fn solve(&mut self) {
        self.analysis.solve(&mut self.state);
    }

    /// Makes `value` Varying (keeping its alignment) and queues its users
    /// for the next [`ShapeSolver::solve`]. Returns whether the shape changed.
    pub fn force_varying(&mut self, value: Value) -> bool {
        let old = self.analysis.shapes[value];
        if old.shape == Shape::Varying {
            return false;
        }
        self.analysis.shapes[value] = ValueShape::varying_with_align(old.align);
        let SolverState { users, worklist, queued, .. } = &mut self.state;
        for user in &users[value] {
            if !queued[*user] {
                queued[*user] = true;
                worklist.push_back(*user);
            }
        }
        true
    }

    /// The current shape of `value`.
    pub fn shape(&self, value: Value) -> ValueShape {
        self.analysis.shapes[value]
    }

    /// The instructions that use `value` as an operand, in layout order.
    pub fn users(&self, value: Value) -> &[lanewise_ir::Inst] {
        &self.state.users[value]
    }

    /// The result.
    pub fn into_info(self) -> ShapeInfo {
        ShapeInfo { shapes: self.analysis.shapes }
    }
}

/// The largest alignment the analysis tracks (a page). Larger divisibility
/// facts are capped here; no vector memory operation needs more.
pub const MAX_TRACKED_ALIGN: u64 = 4096;

impl Shape {
    /// The least upper bound of two shapes.
    pub fn join(self, other: Shape) -> Shape {
        match (self, other) {
            (Shape::Undef, shape) | (shape, Shape::Undef) => shape,
            (Shape::Uniform, Shape::Uniform) => Shape::Uniform,
            (Shape::Strided(left), Shape::Strided(right)) if left == right => self,
            _ => Shape::Varying,
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Undef => write!(f, "undef"),
            Shape::Uniform => write!(f, "uniform"),
            Shape::Strided(stride) => write!(f, "strided({stride})"),
            Shape::Varying => write!(f, "varying"),
        }
    }
}

impl ValueShape {
    pub fn new(shape: Shape, align: u64) -> Self {
        ValueShape { shape, align: align.clamp(1, MAX_TRACKED_ALIGN) }
    }

    pub fn uniform(align: u64) -> Self {
        Self::new(Shape::Uniform, align)
    }

    pub fn varying() -> Self {
        Self::new(Shape::Varying, 1)
    }

    /// The least upper bound: shapes join, alignments meet (an `Undef` side
    /// contributes nothing).
    pub fn join(self, other: ValueShape) -> ValueShape {
        match (self.shape, other.shape) {
            (Shape::Undef, _) => other,
            (_, Shape::Undef) => self,
            _ => ValueShape::new(self.shape.join(other.shape), self.align.min(other.align)),
        }
    }
}

impl fmt::Display for ValueShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.align > 1 {
            write!(f, "{} align {}", self.shape, self.align)
        } else {
            write!(f, "{}", self.shape)
        }
    }
}

impl ShapeInfo {
    /// Runs the analysis on `func`, whose parameters vary as `params` says.
    pub fn compute(
        func: &Function,
        data_layout: &DataLayout,
        params: &[ParamSpec],
    ) -> Result<ShapeInfo, ShapeError> {
        let mut solver = ShapeSolver::new(func, data_layout, params)?;
        solver.solve();
        Ok(solver.into_info())
    }

    pub fn shape(&self, value: Value) -> ValueShape {
        self.shapes[value]
    }

    /// The same value in every lane.
    pub fn is_uniform(&self, value: Value) -> bool {
        self.shapes[value].shape == Shape::Uniform
    }

    /// Not known to follow any pattern across lanes.
    pub fn is_varying(&self, value: Value) -> bool {
        self.shapes[value].shape == Shape::Varying
    }

    /// The lane-to-lane difference: `Some(k)` for `Strided(k)`, `Some(0)` for
    /// a uniform value, `None` otherwise. Lane i holds `lane0 + i * stride`.
    pub fn stride(&self, value: Value) -> Option<i64> {
        match self.shapes[value].shape {
            Shape::Uniform => Some(0),
            Shape::Strided(stride) => Some(stride),
            Shape::Undef | Shape::Varying => None,
        }
    }

    /// Whether the pointer `ptr_value` addresses consecutive elements of
    /// `elem_size` bytes in consecutive lanes (a vector load/store can serve it).
    pub fn is_contiguous(&self, ptr_value: Value, elem_size: u64) -> bool {
        elem_size > 0 && self.shapes[ptr_value].shape == Shape::Strided(elem_size as i64)
    }

    /// The known alignment of the lane-0 value.
    pub fn align(&self, value: Value) -> u64 {
        self.shapes[value].align
    }

    /// One line per parameter and instruction result, in layout order:
    /// `%i = strided(1)`, `%p = uniform align 16` (for reports and test
    /// expectations).
    pub fn dump(&self, func: &Function) -> String {
        let params = func.params.iter().map(|param| param.value);
        let results = func.layout.insts().filter_map(|inst| func.dfg.result(inst));
        params
            .chain(results)
            .map(|value| format!("{} = {}\n", func.dfg.display_value(value), self.shapes[value]))
            .collect()
    }

    /// An alignment that holds for the value of every lane: the lane-0
    /// alignment for uniform values, also limited by the stride for strided
    /// values, 1 for varying values (their alignment is a lane-0 fact).
    pub fn all_lanes_align(&self, value: Value) -> u64 {
        let ValueShape { shape, align } = self.shapes[value];
        match shape {
            Shape::Uniform => align,
            Shape::Strided(stride) => align.min(power_of_two_divisor(stride as i128)),
            Shape::Undef | Shape::Varying => 1,
        }
    }
}

/// The largest power of two dividing `value`, capped at [`MAX_TRACKED_ALIGN`]
/// (which is also the answer for 0).
fn power_of_two_divisor(value: i128) -> u64 {
    if value == 0 {
        return MAX_TRACKED_ALIGN;
    }
    let zeros = value.trailing_zeros();
    if zeros >= MAX_TRACKED_ALIGN.trailing_zeros() {
        MAX_TRACKED_ALIGN
    } else {
        1u64 << zeros
    }
}

/// `left * right`, capped.
fn align_product(left: u64, right: u64) -> u64 {
    left.saturating_mul(right).min(MAX_TRACKED_ALIGN)
}

/// The narrowest integer width from which an extension is assumed not to
/// wrap within one group of lanes (see the module docs).
const MIN_NO_WRAP_EXTENSION_BITS: u32 = 32;

struct ShapeAnalysis<'a> {
    func: &'a Function,
    data_layout: &'a DataLayout,
    shapes: SecondaryMap<Value, ValueShape>,
}

impl ShapeAnalysis<'_> {
    fn function_name(&self) -> String {
        self.func.name.clone()
    }

    fn seed_params(&mut self, params: &[ParamSpec]) -> Result<(), ShapeError> {
        if params.len() != self.func.params.len() {
            return Err(ShapeError::ParamCount {
                function: self.function_name(),
                expected: params.len(),
                actual: self.func.params.len(),
            });
        }
        for (index, (param, spec)) in self.func.params.iter().zip(params).enumerate() {
            let align = spec.align.unwrap_or(1);
            let shape = match spec.kind {
                ParamKind::Vector => Shape::Varying,
                ParamKind::Uniform => Shape::Uniform,
                ParamKind::Linear { step } | ParamKind::LinearRef { step } => {
                    if !(param.ty.is_int() || param.ty.is_ptr()) {
                        return Err(ShapeError::LinearParamType {
                            function: self.function_name(),
                            index,
                            ty: param.ty.to_string(),
                        });
                    }
                    self.strided(i128::from(step), &param.ty)
                }
                // The step lives in another parameter: not a constant stride.
                ParamKind::LinearVariableStep { .. } => Shape::Varying,
            };
            self.shapes[param.value] = ValueShape::new(shape, align);
        }
        Ok(())
    }

    fn seed_constants(&mut self) {
        for (value, data) in self.func.dfg.values.iter() {
            let ValueDef::Const(constant) = &data.def else { continue };
            let align = match constant {
                Constant::Int(bits) => power_of_two_divisor(*bits as i128),
                Constant::Null => MAX_TRACKED_ALIGN,
                Constant::Zero if data.ty.is_int() || data.ty.is_ptr() => MAX_TRACKED_ALIGN,
                _ => 1,
            };
            self.shapes[value] = ValueShape::uniform(align);
        }
    }

    /// Rejects allocas with a non-constant count up front, so that the
    /// transfer function never fails.
    fn check_allocas(&self) -> Result<(), ShapeError> {
        for inst in self.func.layout.insts() {
            if let InstData::Alloca { count, .. } = self.func.dfg.inst(inst) {
                if self.func.dfg.int_constant(*count).is_none() {
                    let block = self.func.layout.inst_block(inst).expect("inst is in the layout");
                    let alloca = match self.func.dfg.result(inst) {
                        Some(result) => self.func.dfg.display_value(result),
                        None => inst.to_string(),
                    };
                    return Err(ShapeError::AllocaVariableCount {
                        function: self.function_name(),
                        block: self.func.block_name(block),
                        alloca,
                        count: self.func.dfg.display_value(*count),
                    });
                }
            }
        }
        Ok(())
    }

    /// The worklist iteration, then a sweep that makes results of reachable
    /// instructions that are still `Undef` (only possible for cycles that no
    /// seed reaches) Varying, and iterates again.
    fn solve(&mut self, state: &mut SolverState) {
        let SolverState { users, reachable, worklist, queued } = state;
        loop {
            while let Some(inst) = worklist.pop_front() {
                queued[inst] = false;
                let Some(result) = self.func.dfg.result(inst) else { continue };
                let computed = self.transfer(self.func.dfg.inst(inst), result);
                let old = self.shapes[result];
                let new = old.join(computed);
                if new != old {
                    self.shapes[result] = new;
                    for user in &users[result] {
                        if !queued[*user] {
                            queued[*user] = true;
                            worklist.push_back(*user);
                        }
                    }
                }
            }
            let mut changed = false;
            for block in self.func.layout.blocks() {
                if !reachable[*block] {
                    continue;
                }
                for inst in self.func.layout.block_insts(*block) {
                    let Some(result) = self.func.dfg.result(*inst) else { continue };
                    if self.shapes[result].shape == Shape::Undef {
                        self.shapes[result] = ValueShape::varying();
                        changed = true;
                        for user in &users[result] {
                            if !queued[*user] {
                                queued[*user] = true;
                                worklist.push_back(*user);
                            }
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    fn get(&self, value: Value) -> ValueShape {
        self.shapes[value]
    }

    fn ty(&self, value: Value) -> &Type {
        self.func.dfg.value_type(value)
    }

    /// Width in bits of an integer or pointer type.
    fn int_or_ptr_bits(&self, ty: &Type) -> Option<u32> {
        match ty {
            Type::Int(bits) => Some(*bits),
            Type::Ptr(_) => Some((self.data_layout.pointer_bytes * 8) as u32),
            _ => None,
        }
    }

    /// The shape "lane i = lane0 + i * stride" for a value of type `ty`, with
    /// `stride` computed in wrapping `i128` arithmetic: reduced modulo the
    /// width of `ty`; 0 becomes Uniform; floats, vectors and strides that do
    /// not fit `i64` become Varying.
    fn strided(&self, stride: i128, ty: &Type) -> Shape {
        if stride == 0 {
            // Exactly the same in every lane, whatever the type (also vectors).
            return Shape::Uniform;
        }
        let Some(bits) = self.int_or_ptr_bits(ty) else { return Shape::Varying };
        if bits > 128 {
            // i128 arithmetic is not exact modulo 2^bits.
            return Shape::Varying;
        }
        let reduced = if bits == 128 {
            stride
        } else {
            lanewise_ir::dfg::sign_extend((stride as u128) & ((1u128 << bits) - 1), bits)
        };
        match i64::try_from(reduced) {
            Ok(0) => Shape::Uniform,
            Ok(stride) => Shape::Strided(stride),
            Err(_) => Shape::Varying,
        }
    }

    /// The stride of an operand as a number: 0 for uniform, k for strided,
    /// `None` for varying.
    fn stride_of(shape: Shape) -> Option<i128> {
        match shape {
            Shape::Uniform => Some(0),
            Shape::Strided(stride) => Some(i128::from(stride)),
            Shape::Undef | Shape::Varying => None,
        }
    }

    /// Uniform iff all `operands` are uniform, Varying otherwise; the
    /// alignment is 1.
    fn uniform_if_all_uniform(&self, operands: &[Value]) -> ValueShape {
        if operands.iter().all(|operand| self.get(*operand).shape == Shape::Uniform) {
            ValueShape::uniform(1)
        } else {
            ValueShape::varying()
        }
    }

    /// The shape of `result`, defined by `data`, from the current shapes of
    /// its operands. `Undef` while a non-phi operand is `Undef`.
    fn transfer(&self, data: &InstData, result: Value) -> ValueShape {
        if let InstData::Phi { incoming, .. } = data {
            return incoming
                .iter()
                .fold(ValueShape::default(), |joined, (_, value)| joined.join(self.get(*value)));
        }
        let mut any_undef = false;
        data.for_each_operand(|operand| any_undef |= self.get(operand).shape == Shape::Undef);
        if any_undef {
            return ValueShape::default();
        }
        let result_ty = self.ty(result);
        match data {
            InstData::Binary { op, lhs, rhs, flags } => {
                let op = if *op == BinaryOp::Or && flags.disjoint { BinaryOp::Add } else { *op };
                self.binary(op, *lhs, *rhs, result_ty)
            }
            InstData::Icmp { pred, lhs, rhs } => {
                let (left, right) = (self.get(*lhs).shape, self.get(*rhs).shape);
                let equal_strides =
                    matches!((left, right), (Shape::Strided(a), Shape::Strided(b)) if a == b);
                let equality = matches!(pred, IntPredicate::Eq | IntPredicate::Ne);
                if (left == Shape::Uniform && right == Shape::Uniform)
                    || (equality && equal_strides)
                {
                    ValueShape::uniform(1)
                } else {
                    ValueShape::varying()
                }
            }
            InstData::Fcmp { lhs, rhs, .. } => self.uniform_if_all_uniform(&[*lhs, *rhs]),
            InstData::Select { cond, if_true, if_false, .. } => {
                let (left, right) = (self.get(*if_true), self.get(*if_false));
                let align = left.align.min(right.align);
                if self.get(*cond).shape != Shape::Uniform {
                    return ValueShape::varying();
                }
                match (left.shape, right.shape) {
                    (Shape::Uniform, Shape::Uniform) => ValueShape::uniform(align),
                    (Shape::Strided(a), Shape::Strided(b)) if a == b => {
                        ValueShape::new(self.strided(i128::from(a), result_ty), align)
                    }
                    _ => ValueShape::varying(),
                }
            }
            InstData::Cast { op, arg, to, flags } => self.cast(*op, *arg, to, *flags),
            InstData::Load { addr, volatile, .. } => {
                if !volatile && self.get(*addr).shape == Shape::Uniform {
                    ValueShape::uniform(1)
                } else {
                    ValueShape::varying()
                }
            }
            InstData::Gep { source_ty, base, indices, .. } => {
                self.gep(source_ty, *base, indices, result_ty)
            }
            InstData::Alloca { align, .. }
                if self
                    .func
                    .dfg
                    .defining_inst(result)
                    .is_some_and(|inst| self.func.shared_allocas.contains(&inst)) =>
            {
                // One buffer for all lanes (interleaved private arrays).
                ValueShape::uniform(u64::from(*align).max(1))
            }
            InstData::Alloca { ty, count, align } => {
                // check_allocas guarantees a constant count.
                let count = self.func.dfg.int_constant(*count).unwrap_or(1);
                let align =
                    if *align == 0 { self.data_layout.abi_align(ty) } else { u64::from(*align) };
                let bytes = alloca_lane_stride(self.data_layout.alloc_size(ty), count, align);
                ValueShape::new(self.strided(bytes, result_ty), align)
            }
            InstData::Call { callee, args, effects, .. } => self.call(callee, args, *effects),
            InstData::Freeze { arg } => self.get(*arg),
            InstData::Unary { arg, .. } => self.uniform_if_all_uniform(&[*arg]),
            InstData::ExtractValue { .. }
            | InstData::InsertValue { .. }
            | InstData::ExtractElement { .. }
            | InstData::InsertElement { .. }
            | InstData::Shuffle { .. }
            | InstData::Splat { .. } => self.uniform_if_all_uniform(&data.operands()),
            InstData::Phi { .. } => unreachable!("handled above"),
            // Every lane's atomic sees the memory its predecessor left: the
            // old values differ from lane to lane even at a uniform address.
            InstData::AtomicRmw { .. } | InstData::CmpXchg { .. } => ValueShape::varying(),
            InstData::Store { .. }
            | InstData::MaskedLoad { .. }
            | InstData::SpeculativeLoad { .. }
            | InstData::MaskedStore { .. }
            | InstData::Gather { .. }
            | InstData::Scatter { .. }
            | InstData::Jump { .. }
            | InstData::Branch { .. }
            | InstData::Switch { .. }
            | InstData::Return { .. }
            | InstData::Unreachable
            // Exception handling is never widened; varying is the safe answer.
            | InstData::Invoke { .. }
            | InstData::LandingPad { .. }
            | InstData::Resume { .. } => ValueShape::varying(),
        }
    }

    fn binary(&self, op: BinaryOp, lhs: Value, rhs: Value, result_ty: &Type) -> ValueShape {
        let (left, right) = (self.get(lhs), self.get(rhs));
        let both_uniform = left.shape == Shape::Uniform && right.shape == Shape::Uniform;
        let constant = |value: Value| self.func.dfg.signed_int_constant(value);
        match op {
            BinaryOp::Add | BinaryOp::Sub => {
                let align = left.align.min(right.align);
                let (Some(a), Some(b)) =
                    (Self::stride_of(left.shape), Self::stride_of(right.shape))
                else {
                    return ValueShape::varying_with_align(align);
                };
                let stride =
                    if op == BinaryOp::Add { a.wrapping_add(b) } else { a.wrapping_sub(b) };
                ValueShape::new(self.strided(stride, result_ty), align)
            }
            BinaryOp::Mul => {
                let align = align_product(left.align, right.align);
                if both_uniform {
                    return ValueShape::uniform(align);
                }
                // One side strided, the other a constant.
                let scaled = match (left.shape, right.shape) {
                    (Shape::Strided(stride), _) => constant(rhs).map(|c| (stride, c)),
                    (_, Shape::Strided(stride)) => constant(lhs).map(|c| (stride, c)),
                    _ => None,
                };
                match scaled {
                    Some((stride, factor)) => ValueShape::new(
                        self.strided(i128::from(stride).wrapping_mul(factor), result_ty),
                        align,
                    ),
                    None => ValueShape::varying_with_align(align),
                }
            }
            BinaryOp::Shl => {
                let amount = self.func.dfg.int_constant(rhs);
                let bits = result_ty.int_bits().unwrap_or(0);
                let align = match amount {
                    Some(amount) if amount < u128::from(bits) => align_product(
                        left.align,
                        1u64.checked_shl(amount as u32).unwrap_or(u64::MAX),
                    ),
                    _ => 1,
                };
                if both_uniform {
                    return ValueShape::uniform(align);
                }
                match (left.shape, amount) {
                    (Shape::Strided(stride), Some(amount)) if amount < u128::from(bits) => {
                        let stride = i128::from(stride).wrapping_shl(amount as u32);
                        ValueShape::new(self.strided(stride, result_ty), align)
                    }
                    _ => ValueShape::varying_with_align(align),
                }
            }
            BinaryOp::And => {
                let align = left.align.max(right.align);
                if both_uniform {
                    ValueShape::uniform(align)
                } else {
                    ValueShape::varying_with_align(align)
                }
            }
            BinaryOp::Or | BinaryOp::Xor => {
                let align = left.align.min(right.align);
                if both_uniform {
                    ValueShape::uniform(align)
                } else {
                    ValueShape::varying_with_align(align)
                }
            }
            _ => self.uniform_if_all_uniform(&[lhs, rhs]),
        }
    }

    /// Whether an extension of a strided value from `from_bits` may keep its
    /// stride (see [`MIN_NO_WRAP_EXTENSION_BITS`]).
    fn extension_keeps_stride(from_bits: u32) -> bool {
        from_bits >= MIN_NO_WRAP_EXTENSION_BITS
    }

    fn cast(&self, op: CastOp, arg: Value, to: &Type, flags: CastFlags) -> ValueShape {
        let source = self.get(arg);
        if source.shape == Shape::Uniform {
            let keeps_align = matches!(
                op,
                CastOp::Trunc
                    | CastOp::ZExt
                    | CastOp::SExt
                    | CastOp::PtrToInt
                    | CastOp::IntToPtr
                    | CastOp::Bitcast
            );
            return ValueShape::uniform(if keeps_align { source.align } else { 1 });
        }
        let from_bits = self.int_or_ptr_bits(self.ty(arg));
        let to_bits = self.int_or_ptr_bits(to);
        match (op, source.shape, from_bits, to_bits) {
            (
                CastOp::Trunc
                | CastOp::ZExt
                | CastOp::SExt
                | CastOp::PtrToInt
                | CastOp::IntToPtr
                | CastOp::Bitcast,
                Shape::Strided(stride),
                Some(from_bits),
                Some(to_bits),
            ) => {
                if to_bits > from_bits && !Self::extension_keeps_stride(from_bits) {
                    return ValueShape::varying_with_align(source.align);
                }
                if op == CastOp::ZExt && !flags.nneg {
                    // A signed linear value crossing zero (-2, 1, 4, 7) wraps
                    // as unsigned: its zero extension is not linear.
                    return ValueShape::varying_with_align(source.align);
                }
                ValueShape::new(self.strided(i128::from(stride), to), source.align)
            }
            (
                CastOp::Trunc
                | CastOp::ZExt
                | CastOp::SExt
                | CastOp::PtrToInt
                | CastOp::IntToPtr
                | CastOp::Bitcast,
                _,
                Some(_),
                Some(_),
            ) => ValueShape::varying_with_align(source.align),
            _ => ValueShape::varying(),
        }
    }

    fn gep(
        &self,
        source_ty: &Type,
        base: Value,
        indices: &[Value],
        result_ty: &Type,
    ) -> ValueShape {
        let base_shape = self.get(base);
        let Some(mut stride) = Self::stride_of(base_shape.shape) else {
            return ValueShape::varying();
        };
        let mut align = base_shape.align;
        let mut varying = false;
        let pointer_bits = (self.data_layout.pointer_bytes * 8) as u32;
        // The type the next index steps over; the first index steps over
        // whole `source_ty` objects.
        let mut indexed_ty: Option<&Type> = None;
        for index in indices {
            let element_size;
            match indexed_ty {
                None => {
                    element_size = self.data_layout.alloc_size(source_ty);
                    indexed_ty = Some(source_ty);
                }
                Some(Type::Struct { fields, packed }) => {
                    let Some(field) = self.func.dfg.int_constant(*index) else {
                        return ValueShape::varying();
                    };
                    let Some(field_ty) = fields.get(field as usize) else {
                        return ValueShape::varying();
                    };
                    let offset = self.data_layout.field_offset(fields, *packed, field as usize);
                    align = align.min(power_of_two_divisor(i128::from(offset)));
                    indexed_ty = Some(field_ty);
                    continue;
                }
                Some(Type::Array { elem, .. }) | Some(Type::Vector { elem, .. }) => {
                    element_size = self.data_layout.alloc_size(elem);
                    indexed_ty = Some(elem);
                }
                Some(_) => return ValueShape::varying(),
            }
            let index_shape = self.get(*index);
            let size = i128::from(element_size);
            let term_align = match self.func.dfg.signed_int_constant(*index) {
                Some(constant) => power_of_two_divisor(constant.wrapping_mul(size)),
                None => align_product(index_shape.align, power_of_two_divisor(size)),
            };
            align = align.min(term_align);
            let index_bits = self.ty(*index).int_bits().unwrap_or(0);
            match index_shape.shape {
                Shape::Uniform => {}
                Shape::Strided(index_stride)
                    if index_bits >= pointer_bits || Self::extension_keeps_stride(index_bits) =>
                {
                    stride = stride.wrapping_add(i128::from(index_stride).wrapping_mul(size));
                }
                _ => varying = true,
            }
        }
        if varying {
            return ValueShape::varying_with_align(align);
        }
        ValueShape::new(self.strided(stride, result_ty), align)
    }

    fn call(&self, callee: &Callee, args: &[Value], effects: CallEffects) -> ValueShape {
        let Callee::Direct(name) = callee else { return ValueShape::varying() };
        match name.as_str() {
            "rv_lane_id" => return ValueShape::new(Shape::Strided(1), MAX_TRACKED_ALIGN),
            "rv_num_lanes" | "rv_any" | "rv_all" | "rv_ballot" | "rv_popcount" | "rv_extract"
            | "rv_load" => return ValueShape::uniform(1),
            // The run-time safety net's choice, made once for all lanes
            // (lanewise_transform::dynamic_variants::safety_net::NET_BEGIN).
            "__lanewise_net_begin" => return ValueShape::uniform(1),
            // Its per-lane path's call of the scalar function, once for all
            // lanes on one lane's arguments (safety_net::per_lane_callee).
            name if name.starts_with("__lanewise_net_call.") => return ValueShape::uniform(1),
            "rv_mask" | "rv_entry_mask" | "rv_insert" | "rv_shuffle" | "rv_index" => {
                return ValueShape::varying()
            }
            // A uniform value compacts to itself.
            "rv_compact" => return self.uniform_if_all_uniform(&args[..args.len().min(1)]),
            // The pointer itself.
            "rv_align" => return args.first().map_or_else(ValueShape::varying, |p| self.get(*p)),
            _ => {}
        }
        if effects == CallEffects::SideEffects {
            return ValueShape::varying();
        }
        self.uniform_if_all_uniform(args)
    }
}

impl ValueShape {
    /// Varying, with a known lane-0 alignment.
    fn varying_with_align(align: u64) -> Self {
        Self::new(Shape::Varying, align)
    }
}

#[cfg(test)]
mod tests;

/// The shape claims checked against a tiny lane-by-lane evaluator.
#[cfg(test)]
mod chain_properties {
    use lanewise_ir::vfabi::ParamKind;
    use lanewise_ir::FunctionBuilder;
    use proptest::prelude::*;

    use super::*;

    const LANES: usize = 8;

    #[derive(Clone, Debug)]
    enum Step {
        Add(usize, usize),
        Sub(usize, usize),
        MulConst(usize, i64),
        ShlConst(usize, u32),
        AddConst(usize, i64),
    }

    fn step_strategy() -> impl Strategy<Value = Step> {
        prop_oneof![
            (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Step::Add(a, b)),
            (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Step::Sub(a, b)),
            (any::<usize>(), -70i64..70).prop_map(|(a, c)| Step::MulConst(a, c)),
            (any::<usize>(), 0u32..31).prop_map(|(a, c)| Step::ShlConst(a, c)),
            (any::<usize>(), any::<i64>()).prop_map(|(a, c)| Step::AddConst(a, c)),
        ]
    }

    proptest! {
        #[test]
        fn chains_of_affine_operations_have_the_stride_the_lanes_show(
            wide in any::<bool>(),
            steps in prop::collection::vec(-40i64..40, 2),
            bases in prop::collection::vec(any::<u64>(), 3),
            uniform_align_log in 0u32..7,
            chain in prop::collection::vec(step_strategy(), 1..12),
        ) {
            let bits: u32 = if wide { 64 } else { 32 };
            let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let ty = Type::Int(bits);
            let uniform_align = 1u64 << uniform_align_log;
            // Parameters: linear, uniform (aligned), linear.
            let specs = vec![
                ParamSpec { kind: ParamKind::Linear { step: steps[0] }, align: None },
                ParamSpec { kind: ParamKind::Uniform, align: Some(uniform_align) },
                ParamSpec { kind: ParamKind::Linear { step: steps[1] }, align: None },
            ];
            let param_lanes = |base: u64, step: i64| -> [u64; LANES] {
                std::array::from_fn(|lane| base.wrapping_add((lane as u64).wrapping_mul(step as u64)) & mask)
            };
            let mut lanes: Vec<[u64; LANES]> = vec![
                param_lanes(bases[0], steps[0]),
                param_lanes(bases[1] & !(uniform_align - 1), 0),
                param_lanes(bases[2], steps[1]),
            ];

            let mut func = Function::new("chain", vec![ty.clone(); 3], Type::Void);
            let mut values: Vec<Value> = (0..3).map(|index| func.param_value(index)).collect();
            let mut b = FunctionBuilder::new(&mut func);
            let entry = b.create_block(Some("entry"));
            b.switch_to_block(entry);
            for step in &chain {
                let pick = |index: usize| index % values.len();
                let (value, lane_values): (Value, [u64; LANES]) = match *step {
                    Step::Add(x, y) | Step::Sub(x, y) => {
                        let (x, y) = (pick(x), pick(y));
                        let add = matches!(step, Step::Add(..));
                        let op = if add { BinaryOp::Add } else { BinaryOp::Sub };
                        let value = b.binary(op, values[x], values[y]);
                        let result = std::array::from_fn(|lane| {
                            let (l, r) = (lanes[x][lane], lanes[y][lane]);
                            (if add { l.wrapping_add(r) } else { l.wrapping_sub(r) }) & mask
                        });
                        (value, result)
                    }
                    Step::MulConst(x, c) | Step::AddConst(x, c) => {
                        let x = pick(x);
                        let constant = b.iconst(ty.clone(), i128::from(c));
                        let mul = matches!(step, Step::MulConst(..));
                        let op = if mul { BinaryOp::Mul } else { BinaryOp::Add };
                        let value = b.binary(op, values[x], constant);
                        let result = std::array::from_fn(|lane| {
                            let l = lanes[x][lane];
                            (if mul { l.wrapping_mul(c as u64) } else { l.wrapping_add(c as u64) }) & mask
                        });
                        (value, result)
                    }
                    Step::ShlConst(x, c) => {
                        let x = pick(x);
                        let amount = b.iconst(ty.clone(), i128::from(c));
                        let value = b.binary(BinaryOp::Shl, values[x], amount);
                        (value, std::array::from_fn(|lane| (lanes[x][lane] << c) & mask))
                    }
                };
                values.push(value);
                lanes.push(lane_values);
            }
            b.ret(None);

            let info = ShapeInfo::compute(&func, &DataLayout::default(), &specs).unwrap();
            for (value, lane_values) in values.iter().zip(&lanes) {
                let ValueShape { shape, align } = info.shape(*value);
                let observed_stride = lane_values[1].wrapping_sub(lane_values[0]) & mask;
                match shape {
                    Shape::Uniform => prop_assert!(
                        lane_values.iter().all(|lane| *lane == lane_values[0]),
                        "{value} claimed uniform: {lane_values:?}"
                    ),
                    Shape::Strided(stride) => {
                        prop_assert_ne!(observed_stride, 0, "{} claimed {}", value, shape);
                        for (lane, lane_value) in lane_values.iter().enumerate() {
                            let expected = lane_values[0]
                                .wrapping_add((lane as u64).wrapping_mul(stride as u64)) & mask;
                            prop_assert_eq!(*lane_value, expected, "{} claimed {}", value, shape);
                        }
                    }
                    Shape::Varying | Shape::Undef => {
                        prop_assert!(false, "{value} is affine but came out {shape}")
                    }
                }
                prop_assert_eq!(
                    lane_values[0] % align, 0,
                    "{} claimed align {} for lane 0 = {}", value, align, lane_values[0]
                );
            }
        }
    }
}

#[cfg(test)]
mod alloca_stride_tests {
    use super::alloca_lane_stride;

    /// A 257-float private array aligned to 16 (binomial options): lanes'
    /// copies 1040 bytes apart, not 1028, so each copy stays 16-aligned.
    #[test]
    fn lane_copies_keep_the_alloca_alignment() {
        assert_eq!(alloca_lane_stride(257 * 4, 1, 16), 1040);
        assert_eq!(alloca_lane_stride(12, 1, 4), 12);
        assert_eq!(alloca_lane_stride(8, 3, 16), 32);
        assert_eq!(alloca_lane_stride(8, 1, 0), 8);
    }
}
