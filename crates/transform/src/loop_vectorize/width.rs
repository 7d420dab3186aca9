//! Choosing W for a SIMD loop without `simdlen`: the body's data profile and
//! a per-lane register cost.
//!
//! LLVM's loop vectorizer bounds its VF by the widest type of the loop. For a
//! body whose hot part (a divergent inner loop, say) computes with `float`
//! while the rest accumulates `double`, that halves W for the work that costs
//! the most: `reduce_float` of the program corpus ran 2.2x faster than clang
//! at W=8 and 3.6x at W=16 on AVX-512. So [`DataProfile`] records, per scalar
//! width in bits, how many data operations the body does, each weighted by
//! how often it runs per iteration of the SIMD loop: [`INNER_LOOP_WEIGHT`]
//! per level of inner-loop nesting (trip counts are unknown statically; a
//! handful of iterations is typical of the corpus). [`DataProfile::choose_width`]
//! then takes, among the natural widths of the types present (register bits /
//! type bits) up to twice the widest type's, the W with the fewest register
//! operations per lane: an operation on `b`-bit values at W lanes costs
//! `max(1, W * b / register bits)` register operations. A wider W must be at
//! least [`WIDER_MIN_GAIN_PERCENT`] cheaper than the narrower one: splitting
//! a wide type costs conversions, shuffles and registers that the model does
//! not count, and beyond twice the widest type's width masks, address
//! vectors and variant calls split into too many pieces.
//!
//! Then W is doubled (two registers per value, LLVM's interleave count 2),
//! unless the cost model already went beyond the widest type's width: one
//! chunk of lanes in flight leaves a divergent inner loop latency-bound (each
//! iteration waits for the compare that decides which lanes continue), two
//! independent halves hide that latency. On the program corpus (AVX-512,
//! W=32 against 16): collatz_declare_simd 1.9x faster, bisection_flag 1.7x,
//! masked_inbranch 1.7x, mandelbrot 1.5x, straight-line bodies about equal.
//! Bodies whose inner loops access bytes or halfwords are not interleaved:
//! those accesses become one scalar load per lane when the address varies
//! (no byte gathers), and twice the lanes only added address vectors and
//! spills (string_lengths 1.7x slower).
//!
//! What counts as data (`data_bits`): loads, stores, call arguments and
//! results, floating-point arithmetic, comparisons and casts, integer
//! arithmetic on at most 32 bits, selects and phis of data types (integer
//! phis of at most 32 bits). Addresses computed inside inner loops count as
//! 64-bit operations: they depend on the inner loop and are likely varying (a
//! vector of W pointers). Other pointers and `i64` integer arithmetic do
//! not: after LLVM's `indvars` they are addresses and indices, uniform or
//! strided in the vector code (an `i64` inner counter must not halve W).

use std::collections::BTreeMap;

use lanewise_ir::{Function, Inst, InstData, Type};

/// The weight of an operation per level of inner-loop nesting it sits in.
pub const INNER_LOOP_WEIGHT: u64 = 8;

/// The vector registers of `register_bits` bits a value of type `ty`
/// occupies: `ceil(lanes * bits / register_bits)`; 1 for scalars and for
/// masks (`<W x i1>`: one mask register, or one vector on AVX2).
pub fn type_registers(ty: &Type, register_bits: u32) -> u64 {
    match (ty.lanes(), ty.scalar_type().scalar_bits()) {
        (Some(lanes), Some(bits)) if bits > 1 => {
            (u64::from(lanes) * u64::from(bits)).div_ceil(u64::from(register_bits.max(1))).max(1)
        }
        _ => 1,
    }
}

/// The registers of the widest value `inst` defines or reads
/// ([`type_registers`]): what one operation of the cost models of
/// [`super::tail`] and [`super::profit`] costs.
pub fn inst_registers(func: &Function, inst: Inst, register_bits: u32) -> u64 {
    func.dfg
        .inst(inst)
        .operands()
        .into_iter()
        .chain(func.dfg.result(inst))
        .map(|value| type_registers(func.dfg.value_type(value), register_bits))
        .max()
        .unwrap_or(1)
}

/// How much cheaper per lane (in percent) a wider W must be to be chosen.
pub const WIDER_MIN_GAIN_PERCENT: u64 = 20;

