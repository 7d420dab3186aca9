//! Scalar calls per active lane, as a loop (thesis 6.4.4, "sequential
//! execution" of an operation that has no vector form).
//!
//! A call with no vector variant and no vector math form runs the scalar
//! function once per lane, in lane order. Written out lane by lane under a
//! mask, that is W guarded call sites, and a function that may run
//! speculatively (libm) was called in every lane of a masked block, active
//! or not: a divergent `if` whose one active lane of 16 calls `expf` made
//! 16 calls where the scalar program made one. Instead, in a masked block,
//! one loop over the set bits of the block's mask:
//!
//! ```text
//!   before:  store each varying argument vector to a stack slot
//!            store zeroinitializer to the result slot
//!            br header
//!   header:  bits = phi [mask bits, before], [bits & (bits - 1), body]
//!            br bits == 0, exit, body
//!   body:    lane = cttz(bits)
//!            each varying argument: load slot[lane]
//!            result slot[lane] = call f(arguments)
//!            br header
//!   exit:    result = load <W x T> result slot
//! ```
//!
//! The lowest set bit first: active lanes in lane order, as the scalar calls
//! (or iterations) would run; inactive lanes get zero results (a defined
//! value, as [`super::Widener::emit_per_lane_guarded`] gives them). One call
//! site instead of W also means less code for LLVM to compile. Blocks
//! without a mask keep the W calls written out: there the loop only adds
//! its overhead (tests/programs/double_math, `exp` and `cos` in every
//! lane, ran 3.5% slower with it).
//!
//! Not for the exact path of 64-bit divisions (`super::division`), which
//! LLVM expands into W inline divisions: a loop there halved gcd_pairs'
//! object (18.9 KB -> 9.1 KB) but made its hot loop, which holds the
//! rarely taken exact path, no longer innermost, and the program 20%
//! slower (6.4 ms against 5.3 ms, 2026-11-29).
//!
//! Only calls whose varying arguments and result are of types whose vectors
//! are laid out in memory as arrays of their elements (8-, 16-, 32- and
//! 64-bit integers, `float`, `double`, pointers) take the loop; the others
//! (an `i1` argument, aggregates) stay unrolled.

use lanewise_ir::{
    ArithFlags, BinaryOp, CallEffects, Callee, CastFlags, CastOp, Constant, FastMathFlags, Inst,
    InstData, IntPredicate, Type, Value,
};

use super::{WidenError, Widener};

/// Whether `name` is an LLVM math intrinsic with no x86 vector instruction,
/// which LLVM's code generator lowers to one libm call per lane
/// (`llvm.exp.v16f32`: 16 calls of `expf`, whatever the mask): clang emits
/// them for libm calls under `-fno-math-errno`. Widened exactly under a
/// mask, they run as a loop over the active lanes.
pub(super) fn is_libcall_intrinsic(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("llvm.") else { return false };
    let base = rest.split('.').next().unwrap_or_default();
    matches!(
        base,
        "exp"
            | "exp2"
            | "exp10"
            | "log"
            | "log2"
            | "log10"
            | "pow"
            | "sin"
            | "cos"
            | "tan"
            | "asin"
            | "acos"
            | "atan"
            | "atan2"
            | "sinh"
            | "cosh"
            | "tanh"
    )
}

