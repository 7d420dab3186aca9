//! Calls to user functions that have vector variants (`#pragma omp declare
//! simd` functions of the same or another translation unit, GCC's simd
//! clones): the widened code calls the matching variant once instead of the
//! scalar function once per lane.
//!
//! # Where variants come from
//! [`WidenConfig::callee_variants`](super::WidenConfig::callee_variants) maps a scalar function name to the
//! `_ZGV` variants the program provides: every function of the module,
//! defined or only declared, carrying `_ZGV...` attributes (clang puts them
//! on declarations too; the bodies come from Lanewise or from GCC).
//!
//! # Selection ([`select_variant`])
//! At a call of the caller's width W under the block's mask, a variant fits
//! if
//! * its width is W, or W/k for a power of two k (then it is called k times,
//!   on lanes `[j*W/k, (j+1)*W/k)` in order j = 0..k-1); wider variants
//!   (padding lanes) are not used;
//! * its ISA is the caller's or an older one the caller's target includes
//!   (`b` ⊂ `c` ⊂ `d` ⊂ `e`): a `d` caller takes `d`, `c` or `b` variants;
//! * every parameter accepts its argument's shape: `v` anything (the value
//!   is materialized as a vector), `u` a uniform argument, `l<k>`/`ln<k>` an
//!   argument strided by exactly k (bytes for pointers; `l0`-like steps also
//!   take uniform arguments), `ls<p>` an integer argument strided by s whose
//!   step argument p is the constant s (variable steps on pointers are
//!   refused); an alignment claim `a<n>` must be proved by the shape
//!   analysis (lane 0 for `u`/`l` called once, all lanes otherwise), else the
//!   variant is refused;
//! * under a mask (a block predicate that is not all-true) only masked (`M`)
//!   variants: an unmasked variant would run the user function in inactive
//!   lanes, which may loop forever or fault on their garbage inputs. Without
//!   a mask unmasked (`N`) variants are preferred; a masked one gets an
//!   all-true mask.
//!
//!
//! An adapter ([`super::WidenConfig::adapter`]) also takes variants of any
//! ISA, and a masked variant wider than W: called once on W lanes padded
//! with inactive ones, whose arguments are zero (not poison: the callee
//! may combine an inactive lane's value with its mask bit), and the first
//! W lanes of its result.
//!
//! Among the fits, the fewest calls win, then the ISA closest to the
//! caller's, then `N` over `M` without a mask. Nothing fits: the scalar
//! function runs once per active lane, as before (counted as `per_lane`).
//!
//! # The call
//! The masked variant's mask is converted from `<W x i1>` to the callee's
//! mask ABI ([`MaskAbi::for_signature`], the same rules the callee's own
//! entry uses: a vector of the characteristic type holding 1 or 1.0 per
//! active lane, as GCC's vectorizer passes it, for `b`/`c`/`d`; integer bit
//! masks for `e`). The call is then emitted in whole-vector form and lowered
//! by [`crate::abi::lower_vector_call`], which shares the register-part,
//! boolean and carrier rules with the callee side ([`crate::lower_vector_abi`]);
//! a result returned in memory gets a buffer allocated once in the entry
//! block.

use std::collections::HashMap;

use lanewise_ir::vfabi::{Isa, ParamKind, VariantName};
use lanewise_ir::{CastFlags, CastOp, Inst, InstData, Type, Value};

use super::masked::MaskAbi;
use super::{Cursor, WidenError, Widened, Widener};
use crate::abi::{lower_vector_call, result_buffer, VectorCall};
use crate::vector_math::{libm_intrinsic_equivalent, libmvec_variant};

/// Scalar function name → the vector variants the program provides for it.
pub type CalleeVariants = HashMap<String, Vec<VariantName>>;

/// How the calls of a function were widened, for the `--report`.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct CallStats {
    /// Calls that became calls of a vector variant (counted once per scalar
    /// call, however many parts).
    pub vector_variant: u32,
    /// Calls run once per (active) lane.
    pub per_lane: u32,
    /// Groups of libmvec calls packed into one call when few lanes are
    /// active ([`super::wfv_slp`]).
    pub packed_math_groups: u32,
    /// Calls of libm functions that became one call of their exact vector
    /// form ([`lanewise_ir::exact_math`]).
    pub exact_vector_math: u32,
}