/// Weighted counts of the data operations of a loop body, by scalar width.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataProfile {
    weight_by_bits: BTreeMap<u32, u64>,
    /// Addresses computed in inner loops: 64-bit operations in the cost,
    /// but not data (they do not bound W).
    address_weight: u64,
    /// Loads and stores of 8- or 16-bit values inside inner loops.
    inner_narrow_accesses: u64,
    /// Loads in inner loops whose address depends on the previous
    /// iteration's data (`loop_vectorize::loads_a_data_dependent_address`).
    inner_data_dependent_loads: u64,
}

impl DataProfile {
    /// Records an operation on `bits`-bit data, `weight` times.
    pub fn add(&mut self, bits: u32, weight: u64) {
        *self.weight_by_bits.entry(bits).or_default() += weight;
    }

    /// Records the data operation of `inst` (if it is one) nested
    /// `inner_depth` inner loops deep. `is_index_phi`: the phi is an
    /// induction of the SIMD loop or an `i64` integer phi that is not a
    /// reduction (a counter).
    pub fn add_inst(&mut self, func: &Function, inst: Inst, inner_depth: u32, is_index_phi: bool) {
        let weight = INNER_LOOP_WEIGHT.saturating_pow(inner_depth.min(4));
        let narrow_access = match func.dfg.inst(inst) {
            InstData::Load { ty, .. } => ty.is_int() && ty.scalar_bits().is_some_and(|b| b < 32),
            InstData::Store { value, .. } => {
                let ty = func.dfg.value_type(*value);
                ty.is_int() && ty.scalar_bits().is_some_and(|b| b < 32)
            }
            _ => false,
        };
        if narrow_access && inner_depth > 0 {
            self.inner_narrow_accesses += 1;
        }
        if matches!(func.dfg.inst(inst), InstData::Gep { .. }) && inner_depth > 0 {
            self.address_weight += weight;
        } else if let Some(bits) = data_bits(func, inst, is_index_phi) {
            self.add(bits, weight);
        }
    }

    /// Records a load in an inner loop whose address depends on the
    /// previous iteration's data.
    pub fn add_data_dependent_load(&mut self) {
        self.inner_data_dependent_loads += 1;
    }

    /// Whether an inner loop loads from an address that depends on the
    /// previous iteration's data: such a loop waits for each load's latency
    /// (`lanewise::simd_loops` gives it twice the lanes when narrowing
    /// cannot take it).
    pub fn has_data_dependent_loads(&self) -> bool {
        self.inner_data_dependent_loads > 0
    }

    /// The widest data type in bits; 32 for a body without data.
    pub fn widest_bits(&self) -> u32 {
        self.weight_by_bits.keys().next_back().copied().unwrap_or(32)
    }

    /// W for the loop (module docs): the cheapest per lane, doubled when
    /// interleaving two halves pays; at least 2 and at most 64.
    pub fn choose_width(&self, register_bits: u32) -> u32 {
        let cheapest = self.cheapest_width(register_bits);
        let widest = (register_bits / self.widest_bits().max(8)).clamp(2, 64);
        if cheapest <= widest && self.inner_narrow_accesses == 0 {
            (2 * cheapest).min(64)
        } else {
            cheapest
        }
    }

    /// The W with the fewest register operations per lane (see the module
    /// docs), at least 2 and at most 64.
    pub fn cheapest_width(&self, register_bits: u32) -> u32 {
        let natural = |bits: u32| (register_bits / bits.max(8)).clamp(2, 64);
        let widest = natural(self.widest_bits());
        let mut candidates: Vec<u32> =
            self.weight_by_bits.keys().map(|&bits| natural(bits).min(2 * widest)).collect();
        candidates.push(widest);
        candidates.sort_unstable();
        candidates.dedup();
        // Cost per lane, scaled by `width` products to stay in integers:
        // cost(W) = sum_b weight_b * max(1, W*b/R) / W.
        let register_ops = |width: u32| -> u64 {
            let registers = |bits: u32| {
                (u64::from(width) * u64::from(bits)).div_ceil(u64::from(register_bits)).max(1)
            };
            let data: u64 =
                self.weight_by_bits.iter().map(|(&bits, &weight)| weight * registers(bits)).sum();
            data + self.address_weight * registers(64)
        };
        let mut best = candidates[0];
        for &width in &candidates[1..] {
            // register_ops(width)/width < (1 - gain) * register_ops(best)/best
            let wider = u128::from(register_ops(width)) * u128::from(best) * 100;
            let current = u128::from(register_ops(best))
                * u128::from(width)
                * u128::from(100 - WIDER_MIN_GAIN_PERCENT);
            if wider < current {
                best = width;
            }
        }
        best
    }
}

