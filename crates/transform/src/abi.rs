//! Vector Function ABI lowering of a variant's signature.
//!
//! Widening produces a function whose varying parameters and result are whole
//! `<W x T>` vectors. The x86 Vector Function ABI (what GCC's simd clones
//! implement) passes a vector wider than the ISA's registers as several
//! register-sized parts, in order, and returns such a vector as several
//! registers; booleans travel as bytes. This pass rewrites the signature
//! accordingly, entirely inside the Lanewise IR:
//!
//! - a parameter `<W x T>` with `W * bits(T) > register_bits` becomes
//!   `W * bits(T) / register_bits` parameters of `register_bits / bits(T)`
//!   lanes, concatenated by shuffles at the start of the entry block;
//! - a result wider than a register is stored, part by part, through a hidden
//!   first pointer parameter, which is returned (the psABI's MEMORY class, as
//!   GCC's clones do);
//! - `<W x i1>` parameters and results become `<W x i8>` (0 or 1 per lane),
//!   as the ABI passes `bool` as a byte;
//! - a vector of at most 32 bits (e.g. `<2 x i16>`) travels as an integer in
//!   a general-purpose register, as the x86-64 psABI classifies it INTEGER.
//!
//! Register widths follow the ISA; under AVX (`c`) integer and pointer
//! vectors use 128-bit registers (AVX has no 256-bit integer operations).
//!
//! The pass runs last, on the widened function, so no other pass ever sees
//! the split signature.
//!
//! # The caller side ([`lower_vector_call`])
//! A vector function that calls another variant (a `declare simd` function
//! of the same or another translation unit, or a GCC clone) passes its
//! arguments by the same rules, so both sides share one description of how
//! a value travels ([`PassedValue`]): the widener builds the call on whole
//! `<W x T>` values and [`lower_vector_call`] splits vector arguments into
//! their register parts, zero-extends booleans to bytes, bitcasts short
//! vectors to their integer carrier, passes a buffer (the caller's, see
//! [`result_buffer`]) as the hidden first argument of a result returned in
//! memory and reloads and concatenates its parts after the call. Masks are
//! ordinary arguments here: the widener converts `<W x i1>` to the callee's
//! mask ABI first (`widen::masked::MaskAbi`).
//!
//! [`is_llvm_native_signature`] tells whether a signature travels exactly as
//! LLVM passes its IR types (one register per value), the condition for
//! LLVM's loop vectorizer to call a variant with its own calling convention.

use lanewise_ir::vfabi::Isa;
use lanewise_ir::{
    Block, CallEffects, Callee, CastFlags, CastOp, FastMathFlags, Function, InstData, Param, Type,
    Value, ValueDef,
};

/// How one parameter or result of a variant travels under the ABI.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PassedValue {
    /// The value's type in the widened function (`<W x i1>`, `<8 x double>`, `i32`).
    pub whole_ty: Type,
    /// The type it travels as before splitting: booleans as bytes.
    pub abi_ty: Type,
    /// How many registers it takes (1 unless wider than a register).
    pub parts: u32,
    /// The type of one part (`abi_ty` when `parts == 1`).
    pub part_ty: Type,
    /// The integer a vector of at most 32 bits travels as, in a
    /// general-purpose register.
    pub carrier: Option<Type>,
}

impl PassedValue {
    /// How a value of `ty` travels under `isa`.
    pub fn of(ty: &Type, isa: Isa) -> PassedValue {
        let abi_ty = abi_type(ty);
        let parts = part_count(&abi_ty, isa);
        let carrier = small_vector_carrier(&abi_ty);
        let part_ty = part_type(&abi_ty, parts);
        PassedValue { whole_ty: ty.clone(), abi_ty, parts, part_ty, carrier }
    }

    /// Whether the value travels as its own type in one register (or as a
    /// scalar), i.e. exactly as LLVM passes the IR type.
    pub fn is_native(&self) -> bool {
        self.abi_ty == self.whole_ty && self.parts == 1 && self.carrier.is_none()
    }

    /// Bytes of one part.
    fn part_bytes(&self) -> u64 {
        u64::from(self.part_ty.scalar_type().scalar_bits().unwrap_or(8))
            * u64::from(self.part_ty.lanes().unwrap_or(1))
            / 8
    }

    /// Whether a result of this type is returned through a hidden pointer.
    fn in_memory(&self) -> bool {
        self.parts > 1
    }
}

