//! Widening of memory accesses (Karrenberg 2014, 5.6.8 and 6.4.4): loads
//! and stores by the shape of their address (uniform: one scalar access;
//! strided by the element size: one vector access; otherwise a gather or
//! scatter where the ISA has them, else one access per lane in lane
//! order), masked in masked variants, counted for `--stats`; allocas of W
//! lane copies.

use lanewise_analysis::shapes::alloca_lane_stride;
use lanewise_analysis::Shape;
use lanewise_ir::vfabi::Isa;
use lanewise_ir::{Constant, FastMathFlags, Inst, InstData, Type, Value};

use super::{WidenError, Widened, Widener};

/// How a memory access is widened.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum AccessKind {
    Uniform,
    Contiguous,
    GatherScatter,
    Duplicated,
}

impl<'a> Widener<'a> {
    /// How an access of `ty` through `addr` is widened.
    pub(super) fn access_kind(
        &mut self,
        addr: Value,
        ty: &Type,
        volatile: bool,
    ) -> Result<AccessKind, WidenError> {
        if volatile {
            return Ok(AccessKind::Duplicated);
        }
        let element_bytes = self.data_layout.store_size(ty);
        let contiguous_type = self.packs_like_memory(ty);
        Ok(match self.widened(addr)? {
            Widened::Uniform(_) => AccessKind::Uniform,
            Widened::Strided { stride, .. }
                if contiguous_type && u64::try_from(stride).ok() == Some(element_bytes) =>
            {
                AccessKind::Contiguous
            }
            _ if ty.is_scalar() && matches!(self.config.isa, Isa::Avx2 | Isa::Avx512) => {
                AccessKind::GatherScatter
            }
            _ => AccessKind::Duplicated,
        })
    }

    /// Whether W values of `ty` side by side in memory are a `<W x ty>`
    /// vector's memory: whole bytes without padding. Not so for `i1`,
    /// which takes a byte in memory and a bit in a vector.
    pub(super) fn packs_like_memory(&self, ty: &Type) -> bool {
        let element_bytes = self.data_layout.store_size(ty);
        ty.is_scalar()
            && ty
                .scalar_bits()
                .is_some_and(|bits| bits % 8 == 0 && u64::from(bits) / 8 == element_bytes)
            && self.data_layout.alloc_size(ty) == element_bytes
    }

    /// The alignment of a contiguous vector access at `addr`: the scalar
    /// alignment, raised to what the shape analysis proves for lane 0 (never
    /// beyond the access size).
    pub(super) fn contiguous_alignment(
        &self,
        addr: Value,
        scalar_align: u32,
        vector_ty: &Type,
    ) -> u32 {
        let known = self.shapes.shape(addr).align.max(1);
        let proven = 1u64 << known.trailing_zeros();
        let access_bytes = self.data_layout.store_size(vector_ty).max(1);
        let cap = 1u64 << (63 - access_bytes.leading_zeros());
        let raised = proven.min(cap).min(u64::from(u32::MAX));
        scalar_align.max(raised as u32)
    }

    /// An all-true `<W x i1>` mask.
    pub(super) fn all_true_mask(&mut self) -> Value {
        let one = self.func.dfg.int_const(Type::BOOL, 1);
        let mask_ty = Type::BOOL.vector_of(self.width);
        self.func.dfg.make_const(mask_ty, Constant::Aggregate(vec![one; self.width as usize]))
    }

    /// Counts one memory access for the report.
    pub(super) fn count_access(
        &mut self,
        kind: AccessKind,
        addr: Value,
        store: bool,
        masked: bool,
    ) {
        let strided = matches!(self.values.widened.get(&addr), Some(Widened::Strided { .. }));
        let stats = &mut self.stats;
        match kind {
            AccessKind::Uniform => stats.uniform += 1,
            AccessKind::Contiguous => stats.contiguous += 1,
            _ if strided => stats.strided += 1,
            AccessKind::GatherScatter if store && self.config.native_scatter => stats.scatter += 1,
            AccessKind::GatherScatter if !store => stats.gather += 1,
            AccessKind::GatherScatter | AccessKind::Duplicated => stats.scalarized += 1,
        }
        if masked {
            stats.masked += 1;
        }
    }