/// What the widener knows of one argument at a call site.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ArgShape {
    /// The same value in every lane; `constant` if it is an integer constant.
    Uniform { align: u64, constant: Option<i128> },
    /// Lane i is `lane0 + i*stride` (bytes for pointers); `align` of lane 0.
    Strided { stride: i64, align: u64 },
    /// Anything else; `all_lanes_align` holds for every lane.
    Varying { all_lanes_align: u64 },
}

impl ArgShape {
    fn lane0_align(self) -> u64 {
        match self {
            ArgShape::Uniform { align, .. } | ArgShape::Strided { align, .. } => align,
            ArgShape::Varying { all_lanes_align } => all_lanes_align,
        }
    }

    fn all_lanes_align(self) -> u64 {
        match self {
            ArgShape::Uniform { align, .. } => align,
            ArgShape::Strided { stride, align } => {
                let stride_divisor =
                    if stride == 0 { align } else { 1u64 << stride.trailing_zeros() };
                align.min(stride_divisor)
            }
            ArgShape::Varying { all_lanes_align } => all_lanes_align,
        }
    }
}

/// A call site as [`select_variant`] sees it.
#[derive(Clone, Debug)]
pub struct CallSite<'a> {
    /// Scalar types of the arguments.
    pub arg_types: &'a [Type],
    pub arg_shapes: &'a [ArgShape],
    /// Scalar result type (`Void` for none).
    pub ret_ty: &'a Type,
    /// Whether the call runs under a mask (not all lanes active).
    pub under_mask: bool,
    /// The caller's ISA and width.
    pub isa: Isa,
    pub width: u32,
    /// The caller is an adapter ([`super::WidenConfig::adapter`]).
    pub adapter: bool,
}

/// The chosen variant and how many times it is called.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VariantChoice {
    pub variant: VariantName,
    /// The variant covers `width / calls` lanes per call.
    pub calls: u32,
}

/// Rank of an ISA: a caller of rank r runs variants of rank <= r.
fn isa_rank(isa: Isa) -> u8 {
    match isa {
        Isa::Sse => 0,
        Isa::Avx => 1,
        Isa::Avx2 => 2,
        Isa::Avx512 => 3,
    }
}

/// The best variant of `variants` for `site` (rules in the module docs), or
/// `None` if none fits.
pub fn select_variant(variants: &[VariantName], site: &CallSite<'_>) -> Option<VariantChoice> {
    let result_fits = *site.ret_ty == Type::Void || passes_as_vector(site.ret_ty);
    if !result_fits || site.arg_types.len() != site.arg_shapes.len() {
        return None;
    }
    variants
        .iter()
        .filter_map(|variant| {
            let calls = fitting_call_count(variant, site)?;
            Some((variant, calls))
        })
        .min_by_key(|(variant, calls)| {
            (*calls, std::cmp::Reverse(isa_rank(variant.isa)), variant.masked)
        })
        .map(|(variant, calls)| VariantChoice { variant: variant.clone(), calls })
}

/// Whether a value of scalar-function type `ty` can travel as a varying
/// argument or result of a variant: a scalar with a vector ABI, or a short
/// vector of such scalars in the packed layout of [`super::short_vectors`].
fn passes_as_vector(ty: &Type) -> bool {
    (ty.is_scalar() || super::short_vectors::short_vector_lanes(ty).is_some())
        && crate::abi::has_vector_abi(ty.scalar_type())
}

/// How many calls of `variant` cover `site`, if it fits at all.
fn fitting_call_count(variant: &VariantName, site: &CallSite<'_>) -> Option<u32> {
    let padded = site.adapter
        && variant.masked
        && variant.width > site.width
        && variant.width.is_multiple_of(site.width);
    if variant.params.len() != site.arg_types.len()
        || (isa_rank(variant.isa) > isa_rank(site.isa) && !site.adapter)
        || (site.under_mask && !variant.masked)
        || variant.width == 0
        || !(site.width.is_multiple_of(variant.width) || padded)
    {
        return None;
    }
    let calls = if padded { 1 } else { site.width / variant.width };
    if !calls.is_power_of_two() {
        return None;
    }
    for (index, (spec, (ty, shape))) in
        variant.params.iter().zip(site.arg_types.iter().zip(site.arg_shapes)).enumerate()
    {
        let called_once_on_lane0 = calls == 1;
        let (fits, proven_align) = match spec.kind {
            ParamKind::Vector => (passes_as_vector(ty), shape.all_lanes_align()),
            ParamKind::Uniform => (matches!(shape, ArgShape::Uniform { .. }), shape.lane0_align()),
            ParamKind::Linear { step } | ParamKind::LinearRef { step } => {
                let fits = match *shape {
                    ArgShape::Strided { stride, .. } => stride == step,
                    ArgShape::Uniform { .. } => step == 0,
                    ArgShape::Varying { .. } => false,
                };
                let align = if called_once_on_lane0 {
                    shape.lane0_align()
                } else {
                    shape.all_lanes_align()
                };
                (fits && (ty.is_int() || ty.is_ptr()), align)
            }
            ParamKind::LinearVariableStep { step_param } => {
                let step_constant = match site.arg_shapes.get(step_param as usize) {
                    Some(ArgShape::Uniform { constant, .. }) if step_param as usize != index => {
                        *constant
                    }
                    _ => None,
                };
                let fits = match *shape {
                    ArgShape::Strided { stride, .. } => {
                        ty.is_int() && step_constant == Some(i128::from(stride))
                    }
                    _ => false,
                };
                let align = if called_once_on_lane0 {
                    shape.lane0_align()
                } else {
                    shape.all_lanes_align()
                };
                (fits, align)
            }
        };
        if !fits || spec.align.is_some_and(|claimed| proven_align < claimed) {
            return None;
        }
    }
    Some(calls)
}