/// Whether a variant with these (widened) parameter and result types is
/// passed exactly as LLVM passes the IR types: every value in one register
/// or as a scalar, no boolean bytes, no integer carriers, no hidden result
/// pointer. Only then may LLVM's own vectorizer call it with its calling
/// convention (see the module docs).
pub fn is_llvm_native_signature(param_types: &[Type], ret_ty: &Type, isa: Isa) -> bool {
    param_types
        .iter()
        .chain(std::iter::once(ret_ty))
        .all(|ty| *ty == Type::Void || PassedValue::of(ty, isa).is_native())
}

/// Whether values of the scalar type `ty` can be passed as vectors in the
/// vector ABI: floats, pointers, `i1` (as bytes) and integers of 8 to 128
/// bits in powers of two. Other integer widths (`i96`, `i24`) split into a
/// number of register parts that is not a power of two; no vendor ABI has
/// them. Non-scalar types answer `true` (other checks refuse them).
pub fn has_vector_abi(ty: &Type) -> bool {
    match ty {
        Type::Int(bits) => *bits == 1 || (bits.is_power_of_two() && (8..=128).contains(bits)),
        _ => true,
    }
}

/// The alignment of a part of `part_bytes` bytes in a buffer of parts: the
/// largest power of two that divides it, at most 64 (a part of an odd-sized
/// integer type, `<2 x i96>` of 24 bytes, is 8-byte aligned).
fn part_align(part_bytes: u64) -> u32 {
    let largest_power_of_two = part_bytes & part_bytes.wrapping_neg();
    largest_power_of_two.clamp(1, 64) as u32
}

/// The buffer a caller provides for a result of `ret_ty` returned in memory
/// under `isa`: `(element type, element count, alignment)` of the alloca, or
/// `None` when the result comes back in registers.
pub fn result_buffer(ret_ty: &Type, isa: Isa) -> Option<(Type, u32, u32)> {
    if *ret_ty == Type::Void {
        return None;
    }
    let passed = PassedValue::of(ret_ty, isa);
    passed.in_memory().then(|| {
        let align = part_align(passed.part_bytes());
        (passed.part_ty.clone(), passed.parts, align)
    })
}

/// A call of a vector variant in whole-value form: vector arguments as
/// whole `<W x T>` vectors (masks already in the callee's mask form),
/// uniform and linear arguments as scalars, the result as `<W x T>`.
#[derive(Clone, Debug)]
pub struct VectorCall {
    pub callee: String,
    /// The ISA the callee was compiled for (decides the register parts).
    pub isa: Isa,
    pub args: Vec<Value>,
    /// `Void` or the whole result type.
    pub ret_ty: Type,
    pub effects: CallEffects,
    pub flags: FastMathFlags,
}