    pub(super) fn widen_load(&mut self, inst: Inst) -> Result<(), WidenError> {
        let InstData::Load { ty, addr, align, volatile } = self.scalar.dfg.inst(inst).clone()
        else {
            unreachable!()
        };
        let kind = self.access_kind(addr, &ty, volatile)?;
        let mask = self.block_mask()?;
        self.count_access(kind, addr, false, mask.is_some());
        let widened = match (kind, mask) {
            (AccessKind::Uniform, None) => {
                let addr = self.lane0(addr)?;
                let load = InstData::Load { ty: ty.clone(), addr, align, volatile };
                Widened::Uniform(self.append_value(load, ty))
            }
            (AccessKind::Uniform, Some(mask)) => {
                // Load once, if any lane is active (the address may be
                // invalid when none is).
                let addr = self.lane0(addr)?;
                let loaded = self.emit_if_any_lane_active(mask, "load", |this| {
                    let load = InstData::Load { ty: ty.clone(), addr, align, volatile };
                    Ok(Some(this.append_value(load, ty.clone())))
                })?;
                Widened::Uniform(loaded.expect("a guarded load has a result"))
            }
            (AccessKind::Contiguous, mask) => {
                let vector_ty = self.vector_type(&ty)?;
                let vector_align = self.contiguous_alignment(addr, align, &vector_ty);
                let addr = self.lane0(addr)?;
                Widened::Vector(self.contiguous_load(vector_ty, addr, vector_align, mask))
            }
            (AccessKind::GatherScatter, mask) => {
                let vector_ty = self.vector_type(&ty)?;
                let addrs = self.vector(addr)?;
                let masked = mask.is_some();
                let mask = match mask {
                    Some(mask) => mask,
                    None => self.all_true_mask(),
                };
                // Dynamic variants (Karrenberg 2014, 7.1/7.2): a uniform or
                // consecutive fast path where the heuristic expects one.
                let mut tests = self.dynamic_gather_tests(addr, self.data_layout.alloc_size(&ty));
                // A vector load of `i1`s would read bits, not bytes.
                tests.consecutive &= self.packs_like_memory(&ty);
                if tests.uniform || tests.consecutive {
                    Widened::Vector(self.gather_with_dynamic_variants(
                        tests, &ty, vector_ty, addr, addrs, mask, masked, align,
                    )?)
                } else {
                    let passthru = self.func.dfg.make_const(vector_ty.clone(), Constant::Poison);
                    let gather =
                        InstData::Gather { ty: vector_ty.clone(), addrs, mask, passthru, align };
                    Widened::Vector(self.append_value(gather, vector_ty))
                }
            }
            (AccessKind::Duplicated, None) => {
                let mut lanes = Vec::new();
                for lane in 0..self.width {
                    let addr = self.lane(addr, lane)?;
                    let load = InstData::Load { ty: ty.clone(), addr, align, volatile };
                    lanes.push(self.append_value(load, ty.clone()));
                }
                Widened::Lanes(lanes)
            }
            (AccessKind::Duplicated, Some(mask)) => {
                let lanes = self.emit_per_lane_guarded(mask, "load", |this, lane| {
                    let addr = this.lane(addr, lane)?;
                    let load = InstData::Load { ty: ty.clone(), addr, align, volatile };
                    Ok(Some(this.append_value(load, ty.clone())))
                })?;
                Widened::Lanes(lanes.expect("guarded loads have results"))
            }
        };
        self.define_result(inst, widened);
        Ok(())
    }

    /// Whether the scalar address `addr` points into address space 0.
    pub(super) fn in_default_address_space(&self, addr: Value) -> bool {
        *self.scalar.dfg.value_type(addr).scalar_type() == Type::PTR
    }

    /// A vector load of `vector_ty` at `addr`, masked if `mask` is given
    /// (inactive lanes are poison; a page-safe speculative load where one
    /// applies, see [`super::page_safe_loads`]).
    pub(super) fn contiguous_load(
        &mut self,
        vector_ty: Type,
        addr: Value,
        align: u32,
        mask: Option<Value>,
    ) -> Value {
        let data = match mask {
            None => InstData::Load { ty: vector_ty.clone(), addr, align, volatile: false },
            Some(mask) => {
                if let Some(loaded) = self.page_safe_load(&vector_ty, addr, align, mask) {
                    return loaded;
                }
                let passthru = self.func.dfg.make_const(vector_ty.clone(), Constant::Poison);
                InstData::MaskedLoad { ty: vector_ty.clone(), addr, mask, passthru, align }
            }
        };
        self.append_value(data, vector_ty)
    }