/// Whether a call of `callee` may run where the scalar code would not run
/// it (in inactive lanes, or in a block no lane reached): a pure (`memory
/// (none)`) LLVM intrinsic or libm function, which does not trap and
/// returns. A pure user function may still divide by zero or never return
/// on an input the program never passes it (`if (x != 0) r = h(x)` with
/// `h(x) = 1000 / x`), so its calls run only in active lanes.
pub(crate) fn may_run_speculatively(callee: &lanewise_ir::Callee, ret_ty: &Type) -> bool {
    match callee {
        lanewise_ir::Callee::Direct(name) => {
            name.starts_with("llvm.") || is_libm_function(name, ret_ty)
        }
        _ => false,
    }
}

/// Whether `name` is a libm function Lanewise's vector math knows: where
/// libmvec is not allowed (`--vector-math exact`, or `auto` and no `afn`
/// on the call) its calls stay exact per-lane calls even when a header
/// (glibc's `math.h` under `-ffast-math`) names libmvec variants.
fn is_libm_function(name: &str, ret_ty: &Type) -> bool {
    let lanes = if *ret_ty == Type::F64 { 8 } else { 16 };
    libm_intrinsic_equivalent(name, ret_ty).is_some()
        || libmvec_variant(name, ret_ty, Isa::Avx512, lanes).is_some()
}