/// Appends `call` to `block` following the vector function ABI of its ISA,
/// the caller side of [`lower_vector_abi`]: arguments split into register
/// parts, booleans as bytes, short vectors as integers, a result returned in
/// memory through `result_buffer` (an alloca of the [`result_buffer`]
/// layout, required then). Returns the whole result, if any.
pub fn lower_vector_call(
    func: &mut Function,
    block: Block,
    call: &VectorCall,
    result_buffer: Option<Value>,
) -> Result<Option<Value>, String> {
    let emit = |func: &mut Function, data: InstData, ty: Type| {
        let inst = func.append(block, data, ty);
        func.dfg.result(inst)
    };
    let cast = |op: CastOp, arg: Value, to: &Type| InstData::Cast {
        op,
        arg,
        to: to.clone(),
        flags: CastFlags::default(),
    };
    let passed_result =
        (call.ret_ty != Type::Void).then(|| PassedValue::of(&call.ret_ty, call.isa));
    let mut args = Vec::new();
    if passed_result.as_ref().is_some_and(PassedValue::in_memory) {
        let buffer = result_buffer.ok_or_else(|| {
            format!("the result of `{}` is returned in memory but no buffer was given", call.callee)
        })?;
        args.push(buffer);
    }
    for &arg in &call.args {
        let ty = func.dfg.value_type(arg).clone();
        let passed = PassedValue::of(&ty, call.isa);
        let mut value = arg;
        if passed.abi_ty != ty {
            value = emit(func, cast(CastOp::ZExt, value, &passed.abi_ty), passed.abi_ty.clone())
                .expect("a cast has a result");
        }
        if let Some(carrier) = &passed.carrier {
            value = emit(func, cast(CastOp::Bitcast, value, carrier), carrier.clone())
                .expect("a cast has a result");
            args.push(value);
        } else if passed.parts > 1 {
            let part_lanes = passed.part_ty.lanes().expect("parts are vectors") as i32;
            for part in 0..passed.parts as i32 {
                let mask: Vec<i32> = (part * part_lanes..(part + 1) * part_lanes).collect();
                let shuffle = InstData::Shuffle { lhs: value, rhs: value, mask };
                args.push(emit(func, shuffle, passed.part_ty.clone()).expect("a shuffle"));
            }
        } else {
            args.push(value);
        }
    }
    let Some(passed) = passed_result else {
        let data = InstData::Call {
            callee: Callee::Direct(call.callee.clone()),
            args,
            ret_ty: Type::Void,
            effects: call.effects,
            flags: call.flags,
        };
        emit(func, data, Type::Void);
        return Ok(None);
    };
    let in_memory = passed.in_memory();
    let call_ret_ty = if in_memory {
        Type::PTR
    } else {
        passed.carrier.clone().unwrap_or_else(|| passed.abi_ty.clone())
    };
    // The callee writes its result through the buffer: the call is no longer
    // free of memory effects.
    let effects = if in_memory { CallEffects::SideEffects } else { call.effects };
    let data = InstData::Call {
        callee: Callee::Direct(call.callee.clone()),
        args: args.clone(),
        ret_ty: call_ret_ty.clone(),
        effects,
        flags: call.flags,
    };
    let returned = emit(func, data, call_ret_ty).expect("a call with a result");
    let mut whole = if in_memory {
        // Reload the parts from the caller's buffer (the callee returns the
        // same pointer) and concatenate them.
        let buffer = args[0];
        let part_bytes = passed.part_bytes();
        let align = part_align(part_bytes);
        let mut parts = Vec::new();
        for part in 0..u64::from(passed.parts) {
            let offset = func.dfg.int_const(Type::I64, u128::from(part * part_bytes));
            let gep = InstData::Gep {
                source_ty: Type::I8,
                base: buffer,
                indices: vec![offset],
                inbounds: true,
            };
            let address = emit(func, gep, Type::PTR).expect("a gep");
            let load = InstData::Load {
                ty: passed.part_ty.clone(),
                addr: address,
                align,
                volatile: false,
            };
            parts.push(emit(func, load, passed.part_ty.clone()).expect("a load"));
        }
        let mut prologue = Vec::new();
        let whole = concat_parts(func, &parts, &passed.abi_ty, &mut prologue);
        for inst in prologue {
            func.layout.append_inst(inst, block);
        }
        whole
    } else if passed.carrier.is_some() {
        emit(func, cast(CastOp::Bitcast, returned, &passed.abi_ty), passed.abi_ty.clone())
            .expect("a cast")
    } else {
        returned
    };
    if passed.abi_ty != passed.whole_ty {
        whole = emit(func, cast(CastOp::Trunc, whole, &passed.whole_ty), passed.whole_ty.clone())
            .expect("a cast");
    }
    Ok(Some(whole))
}