    /// A vector store of `value` at `addr`, masked if `mask` is given.
    pub(super) fn contiguous_store(
        &mut self,
        value: Value,
        addr: Value,
        align: u32,
        mask: Option<Value>,
    ) {
        let data = match mask {
            None => InstData::Store { value, addr, align, volatile: false },
            Some(mask) => InstData::MaskedStore { value, addr, mask, align },
        };
        self.append(data, Type::Void);
    }

    pub(super) fn widen_store(&mut self, inst: Inst) -> Result<(), WidenError> {
        let InstData::Store { value, addr, align, volatile } = self.scalar.dfg.inst(inst).clone()
        else {
            unreachable!()
        };
        let ty = self.scalar.dfg.value_type(value).clone();
        let kind = self.access_kind(addr, &ty, volatile)?;
        let mask = self.block_mask()?;
        self.count_access(kind, addr, true, mask.is_some());
        // Dynamic variant: a consecutive fast path before the scatter.
        let join = match kind {
            AccessKind::GatherScatter if !volatile => {
                self.begin_consecutive_store(addr, &ty, value, mask, align)?
            }
            _ => None,
        };
        self.store_by_kind(kind, mask, value, addr, &ty, align, volatile)?;
        if let Some(join) = join {
            self.append(InstData::Jump { dest: join }, Type::Void);
            self.current = Some(join);
        }
        Ok(())
    }

    /// The store of `widen_store` for an access of `kind`.
    #[allow(clippy::too_many_arguments)]
    fn store_by_kind(
        &mut self,
        kind: AccessKind,
        mask: Option<Value>,
        value: Value,
        addr: Value,
        ty: &Type,
        align: u32,
        volatile: bool,
    ) -> Result<(), WidenError> {
        let ty = ty.clone();
        match (kind, mask) {
            (AccessKind::Uniform, None) => {
                // Lanes store in order: the last lane's value is what remains.
                let last_lane = if self.is_uniform(value)? { 0 } else { self.width - 1 };
                let value = self.lane(value, last_lane)?;
                let addr = self.lane0(addr)?;
                self.append(InstData::Store { value, addr, align, volatile }, Type::Void);
            }
            (AccessKind::Uniform, Some(mask)) => {
                // Once if any lane is active, with the highest active lane's value.
                let addr = self.lane0(addr)?;
                let uniform_value = self.is_uniform(value)?;
                let stored = if uniform_value { Some(self.lane0(value)?) } else { None };
                self.emit_if_any_lane_active(mask, "store", |this| {
                    let value = match stored {
                        Some(value) => value,
                        None => this.highest_active_lane_value(value, mask)?,
                    };
                    this.append(InstData::Store { value, addr, align, volatile }, Type::Void);
                    Ok(None)
                })?;
            }
            (AccessKind::Contiguous, mask) => {
                let vector_ty = self.vector_type(&ty)?;
                let vector_align = self.contiguous_alignment(addr, align, &vector_ty);
                let value = self.vector(value)?;
                let addr = self.lane0(addr)?;
                self.contiguous_store(value, addr, vector_align, mask);
            }
            (AccessKind::GatherScatter, mask) if self.config.native_scatter => {
                let value = self.vector(value)?;
                let addrs = self.vector(addr)?;
                let addrs = self.addresses_in_current_block(addrs);
                let mask = match mask {
                    Some(mask) => mask,
                    None => self.all_true_mask(),
                };
                self.append(InstData::Scatter { value, addrs, mask, align }, Type::Void);
            }
            (AccessKind::GatherScatter | AccessKind::Duplicated, None) => {
                for lane in 0..self.width {
                    let lane_value = self.lane(value, lane)?;
                    let lane_addr = self.lane(addr, lane)?;
                    let store =
                        InstData::Store { value: lane_value, addr: lane_addr, align, volatile };
                    self.append(store, Type::Void);
                }
            }
            (AccessKind::GatherScatter | AccessKind::Duplicated, Some(mask))
                if !volatile && self.in_default_address_space(addr) =>
            {
                // Branch-free masked scatter: inactive lanes store to a
                // private scratch slot instead of their address, so the W
                // scalar stores need no guards (no mispredicted branches)
                // and active lanes still store in lane order. The slot is a
                // stack slot, in address space 0: a vector of pointers holds
                // one address space, so other address spaces take the
                // guarded path below.
                let scratch = self.scratch_slot(&ty);
                let addrs = self.vector(addr)?;
                let scratch_lanes = self.append_value(
                    InstData::Splat { scalar: scratch, lanes: self.width },
                    Type::PTR.vector_of(self.width),
                );
                let safe_addrs = self.append_value(
                    InstData::Select {
                        cond: mask,
                        if_true: addrs,
                        if_false: scratch_lanes,
                        flags: FastMathFlags::default(),
                    },
                    Type::PTR.vector_of(self.width),
                );
                for lane in 0..self.width {
                    let lane_value = self.lane(value, lane)?;
                    let index = self.func.dfg.int_const(Type::I32, u128::from(lane));
                    let lane_addr = self.append_value(
                        InstData::ExtractElement { vector: safe_addrs, index },
                        Type::PTR,
                    );
                    let store =
                        InstData::Store { value: lane_value, addr: lane_addr, align, volatile };
                    self.append(store, Type::Void);
                }
            }
            (AccessKind::GatherScatter | AccessKind::Duplicated, Some(mask)) => {
                self.emit_per_lane_guarded(mask, "store", |this, lane| {
                    let lane_value = this.lane(value, lane)?;
                    let lane_addr = this.lane(addr, lane)?;
                    let store =
                        InstData::Store { value: lane_value, addr: lane_addr, align, volatile };
                    this.append(store, Type::Void);
                    Ok(None)
                })?;
            }
        }
        Ok(())
    }