/// The scalar width of the data `inst` computes with, if it is a data
/// operation (module docs).
fn data_bits(func: &Function, inst: Inst, is_index_phi: bool) -> Option<u32> {
    let value_type = |value| func.dfg.value_type(value);
    let data = |ty: &Type| (!ty.is_ptr()).then(|| ty.scalar_bits()).flatten();
    let arithmetic = |ty: &Type| {
        let bits = data(ty)?;
        (ty.scalar_type().is_float() || bits <= 32).then_some(bits)
    };
    match func.dfg.inst(inst) {
        InstData::Load { ty, .. } => data(ty),
        InstData::Store { value, .. } => data(value_type(*value)),
        InstData::Call { args, ret_ty, .. } => args
            .iter()
            .map(|arg| value_type(*arg))
            .chain(std::iter::once(ret_ty))
            .filter_map(data)
            .max(),
        InstData::Phi { ty, .. } if !is_index_phi => data(ty),
        InstData::Binary { lhs, .. } => arithmetic(value_type(*lhs)),
        InstData::Unary { arg, .. } => arithmetic(value_type(*arg)),
        InstData::Icmp { lhs, .. } => arithmetic(value_type(*lhs)),
        InstData::Fcmp { lhs, .. } => data(value_type(*lhs)),
        InstData::Select { if_true, .. } => arithmetic(value_type(*if_true)),
        InstData::Cast { arg, to, .. } => {
            let from = value_type(*arg);
            if from.scalar_type().is_float() || to.scalar_type().is_float() {
                data(from).max(data(to))
            } else {
                None
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(weights: &[(u32, u64)]) -> DataProfile {
        let mut profile = DataProfile::default();
        for &(bits, weight) in weights {
            profile.add(bits, weight);
        }
        profile
    }

    #[test]
    fn one_type_takes_its_natural_width() {
        assert_eq!(profile(&[(32, 10)]).cheapest_width(512), 16);
        assert_eq!(profile(&[(64, 10)]).cheapest_width(512), 8);
        assert_eq!(profile(&[(32, 10)]).cheapest_width(256), 8);
        assert_eq!(profile(&[]).cheapest_width(256), 8);
        assert_eq!(profile(&[(8, 1)]).cheapest_width(512), 64);
    }

    #[test]
    fn hot_narrow_work_doubles_w_over_a_few_wide_operations() {
        // reduce_float: a float inner loop (weight 8 per operation) and a
        // few double accumulations.
        assert_eq!(profile(&[(32, 44), (64, 12)]).cheapest_width(512), 16);
    }

    #[test]
    fn two_halves_are_interleaved_unless_inner_loops_access_bytes() {
        assert_eq!(profile(&[(32, 10)]).choose_width(512), 32);
        assert_eq!(profile(&[(64, 10)]).choose_width(256), 8);
        // Already past the widest type's width: not doubled again.
        assert_eq!(profile(&[(32, 44), (64, 12)]).choose_width(512), 16);
        // 64 lanes at most.
        assert_eq!(profile(&[(8, 10)]).choose_width(512), 64);
        let mut bytes = profile(&[(32, 10)]);
        bytes.inner_narrow_accesses = 1;
        assert_eq!(bytes.choose_width(512), 16);
    }

    #[test]
    fn w_stays_within_twice_the_widest_types_width() {
        // Byte work in an inner loop next to 32-bit results: 32 lanes, not 64.
        assert_eq!(profile(&[(8, 100), (32, 4)]).cheapest_width(512), 32);
    }

    #[test]
    fn mostly_wide_work_keeps_the_wide_types_width() {
        assert_eq!(profile(&[(32, 2), (64, 20)]).cheapest_width(512), 8);
        // Equal shares: 16 lanes cost (10 + 20) / 16 = 1.875 per lane
        // against 20 / 8 = 2.5 at W=8: 25% cheaper.
        assert_eq!(profile(&[(32, 10), (64, 10)]).cheapest_width(512), 16);
        // (3 + 20) / 16 against 13 / 8: only 12% cheaper.
        assert_eq!(profile(&[(32, 3), (64, 10)]).cheapest_width(512), 8);
    }
}