/// Rewrites the signature of `func` for the given vector register width.
pub fn lower_vector_abi(func: &mut Function, isa: Isa) {
    let entry = func.entry_block().expect("a widened function has an entry block");
    let old_params = std::mem::take(&mut func.params);
    let mut new_params = Vec::new();
    // Instructions that rebuild each old parameter, inserted at the top of the
    // entry block in order.
    let mut prologue = Vec::new();
    let mut replacements: Vec<(Value, Value)> = Vec::new();

    // A result wider than a register is stored through a hidden first
    // parameter, as GCC's clones do (the psABI's MEMORY class).
    let returns_in_memory =
        func.ret_ty != Type::Void && PassedValue::of(&func.ret_ty, isa).in_memory();
    let result_pointer = returns_in_memory.then(|| {
        let value = func.dfg.make_param(0, Type::PTR);
        new_params.push(Param { ty: Type::PTR, value });
        value
    });

    for param in old_params {
        let passed = PassedValue::of(&param.ty, isa);
        let PassedValue { abi_ty: passed_ty, parts, carrier, .. } = passed.clone();
        if passed.is_native() {
            set_param_index(func, param.value, new_params.len());
            new_params.push(param);
            continue;
        }
        let whole = if let Some(carrier_ty) = carrier {
            // A vector of at most 32 bits travels in a general-purpose register.
            let value = func.dfg.make_param(new_params.len() as u32, carrier_ty.clone());
            new_params.push(Param { ty: carrier_ty, value });
            let flags = CastFlags::default();
            let data =
                InstData::Cast { op: CastOp::Bitcast, arg: value, to: passed_ty.clone(), flags };
            let inst = func.dfg.make_inst(data, passed_ty.clone());
            prologue.push(inst);
            func.dfg.result(inst).unwrap()
        } else {
            // The parts, as new parameter values.
            let part_ty = passed.part_ty.clone();
            let part_values: Vec<Value> = (0..parts)
                .map(|_| {
                    let value = func.dfg.make_param(new_params.len() as u32, part_ty.clone());
                    new_params.push(Param { ty: part_ty.clone(), value });
                    value
                })
                .collect();
            concat_parts(func, &part_values, &passed_ty, &mut prologue)
        };
        let rebuilt = if passed_ty == param.ty {
            whole
        } else {
            let flags = CastFlags::default();
            let data =
                InstData::Cast { op: CastOp::Trunc, arg: whole, to: param.ty.clone(), flags };
            let inst = func.dfg.make_inst(data, param.ty.clone());
            prologue.push(inst);
            func.dfg.result(inst).unwrap()
        };
        replacements.push((param.value, rebuilt));
        // The old parameter value is now unused; make it a poison constant
        // so no dangling `Param` index remains.
        func.dfg.values[param.value].def = ValueDef::Const(lanewise_ir::Constant::Poison);
    }
    func.params = new_params;
    for (position, inst) in prologue.into_iter().enumerate() {
        func.layout.insert_inst_at(inst, entry, position);
    }
    replace_uses(func, &replacements);
    lower_returns(func, isa, result_pointer);
}

fn set_param_index(func: &mut Function, value: Value, index: usize) {
    func.dfg.values[value].def = ValueDef::Param(index as u32);
}

/// The type a value of `ty` travels as: booleans as bytes.
fn abi_type(ty: &Type) -> Type {
    match ty {
        Type::Vector { elem, lanes } if **elem == Type::BOOL => Type::I8.vector_of(*lanes),
        other => other.clone(),
    }
}

/// The width of the registers that carry vectors of `elem` under `isa`. AVX
/// (`c`) has no 256-bit integer instructions, so the ABI passes integer and
/// pointer vectors in 128-bit registers there and only floating-point vectors
/// in 256-bit ones.
fn register_bits(isa: Isa, elem: &Type) -> u32 {
    match isa {
        Isa::Avx if !elem.is_float() => 128,
        _ => isa.register_bits(),
    }
}

/// The integer type a vector of at most 32 bits travels as: the x86-64
/// psABI (and so clang and GCC) classifies such vectors as INTEGER and passes
/// them in a general-purpose register. Wider vectors use vector registers.
fn small_vector_carrier(ty: &Type) -> Option<Type> {
    let Type::Vector { elem, lanes } = ty else {
        return None;
    };
    let bits = elem.scalar_bits()? * lanes;
    (bits <= 32 && !elem.is_ptr()).then_some(Type::Int(bits))
}

/// How many registers a value of `ty` takes.
fn part_count(ty: &Type, isa: Isa) -> u32 {
    match ty {
        Type::Vector { elem, lanes } => {
            let register_bits = register_bits(isa, elem);
            let bits = elem.scalar_bits().unwrap_or(64) * lanes;
            if bits > register_bits && bits % register_bits == 0 {
                bits / register_bits
            } else {
                1
            }
        }
        _ => 1,
    }
}

fn part_type(ty: &Type, parts: u32) -> Type {
    match ty {
        Type::Vector { elem, lanes } => elem.vector_of(lanes / parts),
        other => other.clone(),
    }
}

/// Concatenates equal-sized vector parts into one vector by a tree of shuffles.
fn concat_parts(
    func: &mut Function,
    parts: &[Value],
    whole_ty: &Type,
    prologue: &mut Vec<lanewise_ir::Inst>,
) -> Value {
    let mut level: Vec<Value> = parts.to_vec();
    while level.len() > 1 {
        let mut next = Vec::new();
        for pair in level.chunks(2) {
            let lanes = func.dfg.value_type(pair[0]).lanes().unwrap();
            let elem = func.dfg.value_type(pair[0]).scalar_type().clone();
            let mask: Vec<i32> = (0..2 * lanes as i32).collect();
            let ty = elem.vector_of(2 * lanes);
            let data = InstData::Shuffle { lhs: pair[0], rhs: pair[1], mask };
            let inst = func.dfg.make_inst(data, ty);
            prologue.push(inst);
            next.push(func.dfg.result(inst).unwrap());
        }
        level = next;
    }
    debug_assert_eq!(func.dfg.value_type(level[0]), whole_ty);
    level[0]
}