    /// A private slot of type `ty` in the entry block that inactive lanes of
    /// a branch-free scatter write to (never read).
    pub(super) fn scratch_slot(&mut self, ty: &Type) -> Value {
        let entry = self.func.entry_block().expect("the widened function has an entry block");
        let one = self.func.dfg.int_const(Type::I32, 1);
        let align = self.data_layout.abi_align(ty) as u32;
        let alloca = self
            .func
            .dfg
            .make_inst(InstData::Alloca { ty: ty.clone(), count: one, align }, Type::PTR);
        self.func.layout.insert_inst_at(alloca, entry, 0);
        self.func.dfg.result(alloca).expect("an alloca has a result")
    }

    /// A strided alloca becomes one alloca of W copies; lane i's copy starts
    /// at `base + i*stride` (the stride keeps each copy aligned like the
    /// scalar alloca, see [`alloca_lane_stride`]).
    pub(super) fn widen_alloca(&mut self, inst: Inst) -> Result<(), WidenError> {
        let InstData::Alloca { ty, count, align } = self.scalar.dfg.inst(inst).clone() else {
            unreachable!()
        };
        let shape = self.result_shape(inst)?;
        let widened = match shape {
            Shape::Uniform => {
                let data = self.lane0_copy(inst)?;
                Widened::Uniform(self.append_value(data, Type::PTR))
            }
            Shape::Strided(stride) => {
                let Some(count_value) = self.scalar.dfg.int_constant(count) else {
                    return Err(self.unsupported("a strided alloca needs a constant element count"));
                };
                let align_bytes =
                    if align == 0 { self.data_layout.abi_align(&ty) } else { u64::from(align) };
                let expected_stride =
                    alloca_lane_stride(self.data_layout.alloc_size(&ty), count_value, align_bytes);
                if expected_stride != i128::from(stride) || stride <= 0 {
                    return Err(self.unsupported(format!(
                        "the alloca is marked Strided({stride}) but one aligned copy of {} x {} \
                         bytes takes {expected_stride}",
                        count_value,
                        self.data_layout.alloc_size(&ty)
                    )));
                }
                // W copies of `stride` bytes each, lane i's at base + i*stride.
                let len = (stride as u64).checked_mul(u64::from(self.width));
                let len = len.ok_or_else(|| self.unsupported("alloca size overflows"))?;
                let count_ty = self.scalar.dfg.value_type(count).clone();
                let one = self.func.dfg.int_const(count_ty, 1);
                let copies_ty = Type::Array { elem: Box::new(Type::I8), len };
                let alloca = InstData::Alloca { ty: copies_ty, count: one, align };
                Widened::Strided { lane0: self.append_value(alloca, Type::PTR), stride }
            }
            _ => return Err(self.unsupported("an alloca with a varying address")),
        };
        self.define_result(inst, widened);
        Ok(())
    }
}