impl Widener<'_> {
    /// Widens the call `inst` into calls of a vector variant of its callee,
    /// if one fits (see the module docs). Returns whether it did.
    pub(super) fn widen_variant_call(&mut self, inst: Inst) -> Result<bool, WidenError> {
        let InstData::Call {
            callee: lanewise_ir::Callee::Direct(name),
            args,
            ret_ty,
            effects,
            flags,
        } = self.scalar.dfg.inst(inst).clone()
        else {
            return Ok(false);
        };
        let Some(variants) = self.config.callee_variants.get(&name) else {
            return Ok(false);
        };
        if !self.config.vector_math.allows_libmvec(flags) && is_libm_function(&name, &ret_ty) {
            return Ok(false);
        }
        let mask = self.block_mask()?;
        let arg_types: Vec<Type> =
            args.iter().map(|arg| self.scalar.dfg.value_type(*arg).clone()).collect();
        let mut arg_shapes = Vec::with_capacity(args.len());
        for &arg in &args {
            let align = self.shapes.align(arg);
            arg_shapes.push(match self.widened(arg)? {
                Widened::Uniform(value) => {
                    ArgShape::Uniform { align, constant: self.func.dfg.signed_int_constant(value) }
                }
                Widened::Strided { stride, .. } => ArgShape::Strided { stride, align },
                Widened::Vector(_) | Widened::Lanes(_) => {
                    ArgShape::Varying { all_lanes_align: self.shapes.all_lanes_align(arg) }
                }
            });
        }
        let site = CallSite {
            arg_types: &arg_types,
            arg_shapes: &arg_shapes,
            ret_ty: &ret_ty,
            under_mask: mask.is_some(),
            isa: self.config.isa,
            width: self.width,
            adapter: self.config.adapter,
        };
        let Some(choice) = select_variant(variants, &site) else {
            return Ok(false);
        };
        let variant = choice.variant;
        // Under a mask the call runs only if some lane is active: a masked
        // variant called with no active lane has nothing to do, and a
        // recursive one would call itself again and again (a divergent loop
        // runs its body once with an empty mask: `if (n > 1) f(n - 1)`
        // never stops recursing).
        let result = match mask {
            Some(mask) => self.emit_if_any_lane_active(mask, "call", |this| {
                this.emit_variant_calls(
                    &variant,
                    choice.calls,
                    &args,
                    &arg_types,
                    &ret_ty,
                    Some(mask),
                    effects,
                    flags,
                )
            })?,
            None => self.emit_variant_calls(
                &variant,
                choice.calls,
                &args,
                &arg_types,
                &ret_ty,
                None,
                effects,
                flags,
            )?,
        };
        self.call_stats.vector_variant += 1;
        if let Some(whole) = result {
            self.define_result(inst, Widened::Vector(whole));
        }
        Ok(true)
    }

    /// The `calls` calls of `variant` covering the W lanes (see the module
    /// docs), at the current point; `mask` is the block mask (`None`: every
    /// lane active). Returns the concatenated result, `None` for `void`.
    #[allow(clippy::too_many_arguments)]
    fn emit_variant_calls(
        &mut self,
        variant: &VariantName,
        calls: u32,
        args: &[Value],
        arg_types: &[Type],
        ret_ty: &Type,
        mask: Option<Value>,
        effects: lanewise_ir::CallEffects,
        flags: lanewise_ir::FastMathFlags,
    ) -> Result<Option<Value>, WidenError> {
        let choice = VariantChoice { variant: variant.clone(), calls };
        let ret_ty = ret_ty.clone();
        let part_width = variant.width;
        // An adapter's call of a wider masked variant (see the module docs).
        let padded = part_width > self.width;
        let callee = variant.mangle();
        let part_ret_ty = match &ret_ty {
            Type::Void => Type::Void,
            ty => super::short_vectors::varying_type(ty, part_width)
                .ok_or_else(|| self.unsupported(format!("a result of type {ty} in a variant")))?,
        };
        let mut results = Vec::new();
        for part in 0..choice.calls {
            let first_lane = part * part_width;
            let mut call_args = Vec::new();
            for ((&arg, spec), arg_ty) in args.iter().zip(&variant.params).zip(arg_types) {
                call_args.push(match spec.kind {
                    ParamKind::Vector => {
                        // A short vector is packed: N elements per lane.
                        let elements =
                            super::short_vectors::short_vector_lanes(arg_ty).unwrap_or(1);
                        let whole = self.vector(arg)?;
                        if padded {
                            self.pad_lanes(whole, part_width * elements)
                        } else {
                            self.lane_slice(
                                whole,
                                first_lane * elements,
                                part_width * elements,
                                choice.calls,
                            )
                        }
                    }
                    ParamKind::Uniform => self.lane0(arg)?,
                    ParamKind::Linear { .. }
                    | ParamKind::LinearRef { .. }
                    | ParamKind::LinearVariableStep { .. } => self.lane(arg, first_lane)?,
                });
            }
            if variant.masked {
                let whole_mask = match mask {
                    Some(mask) => mask,
                    None => self.constant_mask(true),
                };
                let part_mask = if padded {
                    self.pad_lanes(whole_mask, part_width)
                } else {
                    self.lane_slice(whole_mask, first_lane, part_width, choice.calls)
                };
                let abi = MaskAbi::for_signature(
                    &ret_ty,
                    arg_types,
                    &variant.params,
                    variant.isa,
                    part_width,
                );
                call_args.extend(self.mask_arguments(part_mask, &abi));
            }
            let buffer = result_buffer(&part_ret_ty, variant.isa)
                .map(|(elem, count, align)| self.entry_alloca(elem, count, align));
            let call = VectorCall {
                callee: callee.clone(),
                isa: variant.isa,
                args: call_args,
                ret_ty: part_ret_ty.clone(),
                effects,
                flags,
            };
            let block = self.current.expect("a current block");
            let result = lower_vector_call(&mut self.func, block, &call, buffer)
                .map_err(|message| self.unsupported(message))?;
            results.extend(result);
        }
        if ret_ty == Type::Void {
            return Ok(None);
        }
        if padded {
            // The first W lanes.
            let elements = super::short_vectors::short_vector_lanes(&ret_ty).unwrap_or(1);
            let mask: Vec<i32> = (0..(self.width * elements) as i32).collect();
            let shuffle = InstData::Shuffle { lhs: results[0], rhs: results[0], mask };
            let ty = ret_ty.scalar_type().vector_of(self.width * elements);
            return Ok(Some(self.append_value(shuffle, ty)));
        }
        Ok(Some(self.concat_lane_slices(results, ret_ty.scalar_type())))
    }

    /// `vector` with zero lanes appended up to `lanes` (a mask: inactive
    /// lanes).
    fn pad_lanes(&mut self, vector: Value, lanes: u32) -> Value {
        let ty = self.func.dfg.value_type(vector).clone();
        let present = ty.lanes().expect("a vector to pad");
        let zero = self.func.dfg.make_const(ty.clone(), lanewise_ir::Constant::Zero);
        let mask: Vec<i32> = (0..lanes as i32)
            .map(|lane| if lane < present as i32 { lane } else { present as i32 })
            .collect();
        let shuffle = InstData::Shuffle { lhs: vector, rhs: zero, mask };
        self.append_value(shuffle, ty.scalar_type().vector_of(lanes))
    }

    /// Lanes `[first, first + lanes)` of `vector` (itself when `parts == 1`).
    fn lane_slice(&mut self, vector: Value, first: u32, lanes: u32, parts: u32) -> Value {
        if parts == 1 {
            return vector;
        }
        let elem = self.func.dfg.value_type(vector).scalar_type().clone();
        let mask: Vec<i32> = (first as i32..(first + lanes) as i32).collect();
        let shuffle = InstData::Shuffle { lhs: vector, rhs: vector, mask };
        self.append_value(shuffle, elem.vector_of(lanes))
    }

    /// Concatenates equal-width results in lane order (a power-of-two count).
    fn concat_lane_slices(&mut self, mut parts: Vec<Value>, elem: &Type) -> Value {
        while parts.len() > 1 {
            let lanes = self.func.dfg.value_type(parts[0]).lanes().expect("vector parts");
            let mask: Vec<i32> = (0..(2 * lanes) as i32).collect();
            let mut joined = Vec::new();
            for pair in parts.chunks(2) {
                let shuffle = InstData::Shuffle { lhs: pair[0], rhs: pair[1], mask: mask.clone() };
                joined.push(self.append_value(shuffle, elem.vector_of(2 * lanes)));
            }
            parts = joined;
        }
        parts[0]
    }

    /// The mask arguments of a masked variant call for the `<w x i1>` mask
    /// `mask` (see [`MaskAbi`]): 1 or 1.0 per active lane in a vector of the
    /// characteristic type, or integer bit masks.
    fn mask_arguments(&mut self, mask: Value, abi: &MaskAbi) -> Vec<Value> {
        let cast = |op: CastOp, arg: Value, to: &Type| InstData::Cast {
            op,
            arg,
            to: to.clone(),
            flags: CastFlags::default(),
        };
        match abi {
            MaskAbi::Vector { elem, lanes } => {
                let ty = elem.vector_of(*lanes);
                let op = if elem.is_float() { CastOp::UIToFP } else { CastOp::ZExt };
                vec![self.append_value(cast(op, mask, &ty), ty)]
            }
            MaskAbi::Bits { parts, part_bits, lanes_per_part } => {
                let mut integers = Vec::new();
                for part in 0..*parts {
                    let piece =
                        self.lane_slice(mask, part * lanes_per_part, *lanes_per_part, *parts);
                    let bits_ty = Type::Int(*lanes_per_part);
                    let mut bits =
                        self.append_value(cast(CastOp::Bitcast, piece, &bits_ty), bits_ty);
                    if part_bits != lanes_per_part {
                        let wide = Type::Int(*part_bits);
                        bits = self.append_value(cast(CastOp::ZExt, bits, &wide), wide);
                    }
                    integers.push(bits);
                }
                integers
            }
        }
    }

    /// An alloca of `count` elements of `elem` at the top of the entry block
    /// (one stack slot per call site, not per execution).
    pub(super) fn entry_alloca(&mut self, elem: Type, count: u32, align: u32) -> Value {
        let entry = self.func.entry_block().expect("entry");
        let mut cursor = Cursor {
            block: entry,
            position: self.values.entry_prologue_len,
            in_entry_prologue: true,
        };
        let count = self.func.dfg.int_const(Type::I32, u128::from(count));
        let data = InstData::Alloca { ty: elem, count, align };
        self.values.insert(&mut self.func, &mut cursor, data, Type::PTR)
    }
}

#[cfg(test)]
mod tests;
