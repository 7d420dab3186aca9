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
//! address of lane 0 (which must be active):
//!
//! ```text
//!     same = addrs == splat(addrs[0]);  next = addrs == addrs[0] + <0, 1, .., W-1>
//!     br (mask[0] && no active lane with !same), uniform, test_next
//! uniform:   x = load addrs[0]; splat(x)           ; one scalar load
//! test_next: br (mask[0] && no active lane with !next), consecutive, gather
//! consecutive: masked vector load at addrs[0]       ; the active lanes' addresses
//! gather:    the gather
//! ```
//!
//! The consecutive fast path is also taken when lane 0 is inactive, if the
//! addresses of all W lanes, frozen, are consecutive: a masked vector load
//! or store then touches the active lanes' addresses only, which freezing
//! leaves as they are (an active lane's address is never poison where the
//! scalar code is defined). A store under a mask that is usually false (a
//! relaxation `if (t < d[i]) d[i] = t`) took the scatter path with lane 0
//! inactive, and AVX-512 scatters cost their full time with an empty mask
//! (floyd_warshall of tests/opencl: 34 ms, 9.9 ms in PoCL).
//!
//! Each fast path touches exactly the bytes the active lanes would, so it is
//! safe wherever the gather is. The tests cost a handful of vector
//! instructions and a branch each, well predicted when the data usually
//! agree or usually do not, but paid by every gather that gets them, so a
//! static heuristic ([`Widener::dynamic_gather_tests`]) decides which test a
//! gather gets:
//!
//! - the consecutive test, when the address is *piecewise consecutive*: a
//!   select or phi whose arms are all consecutive (`j = i + k` and its
//!   wrapped-around `j - n`), through casts, uniform offsets and GEPs off a
//!   uniform base;
//! - the uniform test, when the address depends on a *recurrence that starts
//!   uniform*: a loop-header phi entered with a uniform value and carried
//!   with a varying one (a search position: the node of a tree walk, the
//!   bounds of a binary search). Every lane starts at the same place and
//!   lanes with similar queries stay together.
//!
//! Gathers from anything else (table lookups by hashed or loaded indices)
//! are left alone.

use std::collections::HashSet;

use lanewise_ir::{BinaryOp, CastOp, Constant, InstData, IntPredicate, Type, Value};

use super::{WidenError, Widener};

/// The run-time tests a gather gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct DynamicGatherTests {
    pub uniform: bool,
    pub consecutive: bool,
}

/// How far back the heuristics follow an address.
const HEURISTIC_DEPTH: u32 = 8;

