//! Dynamic variants of gathers (Karrenberg 2014, chapter 7: 7.1 "uniform
//! values" and 7.2 "consecutive memory access operations").
//!
//! The shape analysis proves an address uniform or consecutive only from the
//! code; at run time the lanes of a gather often agree anyway: a binary
//! search over sorted keys walks the same nodes in neighbouring lanes, and
//! `j = i + k; if (j >= n) j -= n;` is consecutive except where it wraps.
//! A gather then costs its full latency (about four times a scalar load on
//! current x86 cores) for what one load would give.
//!
//! A gather with dynamic variants tests its addresses first, against the
//! address of lane 0:
//!
//! ```text
//!     a = freeze(addrs);  same = a == splat(a[0]);  next = a == a[0] + <0, 1, .., W-1>
//!     br (mask[0] && no active lane with !same), uniform, test_next
//! uniform:   x = load a[0]; splat(x)                ; one scalar load
//! test_next: br (no active lane with !next), consecutive, gather
//! consecutive: masked vector load at a[0]           ; the active lanes' addresses
//! gather:    the gather
//! ```
//!
//! The uniform fast path loads from lane 0's address, so lane 0 must be
//! active. The consecutive one need not: a masked vector load or store at
//! `a[0]` touches the active lanes' addresses only, which freezing leaves
//! as they are (an active lane's address is never poison where the scalar
//! code is defined), and which the test found at `a[0] + k` elements for
//! lane `k`; lane 0's own frozen address, whatever it holds, is never
//! accessed. So a store under a mask that is usually false (a relaxation
//! `if (t < d[i]) d[i] = t`; AVX-512 scatters cost their full time with an
//! empty mask, floyd_warshall of tests/opencl: 34 ms, 9.9 ms in PoCL) and a
//! loop that lanes leave at different times (a run `while (v[i + 1] >
//! v[i]) i++` from consecutive starts: the lanes that left step on with the
//! others, lane 0 is often gone) take the fast path. The base address
//! depends on the addresses only, not on the mask: in such a loop the mask
//! of one iteration comes from the values the previous one loaded, and a
//! test counting from the first active lane (`a[f] - f` elements, a
//! variable lane extraction through the stack) put that extraction into
//! the loop's critical path: `--safety-net off`, rising_run at W=8 on
//! trending runs took 33 ms against 16 ms from lane 0, on random ones
//! 3.3 ms against 2.4 ms.
//!
//! A guess that rests on an integer parameter being consecutive is tested
//! only if the parameter is: one comparison of its lanes, right after its
//! definition, guards the address tests (ragged passes `i * 4`, where the
//! address tests failed on every gather and cost 16% of its time).
//!
//! Addresses `gep base, ext(x)` off a scalar base with a narrow index `x`
//! (`a[i]` with an `int` or `unsigned` `i`; a GEP's own sign extension of an
//! `i32` index counts) are tested on `x`, not on the addresses
//! ([`Tested`]): the lanes of `x` count up by one from the run's start `s`,
//! and `s <= MAX - (W-1)` in the extension's signedness, so the extended
//! indices do not wrap between lanes (an `i8` run 126, 127, -128, ... is
//! consecutive in `i8` only). The gather or scatter after the test then gets
//! a GEP of its own, in its block ([`Widener::addresses_in_current_block`]):
//! LLVM selects `vpgatherdd` (a scalar base, 32-bit indices) only from a GEP
//! in the gather's block, and a test on the shared addresses (or a freeze of
//! them, which InstCombine propagates to every use it dominates) left the
//! gather with a vector of 64-bit pointers, two `vpgatherqd` for eight lanes.
//! `bash scripts/bench.sh`, 2026-11-29, W=8 (W=16): nab 2.57x -> 3.58x
//! (4.08x -> 6.36x), ragged short 0.85x -> 0.98x (0.85x -> 1.00x), ragged
//! random 1.18x -> 1.26x (1.35x -> 1.45x); `--dynamic-tests off` turns
//! the tests off (ablation). The same holds for an [`AddressChain`], such a
//! GEP followed by GEPs of uniform offsets (`low = data + 5 * i;
//! low[channel]`): the tests compare the root's indices and the gather
//! copies the whole chain (xs on sorted energies 0.94x -> 1.06x, 1.34x ->
//! 1.52x at W=16). Rewriting `a[sext(i) + c]` as `(a + c)[i]` to keep
//! such indices 32-bit was tried and dropped: rising_run ran 7% faster at
//! W=8 and 12% slower at W=16.
//!
//! Each fast path touches exactly the bytes the active lanes would, so it is
//! safe wherever the gather is. The tests cost a handful of vector
//! instructions and a branch each, well predicted when the data usually
//! agree or usually do not, but paid by every gather that gets them, so a
//! static heuristic ([`Widener::dynamic_gather_tests`]) decides which test a
//! gather gets:
//!
//! - the consecutive test, when the address is *likely consecutive*: from
//!   values the shape analysis proves consecutive, and from integer
//!   parameters passed as vectors (callers pass a loop's `i` to a varying
//!   parameter as often as not, without a `linear` clause), through selects
//!   and phis whose incoming values agree (`j = i + k` and its
//!   wrapped-around `j - n`) or step the phi by a uniform amount (`i++` in
//!   a loop: lanes keep their distances while they stay), `x & (2^k - 1)`
//!   and `x % w` (until it wraps), `x * c` and `x << k` (the stride
//!   scaled), casts, uniform offsets and GEPs off a uniform base; a flat 2D
//!   index `(i / w) * s + i % w` is so likely consecutive, its row `i / w`
//!   (also `i >> k`) likely uniform, unless a constant divisor is below the
//!   lanes' span (a hash `(i * K) >> 20` gets no test). tests/programs/
//!   flat_image_rows (rows of 1000 pixels through such an index, a table
//!   entry per 64 pixels), fastest of 3 runs on AMD Zen 5 at W=32: 28.4 ->
//!   10.7 ms (clang's scalar loop 103.6 ms); rows of 7 and 20 pixels, where
//!   every vector crosses a row, within the noise;
//! - the uniform test, when the address depends on a *recurrence that starts
//!   uniform*: a loop-header phi entered with a uniform value and carried
//!   with a varying one (a search position: the node of a tree walk, the
//!   bounds of a binary search). Every lane starts at the same place and
//!   lanes with similar queries stay together;
//! - the uniform test when the likely stride is 0 (a quotient, above);
//! - the uniform test, too, when the address depends on a *float converted
//!   to an integer* (`fptosi`, `fptoui`): a grid cell, which neighbouring
//!   lanes of a coherent input share (the lattice corners of Perlin noise,
//!   texels, histogram bins), also through loads from such addresses
//!   (`perm[perm[x] + y]`). On bench/kernels/perlin (14 lookups per octave;
//!   eight lanes one pixel apart share a cell at the low octaves), the
//!   fastest of 5 runs at W=8: 2.29x -> 3.38x over scalar; at W=16, whose
//!   lanes span twice as far, within the noise.
//!
//! Gathers from anything else (table lookups by hashed or loaded indices)
//! are left alone.

