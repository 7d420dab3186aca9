//! Calls that mean something of their own, widened by what they mean
//! rather than once per lane: math functions (LLVM's elementwise
//! intrinsics and libm functions, as vector intrinsics or glibc's libmvec
//! variants where [`super::WidenConfig::vector_math`] allows, or as
//! Lanewise's exact vector forms (`expf`, `exp2f`, `logf`, `log2f`, `exp`, `log`) where
//! [`super::WidenConfig::exact_vector_math`] says glibc's FMA builds run) and group functions
//! ([`super::WidenConfig::group_functions`], one call for all lanes).

use lanewise_ir::exact_math::ExactMathFunction;
use lanewise_ir::vfabi::Isa;
use lanewise_ir::{CallEffects, Callee, FastMathFlags, Inst, InstData, Type, Value};

use super::{WidenError, Widened, Widener};
use crate::vector_math::{libm_intrinsic_equivalent, libmvec_variant, vector_intrinsic};

impl Widener<'_> {
    /// A call of a group function ([`super::WidenConfig::group_functions`]): one
    /// call on the lane-0 arguments, when a lane is active.
    pub(super) fn widen_group_call(
        &mut self,
        inst: Inst,
        name: &str,
        all_uniform: bool,
    ) -> Result<(), WidenError> {
        if !all_uniform {
            return Err(self.unsupported(format!(
                "`{name}` runs once for all lanes, so its arguments must be the same in every lane"
            )));
        }
        let data = self.lane0_copy(inst)?;
        let ret_ty = match &data {
            InstData::Call { ret_ty, .. } => ret_ty.clone(),
            _ => unreachable!("a call"),
        };
        let result = match self.block_mask()? {
            None => self.append(data, ret_ty),
            Some(mask) => self.emit_if_any_lane_active(mask, "group_call", |this| {
                Ok(this.append(data, ret_ty))
            })?,
        };
        if let Some(result) = result {
            self.define_result(inst, Widened::Uniform(result));
        }
        Ok(())
    }

    /// A vector intrinsic or libmvec call for an elementwise intrinsic or a
    /// libm function, if one applies.
    pub(super) fn widen_math_call(
        &mut self,
        name: &str,
        args: &[Value],
        ret_ty: &Type,
        effects: CallEffects,
        flags: FastMathFlags,
    ) -> Result<Option<Value>, WidenError> {
        let libmvec_enabled = self.config.vector_math.allows_libmvec(flags);
        let (isa, width) = (self.config.isa, self.width);
        if let Some(intrinsic) = vector_intrinsic(name, ret_ty, width) {
            if effects == CallEffects::SideEffects {
                return Ok(None);
            }
            if libmvec_enabled {
                let libm_name = intrinsic.libm_name.as_deref();
                let variant = libm_name.and_then(|libm| libmvec_variant(libm, ret_ty, isa, width));
                if let Some(variant) = variant.filter(|variant| variant.arity == args.len()) {
                    return self.libmvec_call(&variant, args, ret_ty, flags).map(Some);
                }
            }
            let mut new_args = Vec::new();
            for (position, &arg) in args.iter().enumerate() {
                if intrinsic.scalar_operands.contains(&position) {
                    if !self.is_uniform(arg)? {
                        return Ok(None);
                    }
                    new_args.push(self.lane0(arg)?);
                } else {
                    new_args.push(self.vector(arg)?);
                }
            }
            let vector_ty = self.vector_type(ret_ty)?;
            let call = InstData::Call {
                callee: Callee::Direct(intrinsic.name),
                args: new_args,
                ret_ty: vector_ty.clone(),
                effects: CallEffects::Pure,
                flags,
            };
            return Ok(Some(self.append_value(call, vector_ty)));
        }
        // Libm functions with an exact LLVM intrinsic (sqrt, floor, fma,
        // ...) become that intrinsic, bit-identical but without errno: where
        // libmvec (which sets no errno either) is allowed, or where the call
        // writes no errno anyway (`memory(none)`: `-fno-math-errno`, or the
        // fast path LLVM's partially-inline-libcalls makes of `sqrtf`,
        // whose errno-setting call runs only for negative inputs).
        if libmvec_enabled || effects == CallEffects::Pure {
            if let Some(intrinsic) = libm_intrinsic_equivalent(name, ret_ty) {
                return self.widen_math_call(&intrinsic, args, ret_ty, CallEffects::Pure, flags);
            }
        }
        if libmvec_enabled {
            let variant = libmvec_variant(name, ret_ty, isa, width);
            if let Some(variant) = variant.filter(|variant| variant.arity == args.len()) {
                return self.libmvec_call(&variant, args, ret_ty, flags).map(Some);
            }
        }
        Ok(None)
    }

    /// The exact vector form of `function` ([`lanewise_ir::exact_math`]) on
    /// the lanes of `arg`: one call, which runs the scalar function itself
    /// for the active lanes its vector path does not cover, so it keeps the
    /// scalar call's `effects` (`errno`).
    pub(super) fn widen_exact_math_call(
        &mut self,
        function: ExactMathFunction,
        arg: Value,
        effects: CallEffects,
        flags: FastMathFlags,
    ) -> Result<Value, WidenError> {
        let x = self.vector(arg)?;
        let active = match self.block_mask()? {
            Some(mask) => mask,
            None => self.all_true_mask(),
        };
        let vector_ty = function.element_type().vector_of(self.width);
        let call = InstData::Call {
            callee: Callee::Direct(function.vector_name(self.width)),
            args: vec![x, active],
            ret_ty: vector_ty.clone(),
            effects,
            flags,
        };
        self.call_stats.exact_vector_math += 1;
        Ok(self.append_value(call, vector_ty))
    }

    /// Records the libmvec call whose result is `result` for
    /// [`super::wfv_slp`] if it may be packed: WFV-SLP is on, the call is
    /// under a mask, the target is AVX-512 (register compress and expand)
    /// and each operand fills one 512-bit register.
    fn record_packable_call(&mut self, result: Value) -> Result<(), WidenError> {
        if !self.config.wfv_slp || self.config.isa != Isa::Avx512 {
            return Ok(());
        }
        let Some(mask) = self.block_mask()? else { return Ok(()) };
        let call = self.func.dfg.defining_inst(result).expect("a call");
        let InstData::Call { args, .. } = self.func.dfg.inst(call) else { unreachable!() };
        let one_register = |ty: &Type| ty.vector_bits() == Some(512);
        let mut fits = one_register(self.func.dfg.value_type(result));
        for arg in args {
            fits &= one_register(self.func.dfg.value_type(*arg));
        }
        if fits {
            self.packable_calls.push(super::wfv_slp::PackableCall { call, mask });
        }
        Ok(())
    }

    /// Calls `variant` on the vectors of `args`, split into `variant.calls`
    /// calls of `variant.lanes` lanes when W is wider than the variant.
    fn libmvec_call(
        &mut self,
        variant: &crate::vector_math::LibmvecVariant,
        args: &[Value],
        ret_ty: &Type,
        flags: FastMathFlags,
    ) -> Result<Value, WidenError> {
        let mut vectors = Vec::new();
        for &arg in args {
            vectors.push(self.vector(arg)?);
        }
        let part_ty = ret_ty.vector_of(variant.lanes);
        let mut parts = Vec::new();
        for part in 0..variant.calls {
            let part_args = if variant.calls == 1 {
                vectors.clone()
            } else {
                let first_lane = (part * variant.lanes) as i32;
                let mask: Vec<i32> = (first_lane..first_lane + variant.lanes as i32).collect();
                let mut part_args = Vec::new();
                for &vector in &vectors {
                    let shuffle =
                        InstData::Shuffle { lhs: vector, rhs: vector, mask: mask.clone() };
                    part_args.push(self.append_value(shuffle, part_ty.clone()));
                }
                part_args
            };
            let call = InstData::Call {
                callee: Callee::Direct(variant.name.clone()),
                args: part_args,
                ret_ty: part_ty.clone(),
                effects: CallEffects::Pure,
                flags,
            };
            let result = self.append_value(call, part_ty.clone());
            if variant.calls == 1 {
                self.record_packable_call(result)?;
            }
            parts.push(result);
        }
        // Concatenate pairwise: the number of parts is a power of two.
        let mut part_lanes = variant.lanes;
        while parts.len() > 1 {
            let joined_ty = ret_ty.vector_of(part_lanes * 2);
            let mask: Vec<i32> = (0..(part_lanes * 2) as i32).collect();
            let mut joined = Vec::new();
            for pair in parts.chunks(2) {
                let shuffle = InstData::Shuffle { lhs: pair[0], rhs: pair[1], mask: mask.clone() };
                joined.push(self.append_value(shuffle, joined_ty.clone()));
            }
            parts = joined;
            part_lanes *= 2;
        }
        Ok(parts[0])
    }
}