/// Replaces every use of each `from` by its `to`.
fn replace_uses(func: &mut Function, replacements: &[(Value, Value)]) {
    if replacements.is_empty() {
        return;
    }
    let insts: Vec<_> = func.layout.insts().collect();
    for inst in insts {
        func.dfg.inst_mut(inst).map_operands(|value| {
            replacements.iter().find(|(from, _)| *from == value).map_or(value, |(_, to)| *to)
        });
    }
}

/// Rewrites every `ret` of a wide or boolean vector.
fn lower_returns(func: &mut Function, isa: Isa, result_pointer: Option<Value>) {
    let passed = PassedValue::of(&func.ret_ty, isa);
    if func.ret_ty == Type::Void || passed.is_native() {
        return;
    }
    let part_bytes = passed.part_bytes();
    let PassedValue { abi_ty: passed_ty, parts, part_ty, carrier, .. } = passed;
    let new_ret_ty = match (&carrier, result_pointer) {
        (Some(carrier_ty), _) => carrier_ty.clone(),
        (None, Some(_)) => Type::PTR,
        (None, None) => passed_ty.clone(),
    };
    let returns: Vec<_> = func
        .layout
        .insts()
        .filter(|inst| matches!(func.dfg.inst(*inst), InstData::Return { value: Some(_) }))
        .collect();
    for ret in returns {
        let InstData::Return { value: Some(value) } = func.dfg.inst(ret).clone() else {
            unreachable!()
        };
        let emit = |func: &mut Function, data: InstData, ty: Type| {
            let inst = func.dfg.make_inst(data, ty);
            func.layout.insert_inst_before(inst, ret);
            func.dfg.result(inst)
        };
        let mut passed = value;
        if passed_ty != func.ret_ty {
            let data = InstData::Cast {
                op: CastOp::ZExt,
                arg: value,
                to: passed_ty.clone(),
                flags: CastFlags::default(),
            };
            passed = emit(func, data, passed_ty.clone()).unwrap();
        }
        if let Some(out) = result_pointer {
            // Store the register-sized parts in order and return the pointer
            // (in rax, as the psABI wants for MEMORY-class results).
            let part_lanes = part_ty.lanes().unwrap() as i32;
            for part in 0..parts as i32 {
                let mask: Vec<i32> = (part * part_lanes..(part + 1) * part_lanes).collect();
                let poison = func.dfg.make_const(passed_ty.clone(), lanewise_ir::Constant::Poison);
                let data = InstData::Shuffle { lhs: passed, rhs: poison, mask };
                let piece = emit(func, data, part_ty.clone()).unwrap();
                let offset = func.dfg.int_const(Type::I64, u128::from(part as u64 * part_bytes));
                let data = InstData::Gep {
                    source_ty: Type::I8,
                    base: out,
                    indices: vec![offset],
                    inbounds: true,
                };
                let address = emit(func, data, Type::PTR).unwrap();
                let align = part_align(part_bytes);
                let data = InstData::Store { value: piece, addr: address, align, volatile: false };
                emit(func, data, Type::Void);
            }
            passed = out;
        }
        if let Some(carrier_ty) = &carrier {
            let data = InstData::Cast {
                op: CastOp::Bitcast,
                arg: passed,
                to: carrier_ty.clone(),
                flags: CastFlags::default(),
            };
            passed = emit(func, data, carrier_ty.clone()).unwrap();
        }
        *func.dfg.inst_mut(ret) = InstData::Return { value: Some(passed) };
    }
    func.ret_ty = new_ret_ty;
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanewise_ir::{BinaryOp, FunctionBuilder};

    /// `<8 x double> f(<8 x double> x) { return x + x; }` at 256-bit registers.
    #[test]
    fn splits_wide_parameters_and_results_into_register_parts() {
        let v8f64 = Type::F64.vector_of(8);
        let mut func = Function::new("f", vec![v8f64.clone()], v8f64.clone());
        let x = func.param_value(0);
        let mut builder = FunctionBuilder::new(&mut func);
        let entry = builder.create_block(None);
        builder.switch_to_block(entry);
        let sum = builder.binary(BinaryOp::FAdd, x, x);
        builder.ret(Some(sum));

        lower_vector_abi(&mut func, Isa::Avx2);

        let v4f64 = Type::F64.vector_of(4);
        let param_types: Vec<_> = func.params.iter().map(|param| param.ty.clone()).collect();
        // The hidden result pointer comes first, then the two parts of `x`.
        assert_eq!(param_types, vec![Type::PTR, v4f64.clone(), v4f64.clone()]);
        assert_eq!(func.ret_ty, Type::PTR);
        let insts: Vec<_> = func.layout.block_insts(entry).to_vec();
        let InstData::Gep { indices, .. } = func.dfg.inst(insts[6]) else {
            panic!("expected the address of the second part");
        };
        assert_eq!(
            func.dfg.int_constant(indices[0]),
            Some(32),
            "the second part starts at byte 32"
        );
        let opcodes: Vec<_> = insts.iter().map(|inst| func.dfg.inst(*inst).opcode_name()).collect();
        assert_eq!(
            opcodes,
            vec![
                "shufflevector", // concatenate x
                "fadd",
                "shufflevector", // lanes 0..3 of the result
                "getelementptr",
                "store",
                "shufflevector", // lanes 4..7
                "getelementptr",
                "store",
                "ret"
            ]
        );
        let InstData::Shuffle { lhs, rhs, mask } = func.dfg.inst(insts[0]).clone() else {
            panic!("expected the concatenating shuffle first");
        };
        assert_eq!((lhs, rhs), (func.params[1].value, func.params[2].value));
        assert_eq!(mask, (0..8).collect::<Vec<_>>());
        let concat = func.dfg.result(insts[0]).unwrap();
        assert_eq!(func.dfg.inst(insts[1]).operands(), vec![concat, concat]);
        assert_eq!(
            func.dfg.inst(insts[8]),
            &InstData::Return { value: Some(func.params[0].value) }
        );
    }

    #[test]
    fn narrow_signatures_are_unchanged() {
        let v8f32 = Type::F32.vector_of(8);
        let mut func = Function::new("g", vec![v8f32.clone(), Type::PTR], v8f32.clone());
        let x = func.param_value(0);
        let mut builder = FunctionBuilder::new(&mut func);
        let entry = builder.create_block(None);
        builder.switch_to_block(entry);
        builder.ret(Some(x));

        lower_vector_abi(&mut func, Isa::Avx2);

        assert_eq!(func.params.len(), 2);
        assert_eq!(func.ret_ty, v8f32);
        assert_eq!(func.layout.block_insts(entry).len(), 1);
    }

    #[test]
    fn avx_passes_integer_vectors_in_128_bit_registers() {
        let v8i32 = Type::I32.vector_of(8);
        let mut func = Function::new("k", vec![v8i32.clone()], v8i32.clone());
        let x = func.param_value(0);
        let mut builder = FunctionBuilder::new(&mut func);
        let entry = builder.create_block(None);
        builder.switch_to_block(entry);
        builder.ret(Some(x));

        lower_vector_abi(&mut func, Isa::Avx);

        let v4i32 = Type::I32.vector_of(4);
        let param_types: Vec<_> = func.params.iter().map(|param| param.ty.clone()).collect();
        assert_eq!(param_types, vec![Type::PTR, v4i32.clone(), v4i32]);
        assert_eq!(func.ret_ty, Type::PTR);
    }

    #[test]
    fn booleans_travel_as_bytes() {
        let mask_ty = Type::BOOL.vector_of(4);
        let mut func = Function::new("h", vec![mask_ty.clone()], mask_ty.clone());
        let m = func.param_value(0);
        let mut builder = FunctionBuilder::new(&mut func);
        let entry = builder.create_block(None);
        builder.switch_to_block(entry);
        builder.ret(Some(m));

        lower_vector_abi(&mut func, Isa::Sse);

        // <4 x i8> is 32 bits: it travels in a general-purpose register as i32.
        assert_eq!(func.params[0].ty, Type::I32);
        assert_eq!(func.ret_ty, Type::I32);
        let opcodes: Vec<_> = func
            .layout
            .block_insts(entry)
            .iter()
            .map(|inst| func.dfg.inst(*inst).opcode_name())
            .collect();
        assert_eq!(opcodes, vec!["bitcast", "trunc", "zext", "bitcast", "ret"]);
    }
}
