//! Page-safe speculative loads: a masked contiguous load becomes an
//! unmasked one where the hardware cannot fault.
//!
//! A masked vector load (`vmaskmovps`, `vmovdqu32 {k}`) waits for its mask.
//! In a divergent search loop the mask of one iteration comes from the
//! values the previous one loaded (`while (v[i + 1] > v[i]) i++`), so the
//! loop's critical path runs mask -> load -> compare -> mask, and the load
//! cannot start early. An unmasked load needs only its address. It may read
//! bytes no active lane reads, and those may not be mapped; but memory is
//! mapped a page at a time, so a load that lies within one page
//! ([`PAGE_BYTES`]) together with one active lane's element reads mapped
//! memory. The inactive lanes' values are poison in the masked load
//! anyway.
//!
//! ```text
//!     ok = any(mask) && (addr & 4095) <= 4096 - size   ; select, not `and`
//!     br ok, speculative, masked
//! speculative: speculative_load addr                    ; vmovups
//! masked:      masked_load addr, mask
//! join:        phi
//! ```
//!
//! Where the vector crosses into the next page, the masked load would be
//! safe, but on x86 a masked load whose masked-off lanes fall into an
//! unmapped page takes a microcode assist to suppress their faults (AMD Zen
//! 5: the guard-page scans of tests/programs/guard_page_scans.c, rising
//! runs at n = 1000 with an unmapped page right after the array, ran 1.18
//! ns per element against 0.57 ns elsewhere; the program 3.35 ms -> 1.66
//! ms, clang's scalar code 2.23 ms). So on AVX2 and AVX-512 the masked
//! path first asks whether any lane is active (if not, the masked load as
//! before), then whether the active lanes read both pages (then both are
//! mapped and the masked load is fast), and else gathers the active lanes,
//! which touches their elements only:
//!
//! ```text
//! masked:      br bits == 0, masked_load, crossing
//! crossing:    j = (4096 - (addr & 4095)) / elem_bytes       ; lanes in the first page
//!              br (bits & (1 << j) - 1) != 0 && (bits >> j) != 0, masked_load, gather
//! masked_load: masked_load addr, mask
//! gather:      gather addr + <0, 1, ..>, mask
//! ```
//!
//! `crossing` and `gather` run once per page of a run and are marked cold
//! ([`lanewise_ir::BlockData::cold`]): cost models leave them out.
//!
//! `any(mask)` is left out where the block runs only while some lane is
//! active ([`crate::BlockPredicates::some_lane_active`]: a divergent loop's
//! body, a region behind a BOSCC guard), and the page test where the
//! alignment the load is known to have already keeps it within a page (an
//! aligned access no larger than its alignment never crosses one). With
//! both known there is no branch at all. The condition is `select any,
//! in_page, false`: with no lane active `addr` may be poison, and a branch
//! on poison is undefined behaviour; the select's result is `false` then.
//!
//! LLVM has no load that may read past its object (a plain load there is
//! undefined behaviour, whatever the hardware does), so
//! [`InstData::SpeculativeLoad`] is lowered to inline assembly, opaque to
//! LLVM (`lanewise_llvm::lower`). Tools that check memory accesses see the
//! reads: valgrind's memcheck reports the bytes past an allocation as
//! invalid reads; AddressSanitizer does not instrument inline assembly. A
//! byte another thread writes is read, but no lane uses it.
//!
//! A vector of two to four registers (`<32 x i32>` on AVX-512, the width
//! of `omp simd` bodies with 32-bit lanes there) is loaded a register at a
//! time, each part behind the tests of its own lanes and its own page, and
//! the parts concatenated.
//!
//! `--speculative-loads off` keeps the masked loads (ablation).

use lanewise_ir::{BinaryOp, CastOp, Constant, InstData, IntPredicate, Type, Value, PAGE_BYTES};

use super::Widener;
use lanewise_ir::vfabi::Isa;