impl Widener<'_> {
    /// Whether `ty` is laid out in memory as W elements when it is a `<W x ty>`
    /// vector (not `i1`, whose vectors are packed bits).
    fn is_array_like(&self, ty: &Type) -> bool {
        if !ty.is_scalar() {
            return false;
        }
        let size = self.data_layout.store_size(ty);
        let bits = match ty {
            Type::Int(bits) => u64::from(*bits),
            _ => size * 8,
        };
        bits == size * 8 && self.data_layout.alloc_size(ty) == size
    }

    /// Whether the call `inst` (direct, or through a pointer) can run as a
    /// loop over the active lanes.
    pub(super) fn fits_lane_loop(&mut self, inst: Inst) -> Result<bool, WidenError> {
        let InstData::Call { callee, args, ret_ty, .. } = self.scalar.dfg.inst(inst).clone() else {
            return Ok(false);
        };
        if ret_ty != Type::Void && !self.is_array_like(&ret_ty) {
            return Ok(false);
        }
        let mut operands = args;
        match callee {
            Callee::Direct(_) => {}
            Callee::Indirect(pointer) => operands.push(pointer),
            Callee::InlineAsm(_) => return Ok(false),
        }
        for operand in operands {
            if !self.is_uniform(operand)? {
                let ty = self.scalar.dfg.value_type(operand).clone();
                if !self.is_array_like(&ty) {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Emits the call `inst` once per active lane of `mask` (every lane
    /// without a mask), in lane order, as a loop (see the module's docs);
    /// returns the `<W x T>` result (zero in inactive lanes), if any.
    pub(super) fn call_per_active_lane(
        &mut self,
        inst: Inst,
        mask: Option<Value>,
    ) -> Result<Option<Value>, WidenError> {
        let InstData::Call { callee, args, ret_ty, effects, flags } =
            self.scalar.dfg.inst(inst).clone()
        else {
            unreachable!("a call")
        };
        let width = self.width;
        // Arguments: uniform ones as they are, varying ones through a slot.
        let mut slots: Vec<Result<Value, (Value, Type)>> = Vec::new();
        let mut operands = args.clone();
        if let Callee::Indirect(pointer) = &callee {
            operands.push(*pointer);
        }
        for &operand in &operands {
            if self.is_uniform(operand)? {
                slots.push(Ok(self.lane0(operand)?));
            } else {
                let ty = self.scalar.dfg.value_type(operand).clone();
                let vector = self.vector(operand)?;
                let (slot, align) = self.lane_slot(&ty);
                self.append(
                    InstData::Store { value: vector, addr: slot, align, volatile: false },
                    Type::Void,
                );
                slots.push(Err((slot, ty)));
            }
        }
        let result_slot = (ret_ty != Type::Void).then(|| {
            let (slot, align) = self.lane_slot(&ret_ty);
            let zero = self.func.dfg.make_const(ret_ty.vector_of(width), Constant::Zero);
            self.append(
                InstData::Store { value: zero, addr: slot, align, volatile: false },
                Type::Void,
            );
            (slot, align)
        });
        let bits_ty = Type::Int(width);
        let bits = match mask {
            Some(mask) => self.mask_bits(mask),
            None => {
                let all = if width == 128 { u128::MAX } else { (1u128 << width) - 1 };
                self.func.dfg.int_const(bits_ty.clone(), all)
            }
        };

        let before = self.current.expect("a current block");
        let prefix = self.next_guard_prefix();
        let header = self.func.dfg.make_block(Some(format!("{prefix}.lanes")));
        let body = self.func.dfg.make_block(Some(format!("{prefix}.lane")));
        let exit = self.func.dfg.make_block(Some(format!("{prefix}.lanes.done")));
        self.func.layout.insert_block_after(header, before);
        self.func.layout.insert_block_after(body, header);
        self.func.layout.insert_block_after(exit, body);
        self.append(InstData::Jump { dest: header }, Type::Void);

        self.current = Some(header);
        let phi = InstData::Phi { ty: bits_ty.clone(), incoming: vec![(before, bits)] };
        let left = self.append_value(phi, bits_ty.clone());
        let zero_bits = self.func.dfg.int_const(bits_ty.clone(), 0);
        let done = self.append_value(
            InstData::Icmp { pred: IntPredicate::Eq, lhs: left, rhs: zero_bits },
            Type::BOOL,
        );
        self.append(InstData::Branch { cond: done, then_dest: exit, else_dest: body }, Type::Void);

        self.current = Some(body);
        let zero_is_poison = self.func.dfg.int_const(Type::BOOL, 1);
        let cttz = InstData::Call {
            callee: Callee::Direct(format!("llvm.cttz.i{width}")),
            args: vec![left, zero_is_poison],
            ret_ty: bits_ty.clone(),
            effects: CallEffects::Pure,
            flags: FastMathFlags::default(),
        };
        let mut lane = self.append_value(cttz, bits_ty.clone());
        if width != 64 {
            let op = if width > 64 { CastOp::Trunc } else { CastOp::ZExt };
            let cast = InstData::Cast { op, arg: lane, to: Type::I64, flags: CastFlags::default() };
            lane = self.append_value(cast, Type::I64);
        }
        let mut lane_operands = Vec::new();
        for slot in &slots {
            lane_operands.push(match slot {
                Ok(uniform) => *uniform,
                Err((slot, ty)) => {
                    let addr = self.slot_element(*slot, ty, lane);
                    let align = self.data_layout.abi_align(ty) as u32;
                    self.append_value(
                        InstData::Load { ty: ty.clone(), addr, align, volatile: false },
                        ty.clone(),
                    )
                }
            });
        }
        let lane_callee = match &callee {
            Callee::Indirect(_) => {
                Callee::Indirect(lane_operands.pop().expect("the callee pointer"))
            }
            other => other.clone(),
        };
        let call = InstData::Call {
            callee: lane_callee,
            args: lane_operands,
            ret_ty: ret_ty.clone(),
            effects,
            flags,
        };
        let lane_result = self.append(call, ret_ty.clone());
        if let (Some(value), Some((slot, _))) = (lane_result, result_slot) {
            let addr = self.slot_element(slot, &ret_ty, lane);
            let align = self.data_layout.abi_align(&ret_ty) as u32;
            self.append(InstData::Store { value, addr, align, volatile: false }, Type::Void);
        }
        let one = self.func.dfg.int_const(bits_ty.clone(), 1);
        let minus_one = self.append_value(
            InstData::Binary {
                op: BinaryOp::Sub,
                lhs: left,
                rhs: one,
                flags: ArithFlags::default(),
            },
            bits_ty.clone(),
        );
        let next = self.append_value(
            InstData::Binary {
                op: BinaryOp::And,
                lhs: left,
                rhs: minus_one,
                flags: ArithFlags::default(),
            },
            bits_ty,
        );
        self.append(InstData::Jump { dest: header }, Type::Void);
        let phi_inst = self.func.dfg.defining_inst(left).expect("the phi");
        if let InstData::Phi { incoming, .. } = self.func.dfg.inst_mut(phi_inst) {
            incoming.push((body, next));
        }

        self.current = Some(exit);
        Ok(result_slot.map(|(slot, align)| {
            let vector_ty = ret_ty.vector_of(width);
            self.append_value(
                InstData::Load { ty: vector_ty.clone(), addr: slot, align, volatile: false },
                vector_ty,
            )
        }))
    }

    /// A stack slot for one `ty` per lane, aligned for the `<W x ty>`
    /// vector; returns it and that alignment.
    fn lane_slot(&mut self, ty: &Type) -> (Value, u32) {
        let align = self.data_layout.abi_align(&ty.vector_of(self.width)) as u32;
        (self.entry_alloca(ty.clone(), self.width, align), align)
    }

    /// `&slot[lane]` for a slot of `ty` elements.
    fn slot_element(&mut self, slot: Value, ty: &Type, lane: Value) -> Value {
        let gep = InstData::Gep {
            source_ty: ty.clone(),
            base: slot,
            indices: vec![lane],
            inbounds: true,
        };
        self.append_value(gep, Type::PTR)
    }
}