impl Widener<'_> {
    /// Which tests a gather of `elem_bytes`-byte elements at the scalar
    /// address `addr` gets (see the module docs).
    pub(super) fn dynamic_gather_tests(&self, addr: Value, elem_bytes: u64) -> DynamicGatherTests {
        DynamicGatherTests {
            uniform: self.starts_uniform(addr, HEURISTIC_DEPTH, &mut HashSet::new()),
            consecutive: self.likely_stride(addr, HEURISTIC_DEPTH) == Some(i128::from(elem_bytes)),
        }
    }

    /// The stride `addr` has in every lane when the varying choices of the
    /// selects and phis on the way agree: `Some(k)` for a value that is
    /// `Strided(k)` (uniform: `Some(0)`) or a select or phi of such values.
    fn likely_stride(&self, value: Value, depth: u32) -> Option<i128> {
        match self.shapes.shape(value).shape {
            lanewise_analysis::Shape::Strided(stride) => return Some(i128::from(stride)),
            lanewise_analysis::Shape::Uniform => return Some(0),
            _ if depth == 0 => return None,
            _ => {}
        }
        let inst = self.scalar.dfg.defining_inst(value)?;
        let same = |values: &mut dyn Iterator<Item = Value>| -> Option<i128> {
            let strides: Vec<Option<i128>> =
                values.map(|value| self.likely_stride(value, depth - 1)).collect();
            let first = (*strides.first()?)?;
            strides.iter().all(|stride| *stride == Some(first)).then_some(first)
        };
        match self.scalar.dfg.inst(inst) {
            InstData::Select { if_true, if_false, .. } => {
                same(&mut [*if_true, *if_false].into_iter())
            }
            InstData::Phi { incoming, .. } => {
                same(&mut incoming.iter().map(|(_, value)| *value).filter(|value| {
                    !matches!(self.scalar.dfg.constant(*value), Some(Constant::Poison))
                }))
            }
            InstData::Cast { op: CastOp::SExt | CastOp::ZExt | CastOp::Trunc, arg, .. } => {
                self.likely_stride(*arg, depth - 1)
            }
            InstData::Binary { op: BinaryOp::Add, lhs, rhs, .. } => {
                Some(self.likely_stride(*lhs, depth - 1)? + self.likely_stride(*rhs, depth - 1)?)
            }
            InstData::Binary { op: BinaryOp::Sub, lhs, rhs, .. } => {
                Some(self.likely_stride(*lhs, depth - 1)? - self.likely_stride(*rhs, depth - 1)?)
            }
            InstData::Gep { source_ty, base, indices, .. } if indices.len() == 1 => {
                let element = i128::from(self.data_layout.alloc_size(source_ty));
                Some(
                    self.likely_stride(*base, depth - 1)?
                        + self.likely_stride(indices[0], depth - 1)? * element,
                )
            }
            _ => None,
        }
    }

    /// Whether `value` depends (through address arithmetic, selects, phis
    /// and loads' addresses) on a loop-header phi entered with a uniform
    /// value and carried around the loop with a varying one.
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
        let zero = self.func.dfg.int_const(Type::I32, 0);
        let lane0_active = masked.then(|| {
            self.append_value(InstData::ExtractElement { vector: mask, index: zero }, Type::BOOL)
        });
        // The fast paths to test, in order: (condition, is the uniform one),
        // and the address of lane 0.
        let mut fast_paths = Vec::new();
        let indexed = if tests.consecutive { None } else { self.uniform_base_and_index(addrs) };
        let elem_bytes = self.data_layout.alloc_size(elem_ty);
        let extended = if tests.consecutive && !tests.uniform {
            self.extended_index_test(scalar_addr, elem_bytes)?
        } else {
            None
        };
        let first = if let Some((ok, first)) = extended {
            fast_paths.push((ok, false));
            first
        } else if let Some((source_ty, base, index)) = indexed {
            // Only the uniform test, of `gep base, index` with a scalar base:
            // it compares the indices (equal indices, equal addresses: GEP
            // sign-extends them, which is one to one), so the gather keeps
            // its scalar base and narrow indices (`vpgatherdd`) instead of
            // sharing a vector of 64-bit pointers with the test.
            let index_ty = self.func.dfg.value_type(index).scalar_type().clone();
            let first_index = self
                .append_value(InstData::ExtractElement { vector: index, index: zero }, index_ty);
            let index_vector_ty = self.func.dfg.value_type(index).clone();
            let first_index_splat = self.append_value(
                InstData::Splat { scalar: first_index, lanes: width },
                index_vector_ty,
            );
            let ok =
                self.all_active_lanes_match(index, first_index_splat, mask, lane0_active, &mask_ty);
            fast_paths.push((ok, true));
            let pointer_ty = self.func.dfg.value_type(base).scalar_type().clone();
            self.append_value(
                InstData::Gep { source_ty, base, indices: vec![first_index], inbounds: false },
                pointer_ty,
            )
        } else {
            let tested = if masked { self.freeze(addrs) } else { addrs };
            let (first, first_splat) = self.lane0_address(tested);
            if tests.uniform {
                let ok =
                    self.all_active_lanes_match(tested, first_splat, mask, lane0_active, &mask_ty);
                fast_paths.push((ok, true));
            }
            if tests.consecutive {
                let consecutive = self.consecutive_addresses(first_splat, elem_ty);
                let ok = self.consecutive_in_active_or_all_lanes(
                    tested,
                    consecutive,
                    mask,
                    lane0_active,
                    &mask_ty,
                );
                fast_paths.push((ok, false));
            }
            first
        };

        let before = self.current.expect("a current block");
        let prefix = self.next_guard_prefix();
        let mut last = before;
        let mut new_block = |this: &mut Self, label: &str| {
            let block = this.func.dfg.make_block(Some(format!("{prefix}.{label}")));
            this.func.layout.insert_block_after(block, last);
            last = block;
            block
        };
        let mut incoming = Vec::new();
        let mut pending_joins = Vec::new();
        for (ok, uniform) in fast_paths {
            let fast = new_block(self, if uniform { "uniform" } else { "consecutive" });
            let next = new_block(self, "next");
            self.append(
                InstData::Branch { cond: ok, then_dest: fast, else_dest: next },
                Type::Void,
            );
            self.current = Some(fast);
            let value = if uniform {
                let scalar = self.append_value(
                    InstData::Load { ty: elem_ty.clone(), addr: first, align, volatile: false },
                    elem_ty.clone(),
                );
                self.append_value(InstData::Splat { scalar, lanes: width }, vector_ty.clone())
            } else {
                self.contiguous_load(vector_ty.clone(), first, align, masked.then_some(mask))
            };
            incoming.push((fast, value));
            pending_joins.push(fast);
            self.current = Some(next);
        }
        let passthru = self.func.dfg.make_const(vector_ty.clone(), Constant::Poison);
        let gathered = self.append_value(
            InstData::Gather { ty: vector_ty.clone(), addrs, mask, passthru, align },
            vector_ty.clone(),
        );
        let gather_block = self.current.expect("a current block");
        incoming.push((gather_block, gathered));
        pending_joins.push(gather_block);
        let join = new_block(self, "join");
        for block in pending_joins {
            self.current = Some(block);
            self.append(InstData::Jump { dest: join }, Type::Void);
        }
        self.current = Some(join);
        Ok(self.append_value(InstData::Phi { ty: vector_ty.clone(), incoming }, vector_ty))
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
        let elem_bytes = i128::from(self.data_layout.alloc_size(elem_ty));
        if !self.packs_like_memory(elem_ty)
            || self.likely_stride(addr, HEURISTIC_DEPTH) != Some(elem_bytes)
        {
            return Ok(None);
        }
        let vector_value = self.vector(value)?;
        if let Some((ok, first)) = self.extended_index_test(addr, elem_bytes as u64)? {
            return Ok(Some(self.consecutive_store_paths(ok, vector_value, first, mask, align)));
        }
        let width = self.width;
        let mask_ty = Type::BOOL.vector_of(width);
        let addrs = self.vector(addr)?;
        let zero = self.func.dfg.int_const(Type::I32, 0);
        let (all_lanes, lane0_active) = match mask {
            Some(mask) => {
                let active = self.append_value(
                    InstData::ExtractElement { vector: mask, index: zero },
                    Type::BOOL,
                );
                (mask, Some(active))
            }
            None => (self.all_true_mask(), None),
        };
        let tested = if mask.is_some() { self.freeze(addrs) } else { addrs };
        let (first, first_splat) = self.lane0_address(tested);
        let consecutive = self.consecutive_addresses(first_splat, elem_ty);
        let ok = self.consecutive_in_active_or_all_lanes(
            tested,
            consecutive,
            all_lanes,
            lane0_active,
            &mask_ty,
        );
        Ok(Some(self.consecutive_store_paths(ok, vector_value, first, mask, align)))
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
        let before = self.current.expect("a current block");
        let prefix = self.next_guard_prefix();
        let fast = self.func.dfg.make_block(Some(format!("{prefix}.consecutive")));
        let slow = self.func.dfg.make_block(Some(format!("{prefix}.scatter")));
        let join = self.func.dfg.make_block(Some(format!("{prefix}.join")));
        self.func.layout.insert_block_after(fast, before);
        self.func.layout.insert_block_after(slow, fast);
        self.func.layout.insert_block_after(join, slow);
        self.append(InstData::Branch { cond: ok, then_dest: fast, else_dest: slow }, Type::Void);
        self.current = Some(fast);
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
    /// general test compares W addresses. Returns the condition and the
    /// address of lane 0 (`None` when the address is not of this form).
    fn extended_index_test(
        &mut self,
        addr: Value,
        elem_bytes: u64,
    ) -> Result<Option<(Value, Value)>, WidenError> {
        let Some(gep) = self.scalar.dfg.defining_inst(addr) else { return Ok(None) };
        let InstData::Gep { source_ty, base, indices, .. } = self.scalar.dfg.inst(gep).clone()
        else {
            return Ok(None);
        };
        if indices.len() != 1
            || self.data_layout.alloc_size(&source_ty) != elem_bytes
            || !self.shapes.is_uniform(base)
        {
            return Ok(None);
        }
        let Some(extension) = self.scalar.dfg.defining_inst(indices[0]) else { return Ok(None) };
        let InstData::Cast { op, arg: index, .. } = self.scalar.dfg.inst(extension).clone() else {
            return Ok(None);
        };
        let Type::Int(bits) = self.scalar.dfg.value_type(index).clone() else { return Ok(None) };
        let span = u128::from(self.width - 1);
        let (pred, max) = match op {
            CastOp::ZExt if bits < 128 => (IntPredicate::Ule, (1u128 << bits) - 1),
            CastOp::SExt if bits < 128 => (IntPredicate::Sle, (1u128 << (bits - 1)) - 1),
            _ => return Ok(None),
        };
        if self.shapes.shape(index).shape != lanewise_analysis::Shape::Strided(1) || max < span {
            return Ok(None);
        }
        let index_ty = Type::Int(bits);
        let wide_ty = self.scalar.dfg.value_type(indices[0]).clone();
        let first_index = self.lane0(index)?;
        let limit = self.func.dfg.int_const(index_ty, max - span);
        let ok =
            self.append_value(InstData::Icmp { pred, lhs: first_index, rhs: limit }, Type::BOOL);
        let extended = self.append_value(
            InstData::Cast { op, arg: first_index, to: wide_ty.clone(), flags: Default::default() },
            wide_ty,
        );
        let base = self.lane0(base)?;
        let pointer_ty = self.func.dfg.value_type(base).clone();
        let first = self.append_value(
            InstData::Gep { source_ty, base, indices: vec![extended], inbounds: false },
            pointer_ty,
        );
        Ok(Some((ok, first)))
    }

    /// Lane 0's address of the vector of addresses `addrs`, and its splat
    /// (in the pointers' address space, not necessarily 0).
    fn lane0_address(&mut self, addrs: Value) -> (Value, Value) {
        let pointer_ty = self.func.dfg.value_type(addrs).scalar_type().clone();
        let zero = self.func.dfg.int_const(Type::I32, 0);
        let first = self.append_value(
            InstData::ExtractElement { vector: addrs, index: zero },
            pointer_ty.clone(),
        );
        let splat = self.append_value(
            InstData::Splat { scalar: first, lanes: self.width },
            pointer_ty.vector_of(self.width),
        );
        (first, splat)
    }

    /// The addresses of consecutive `elem_ty` elements from lane 0's:
    /// `first_splat + <0, 1, .., W-1>` elements.
    fn consecutive_addresses(&mut self, first_splat: Value, elem_ty: &Type) -> Value {
        let width = self.width;
        let lane_numbers: Vec<Value> =
            (0..width).map(|lane| self.func.dfg.int_const(Type::I64, u128::from(lane))).collect();
        let ramp =
            self.func.dfg.make_const(Type::I64.vector_of(width), Constant::Aggregate(lane_numbers));
        let ptr_vector = self.func.dfg.value_type(first_splat).clone();
        self.append_value(
            InstData::Gep {
                source_ty: elem_ty.clone(),
                base: first_splat,
                indices: vec![ramp],
                inbounds: false,
            },
            ptr_vector,
        )
    }

    /// `(source type, base, index)` if the vector of addresses `addrs` (a
    /// value of the new function) is a GEP of one vector index off a scalar
    /// base.
    fn uniform_base_and_index(&self, addrs: Value) -> Option<(Type, Value, Value)> {
        let inst = self.func.dfg.defining_inst(addrs)?;
        match self.func.dfg.inst(inst) {
            InstData::Gep { source_ty, base, indices, .. }
                if indices.len() == 1
                    && self.func.dfg.value_type(*base).is_ptr()
                    && self.func.dfg.value_type(indices[0]).is_vector() =>
            {
                Some((source_ty.clone(), *base, indices[0]))
            }
            _ => None,
        }
    }

    /// `freeze addrs`: lanes that are poison (inactive ones may be) get
    /// some value, the others keep theirs.
    fn freeze(&mut self, addrs: Value) -> Value {
        let ty = self.func.dfg.value_type(addrs).clone();
        self.append_value(InstData::Freeze { arg: addrs }, ty)
    }

    /// The test of a consecutive fast path: the active lanes' addresses
    /// match `expected` with lane 0 active, or (when lane 0 may be
    /// inactive) all lanes' frozen addresses `addrs` match it (see the
    /// module docs).
    fn consecutive_in_active_or_all_lanes(
        &mut self,
        addrs: Value,
        expected: Value,
        mask: Value,
        lane0_active: Option<Value>,
        mask_ty: &Type,
    ) -> Value {
        let in_active_lanes =
            self.all_active_lanes_match(addrs, expected, mask, lane0_active, mask_ty);
        if lane0_active.is_none() {
            return in_active_lanes;
        }
        let all_lanes = self.all_true_mask();
        let in_all_lanes = self.all_active_lanes_match(addrs, expected, all_lanes, None, mask_ty);
        self.append_value(
            InstData::Binary {
                op: BinaryOp::Or,
                lhs: in_active_lanes,
                rhs: in_all_lanes,
                flags: Default::default(),
            },
            Type::BOOL,
        )
    }

    /// `lane0_active && no lane is active in mask where addrs != expected`
    /// (`lane0_active` is `None` for an unmasked access).
    fn all_active_lanes_match(
        &mut self,
        addrs: Value,
        expected: Value,
        mask: Value,
        lane0_active: Option<Value>,
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
        let all_match = self.append_value(
            InstData::Icmp { pred: IntPredicate::Eq, lhs: bits, rhs: none },
            Type::BOOL,
        );
        match lane0_active {
            None => all_match,
            Some(active) => self.append_value(
                InstData::Binary {
                    op: BinaryOp::And,
                    lhs: all_match,
                    rhs: active,
                    flags: Default::default(),
                },
                Type::BOOL,
            ),
        }
    }
}