impl Widener<'_> {
    /// The masked contiguous load of `vector_ty` at `addr` (lane 0's
    /// address) under `mask` as a page-safe speculative load (see the module
    /// docs), or `None` where it does not apply: turned off, a vector that
    /// fills neither one of the variant's registers nor up to four of them,
    /// or an address outside address space 0. A vector of several registers
    /// (`<32 x i32>` on AVX-512) is loaded a register at a time, each part
    /// with the test of its own lanes and its own page.
    pub(super) fn page_safe_load(
        &mut self,
        vector_ty: &Type,
        addr: Value,
        align: u32,
        mask: Value,
    ) -> Option<Value> {
        let register_bits = u64::from(self.config.isa.register_bits());
        let bits = vector_ty.vector_bits().unwrap_or(0);
        let (Some(lanes), true) = (
            vector_ty.lanes(),
            self.config.speculative_loads && *self.func.dfg.value_type(addr) == Type::PTR,
        ) else {
            return None;
        };
        let parts = if bits <= register_bits { 1 } else { bits / register_bits };
        let part_ty = vector_ty.scalar_type().vector_of(lanes / parts as u32);
        let splits_evenly = bits == parts * part_ty.vector_bits().unwrap_or(0);
        if !(part_ty.fills_one_vector_register() && splits_evenly && parts <= 4) {
            return None;
        }
        self.stats.speculative += 1;
        if parts == 1 {
            let (scalar_block, _) = self.location.expect("widening an instruction");
            let known_active = self.predicates.some_lane_active(scalar_block);
            return Some(self.register_page_safe_load(vector_ty, addr, align, mask, known_active));
        }
        let part_lanes = lanes / parts as u32;
        let part_bytes = bits / parts / 8;
        let mask_part_ty = Type::BOOL.vector_of(part_lanes);
        let mut loaded = Vec::new();
        for part in 0..parts as u32 {
            let lanes_of_part: Vec<i32> =
                (part * part_lanes..(part + 1) * part_lanes).map(|lane| lane as i32).collect();
            let shuffle = InstData::Shuffle { lhs: mask, rhs: mask, mask: lanes_of_part };
            let part_mask = self.append_value(shuffle, mask_part_ty.clone());
            let offset =
                self.func.dfg.int_const(Type::I64, u128::from(u64::from(part) * part_bytes));
            let gep = InstData::Gep {
                source_ty: Type::I8,
                base: addr,
                indices: vec![offset],
                inbounds: false,
            };
            let part_addr = if part == 0 { addr } else { self.append_value(gep, Type::PTR) };
            let part_align = if part == 0 { align } else { align.min(part_bytes as u32) };
            loaded.push(
                self.register_page_safe_load(&part_ty, part_addr, part_align, part_mask, false),
            );
        }
        // Concatenate the parts: pairs of neighbours into vectors twice as long.
        while loaded.len() > 1 {
            let length = self.func.dfg.value_type(loaded[0]).lanes().unwrap_or(0);
            let joined_ty = vector_ty.scalar_type().vector_of(2 * length);
            let pairs: Vec<(Value, Value)> =
                loaded.chunks(2).map(|pair| (pair[0], pair[1])).collect();
            loaded = pairs
                .into_iter()
                .map(|(lhs, rhs)| {
                    let both = (0..2 * length as i32).collect();
                    self.append_value(InstData::Shuffle { lhs, rhs, mask: both }, joined_ty.clone())
                })
                .collect();
        }
        Some(loaded[0])
    }

    /// One register of `vector_ty` (see [`Self::page_safe_load`]): the
    /// speculative load behind its tests, the masked load on the other
    /// path; `known_active` when the block runs only while some lane of
    /// `mask` is active.
    fn register_page_safe_load(
        &mut self,
        vector_ty: &Type,
        addr: Value,
        align: u32,
        mask: Value,
        known_active: bool,
    ) -> Value {
        let bytes = vector_ty.vector_bits().unwrap_or(0) / 8;
        let any = (!known_active).then(|| self.mask_any(mask));
        let in_page = (u64::from(align) < bytes).then(|| self.fits_in_page(addr, bytes));
        let speculative = InstData::SpeculativeLoad { ty: vector_ty.clone(), addr };
        let ok = match (any, in_page) {
            (None, None) => return self.append_value(speculative, vector_ty.clone()),
            (Some(known), None) | (None, Some(known)) => known,
            (Some(any), Some(in_page)) => {
                let never = self.func.dfg.int_const(Type::BOOL, 0);
                let select = InstData::Select {
                    cond: any,
                    if_true: in_page,
                    if_false: never,
                    flags: Default::default(),
                };
                self.append_value(select, Type::BOOL)
            }
        };
        let prefix = self.next_guard_prefix();
        let fast = self.func.dfg.make_block(Some(format!("{prefix}.speculative")));
        let slow = self.func.dfg.make_block(Some(format!("{prefix}.masked")));
        let join = self.branch_to_diamond(&prefix, ok, fast, slow);
        let loaded = self.append_value(speculative, vector_ty.clone());
        self.append(InstData::Jump { dest: join }, Type::Void);
        self.current = Some(slow);
        let mut incoming = vec![(fast, loaded)];
        let elem_ty = vector_ty.scalar_type().clone();
        let elem_bytes = self.data_layout.alloc_size(&elem_ty);
        // AVX and AVX2 `vmaskmov` and AVX-512 masked moves take the assist;
        // SSE has no masked loads (LLVM loads lane by lane), AVX no gathers.
        let gathers = matches!(self.config.isa, Isa::Avx2 | Isa::Avx512);
        let may_cross = in_page.is_some()
            && gathers
            && vector_ty.lanes().is_some_and(|lanes| lanes <= 64)
            && elem_bytes == self.data_layout.store_size(&elem_ty);
        if may_cross {
            incoming.extend(self.page_crossing_paths(&prefix, vector_ty, addr, align, mask, join));
        } else {
            let masked = self.masked_load_to(vector_ty, addr, align, mask, join);
            incoming.push((slow, masked));
        }
        self.current = Some(join);
        self.append_value(InstData::Phi { ty: vector_ty.clone(), incoming }, vector_ty.clone())
    }

    /// The masked path of a load that may cross into the next page, from
    /// the current block (see the module docs): with no lane active, the
    /// masked load, as without the test; else the vector crosses into the
    /// next page, and it is the masked load where the active lanes lie in
    /// both pages, else a gather of the active lanes. The tests and the
    /// gather are cold blocks (once per page of a run). Returns the blocks
    /// that jump to `join` and their values.
    fn page_crossing_paths(
        &mut self,
        prefix: &str,
        vector_ty: &Type,
        addr: Value,
        align: u32,
        mask: Value,
        join: lanewise_ir::Block,
    ) -> Vec<(lanewise_ir::Block, Value)> {
        let elem_ty = vector_ty.scalar_type().clone();
        let elem_bytes = self.data_layout.alloc_size(&elem_ty);
        let lanes = vector_ty.lanes().unwrap_or(1);
        let packed = self.cast(CastOp::Bitcast, mask, &Type::Int(lanes));
        let no_lane = self.func.dfg.int_const(Type::Int(lanes), 0);
        let none_active = self.append_value(
            InstData::Icmp { pred: IntPredicate::Eq, lhs: packed, rhs: no_lane },
            Type::BOOL,
        );
        let before = self.current.expect("a current block");
        let crossing = self.func.dfg.make_block(Some(format!("{prefix}.crossing")));
        let masked_load = self.func.dfg.make_block(Some(format!("{prefix}.masked_load")));
        let gather = self.func.dfg.make_block(Some(format!("{prefix}.gather")));
        self.func.dfg.blocks[crossing].cold = true;
        self.func.dfg.blocks[gather].cold = true;
        self.func.layout.insert_block_after(crossing, before);
        self.func.layout.insert_block_after(masked_load, crossing);
        self.func.layout.insert_block_after(gather, masked_load);
        self.append(
            InstData::Branch { cond: none_active, then_dest: masked_load, else_dest: crossing },
            Type::Void,
        );
        self.current = Some(crossing);
        let on_both = self.active_lanes_on_both_pages(addr, elem_bytes, packed, lanes);
        self.append(
            InstData::Branch { cond: on_both, then_dest: masked_load, else_dest: gather },
            Type::Void,
        );
        self.current = Some(masked_load);
        let masked = self.masked_load_to(vector_ty, addr, align, mask, join);
        self.current = Some(gather);
        // A part of a vector of several registers has fewer lanes than W.
        let pointers_ty = Type::PTR.vector_of(lanes);
        let address_splat =
            self.append_value(InstData::Splat { scalar: addr, lanes }, pointers_ty.clone());
        let lane_numbers: Vec<Value> =
            (0..lanes).map(|lane| self.func.dfg.int_const(Type::I64, u128::from(lane))).collect();
        let ramp =
            self.func.dfg.make_const(Type::I64.vector_of(lanes), Constant::Aggregate(lane_numbers));
        let gep = InstData::Gep {
            source_ty: elem_ty,
            base: address_splat,
            indices: vec![ramp],
            inbounds: false,
        };
        let addrs = self.append_value(gep, pointers_ty);
        let passthru = self.func.dfg.make_const(vector_ty.clone(), Constant::Poison);
        let gathered = self.append_value(
            InstData::Gather { ty: vector_ty.clone(), addrs, mask, passthru, align },
            vector_ty.clone(),
        );
        self.append(InstData::Jump { dest: join }, Type::Void);
        vec![(masked_load, masked), (gather, gathered)]
    }

    /// The masked load of `vector_ty` at `addr` in the current block, which
    /// then jumps to `join`.
    fn masked_load_to(
        &mut self,
        vector_ty: &Type,
        addr: Value,
        align: u32,
        mask: Value,
        join: lanewise_ir::Block,
    ) -> Value {
        let passthru = self.func.dfg.make_const(vector_ty.clone(), Constant::Poison);
        let masked = InstData::MaskedLoad { ty: vector_ty.clone(), addr, mask, passthru, align };
        let masked = self.append_value(masked, vector_ty.clone());
        self.append(InstData::Jump { dest: join }, Type::Void);
        masked
    }

    /// Whether the active lanes of a load of `lanes` elements of
    /// `elem_bytes` bytes at `addr` that crosses into the next page, lane
    /// `l` at `addr + l * elem_bytes`, read both pages (`packed`: the mask,
    /// lane `l` in bit `l`). Lanes below `j = (page end - addr) /
    /// elem_bytes` lie in the first page, the others (one of them may
    /// straddle) touch the second. Some lane is active, so `addr` is
    /// defined.
    fn active_lanes_on_both_pages(
        &mut self,
        addr: Value,
        elem_bytes: u64,
        packed: Value,
        lanes: u32,
    ) -> Value {
        let offset = self.page_offset(addr);
        let page_bytes = self.func.dfg.int_const(Type::I64, u128::from(PAGE_BYTES));
        let to_page_end = self.binary(BinaryOp::Sub, page_bytes, offset);
        let elem_size = self.func.dfg.int_const(Type::I64, u128::from(elem_bytes));
        let first_page_lanes = self.binary(BinaryOp::UDiv, to_page_end, elem_size);
        let lane_count = self.func.dfg.int_const(Type::I64, u128::from(lanes));
        let crosses = self.append_value(
            InstData::Icmp { pred: IntPredicate::Ult, lhs: first_page_lanes, rhs: lane_count },
            Type::BOOL,
        );
        // All lanes in the first page (never here, as a guard): none counts.
        let zero = self.func.dfg.int_const(Type::I64, 0);
        let split = self.append_value(
            InstData::Select {
                cond: crosses,
                if_true: first_page_lanes,
                if_false: zero,
                flags: Default::default(),
            },
            Type::I64,
        );
        // `<64 x i8>` on AVX-512 packs into an `i64` already.
        let bits = if lanes == 64 { packed } else { self.cast(CastOp::ZExt, packed, &Type::I64) };
        let one = self.func.dfg.int_const(Type::I64, 1);
        let first_page_bit = self.binary(BinaryOp::Shl, one, split);
        let first_page_mask = self.binary(BinaryOp::Sub, first_page_bit, one);
        let in_first = self.binary(BinaryOp::And, bits, first_page_mask);
        let in_second = self.binary(BinaryOp::LShr, bits, split);
        let any_first = self.append_value(
            InstData::Icmp { pred: IntPredicate::Ne, lhs: in_first, rhs: zero },
            Type::BOOL,
        );
        let any_second = self.append_value(
            InstData::Icmp { pred: IntPredicate::Ne, lhs: in_second, rhs: zero },
            Type::BOOL,
        );
        let never = self.func.dfg.int_const(Type::BOOL, 0);
        self.append_value(
            InstData::Select {
                cond: any_first,
                if_true: any_second,
                if_false: never,
                flags: Default::default(),
            },
            Type::BOOL,
        )
    }

    /// `addr & (PAGE_BYTES - 1)`: where in its page `addr` lies.
    fn page_offset(&mut self, addr: Value) -> Value {
        let address = self.cast(CastOp::PtrToInt, addr, &Type::I64);
        let page_mask = self.func.dfg.int_const(Type::I64, u128::from(PAGE_BYTES - 1));
        self.binary(BinaryOp::And, address, page_mask)
    }

    /// `(addr & (PAGE_BYTES - 1)) <= PAGE_BYTES - bytes`: whether `bytes`
    /// bytes from `addr` lie within one page.
    fn fits_in_page(&mut self, addr: Value, bytes: u64) -> Value {
        let offset = self.page_offset(addr);
        let last_start = self.func.dfg.int_const(Type::I64, u128::from(PAGE_BYTES - bytes));
        self.append_value(
            InstData::Icmp { pred: IntPredicate::Ule, lhs: offset, rhs: last_start },
            Type::BOOL,
        )
    }
}