use std::collections::HashSet;

use lanewise_ir::{
    BinaryOp, CastOp, Constant, Inst, InstData, IntPredicate, Type, Value, ValueDef,
};

use super::{WidenError, Widener};
use lanewise_ir::vfabi::ParamKind;

/// The run-time tests a gather gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct DynamicGatherTests {
    pub uniform: bool,
    pub consecutive: bool,
    /// The parameters (bit i: parameter i) whose values the consecutive
    /// guess assumes consecutive; the test runs only when they are, as
    /// tested once at entry (see [`Widener::params_consecutive`]).
    pub guessed_params: u64,
}

/// A vector of addresses `gep source_ty, base, index` (the root: a scalar
/// base, one vector index) followed by `steps`, GEPs whose indices are all
/// scalars (the same offset in every lane), innermost first.
struct AddressChain {
    source_ty: Type,
    base: Value,
    index: Value,
    root: Inst,
    steps: Vec<Inst>,
}

/// What the dynamic tests of a gather or scatter compare. For addresses
/// `gep base, ext(x)` (a scalar base, `x` of at most 32 bits in each
/// lane, the common `a[i]` with an `int` or `unsigned` index), the narrow
/// indices `x`, not the addresses: a test on the addresses shares them
/// (or the extension) with the gather after it, in another block, and
/// LLVM then gathers through a vector of 64-bit pointers (see
/// [`Widener::addresses_in_current_block`]). The same for `gep base, i`
/// with a 64-bit `i` (a loop position LLVM's induction variable
/// simplification widened): the fast path then needs lane 0's address
/// only, and the vector of addresses is computed in the gather's block
/// (rising_run's loop: two 512-bit shifts and adds fewer per load).
enum Tested {
    /// The addresses (frozen under a mask).
    Addresses(Value),
    /// The narrow indices (frozen under a mask) of `gep source_ty, base,
    /// extension(indices)`.
    NarrowIndices {
        indices: Value,
        extension: CastOp,
        source_ty: Type,
        base: Value,
        steps: Vec<Inst>,
    },
}

impl Tested {
    /// The vector the tests compare.
    fn compared(&self) -> Value {
        match self {
            Tested::Addresses(addrs) => *addrs,
            Tested::NarrowIndices { indices, .. } => *indices,
        }
    }
}

/// An index whose lanes count up by one unless one scalar test fails (see
/// [`Widener::extended_index_test`]).
enum IndexRun {
    /// `op(narrow)`, a zero or sign extension of a `Strided(1)` integer.
    Extended { op: CastOp, narrow: Value },
    /// `wide & low_mask`, `low_mask = 2^k - 1`, of a `Strided(1)` integer.
    LowBits { wide: Value, low_mask: u128 },
}

/// A likely stride and the parameters it assumes consecutive (see
/// [`Widener::likely_stride`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Likely {
    stride: i128,
    guessed_params: u64,
}

impl Likely {
    fn exact(stride: i128) -> Likely {
        Likely { stride, guessed_params: 0 }
    }

    /// `self op other` for strides that add (`sign` 1) or subtract (-1),
    /// `other` scaled by `scale`.
    fn combine(self, other: Likely, sign: i128, scale: i128) -> Likely {
        Likely {
            stride: self.stride + sign * other.stride * scale,
            guessed_params: self.guessed_params | other.guessed_params,
        }
    }
}

/// How far back the heuristics follow an address.
const HEURISTIC_DEPTH: u32 = 8;

/// How far back [`Widener::starts_uniform`] follows an address: further,
/// through chains of table lookups (`perm[perm[perm[x] + y] + z]`: 13
/// values from the last address to the conversion of `x`); it visits each
/// value once.
const UNIFORM_START_DEPTH: u32 = 16;

impl Widener<'_> {
    /// Which tests a gather of `elem_bytes`-byte elements at the scalar
    /// address `addr` gets (see the module docs).
    pub(super) fn dynamic_gather_tests(&self, addr: Value, elem_bytes: u64) -> DynamicGatherTests {
        if !self.config.dynamic_tests {
            return DynamicGatherTests::default();
        }
        let likely = self.likely_stride(addr, HEURISTIC_DEPTH);
        let consecutive = likely.is_some_and(|likely| likely.stride == i128::from(elem_bytes));
        let guess = likely.filter(|_| consecutive);
        // A likely stride of 0 is a guess (a proven one is no gather).
        let likely_uniform = likely.is_some_and(|likely| likely.stride == 0);
        DynamicGatherTests {
            uniform: likely_uniform
                || self.starts_uniform(addr, UNIFORM_START_DEPTH, &mut HashSet::new()),
            consecutive,
            guessed_params: guess.map_or(0, |likely| likely.guessed_params),
        }
    }

    /// The stride `addr` has in every lane when the varying choices of the
    /// selects and phis on the way agree and the integer parameters passed
    /// as vectors are consecutive (which [`Likely::guessed_params`] lists):
    /// a value that is `Strided(k)` (uniform: 0), a select or phi of such
    /// values, and so on (see the module docs).
    fn likely_stride(&self, value: Value, depth: u32) -> Option<Likely> {
        match self.shapes.shape(value).shape {
            lanewise_analysis::Shape::Strided(stride) => {
                return Some(Likely::exact(i128::from(stride)))
            }
            lanewise_analysis::Shape::Uniform => return Some(Likely::exact(0)),
            _ if depth == 0 => return None,
            _ => {}
        }
        if let ValueDef::Param(index) = self.scalar.dfg.value_def(value) {
            let is_int = matches!(self.scalar.dfg.value_type(value), Type::Int(_));
            let passed_as_vector = self
                .config
                .params
                .get(*index as usize)
                .is_some_and(|param| param.kind == ParamKind::Vector);
            return (is_int && passed_as_vector && *index < 64)
                .then_some(Likely { stride: 1, guessed_params: 1 << index });
        }
        let inst = self.scalar.dfg.defining_inst(value)?;
        let same = |values: &mut dyn Iterator<Item = Value>| -> Option<Likely> {
            let likely: Vec<Option<Likely>> =
                values.map(|value| self.likely_stride(value, depth - 1)).collect();
            let first = (*likely.first()?)?;
            let agree = likely.iter().all(|other| other.is_some_and(|o| o.stride == first.stride));
            let guessed_params =
                likely.iter().flatten().fold(0, |params, other| params | other.guessed_params);
            agree.then_some(Likely { stride: first.stride, guessed_params })
        };
        match self.scalar.dfg.inst(inst) {
            InstData::Select { if_true, if_false, .. } => {
                same(&mut [*if_true, *if_false].into_iter())
            }
            InstData::Phi { incoming, .. } => {
                let defined: Vec<Value> = incoming
                    .iter()
                    .map(|(_, value)| *value)
                    .filter(|value| {
                        !matches!(self.scalar.dfg.constant(*value), Some(Constant::Poison))
                    })
                    .collect();
                let mut entering =
                    defined.into_iter().filter(|carried| !self.steps_uniformly(*carried, value));
                same(&mut entering)
            }
            InstData::Binary { op: BinaryOp::And, lhs, rhs, .. } => {
                // `x & (2^k - 1)`: `x`'s stride until it wraps, which the
                // run-time test sees (a position in a ring buffer).
                let (low_bits, masked) = match (
                    self.scalar.dfg.int_constant(*rhs),
                    self.scalar.dfg.int_constant(*lhs),
                ) {
                    (Some(bits), _) => (bits, *lhs),
                    (None, Some(bits)) => (bits, *rhs),
                    (None, None) => return None,
                };
                let likely = self.likely_stride(masked, depth - 1)?;
                let span = likely.stride.unsigned_abs() * u128::from(self.width);
                let wraps_rarely = (low_bits.wrapping_add(1)).is_power_of_two() && low_bits >= span;
                wraps_rarely.then_some(likely)
            }
            InstData::Cast { op: CastOp::SExt | CastOp::ZExt | CastOp::Trunc, arg, .. } => {
                self.likely_stride(*arg, depth - 1)
            }
            InstData::Binary { op: BinaryOp::Add, lhs, rhs, .. } => {
                Some(self.likely_stride(*lhs, depth - 1)?.combine(
                    self.likely_stride(*rhs, depth - 1)?,
                    1,
                    1,
                ))
            }
            InstData::Binary { op: BinaryOp::Sub, lhs, rhs, .. } => {
                Some(self.likely_stride(*lhs, depth - 1)?.combine(
                    self.likely_stride(*rhs, depth - 1)?,
                    -1,
                    1,
                ))
            }
            InstData::Gep { source_ty, base, indices, .. } if indices.len() == 1 => {
                let element = i128::from(self.data_layout.alloc_size(source_ty));
                Some(self.likely_stride(*base, depth - 1)?.combine(
                    self.likely_stride(indices[0], depth - 1)?,
                    1,
                    element,
                ))
            }
            InstData::Binary { op: op @ (BinaryOp::Mul | BinaryOp::Shl), lhs, rhs, .. } => {
                // `x * c`, `x << k`: the stride scaled; `q * u` of a likely
                // uniform `q` (a row number times a row's length): uniform.
                let likely = self.likely_stride(*lhs, depth - 1)?;
                if likely.stride == 0 && self.shapes.is_uniform(*rhs) {
                    return Some(likely);
                }
                let constant = self.scalar.dfg.int_constant(*rhs).filter(|c| *c < 1 << 31)?;
                let factor = match op {
                    BinaryOp::Mul => constant as i128,
                    _ => 1i128 << constant.min(31),
                };
                Some(Likely { stride: likely.stride.checked_mul(factor)?, ..likely })
            }
            InstData::Binary {
                op: op @ (BinaryOp::UDiv | BinaryOp::SDiv | BinaryOp::LShr | BinaryOp::AShr),
                lhs,
                rhs,
                ..
            } if self.shapes.is_uniform(*rhs) => {
                // `i / w`, `i >> k`: lanes that count up share the quotient
                // until it steps (the row of a flat 2D index, the word of a
                // bitmap), unless a constant divisor is smaller than their
                // span; a divisor known only at run time is guessed larger.
                let likely = self.likely_stride(*lhs, depth - 1)?;
                let span = likely.stride.unsigned_abs() * u128::from(self.width);
                let divisor = self.scalar.dfg.int_constant(*rhs).map(|constant| match op {
                    BinaryOp::UDiv | BinaryOp::SDiv => constant,
                    _ => 1 << constant.min(127),
                });
                let shared = divisor.is_none_or(|divisor| divisor >= span);
                (likely.stride != 0 && shared).then_some(Likely { stride: 0, ..likely })
            }
            InstData::Binary { op: BinaryOp::URem | BinaryOp::SRem, lhs, rhs, .. }
                if self.shapes.is_uniform(*rhs) =>
            {
                // `i % w`: `i`'s stride until it wraps (the column of a flat
                // 2D index), as for `i & (2^k - 1)`.
                let likely = self.likely_stride(*lhs, depth - 1)?;
                let span = likely.stride.unsigned_abs() * u128::from(self.width);
                let wraps_rarely =
                    self.scalar.dfg.int_constant(*rhs).is_none_or(|divisor| divisor >= span);
                wraps_rarely.then_some(likely)
            }
            _ => None,
        }
    }

    /// Whether `carried` is `phi + u` or `phi - u` with `u` uniform: the
    /// step of a recurrence that leaves every lane's distance to the others
    /// as it was (`i = start; ... i++`), so the phi's stride is that of its
    /// other incoming values.
    fn steps_uniformly(&self, carried: Value, phi: Value) -> bool {
        let Some(inst) = self.scalar.dfg.defining_inst(carried) else { return false };
        match self.scalar.dfg.inst(inst) {
            InstData::Binary { op: BinaryOp::Add, lhs, rhs, .. } => {
                (*lhs == phi && self.shapes.is_uniform(*rhs))
                    || (*rhs == phi && self.shapes.is_uniform(*lhs))
            }
            InstData::Binary { op: BinaryOp::Sub, lhs, rhs, .. } => {
                *lhs == phi && self.shapes.is_uniform(*rhs)
            }
            InstData::Gep { base, indices, .. } => {
                *base == phi && indices.iter().all(|index| self.shapes.is_uniform(*index))
            }
            _ => false,
        }
    }

    /// Whether `value` depends (through address arithmetic, selects, phis
    /// and loads' addresses) on a loop-header phi entered with a uniform
    /// value and carried around the loop with a varying one, or on a float
    /// converted to an integer (a grid cell).
    fn starts_uniform(&self, value: Value, depth: u32, seen: &mut HashSet<Value>) -> bool {
        if depth == 0 || !seen.insert(value) || self.shapes.is_uniform(value) {
            return false;
        }
        let Some(inst) = self.scalar.dfg.defining_inst(value) else { return false };
        let data = self.scalar.dfg.inst(inst);
        if let InstData::Phi { incoming, .. } = data {
            let block = self.scalar.layout.inst_block(inst);
            let blocks = self.scalar.layout.blocks();
            let position = |b| blocks.iter().position(|other| *other == b);
            let header_position = block.and_then(position);
            // A back edge comes from a block laid out after the header.
            let carried = incoming.iter().any(|(from, _)| position(*from) > header_position);
            let enters_uniform = incoming.iter().any(|(from, incoming_value)| {
                position(*from) < header_position && self.shapes.is_uniform(*incoming_value)
            });
            if carried && enters_uniform {
                return true;
            }
        }
        if let InstData::Cast { op: CastOp::FPToSI | CastOp::FPToUI, .. } = data {
            return true;
        }
        let mut operands = Vec::new();
        match data {
            InstData::Phi { incoming, .. } => {
                operands.extend(incoming.iter().map(|(_, value)| *value));
            }
            InstData::Gep { .. }
            | InstData::Cast { .. }
            | InstData::Binary { .. }
            | InstData::Select { .. }
            | InstData::Freeze { .. }
            | InstData::Load { .. } => data.for_each_operand(|operand| operands.push(operand)),
            _ => return false,
        }
        operands.into_iter().any(|operand| self.starts_uniform(operand, depth - 1, seen))
    }

    /// A gather of `vector_ty` from `addrs` under `mask`, with the fast paths
    /// of `tests` (see the module docs).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn gather_with_dynamic_variants(
        &mut self,
        tests: DynamicGatherTests,
        elem_ty: &Type,
        vector_ty: Type,
        scalar_addr: Value,
        addrs: Value,
        mask: Value,
        masked: bool,
        align: u32,
    ) -> Result<Value, WidenError> {
        let width = self.width;
        let mask_ty = Type::BOOL.vector_of(width);
        let prefix = self.next_guard_prefix();
        let gather_block = self.func.dfg.make_block(Some(format!("{prefix}.gather")));
        let join = self.func.dfg.make_block(Some(format!("{prefix}.join")));
        // The fast paths' blocks and values, for the join's phi.
        let mut incoming = Vec::new();
        let lane0 = self.func.dfg.int_const(Type::I32, 0);
        let indexed = if tests.consecutive { None } else { self.address_chain(addrs) };
        let elem_bytes = self.data_layout.alloc_size(elem_ty);
        let extended = if tests.consecutive && !tests.uniform {
            self.extended_index_test(scalar_addr, elem_bytes)?
        } else {
            None
        };
        if let Some((ok, first)) = extended {
            let value =
                self.fast_path(&prefix, ok, false, first, elem_ty, &vector_ty, mask, masked, align);
            incoming.push(value);
        } else if let Some(AddressChain { source_ty, base, index, steps, .. }) = indexed {
            // Only the uniform test, of `gep base, index` with a scalar base:
            // it compares the indices (equal indices, equal addresses: GEP
            // sign-extends them, which is one to one), so the gather keeps
            // its scalar base and narrow indices (`vpgatherdd`) instead of
            // sharing a vector of 64-bit pointers with the test.
            let index = if masked { self.freeze(index) } else { index };
            let index_ty = self.func.dfg.value_type(index).scalar_type().clone();
            let first_index = self
                .append_value(InstData::ExtractElement { vector: index, index: lane0 }, index_ty);
            let index_vector_ty = self.func.dfg.value_type(index).clone();
            let first_index_splat = self.append_value(
                InstData::Splat { scalar: first_index, lanes: width },
                index_vector_ty,
            );
            let all_match = self.all_active_lanes_match(index, first_index_splat, mask, &mask_ty);
            let ok = self.and_lane0_active(all_match, masked.then_some(mask));
            let pointer_ty = self.func.dfg.value_type(base).scalar_type().clone();
            let first = self.append_value(
                InstData::Gep { source_ty, base, indices: vec![first_index], inbounds: false },
                pointer_ty,
            );
            let first = self.apply_steps(first, &steps);
            let value =
                self.fast_path(&prefix, ok, true, first, elem_ty, &vector_ty, mask, masked, align);
            incoming.push(value);
        } else {
            let tested = self.tested_of(addrs, elem_bytes, masked);
            if tests.uniform {
                let first = self.lane_value(&tested, lane0);
                let first_splat = self.splat_address(first);
                let compared = tested.compared();
                let all_match = self.all_active_lanes_match(compared, first_splat, mask, &mask_ty);
                let ok = self.and_lane0_active(all_match, masked.then_some(mask));
                let first = self.address_of(&tested, first);
                let value = self
                    .fast_path(&prefix, ok, true, first, elem_ty, &vector_ty, mask, masked, align);
                incoming.push(value);
            }
            if tests.consecutive {
                let (ok, base) = self.consecutive_test(
                    &prefix,
                    tests.guessed_params,
                    &tested,
                    elem_ty,
                    mask,
                    gather_block,
                )?;
                let value = self
                    .fast_path(&prefix, ok, false, base, elem_ty, &vector_ty, mask, masked, align);
                incoming.push(value);
            }
        }
        let before = self.current.expect("a current block");
        self.append(InstData::Jump { dest: gather_block }, Type::Void);
        self.func.layout.insert_block_after(gather_block, before);
        self.current = Some(gather_block);
        let addrs = self.addresses_in_current_block(addrs);
        let passthru = self.func.dfg.make_const(vector_ty.clone(), Constant::Poison);
        let gathered = self.append_value(
            InstData::Gather { ty: vector_ty.clone(), addrs, mask, passthru, align },
            vector_ty.clone(),
        );
        incoming.push((gather_block, gathered));
        self.append(InstData::Jump { dest: join }, Type::Void);
        self.func.layout.insert_block_after(join, gather_block);
        for (block, _) in &incoming[..incoming.len() - 1] {
            let at_end = self.func.layout.block_insts(*block).len();
            let jump = self.func.dfg.make_inst(InstData::Jump { dest: join }, Type::Void);
            self.func.layout.insert_inst_at(jump, *block, at_end);
        }
        self.current = Some(join);
        Ok(self.append_value(InstData::Phi { ty: vector_ty.clone(), incoming }, vector_ty))
    }

    /// `br ok, fast, next` from the current block, `fast` loading the
    /// gather's value (one scalar load at `first` splat when `uniform`, else
    /// a vector load at `first` under the mask); continues in `next`.
    /// Returns the block the fast path ends in (left without its
    /// terminator, a jump to the join) and the value.
    #[allow(clippy::too_many_arguments)]
    fn fast_path(
        &mut self,
        prefix: &str,
        ok: Value,
        uniform: bool,
        first: Value,
        elem_ty: &Type,
        vector_ty: &Type,
        mask: Value,
        masked: bool,
        align: u32,
    ) -> (lanewise_ir::Block, Value) {
        let before = self.current.expect("a current block");
        let label = if uniform { "uniform" } else { "consecutive" };
        let fast = self.func.dfg.make_block(Some(format!("{prefix}.{label}")));
        let next = self.func.dfg.make_block(Some(format!("{prefix}.next")));
        self.func.layout.insert_block_after(fast, before);
        self.func.layout.insert_block_after(next, fast);
        self.append(InstData::Branch { cond: ok, then_dest: fast, else_dest: next }, Type::Void);
        self.current = Some(fast);
        let value = if uniform {
            let scalar = self.append_value(
                InstData::Load { ty: elem_ty.clone(), addr: first, align, volatile: false },
                elem_ty.clone(),
            );
            self.append_value(InstData::Splat { scalar, lanes: self.width }, vector_ty.clone())
        } else {
            self.contiguous_load(vector_ty.clone(), first, align, masked.then_some(mask))
        };
        let end = self.current.expect("a current block");
        self.current = Some(next);
        (end, value)
    }

    /// Whether the integer parameters of `params` (bit i: parameter i) were
    /// all passed consecutive values (`v == splat(v[0]) + <0, 1, ..>` in every
    /// lane), each tested once, right after its vector's definition.
    fn params_consecutive(&mut self, params: u64) -> Result<Value, WidenError> {
        let mut all: Option<Value> = None;
        for index in (0..64u32).filter(|index| params & (1 << index) != 0) {
            let flag = match self.param_consecutive.get(&index) {
                Some(flag) => *flag,
                None => {
                    let scalar_param = self.scalar.param_value(index as usize);
                    let vector = self.vector(scalar_param)?;
                    let flag = self.insert_consecutive_flag(vector);
                    self.param_consecutive.insert(index, flag);
                    flag
                }
            };
            all = Some(match all {
                None => flag,
                Some(previous) => self.append_value(
                    InstData::Binary {
                        op: BinaryOp::And,
                        lhs: previous,
                        rhs: flag,
                        flags: Default::default(),
                    },
                    Type::BOOL,
                ),
            });
        }
        Ok(all.expect("at least one parameter"))
    }

    /// `all(vector == splat(vector[0]) + <0, 1, .., W-1>)` for an integer
    /// vector, inserted right after its definition.
    fn insert_consecutive_flag(&mut self, vector: Value) -> Value {
        let width = self.width;
        let vector_ty = self.func.dfg.value_type(vector).clone();
        let elem_ty = vector_ty.scalar_type().clone();
        let zero = self.func.dfg.int_const(Type::I32, 0);
        let ramp_lanes: Vec<Value> = (0..width)
            .map(|lane| self.func.dfg.int_const(elem_ty.clone(), u128::from(lane)))
            .collect();
        let ramp = self.func.dfg.make_const(vector_ty.clone(), Constant::Aggregate(ramp_lanes));
        let bits_ty = Type::Int(width);
        let all_ones = self.func.dfg.int_const(bits_ty.clone(), (1u128 << width) - 1);
        let mut cursor = self.values.cursor_after_definition(&self.func, vector);
        let mut insert = |this: &mut Self, data: InstData, ty: Type| {
            this.values.insert(&mut this.func, &mut cursor, data, ty)
        };
        let first = insert(self, InstData::ExtractElement { vector, index: zero }, elem_ty);
        let splat =
            insert(self, InstData::Splat { scalar: first, lanes: width }, vector_ty.clone());
        let expected = insert(
            self,
            InstData::Binary {
                op: BinaryOp::Add,
                lhs: splat,
                rhs: ramp,
                flags: Default::default(),
            },
            vector_ty,
        );
        let equal = insert(
            self,
            InstData::Icmp { pred: IntPredicate::Eq, lhs: vector, rhs: expected },
            Type::BOOL.vector_of(width),
        );
        let bits = insert(
            self,
            InstData::Cast {
                op: CastOp::Bitcast,
                arg: equal,
                to: bits_ty.clone(),
                flags: Default::default(),
            },
            bits_ty,
        );
        insert(
            self,
            InstData::Icmp { pred: IntPredicate::Eq, lhs: bits, rhs: all_ones },
            Type::BOOL,
        )
    }

    /// A scatter's consecutive fast path (7.2 for stores): when the
    /// heuristic expects the store's addresses to be consecutive (as for a
    /// gather), tests them and, if they are, stores `value` with one masked
    /// vector store at lane 0's address. Returns the join block, with the
    /// current block set to the scatter's path (which the caller emits and
    /// then ends with a jump to the join); `None` when the store gets no
    /// test. Consecutive addresses are distinct, so the vector store writes
    /// what the lanes' stores in lane order would.
    pub(super) fn begin_consecutive_store(
        &mut self,
        addr: Value,
        elem_ty: &Type,
        value: Value,
        mask: Option<Value>,
        align: u32,
    ) -> Result<Option<lanewise_ir::Block>, WidenError> {
        if !self.config.dynamic_tests {
            return Ok(None);
        }
        let elem_bytes = i128::from(self.data_layout.alloc_size(elem_ty));
        let Some(likely) = self.likely_stride(addr, HEURISTIC_DEPTH) else { return Ok(None) };
        if !self.packs_like_memory(elem_ty) || likely.stride != elem_bytes {
            return Ok(None);
        }
        let vector_value = self.vector(value)?;
        if let Some((ok, first)) = self.extended_index_test(addr, elem_bytes as u64)? {
            return Ok(Some(self.consecutive_store_paths(ok, vector_value, first, mask, align)));
        }
        let prefix = self.next_guard_prefix();
        let scatter = self.func.dfg.make_block(Some(format!("{prefix}.scatter")));
        let addrs = self.vector(addr)?;
        let active = match mask {
            Some(mask) => mask,
            None => self.all_true_mask(),
        };
        let tested = self.tested_of(addrs, elem_bytes as u64, mask.is_some());
        let (ok, base) = self.consecutive_test(
            &prefix,
            likely.guessed_params,
            &tested,
            elem_ty,
            active,
            scatter,
        )?;
        Ok(Some(self.consecutive_store_paths_into(
            &prefix,
            ok,
            vector_value,
            base,
            mask,
            align,
            scatter,
        )))
    }

    /// The test of a gather's or scatter's consecutive fast path: whether
    /// the active lanes' addresses (`tested`: the addresses or the narrow
    /// indices they come from, frozen under a mask) are one run of
    /// consecutive `elem_ty` elements that starts at lane 0's (see the
    /// module docs: lane 0 itself may be inactive). Returns the condition
    /// and lane 0's address. When the guess rests on parameters
    /// (`guessed_params`, as in [`DynamicGatherTests::guessed_params`]),
    /// the test runs only if the callers passed them consecutive: the
    /// current block first branches on their entry flag to `slow` (the
    /// general path, not yet in the layout) or to a new test block, which
    /// stays current.
    fn consecutive_test(
        &mut self,
        prefix: &str,
        guessed_params: u64,
        tested: &Tested,
        elem_ty: &Type,
        active: Value,
        slow: lanewise_ir::Block,
    ) -> Result<(Value, Value), WidenError> {
        if guessed_params != 0 {
            let guessed = self.params_consecutive(guessed_params)?;
            let test = self.func.dfg.make_block(Some(format!("{prefix}.test")));
            let before = self.current.expect("a current block");
            self.func.layout.insert_block_after(test, before);
            self.append(
                InstData::Branch { cond: guessed, then_dest: test, else_dest: slow },
                Type::Void,
            );
            self.current = Some(test);
        }
        let mask_ty = Type::BOOL.vector_of(self.width);
        let lane0 = self.func.dfg.int_const(Type::I32, 0);
        let first = self.lane_value(tested, lane0);
        let (ok, base) = match tested {
            Tested::Addresses(addrs) => {
                let base_splat = self.splat_address(first);
                let consecutive = self.consecutive_addresses(base_splat, elem_ty);
                (self.all_active_lanes_match(*addrs, consecutive, active, &mask_ty), first)
            }
            Tested::NarrowIndices { indices, extension, .. } => {
                let (indices, extension) = (*indices, *extension);
                let consecutive = self.consecutive_indices(first);
                let in_lanes = self.all_active_lanes_match(indices, consecutive, active, &mask_ty);
                let no_wrap = self.run_does_not_wrap(first, extension);
                let ok = self.append_value(
                    InstData::Binary {
                        op: BinaryOp::And,
                        lhs: in_lanes,
                        rhs: no_wrap,
                        flags: Default::default(),
                    },
                    Type::BOOL,
                );
                (ok, self.address_of(tested, first))
            }
        };
        Ok((ok, base))
    }

    /// What the tests of `addrs` compare (see [`Tested`]); under a mask
    /// (`masked`), frozen: inactive lanes may hold poison.
    fn tested_of(&mut self, addrs: Value, elem_bytes: u64, masked: bool) -> Tested {
        let freeze =
            |this: &mut Self, value: Value| if masked { this.freeze(value) } else { value };
        let narrow = self.address_chain(addrs).and_then(
            |AddressChain { source_ty, base, index, steps, .. }| {
                // A GEP sign-extends an index narrower than a pointer.
                let extended = self.func.dfg.defining_inst(index).and_then(|inst| {
                    match self.func.dfg.inst(inst) {
                        InstData::Cast { op: op @ (CastOp::ZExt | CastOp::SExt), arg, .. } => {
                            Some((*op, *arg))
                        }
                        _ => None,
                    }
                });
                let (op, arg) = match extended {
                    Some(extended) => extended,
                    None => (CastOp::SExt, index),
                };
                let bits = self.func.dfg.value_type(arg).scalar_type().int_bits()?;
                let fits = (8..=64).contains(&bits) && self.run_limit(op, bits).is_some();
                (fits && self.data_layout.alloc_size(&source_ty) == elem_bytes)
                    .then_some((source_ty, base, arg, op, steps))
            },
        );
        match narrow {
            Some((source_ty, base, indices, extension, steps)) => {
                let indices = freeze(self, indices);
                let base =
                    if self.func.dfg.constant(base).is_some() { base } else { freeze(self, base) };
                Tested::NarrowIndices { indices, extension, source_ty, base, steps }
            }
            None => Tested::Addresses(freeze(self, addrs)),
        }
    }

    /// The address or index of `lane` of `tested`.
    fn lane_value(&mut self, tested: &Tested, lane: Value) -> Value {
        let vector = tested.compared();
        let ty = self.func.dfg.value_type(vector).scalar_type().clone();
        self.append_value(InstData::ExtractElement { vector, index: lane }, ty)
    }

    /// The address of `value`, an address or an index of `tested`'s lanes.
    fn address_of(&mut self, tested: &Tested, value: Value) -> Value {
        let Tested::NarrowIndices { extension, source_ty, base, steps, .. } = tested else {
            return value;
        };
        // A 64-bit index (a loop position LLVM widened) is used as it is.
        let extended = if *self.func.dfg.value_type(value) == Type::I64 {
            value
        } else {
            self.append_value(
                InstData::Cast {
                    op: *extension,
                    arg: value,
                    to: Type::I64,
                    flags: Default::default(),
                },
                Type::I64,
            )
        };
        let pointer_ty = self.func.dfg.value_type(*base).clone();
        let root = self.append_value(
            InstData::Gep {
                source_ty: source_ty.clone(),
                base: *base,
                indices: vec![extended],
                inbounds: false,
            },
            pointer_ty,
        );
        let steps = steps.clone();
        self.apply_steps(root, &steps)
    }

    /// `splat(start) + <0, 1, .., W-1>` in `start`'s integer type.
    fn consecutive_indices(&mut self, start: Value) -> Value {
        let index_ty = self.func.dfg.value_type(start).clone();
        let lane_numbers: Vec<Value> = (0..self.width)
            .map(|lane| self.func.dfg.int_const(index_ty.clone(), u128::from(lane)))
            .collect();
        let vector_ty = index_ty.vector_of(self.width);
        let ramp = self.func.dfg.make_const(vector_ty.clone(), Constant::Aggregate(lane_numbers));
        let splat = self
            .append_value(InstData::Splat { scalar: start, lanes: self.width }, vector_ty.clone());
        self.append_value(
            InstData::Binary {
                op: BinaryOp::Add,
                lhs: splat,
                rhs: ramp,
                flags: Default::default(),
            },
            vector_ty,
        )
    }

    /// Whether `start + 0 .. start + W-1` stay in range of the index type
    /// as `extension` reads it (`start <= MAX - (W-1)`, unsigned for `zext`,
    /// signed for `sext`): then the extended indices are consecutive too.
    /// A `start` that wrapped below the type's minimum (`index - lane`)
    /// lands above that limit, so it fails as well.
    fn run_does_not_wrap(&mut self, start: Value, extension: CastOp) -> Value {
        let index_ty = self.func.dfg.value_type(start).clone();
        let bits = index_ty.int_bits().expect("an integer index");
        let (pred, limit) = self.run_limit(extension, bits).expect("a run of W fits the type");
        let limit = self.func.dfg.int_const(index_ty, limit);
        self.append_value(InstData::Icmp { pred, lhs: start, rhs: limit }, Type::BOOL)
    }

    /// The comparison and the largest start of a run of W consecutive
    /// `bits`-bit indices that `extension` (`zext`: unsigned, `sext`:
    /// signed) extends without wrapping: `start <= MAX - (W-1)`. `None` for
    /// another cast or a type too narrow for W lanes.
    fn run_limit(&self, extension: CastOp, bits: u32) -> Option<(IntPredicate, u128)> {
        let span = u128::from(self.width - 1);
        let (pred, max) = match extension {
            CastOp::ZExt if bits < 128 => (IntPredicate::Ule, (1u128 << bits) - 1),
            CastOp::SExt if bits < 128 => (IntPredicate::Sle, (1u128 << (bits - 1)) - 1),
            _ => return None,
        };
        (max >= span).then(|| (pred, max - span))
    }

    /// `addrs` computed in the current block, for a gather or scatter: a
    /// copy of its `gep base, index` (scalar base), and of the extension
    /// that makes `index`, when they are in another block. LLVM's
    /// instruction selection finds a gather's scalar base and 32-bit
    /// indices (`vpgatherdd`) only in a GEP of the gather's own block
    /// (CodeGenPrepare does not sink one there); from another block it
    /// sees a vector of 64-bit pointers and gathers half the lanes at a
    /// time (two `vpgatherqd`). A gather behind a dynamic test is in a
    /// block of its own (bench ragged, whose tests never pass, ran 6-9%
    /// slower with them than without).
    pub(super) fn addresses_in_current_block(&mut self, addrs: Value) -> Value {
        let Some(chain) = self.address_chain(addrs) else { return addrs };
        let elsewhere = |this: &Self, value: Value| {
            this.func
                .dfg
                .defining_inst(value)
                .filter(|inst| this.func.layout.inst_block(*inst) != this.current)
        };
        if elsewhere(self, addrs).is_none() {
            return addrs;
        }
        let mut root = self.func.dfg.inst(chain.root).clone();
        if let Some(extension) = elsewhere(self, chain.index) {
            if let InstData::Cast { .. } = self.func.dfg.inst(extension) {
                let cast = self.func.dfg.inst(extension).clone();
                let ty = self.func.dfg.value_type(chain.index).clone();
                let copy = self.append_value(cast, ty);
                if let InstData::Gep { indices, .. } = &mut root {
                    indices[0] = copy;
                }
            }
        }
        let ty = self.func.dfg.value_type(addrs).clone();
        let mut address = self.append_value(root, ty.clone());
        for &step in &chain.steps {
            let mut data = self.func.dfg.inst(step).clone();
            if let InstData::Gep { base, .. } = &mut data {
                *base = address;
            }
            address = self.append_value(data, ty.clone());
        }
        address
    }

    /// `br ok, consecutive, scatter` with one vector store of `value` at
    /// `first` on the consecutive path; returns the join block, with the
    /// current block the scatter's path.
    fn consecutive_store_paths(
        &mut self,
        ok: Value,
        value: Value,
        first: Value,
        mask: Option<Value>,
        align: u32,
    ) -> lanewise_ir::Block {
        let prefix = self.next_guard_prefix();
        let slow = self.func.dfg.make_block(Some(format!("{prefix}.scatter")));
        self.consecutive_store_paths_into(&prefix, ok, value, first, mask, align, slow)
    }

    /// [`Self::consecutive_store_paths`] with the names' `prefix` and the
    /// scatter's block `slow` made by the caller (not yet in the layout: it
    /// may already be the target of a branch).
    #[allow(clippy::too_many_arguments)]
    fn consecutive_store_paths_into(
        &mut self,
        prefix: &str,
        ok: Value,
        value: Value,
        first: Value,
        mask: Option<Value>,
        align: u32,
        slow: lanewise_ir::Block,
    ) -> lanewise_ir::Block {
        let fast = self.func.dfg.make_block(Some(format!("{prefix}.consecutive")));
        let join = self.branch_to_diamond(prefix, ok, fast, slow);
        self.contiguous_store(value, first, align, mask);
        self.append(InstData::Jump { dest: join }, Type::Void);
        self.current = Some(slow);
        join
    }

    /// The test of a consecutive fast path for a scalar address `gep base,
    /// ext(i)` off a uniform base, where `i` is strided by 1 in its own
    /// width (a `uint` index `y * n + x` of OpenCL C or C): the lanes'
    /// indices `i0 + j` extend to `ext(i0) + j` unless they wrap, so the
    /// addresses are consecutive exactly when `i0 <= MAX - (W-1)` (`MAX` of
    /// the extension's signedness). One scalar comparison, where the
    /// general test compares W addresses. The same for an index `i & M`
    /// with `M = 2^k - 1` (LLVM's form of `zext(trunc(i))`, an `int`
    /// position it proved non-negative: `v[i - k - 1]`): the lanes hold
    /// `(i0 & M) + j` while `i0 & M <= M - (W-1)`, which the guard pages'
    /// scans of tests/programs test on every step of their inner loops
    /// (two W-lane comparisons of 64-bit indices per load before). GEPs of
    /// uniform offsets may follow the root (`&v[i & M] - 1`). Returns the
    /// condition and the address of lane 0 (`None` when the address is not
    /// of this form).
    fn extended_index_test(
        &mut self,
        addr: Value,
        elem_bytes: u64,
    ) -> Result<Option<(Value, Value)>, WidenError> {
        // The GEPs of uniform offsets after the root, outermost first.
        let mut steps = Vec::new();
        let mut current = addr;
        let (source_ty, base, index) = loop {
            let Some(gep) = self.scalar.dfg.defining_inst(current) else { return Ok(None) };
            let InstData::Gep { source_ty, base, indices, .. } = self.scalar.dfg.inst(gep).clone()
            else {
                return Ok(None);
            };
            if self.shapes.is_uniform(base) {
                if indices.len() != 1 {
                    return Ok(None);
                }
                break (source_ty, base, indices[0]);
            }
            if steps.len() == HEURISTIC_DEPTH as usize
                || !indices.iter().all(|index| self.shapes.is_uniform(*index))
            {
                return Ok(None);
            }
            steps.push(gep);
            current = base;
        };
        if self.data_layout.alloc_size(&source_ty) != elem_bytes {
            return Ok(None);
        }
        let Some(run) = self.index_run(index) else { return Ok(None) };
        let wide_ty = self.scalar.dfg.value_type(index).clone();
        let (ok, first_index) = match run {
            IndexRun::Extended { op, narrow } => {
                let first = self.lane0(narrow)?;
                let ok = self.run_does_not_wrap(first, op);
                (ok, self.cast(op, first, &wide_ty))
            }
            IndexRun::LowBits { wide, low_mask } => {
                let first = self.lane0(wide)?;
                let low_mask_value = self.func.dfg.int_const(wide_ty.clone(), low_mask);
                let low = self.binary(BinaryOp::And, first, low_mask_value);
                let limit = self.func.dfg.int_const(wide_ty, low_mask - u128::from(self.width - 1));
                let ok = self.append_value(
                    InstData::Icmp { pred: IntPredicate::Ule, lhs: low, rhs: limit },
                    Type::BOOL,
                );
                (ok, low)
            }
        };
        let base = self.lane0(base)?;
        let pointer_ty = self.func.dfg.value_type(base).clone();
        let mut first = self.append_value(
            InstData::Gep { source_ty, base, indices: vec![first_index], inbounds: false },
            pointer_ty.clone(),
        );
        for &step in steps.iter().rev() {
            let InstData::Gep { source_ty, indices, .. } = self.scalar.dfg.inst(step).clone()
            else {
                unreachable!("a step is a GEP")
            };
            let indices =
                indices.into_iter().map(|index| self.lane0(index)).collect::<Result<_, _>>()?;
            first = self.append_value(
                InstData::Gep { source_ty, base: first, indices, inbounds: false },
                pointer_ty.clone(),
            );
        }
        Ok(Some((ok, first)))
    }

    /// `index` (of the scalar function) as a run of consecutive indices
    /// whose wrapping one scalar comparison rules out (see
    /// [`Widener::extended_index_test`]), or `None`.
    fn index_run(&self, index: Value) -> Option<IndexRun> {
        let strided_by_one =
            |value: Value| self.shapes.shape(value).shape == lanewise_analysis::Shape::Strided(1);
        let inst = self.scalar.dfg.defining_inst(index)?;
        match self.scalar.dfg.inst(inst) {
            InstData::Cast { op, arg, .. } => {
                let Type::Int(bits) = self.scalar.dfg.value_type(*arg) else { return None };
                (self.run_limit(*op, *bits).is_some() && strided_by_one(*arg))
                    .then_some(IndexRun::Extended { op: *op, narrow: *arg })
            }
            InstData::Binary { op: BinaryOp::And, lhs, rhs, .. } => {
                let (wide, mask) = match (
                    self.scalar.dfg.int_constant(*rhs),
                    self.scalar.dfg.int_constant(*lhs),
                ) {
                    (Some(mask), _) => (*lhs, mask),
                    (None, Some(mask)) => (*rhs, mask),
                    (None, None) => return None,
                };
                let is_low_mask = mask != 0 && (mask & (mask + 1)) == 0;
                // A GEP sign-extends an index narrower than a pointer: the
                // lanes stay consecutive only below the sign bit.
                let bits = self.scalar.dfg.value_type(wide).int_bits()?;
                let fits = bits == 64 || (bits < 64 && mask < 1u128 << (bits - 1));
                (is_low_mask && fits && mask >= u128::from(self.width - 1) && strided_by_one(wide))
                    .then_some(IndexRun::LowBits { wide, low_mask: mask })
            }
            _ => None,
        }
    }

    /// `address` in every lane (in its address space, not necessarily 0).
    fn splat_address(&mut self, address: Value) -> Value {
        let pointer_ty = self.func.dfg.value_type(address).clone();
        self.append_value(
            InstData::Splat { scalar: address, lanes: self.width },
            pointer_ty.vector_of(self.width),
        )
    }

    /// The addresses of consecutive `elem_ty` elements from lane 0's
    /// (`base_splat`): `base_splat + <0, 1, .., W-1>` elements.
    fn consecutive_addresses(&mut self, base_splat: Value, elem_ty: &Type) -> Value {
        let width = self.width;
        let lane_numbers: Vec<Value> =
            (0..width).map(|lane| self.func.dfg.int_const(Type::I64, u128::from(lane))).collect();
        let ramp =
            self.func.dfg.make_const(Type::I64.vector_of(width), Constant::Aggregate(lane_numbers));
        let ptr_vector = self.func.dfg.value_type(base_splat).clone();
        self.append_value(
            InstData::Gep {
                source_ty: elem_ty.clone(),
                base: base_splat,
                indices: vec![ramp],
                inbounds: false,
            },
            ptr_vector,
        )
    }

    /// `addrs` (a value of the new function) as an [`AddressChain`]: a GEP
    /// of one vector index off a scalar base, then GEPs with scalar indices
    /// only (`&a[i].field`, `low + 5` of a pointer `low = data + 5 * i`).
    fn address_chain(&self, addrs: Value) -> Option<AddressChain> {
        let mut steps = Vec::new();
        let mut current = addrs;
        for _ in 0..HEURISTIC_DEPTH {
            let inst = self.func.dfg.defining_inst(current)?;
            let InstData::Gep { source_ty, base, indices, .. } = self.func.dfg.inst(inst) else {
                return None;
            };
            let vector_indices = indices
                .iter()
                .filter(|index| self.func.dfg.value_type(**index).is_vector())
                .count();
            if self.func.dfg.value_type(*base).is_ptr() {
                if indices.len() != 1 || vector_indices != 1 {
                    return None;
                }
                steps.reverse();
                return Some(AddressChain {
                    source_ty: source_ty.clone(),
                    base: *base,
                    index: indices[0],
                    root: inst,
                    steps,
                });
            }
            if vector_indices != 0 {
                return None;
            }
            steps.push(inst);
            current = *base;
        }
        None
    }

    /// The chain's steps applied to `address`, a scalar address at the
    /// chain's root: the address of the same lane at the chain's end.
    fn apply_steps(&mut self, address: Value, steps: &[Inst]) -> Value {
        let mut address = address;
        for &step in steps {
            let InstData::Gep { source_ty, indices, .. } = self.func.dfg.inst(step).clone() else {
                unreachable!("a step of an address chain is a GEP")
            };
            let pointer_ty = self.func.dfg.value_type(address).clone();
            address = self.append_value(
                InstData::Gep { source_ty, base: address, indices, inbounds: false },
                pointer_ty,
            );
        }
        address
    }

    /// `freeze addrs`: lanes that are poison (inactive ones may be) get
    /// some value, the others keep theirs.
    fn freeze(&mut self, addrs: Value) -> Value {
        let ty = self.func.dfg.value_type(addrs).clone();
        self.append_value(InstData::Freeze { arg: addrs }, ty)
    }

    /// No lane is active in `mask` where `addrs != expected`.
    fn all_active_lanes_match(
        &mut self,
        addrs: Value,
        expected: Value,
        mask: Value,
        mask_ty: &Type,
    ) -> Value {
        let differ = self.append_value(
            InstData::Icmp { pred: IntPredicate::Ne, lhs: addrs, rhs: expected },
            mask_ty.clone(),
        );
        // `select`, not `and`: an inactive lane's address may be poison.
        let active_differ = self.select_in_active_lanes(mask, differ, false);
        let bits = self.mask_bits(active_differ);
        let bits_ty = self.func.dfg.value_type(bits).clone();
        let none = self.func.dfg.int_const(bits_ty, 0);
        self.append_value(
            InstData::Icmp { pred: IntPredicate::Eq, lhs: bits, rhs: none },
            Type::BOOL,
        )
    }

    /// `condition && lane 0 of mask is active` (`condition` when there is
    /// no mask): a uniform fast path loads from lane 0's address, which
    /// must be an active lane's. (Testing from the first active lane would
    /// cost a variable lane extraction on every test; the uniform test
    /// serves searches whose lanes usually all stay active.)
    fn and_lane0_active(&mut self, condition: Value, mask: Option<Value>) -> Value {
        let Some(mask) = mask else { return condition };
        let zero = self.func.dfg.int_const(Type::I32, 0);
        let active =
            self.append_value(InstData::ExtractElement { vector: mask, index: zero }, Type::BOOL);
        self.append_value(
            InstData::Binary {
                op: BinaryOp::And,
                lhs: condition,
                rhs: active,
                flags: Default::default(),
            },
            Type::BOOL,
        )
    }
}
