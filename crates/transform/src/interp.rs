//! A reference interpreter of the Lanewise IR, the oracle of the widening
//! tests (and of later fuzzing): the scalar function is run lane by lane, the
//! widened function once, and results and memory are compared (the
//! "differential execution" of the design brief, without machine code).
//!
//! It executes integer and floating-point arithmetic (wrapping integers;
//! flags such as `nsw` are not checked), comparisons, casts, phis (all phis
//! of a block read their inputs simultaneously), branches and switches,
//! loads and stores on a little-endian byte-array [`Memory`] whose addresses
//! start at [`Memory::base`], allocas (appended to the memory), `Splat`,
//! vector operations (`<N x i1>` masks included, packed into an integer and
//! unpacked again by `bitcast`, lane i as bit i), gathers/scatters, masked loads/stores, the elementwise
//! LLVM intrinsics in scalar and vector form, `llvm.experimental.vector.compress`,
//! `llvm.masked.expandload` and `llvm.x86.avx512.mask.expand`, and `_ZGV` vector-variant
//! calls (run as the scalar function per lane). Other calls go to an
//! [`Externals`] callback. Undefined behaviour that matters (division by
//! zero, out-of-bounds accesses, branching on poison) is an error, not a
//! guess. Not supported: half floats, bit-packed `<N x i1>` in memory.

use std::collections::HashMap;

use lanewise_ir::exact_math::ExactMathFunction;
use lanewise_ir::vfabi::VariantName;
use lanewise_ir::{
    dfg::sign_extend, AtomicRmwOp, BinaryOp, Block, Callee, CastOp, Constant, DataLayout,
    FloatPredicate, Function, InstData, IntPredicate, Type, UnaryOp, Value, ValueDef, PAGE_BYTES,
};

/// A runtime value.
#[derive(Clone, Debug)]
pub enum Val {
    /// An integer of `bits` bits, zero-extended into `value`.
    Int {
        bits: u32,
        value: u128,
    },
    F32(f32),
    F64(f64),
    /// An address.
    Ptr(u64),
    Vector(Vec<Val>),
    Aggregate(Vec<Val>),
    Poison,
}

impl Val {
    pub fn int(bits: u32, value: u128) -> Val {
        Val::Int { bits, value: truncate(value, bits) }
    }

    pub fn bool(value: bool) -> Val {
        Val::int(1, u128::from(value))
    }

    /// Structural equality with floats compared by bit pattern (any NaN equals any NaN).
    pub fn same_as(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Int { bits: a, value: x }, Val::Int { bits: b, value: y }) => a == b && x == y,
            (Val::F32(x), Val::F32(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
            (Val::F64(x), Val::F64(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
            (Val::Ptr(x), Val::Ptr(y)) => x == y,
            (Val::Vector(x), Val::Vector(y)) | (Val::Aggregate(x), Val::Aggregate(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(a, b)| a.same_as(b))
            }
            (Val::Poison, Val::Poison) => true,
            _ => false,
        }
    }

    fn int_bits_of(&self) -> Option<u32> {
        match self {
            Val::Int { bits, .. } => Some(*bits),
            _ => None,
        }
    }

    fn lanes(&self) -> Option<&[Val]> {
        match self {
            Val::Vector(lanes) => Some(lanes),
            _ => None,
        }
    }

    /// Lane `lane` of a vector, or the value itself for a scalar (broadcast).
    pub fn lane(&self, lane: usize) -> Val {
        match self {
            Val::Vector(lanes) => lanes[lane].clone(),
            scalar => scalar.clone(),
        }
    }

    fn as_u128(&self) -> Result<u128, InterpError> {
        match self {
            Val::Int { value, .. } => Ok(*value),
            Val::Ptr(address) => Ok(u128::from(*address)),
            Val::Poison => Err(InterpError("use of poison where a value is needed".into())),
            other => Err(InterpError(format!("expected an integer, found {other:?}"))),
        }
    }

    fn as_i128(&self) -> Result<i128, InterpError> {
        match self {
            Val::Int { bits, value } => Ok(sign_extend(*value, *bits)),
            other => other.as_u128().map(|value| value as i128),
        }
    }
}

pub(crate) fn truncate(value: u128, bits: u32) -> u128 {
    if bits >= 128 {
        value
    } else {
        value & ((1u128 << bits) - 1)
    }
}

/// An execution error (undefined behaviour, unsupported operation, step limit).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("interpreter: {0}")]
pub struct InterpError(pub String);

fn error<T>(message: impl Into<String>) -> Result<T, InterpError> {
    Err(InterpError(message.into()))
}

/// A flat little-endian memory: address `base + i` is `bytes[i]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Memory {
    pub base: u64,
    pub bytes: Vec<u8>,
}

impl Memory {
    pub fn new(base: u64, size: usize) -> Memory {
        Memory { base, bytes: vec![0; size] }
    }

    fn range(&self, address: u64, len: u64) -> Result<std::ops::Range<usize>, InterpError> {
        let start = address.checked_sub(self.base);
        match start {
            Some(start)
                if start.checked_add(len).is_some_and(|end| end <= self.bytes.len() as u64) =>
            {
                Ok(start as usize..(start + len) as usize)
            }
            _ => error(format!("access of {len} bytes at {address:#x} is out of bounds")),
        }
    }

    pub fn read(&self, address: u64, len: u64) -> Result<&[u8], InterpError> {
        let range = self.range(address, len)?;
        Ok(&self.bytes[range])
    }

    pub fn write(&mut self, address: u64, data: &[u8]) -> Result<(), InterpError> {
        let range = self.range(address, data.len() as u64)?;
        self.bytes[range].copy_from_slice(data);
        Ok(())
    }

    /// Appends `size` zero bytes aligned to `align`; returns their address.
    pub fn allocate(&mut self, size: u64, align: u64) -> u64 {
        let align = align.max(1);
        let end = self.base + self.bytes.len() as u64;
        let start = end.div_ceil(align) * align;
        let new_len = (start - self.base + size) as usize;
        self.bytes.resize(new_len, 0);
        start
    }
}

/// Calls the interpreter cannot evaluate itself: `(name, arguments)` to result
/// (`None` for void functions).
pub type Externals<'e> = dyn FnMut(&str, &[Val]) -> Result<Option<Val>, InterpError> + 'e;

/// Runs functions of the IR on a [`Memory`].
pub struct Interpreter<'e> {
    pub memory: Memory,
    pub data_layout: DataLayout,
    externals: Box<Externals<'e>>,
    /// Instructions left before the run is aborted (against endless loops).
    pub fuel: u64,
}

impl<'e> Interpreter<'e> {
    pub fn new(
        memory: Memory,
        externals: impl FnMut(&str, &[Val]) -> Result<Option<Val>, InterpError> + 'e,
    ) -> Self {
        Interpreter {
            memory,
            data_layout: DataLayout::default(),
            externals: Box::new(externals),
            fuel: 1_000_000,
        }
    }

    /// Runs `func` on `args`; returns its result (`None` for `void`).
    pub fn run(&mut self, func: &Function, args: &[Val]) -> Result<Option<Val>, InterpError> {
        if args.len() != func.params.len() {
            return error(format!("{} arguments for {} parameters", args.len(), func.params.len()));
        }
        let mut frame: HashMap<Value, Val> = HashMap::new();
        for (param, arg) in func.params.iter().zip(args) {
            frame.insert(param.value, arg.clone());
        }
        let mut block = func.entry_block().ok_or_else(|| InterpError("no entry block".into()))?;
        let mut predecessor: Option<Block> = None;
        loop {
            let insts = func.layout.block_insts(block);
            // Phis read their inputs simultaneously.
            let mut phi_values = Vec::new();
            for &inst in insts {
                let InstData::Phi { incoming, .. } = func.dfg.inst(inst) else { break };
                let from =
                    predecessor.ok_or_else(|| InterpError("phi in the entry block".into()))?;
                let (_, value) = incoming
                    .iter()
                    .find(|(block, _)| *block == from)
                    .ok_or_else(|| InterpError(format!("phi {inst} has no input from {from}")))?;
                let result = func.dfg.result(inst).expect("phi result");
                phi_values.push((result, self.operand(func, &frame, *value)?));
            }
            frame.extend(phi_values);
            for &inst in insts {
                self.fuel =
                    self.fuel.checked_sub(1).ok_or_else(|| InterpError("out of fuel".into()))?;
                let data = func.dfg.inst(inst);
                match data {
                    InstData::Phi { .. } => continue,
                    InstData::Jump { dest } => {
                        predecessor = Some(block);
                        block = *dest;
                        break;
                    }
                    InstData::Branch { cond, then_dest, else_dest } => {
                        let cond = self.operand(func, &frame, *cond)?.as_u128().map_err(
                            |InterpError(message)| {
                                InterpError(format!(
                                    "{message} (branch of {})",
                                    func.block_name(block)
                                ))
                            },
                        )?;
                        predecessor = Some(block);
                        block = if cond != 0 { *then_dest } else { *else_dest };
                        break;
                    }
                    InstData::Switch { value, default, cases } => {
                        let value = self.operand(func, &frame, *value)?.as_u128()?;
                        predecessor = Some(block);
                        block = cases
                            .iter()
                            .find(|(case, _)| *case == value)
                            .map_or(*default, |(_, dest)| *dest);
                        break;
                    }
                    InstData::Return { value } => {
                        return match value {
                            Some(value) => Ok(Some(self.operand(func, &frame, *value)?)),
                            None => Ok(None),
                        };
                    }
                    InstData::Unreachable => return error("reached `unreachable`"),
                    InstData::Invoke { .. }
                    | InstData::LandingPad { .. }
                    | InstData::Resume { .. } => {
                        return error(format!(
                            "exception handling (`{}` in {}) is not supported by the interpreter",
                            data.opcode_name(),
                            func.block_name(block)
                        ))
                    }
                    _ => {
                        let result_ty =
                            func.dfg.result(inst).map(|value| func.dfg.value_type(value).clone());
                        let value = self.execute(func, &frame, data, result_ty.as_ref()).map_err(
                            |InterpError(message)| {
                                InterpError(format!(
                                    "{message} (at {inst} in {})",
                                    func.block_name(block)
                                ))
                            },
                        )?;
                        if let (Some(result), Some(value)) = (func.dfg.result(inst), value) {
                            frame.insert(result, value);
                        }
                    }
                }
            }
        }
    }

    fn operand(
        &self,
        func: &Function,
        frame: &HashMap<Value, Val>,
        value: Value,
    ) -> Result<Val, InterpError> {
        match func.dfg.value_def(value) {
            ValueDef::Const(constant) => self.constant(func, func.dfg.value_type(value), constant),
            _ => frame
                .get(&value)
                .cloned()
                .ok_or_else(|| InterpError(format!("{value} used before its definition"))),
        }
    }

    fn constant(
        &self,
        func: &Function,
        ty: &Type,
        constant: &Constant,
    ) -> Result<Val, InterpError> {
        Ok(match constant {
            Constant::Int(value) => Val::int(ty.int_bits().unwrap_or(64), *value),
            Constant::Float(bits) => match ty {
                Type::F32 => Val::F32(f32::from_bits(*bits as u32)),
                Type::F64 => Val::F64(f64::from_bits(*bits)),
                _ => return error(format!("float constant of type {ty}")),
            },
            Constant::Null => Val::Ptr(0),
            Constant::Undef | Constant::Poison => match ty {
                Type::Vector { lanes, .. } => Val::Vector(vec![Val::Poison; *lanes as usize]),
                _ => Val::Poison,
            },
            Constant::Zero => zero_of(ty)?,
            Constant::Aggregate(elements) => {
                let elements = elements
                    .iter()
                    .map(|element| {
                        let ValueDef::Const(constant) = func.dfg.value_def(*element) else {
                            return error("non-constant element in a constant aggregate");
                        };
                        self.constant(func, func.dfg.value_type(*element), constant)
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                if ty.is_vector() {
                    Val::Vector(elements)
                } else {
                    Val::Aggregate(elements)
                }
            }
            Constant::Symbol(name) => return error(format!("address of symbol `{name}`")),
        })
    }

    fn execute(
        &mut self,
        func: &Function,
        frame: &HashMap<Value, Val>,
        data: &InstData,
        result_ty: Option<&Type>,
    ) -> Result<Option<Val>, InterpError> {
        let get = |value: Value| self.operand(func, frame, value);
        let result_ty = result_ty.cloned().unwrap_or(Type::Void);
        let value = match data {
            InstData::Binary { op, lhs, rhs, .. } => {
                let (lhs, rhs) = (get(*lhs)?, get(*rhs)?);
                lanewise2(&lhs, &rhs, |a, b| binary(*op, a, b))?
            }
            InstData::Unary { op: UnaryOp::FNeg, arg, .. } => {
                lanewise1(&get(*arg)?, |a| match a {
                    Val::F32(x) => Ok(Val::F32(-x)),
                    Val::F64(x) => Ok(Val::F64(-x)),
                    Val::Poison => Ok(Val::Poison),
                    other => error(format!("fneg of {other:?}")),
                })?
            }
            InstData::Icmp { pred, lhs, rhs } => {
                lanewise2(&get(*lhs)?, &get(*rhs)?, |a, b| icmp(*pred, a, b))?
            }
            InstData::Fcmp { pred, lhs, rhs, .. } => {
                lanewise2(&get(*lhs)?, &get(*rhs)?, |a, b| fcmp(*pred, a, b))?
            }
            InstData::Select { cond, if_true, if_false, .. } => {
                let (cond, if_true, if_false) = (get(*cond)?, get(*if_true)?, get(*if_false)?);
                match result_ty.lanes() {
                    Some(lanes) => Val::Vector(
                        (0..lanes as usize)
                            .map(|lane| {
                                select(&cond.lane(lane), if_true.lane(lane), if_false.lane(lane))
                            })
                            .collect::<Result<_, _>>()?,
                    ),
                    None => select(&cond, if_true, if_false)?,
                }
            }
            InstData::Cast { op: CastOp::Bitcast, arg, to, .. }
                if func.dfg.value_type(*arg).is_vector() && !to.is_vector() =>
            {
                // Packing a mask into an integer (lane i is bit i).
                let mut packed = 0u128;
                for (lane, bit) in get(*arg)?.lanes().unwrap_or_default().iter().enumerate() {
                    packed |= (bit.as_u128()? & 1) << lane;
                }
                Val::int(to.int_bits().unwrap_or(128), packed)
            }
            InstData::Cast {
                op: CastOp::Bitcast, arg, to: Type::Vector { elem, lanes }, ..
            } if **elem == Type::BOOL && !func.dfg.value_type(*arg).is_vector() => {
                // Unpacking an integer into a mask (bit i is lane i).
                let packed = get(*arg)?;
                if matches!(packed, Val::Poison) {
                    Val::Vector(vec![Val::Poison; *lanes as usize])
                } else {
                    let packed = packed.as_u128()?;
                    Val::Vector(
                        (0..*lanes).map(|lane| Val::bool(packed >> lane & 1 == 1)).collect(),
                    )
                }
            }
            InstData::Cast { op, arg, to, .. } => {
                let to_elem = to.scalar_type().clone();
                lanewise1(&get(*arg)?, |a| cast(*op, a, &to_elem))?
            }
            // A frozen poison is some fixed value: zero here.
            InstData::Freeze { arg } => freeze(get(*arg)?, &result_ty)?,
            InstData::Load { ty, addr, .. } => {
                let address = pointer(&get(*addr)?)?;
                self.read(ty, address)?
            }
            InstData::Store { value, addr, .. } => {
                let value = get(*value)?;
                let address = pointer(&get(*addr)?)?;
                let ty = func.dfg.value_type(*value_of(data)).clone();
                self.write(&ty, address, &value)?;
                return Ok(None);
            }
            InstData::AtomicRmw { op, addr, value, .. } => {
                let value = get(*value)?;
                let address = pointer(&get(*addr)?)?;
                let ty = func.dfg.value_type(*value_of(data)).clone();
                let old = self.read(&ty, address)?;
                self.write(&ty, address, &atomic_rmw(*op, &old, &value)?)?;
                old
            }
            InstData::CmpXchg { addr, expected, new, .. } => {
                let (expected, new) = (get(*expected)?, get(*new)?);
                let address = pointer(&get(*addr)?)?;
                let ty = func.dfg.value_type(*value_of(data)).clone();
                let old = self.read(&ty, address)?;
                let success = old.as_u128()? == expected.as_u128()?;
                if success {
                    self.write(&ty, address, &new)?;
                }
                Val::Aggregate(vec![old, Val::bool(success)])
            }
            InstData::Gep { source_ty, base, indices, .. } => {
                let base = get(*base)?;
                let indices =
                    indices.iter().map(|index| get(*index)).collect::<Result<Vec<_>, _>>()?;
                match result_ty.lanes() {
                    Some(lanes) => Val::Vector(
                        (0..lanes as usize)
                            .map(|lane| {
                                let indices: Vec<Val> =
                                    indices.iter().map(|index| index.lane(lane)).collect();
                                self.gep(source_ty, &base.lane(lane), &indices)
                            })
                            .collect::<Result<_, _>>()?,
                    ),
                    None => self.gep(source_ty, &base, &indices)?,
                }
            }
            InstData::Alloca { ty, count, align } => {
                let count = get(*count)?.as_u128()? as u64;
                let size = self.data_layout.alloc_size(ty) * count;
                let align = u64::from(*align).max(self.data_layout.abi_align(ty));
                Val::Ptr(self.memory.allocate(size, align))
            }
            InstData::ExtractValue { aggregate, indices } => {
                let mut value = get(*aggregate)?;
                for index in indices {
                    value = match value {
                        Val::Aggregate(elements) => elements[*index as usize].clone(),
                        // The per-lane result of an inactive lane.
                        Val::Poison => Val::Poison,
                        other => return error(format!("extractvalue from {other:?}")),
                    };
                }
                value
            }
            InstData::InsertValue { aggregate, value, indices } => {
                let mut aggregate = get(*aggregate)?;
                insert_value(&mut aggregate, &indices[..], get(*value)?)?;
                aggregate
            }
            InstData::ExtractElement { vector, index } => {
                let vector = get(*vector)?;
                let index = get(*index)?.as_u128()? as usize;
                vector.lanes().and_then(|lanes| lanes.get(index)).cloned().unwrap_or(Val::Poison)
            }
            InstData::InsertElement { vector, value, index } => {
                let mut vector = get(*vector)?;
                let index = get(*index)?.as_u128()? as usize;
                match &mut vector {
                    Val::Vector(lanes) if index < lanes.len() => lanes[index] = get(*value)?,
                    _ => return error("insertelement out of range"),
                }
                vector
            }
            InstData::Shuffle { lhs, rhs, mask } => {
                let (lhs, rhs) = (get(*lhs)?, get(*rhs)?);
                let (Some(lhs), Some(rhs)) = (lhs.lanes(), rhs.lanes()) else {
                    return error("shufflevector of non-vectors");
                };
                let both: Vec<Val> = lhs.iter().chain(rhs).cloned().collect();
                Val::Vector(
                    mask.iter()
                        .map(
                            |&index| {
                                if index < 0 {
                                    Val::Poison
                                } else {
                                    both[index as usize].clone()
                                }
                            },
                        )
                        .collect(),
                )
            }
            InstData::Splat { scalar, lanes } => Val::Vector(vec![get(*scalar)?; *lanes as usize]),
            InstData::Call { callee, args, .. } => {
                let args = args.iter().map(|arg| get(*arg)).collect::<Result<Vec<_>, _>>()?;
                let name = match callee {
                    Callee::Direct(name) => name.clone(),
                    Callee::Indirect(pointer) => {
                        return error(format!("indirect call through {:?}", get(*pointer)?));
                    }
                    Callee::InlineAsm(asm) if asm.is_identity() && args.len() == 1 => {
                        return Ok(args.into_iter().next());
                    }
                    Callee::InlineAsm(asm) => {
                        return error(format!("inline assembly `{}`", asm.asm));
                    }
                };
                return self.call(&name, &args, &result_ty);
            }
            InstData::MaskedLoad { ty, addr, mask, passthru, .. } => {
                let (address, mask, passthru) =
                    (pointer(&get(*addr)?)?, get(*mask)?, get(*passthru)?);
                let elem = ty.scalar_type().clone();
                let size = self.data_layout.store_size(&elem);
                let lanes = ty.lanes().unwrap_or(1) as usize;
                let mut values = Vec::new();
                for lane in 0..lanes {
                    values.push(if mask.lane(lane).as_u128()? != 0 {
                        self.read(&elem, address + lane as u64 * size)?
                    } else {
                        passthru.lane(lane)
                    });
                }
                Val::Vector(values)
            }
            InstData::SpeculativeLoad { ty, addr } => {
                let address = pointer(&get(*addr)?)?;
                let elem = ty.scalar_type().clone();
                let size = self.data_layout.store_size(&elem);
                let lanes = u64::from(ty.lanes().unwrap_or(1));
                if address % PAGE_BYTES + lanes * size > PAGE_BYTES {
                    return error(format!(
                        "speculative load of {ty} at {address:#x} crosses a page boundary"
                    ));
                }
                // Bytes outside the interpreter's memory stand for bytes no
                // lane of the scalar code reads: such lanes are poison.
                let values: Vec<Val> = (0..lanes)
                    .map(|lane| self.read(&elem, address + lane * size).unwrap_or(Val::Poison))
                    .collect();
                if values.iter().all(|value| matches!(value, Val::Poison)) {
                    return error(format!(
                        "speculative load of {ty} at {address:#x} reads no lane's memory"
                    ));
                }
                Val::Vector(values)
            }
            InstData::MaskedStore { value, addr, mask, .. } => {
                let (value, address, mask) = (get(*value)?, pointer(&get(*addr)?)?, get(*mask)?);
                let elem = func.dfg.value_type(*value_of(data)).scalar_type().clone();
                let size = self.data_layout.store_size(&elem);
                for (lane, element) in value.lanes().unwrap_or_default().iter().enumerate() {
                    if mask.lane(lane).as_u128()? != 0 {
                        self.write(&elem, address + lane as u64 * size, element)?;
                    }
                }
                return Ok(None);
            }
            InstData::Gather { ty, addrs, mask, passthru, .. } => {
                let (addrs, mask, passthru) = (get(*addrs)?, get(*mask)?, get(*passthru)?);
                let elem = ty.scalar_type().clone();
                let mut values = Vec::new();
                for lane in 0..ty.lanes().unwrap_or(1) as usize {
                    values.push(if mask.lane(lane).as_u128()? != 0 {
                        self.read(&elem, pointer(&addrs.lane(lane))?)?
                    } else {
                        passthru.lane(lane)
                    });
                }
                Val::Vector(values)
            }
            InstData::Scatter { value, addrs, mask, .. } => {
                let (value, addrs, mask) = (get(*value)?, get(*addrs)?, get(*mask)?);
                let elem = func.dfg.value_type(*value_of(data)).scalar_type().clone();
                for (lane, element) in value.lanes().unwrap_or_default().iter().enumerate() {
                    if mask.lane(lane).as_u128()? != 0 {
                        self.write(&elem, pointer(&addrs.lane(lane))?, element)?;
                    }
                }
                return Ok(None);
            }
            InstData::Phi { .. }
            | InstData::Jump { .. }
            | InstData::Branch { .. }
            | InstData::Switch { .. }
            | InstData::Return { .. }
            | InstData::Unreachable => unreachable!("handled by run"),
            InstData::Invoke { .. } | InstData::LandingPad { .. } | InstData::Resume { .. } => {
                return error(format!(
                    "exception handling (`{}`) is not supported by the interpreter",
                    data.opcode_name()
                ))
            }
        };
        Ok(Some(value))
    }

    fn call(
        &mut self,
        name: &str,
        args: &[Val],
        ret_ty: &Type,
    ) -> Result<Option<Val>, InterpError> {
        if let Some(rest) = name.strip_prefix("llvm.") {
            let (base, _type_suffix) = rest.rsplit_once('.').unwrap_or((rest, ""));
            if let Some(reduction) = base.strip_prefix("vector.reduce.") {
                let lanes = args.first().and_then(Val::lanes).unwrap_or_default();
                let (bits, mut accumulator) = match reduction {
                    "and" => (lanes.first().and_then(|lane| lane.int_bits_of()), u128::MAX),
                    "or" | "xor" | "add" => (lanes.first().and_then(|lane| lane.int_bits_of()), 0),
                    _ => return error(format!("reduction `{name}` is not interpreted")),
                };
                for lane in lanes {
                    let value = lane.as_u128()?;
                    accumulator = match reduction {
                        "and" => accumulator & value,
                        "or" => accumulator | value,
                        "xor" => accumulator ^ value,
                        _ => accumulator.wrapping_add(value),
                    };
                }
                return Ok(Some(Val::int(bits.unwrap_or(1), accumulator)));
            }
            if matches!(
                base,
                "experimental.vector.compress" | "masked.expandload" | "x86.avx512.mask.expand"
            ) {
                return self.compress_or_expand(base, args, ret_ty).map(Some);
            }
            let lanes = args.iter().find_map(|arg| arg.lanes().map(<[Val]>::len));
            let mut run_lane = |lane: Option<usize>| -> Result<Val, InterpError> {
                let lane_args: Vec<Val> = match lane {
                    Some(lane) => args.iter().map(|arg| arg.lane(lane)).collect(),
                    None => args.to_vec(),
                };
                let elem_ty = ret_ty.scalar_type();
                match scalar_intrinsic(base, &lane_args)? {
                    Some(value) => Ok(value),
                    None => {
                        let libm = libm_name(base, elem_ty).ok_or_else(|| {
                            InterpError(format!("intrinsic `{name}` is not interpreted"))
                        })?;
                        (self.externals)(&libm, &lane_args)?
                            .ok_or_else(|| InterpError(format!("`{libm}` returned nothing")))
                    }
                }
            };
            return Ok(Some(match lanes {
                Some(lanes) => Val::Vector(
                    (0..lanes).map(|lane| run_lane(Some(lane))).collect::<Result<_, _>>()?,
                ),
                None => run_lane(None)?,
            }));
        }
        if let Some((function, _)) = ExactMathFunction::parse_vector_name(name) {
            // The scalar function's result in the active lanes (its exact
            // vector form returns those bits); unspecified, so poison, in
            // the others.
            let (Some(x), Some(active)) = (args[0].lanes(), args[1].lanes()) else {
                return error(format!("`{name}` of {args:?}"));
            };
            let mut results = Vec::new();
            for (lane, is_active) in x.iter().zip(active) {
                results.push(if is_active.as_u128()? != 0 {
                    (self.externals)(function.scalar_name(), std::slice::from_ref(lane))?
                        .ok_or_else(|| InterpError(format!("`{name}` returned nothing")))?
                } else {
                    Val::Poison
                });
            }
            return Ok(Some(Val::Vector(results)));
        }
        if let Ok(variant) = VariantName::parse(name) {
            let mut results = Vec::new();
            for lane in 0..variant.width as usize {
                let lane_args: Vec<Val> = args.iter().map(|arg| arg.lane(lane)).collect();
                let result = (self.externals)(&variant.scalar_name, &lane_args)?;
                results.push(result.unwrap_or(Val::Poison));
            }
            return Ok((*ret_ty != Type::Void).then_some(Val::Vector(results)));
        }
        (self.externals)(name, args)
    }

    /// `llvm.experimental.vector.compress(value, mask, passthru)`: the lanes
    /// of `value` whose mask bit is set, in order, then the remaining lanes
    /// of `passthru`. `llvm.masked.expandload(address, mask, passthru)`:
    /// consecutive elements from `address` into the lanes whose mask bit is
    /// set, in order; the other lanes from `passthru`.
    /// `llvm.x86.avx512.mask.expand(value, passthru, mask)`: the same from
    /// the lanes of `value`.
    fn compress_or_expand(
        &self,
        base: &str,
        args: &[Val],
        ret_ty: &Type,
    ) -> Result<Val, InterpError> {
        let (source, mask, passthru) = match args {
            [source, passthru, mask] if base == "x86.avx512.mask.expand" => {
                (source, mask, passthru)
            }
            [source, mask, passthru] => (source, mask, passthru),
            _ => return error(format!("llvm.{base} takes three arguments")),
        };
        let (Some(mask), Some(passthru)) = (mask.lanes(), passthru.lanes()) else {
            return error(format!("llvm.{base} of {args:?}"));
        };
        let mut lanes = passthru.to_vec();
        if base == "experimental.vector.compress" {
            let Some(source) = source.lanes() else {
                return error(format!("llvm.{base} of {args:?}"));
            };
            let mut next = 0;
            for (lane, bit) in source.iter().zip(mask) {
                if bit.as_u128()? != 0 {
                    lanes[next] = lane.clone();
                    next += 1;
                }
            }
        } else if base == "x86.avx512.mask.expand" {
            let Some(source) = source.lanes() else {
                return error(format!("llvm.{base} of {args:?}"));
            };
            let mut next = source.iter();
            for (lane, bit) in lanes.iter_mut().zip(mask) {
                if bit.as_u128()? != 0 {
                    *lane = next.next().cloned().unwrap_or(Val::Poison);
                }
            }
        } else {
            let elem = ret_ty.scalar_type();
            let mut address = pointer(source)?;
            for (lane, bit) in lanes.iter_mut().zip(mask) {
                if bit.as_u128()? != 0 {
                    *lane = self.read(elem, address)?;
                    address += self.data_layout.store_size(elem);
                }
            }
        }
        Ok(Val::Vector(lanes))
    }

    fn gep(&self, source_ty: &Type, base: &Val, indices: &[Val]) -> Result<Val, InterpError> {
        // As in LLVM, a poison operand makes the address poison (using it
        // is the error, computing it is not: inactive lanes do).
        if matches!(base, Val::Poison) || indices.iter().any(|index| matches!(index, Val::Poison)) {
            return Ok(Val::Poison);
        }
        let mut address = pointer(base)? as i128;
        let mut ty = source_ty.clone();
        for (position, index) in indices.iter().enumerate() {
            let index = index.as_i128()?;
            if position == 0 {
                address += index * self.data_layout.alloc_size(&ty) as i128;
                continue;
            }
            ty = match ty {
                Type::Array { elem, .. } | Type::Vector { elem, .. } => {
                    address += index * self.data_layout.alloc_size(&elem) as i128;
                    *elem
                }
                Type::Struct { fields, packed } => {
                    address +=
                        self.data_layout.field_offset(&fields, packed, index as usize) as i128;
                    fields[index as usize].clone()
                }
                other => return error(format!("gep index into {other}")),
            };
        }
        Ok(Val::Ptr(address as u64))
    }

    fn read(&self, ty: &Type, address: u64) -> Result<Val, InterpError> {
        Ok(match ty {
            Type::Int(bits) => {
                let bytes = self.memory.read(address, self.data_layout.store_size(ty))?;
                let value =
                    bytes.iter().rev().fold(0u128, |acc, byte| (acc << 8) | u128::from(*byte));
                Val::int(*bits, value)
            }
            Type::F32 => {
                let bytes = self.memory.read(address, 4)?;
                Val::F32(f32::from_le_bytes(bytes.try_into().expect("4 bytes")))
            }
            Type::F64 => {
                let bytes = self.memory.read(address, 8)?;
                Val::F64(f64::from_le_bytes(bytes.try_into().expect("8 bytes")))
            }
            Type::Ptr(_) => {
                let bytes = self.memory.read(address, 8)?;
                Val::Ptr(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
            }
            Type::Vector { elem, lanes } => {
                if **elem == Type::BOOL {
                    return error("memory access of an i1 vector");
                }
                let size = self.data_layout.store_size(elem);
                Val::Vector(
                    (0..u64::from(*lanes))
                        .map(|lane| self.read(elem, address + lane * size))
                        .collect::<Result<_, _>>()?,
                )
            }
            Type::Array { elem, len } => {
                let size = self.data_layout.alloc_size(elem);
                Val::Aggregate(
                    (0..*len)
                        .map(|index| self.read(elem, address + index * size))
                        .collect::<Result<_, _>>()?,
                )
            }
            Type::Struct { fields, packed } => Val::Aggregate(
                (0..fields.len())
                    .map(|index| {
                        let offset = self.data_layout.field_offset(fields, *packed, index);
                        self.read(&fields[index], address + offset)
                    })
                    .collect::<Result<_, _>>()?,
            ),
            other => return error(format!("load of {other}")),
        })
    }

    fn write(&mut self, ty: &Type, address: u64, value: &Val) -> Result<(), InterpError> {
        match (ty, value) {
            (_, Val::Poison) => {
                // Storing poison leaves unspecified bytes: keep them as they are.
                self.memory.read(address, self.data_layout.store_size(ty))?;
                Ok(())
            }
            (Type::Int(_), Val::Int { value, .. }) => {
                let size = self.data_layout.store_size(ty) as usize;
                self.memory.write(address, &value.to_le_bytes()[..size])
            }
            (Type::F32, Val::F32(x)) => self.memory.write(address, &x.to_le_bytes()),
            (Type::F64, Val::F64(x)) => self.memory.write(address, &x.to_le_bytes()),
            (Type::Ptr(_), Val::Ptr(x)) => self.memory.write(address, &x.to_le_bytes()),
            (Type::Vector { elem, .. }, Val::Vector(lanes)) if **elem != Type::BOOL => {
                let size = self.data_layout.store_size(elem);
                for (lane, element) in lanes.iter().enumerate() {
                    self.write(elem, address + lane as u64 * size, element)?;
                }
                Ok(())
            }
            (Type::Array { elem, .. }, Val::Aggregate(elements)) => {
                let size = self.data_layout.alloc_size(elem);
                for (index, element) in elements.iter().enumerate() {
                    self.write(elem, address + index as u64 * size, element)?;
                }
                Ok(())
            }
            (Type::Struct { fields, packed }, Val::Aggregate(elements)) => {
                for (index, element) in elements.iter().enumerate() {
                    let offset = self.data_layout.field_offset(fields, *packed, index);
                    self.write(&fields[index], address + offset, element)?;
                }
                Ok(())
            }
            (ty, value) => error(format!("store of {value:?} as {ty}")),
        }
    }
}

/// The stored value operand of a store-like instruction (the operand of an
/// atomic, which has the type of the memory it updates).
fn value_of(data: &InstData) -> &Value {
    match data {
        InstData::Store { value, .. }
        | InstData::MaskedStore { value, .. }
        | InstData::Scatter { value, .. }
        | InstData::AtomicRmw { value, .. }
        | InstData::CmpXchg { new: value, .. } => value,
        _ => unreachable!("value_of a non-store"),
    }
}

/// `freeze`: poison (also in a lane of a vector) becomes zero of its type.
fn freeze(value: Val, ty: &Type) -> Result<Val, InterpError> {
    match (value, ty) {
        (Val::Poison, ty) => zero_of(ty),
        (Val::Vector(lanes), Type::Vector { elem, .. }) => Ok(Val::Vector(
            lanes.into_iter().map(|lane| freeze(lane, elem)).collect::<Result<_, _>>()?,
        )),
        (value, _) => Ok(value),
    }
}

fn zero_of(ty: &Type) -> Result<Val, InterpError> {
    Ok(match ty {
        Type::Int(bits) => Val::int(*bits, 0),
        Type::F32 => Val::F32(0.0),
        Type::F64 => Val::F64(0.0),
        Type::Ptr(_) => Val::Ptr(0),
        Type::Vector { elem, lanes } => Val::Vector(vec![zero_of(elem)?; *lanes as usize]),
        Type::Array { elem, len } => Val::Aggregate(vec![zero_of(elem)?; *len as usize]),
        Type::Struct { fields, .. } => {
            Val::Aggregate(fields.iter().map(zero_of).collect::<Result<_, _>>()?)
        }
        other => return error(format!("zero of {other}")),
    })
}

fn insert_value(aggregate: &mut Val, indices: &[u32], value: Val) -> Result<(), InterpError> {
    let Some((first, rest)) = indices.split_first() else {
        *aggregate = value;
        return Ok(());
    };
    match aggregate {
        Val::Aggregate(elements) if (*first as usize) < elements.len() => {
            insert_value(&mut elements[*first as usize], rest, value)
        }
        other => error(format!("insertvalue into {other:?}")),
    }
}

fn pointer(value: &Val) -> Result<u64, InterpError> {
    match value {
        Val::Ptr(address) => Ok(*address),
        other => error(format!("expected a pointer, found {other:?}")),
    }
}

fn lanewise1(a: &Val, op: impl Fn(&Val) -> Result<Val, InterpError>) -> Result<Val, InterpError> {
    match a {
        Val::Vector(lanes) => Ok(Val::Vector(lanes.iter().map(op).collect::<Result<_, _>>()?)),
        scalar => op(scalar),
    }
}

fn lanewise2(
    a: &Val,
    b: &Val,
    op: impl Fn(&Val, &Val) -> Result<Val, InterpError>,
) -> Result<Val, InterpError> {
    match (a.lanes(), b.lanes()) {
        (None, None) => op(a, b),
        (Some(lanes), _) | (_, Some(lanes)) => Ok(Val::Vector(
            (0..lanes.len())
                .map(|lane| op(&a.lane(lane), &b.lane(lane)))
                .collect::<Result<_, _>>()?,
        )),
    }
}

fn select(cond: &Val, if_true: Val, if_false: Val) -> Result<Val, InterpError> {
    match cond {
        Val::Poison => Ok(Val::Poison),
        cond => Ok(if cond.as_u128()? != 0 { if_true } else { if_false }),
    }
}

pub(crate) fn binary(op: BinaryOp, a: &Val, b: &Val) -> Result<Val, InterpError> {
    if matches!(a, Val::Poison) || matches!(b, Val::Poison) {
        return Ok(Val::Poison);
    }
    match (a, b) {
        (Val::F32(x), Val::F32(y)) => Ok(Val::F32(match op {
            BinaryOp::FAdd => x + y,
            BinaryOp::FSub => x - y,
            BinaryOp::FMul => x * y,
            BinaryOp::FDiv => x / y,
            BinaryOp::FRem => x % y,
            _ => return error(format!("{} on floats", op.name())),
        })),
        (Val::F64(x), Val::F64(y)) => Ok(Val::F64(match op {
            BinaryOp::FAdd => x + y,
            BinaryOp::FSub => x - y,
            BinaryOp::FMul => x * y,
            BinaryOp::FDiv => x / y,
            BinaryOp::FRem => x % y,
            _ => return error(format!("{} on doubles", op.name())),
        })),
        (Val::Int { bits, value: x }, Val::Int { value: y, .. }) => {
            let (bits, x, y) = (*bits, *x, *y);
            let (sx, sy) = (sign_extend(x, bits), sign_extend(y, bits));
            if op.can_trap()
                && (y == 0
                    || (matches!(op, BinaryOp::SDiv | BinaryOp::SRem)
                        && sy == -1
                        && sx == sign_extend(1 << (bits - 1), bits)))
            {
                return error(format!("{} by zero or overflowing", op.name()));
            }
            let value = match op {
                BinaryOp::Add => x.wrapping_add(y),
                BinaryOp::Sub => x.wrapping_sub(y),
                BinaryOp::Mul => x.wrapping_mul(y),
                BinaryOp::UDiv => x / y,
                BinaryOp::URem => x % y,
                BinaryOp::SDiv => sx.wrapping_div(sy) as u128,
                BinaryOp::SRem => sx.wrapping_rem(sy) as u128,
                BinaryOp::Shl | BinaryOp::LShr | BinaryOp::AShr if y >= u128::from(bits) => {
                    return Ok(Val::Poison)
                }
                BinaryOp::Shl => x << y,
                BinaryOp::LShr => x >> y,
                BinaryOp::AShr => (sx >> y) as u128,
                BinaryOp::And => x & y,
                BinaryOp::Or => x | y,
                BinaryOp::Xor => x ^ y,
                _ => return error(format!("{} on integers", op.name())),
            };
            Ok(Val::int(bits, value))
        }
        _ => error(format!("{} on {a:?} and {b:?}", op.name())),
    }
}

/// The new memory value of `atomicrmw op` on `old` and `operand`.
fn atomic_rmw(op: AtomicRmwOp, old: &Val, operand: &Val) -> Result<Val, InterpError> {
    let binary_op = match op {
        AtomicRmwOp::Xchg => return Ok(operand.clone()),
        AtomicRmwOp::Add => BinaryOp::Add,
        AtomicRmwOp::Sub => BinaryOp::Sub,
        AtomicRmwOp::And | AtomicRmwOp::Nand => BinaryOp::And,
        AtomicRmwOp::Or => BinaryOp::Or,
        AtomicRmwOp::Xor => BinaryOp::Xor,
        AtomicRmwOp::FAdd => BinaryOp::FAdd,
        AtomicRmwOp::FSub => BinaryOp::FSub,
        AtomicRmwOp::Max | AtomicRmwOp::Min | AtomicRmwOp::UMax | AtomicRmwOp::UMin => {
            let pred = match op {
                AtomicRmwOp::Max => IntPredicate::Sgt,
                AtomicRmwOp::Min => IntPredicate::Slt,
                AtomicRmwOp::UMax => IntPredicate::Ugt,
                _ => IntPredicate::Ult,
            };
            let keep_old = icmp(pred, old, operand)?.as_u128()? != 0;
            return Ok(if keep_old { old.clone() } else { operand.clone() });
        }
        AtomicRmwOp::FMax | AtomicRmwOp::FMin => {
            // llvm.maxnum / llvm.minnum: a NaN operand yields the other one.
            let (x, y) = (float(old)?, float(operand)?);
            let pick_old = if x.is_nan() {
                false
            } else if y.is_nan() {
                true
            } else if op == AtomicRmwOp::FMax {
                x >= y
            } else {
                x <= y
            };
            return Ok(if pick_old { old.clone() } else { operand.clone() });
        }
    };
    let combined = binary(binary_op, old, operand)?;
    if op == AtomicRmwOp::Nand {
        let bits = combined.int_bits_of().unwrap_or(1);
        return binary(BinaryOp::Xor, &combined, &Val::int(bits, u128::MAX));
    }
    Ok(combined)
}

pub(crate) fn icmp(pred: IntPredicate, a: &Val, b: &Val) -> Result<Val, InterpError> {
    if matches!(a, Val::Poison) || matches!(b, Val::Poison) {
        return Ok(Val::Poison);
    }
    let (x, y) = (a.as_u128()?, b.as_u128()?);
    let (sx, sy) = (a.as_i128()?, b.as_i128()?);
    Ok(Val::bool(match pred {
        IntPredicate::Eq => x == y,
        IntPredicate::Ne => x != y,
        IntPredicate::Ugt => x > y,
        IntPredicate::Uge => x >= y,
        IntPredicate::Ult => x < y,
        IntPredicate::Ule => x <= y,
        IntPredicate::Sgt => sx > sy,
        IntPredicate::Sge => sx >= sy,
        IntPredicate::Slt => sx < sy,
        IntPredicate::Sle => sx <= sy,
    }))
}

fn float(value: &Val) -> Result<f64, InterpError> {
    match value {
        Val::F32(x) => Ok(f64::from(*x)),
        Val::F64(x) => Ok(*x),
        other => error(format!("expected a float, found {other:?}")),
    }
}

fn fcmp(pred: FloatPredicate, a: &Val, b: &Val) -> Result<Val, InterpError> {
    if matches!(a, Val::Poison) || matches!(b, Val::Poison) {
        return Ok(Val::Poison);
    }
    let (x, y) = (float(a)?, float(b)?);
    let unordered = x.is_nan() || y.is_nan();
    use std::cmp::Ordering::*;
    let ordering = x.partial_cmp(&y);
    let ordered_test =
        |wanted: &[std::cmp::Ordering]| ordering.is_some_and(|o| wanted.contains(&o));
    Ok(Val::bool(match pred {
        FloatPredicate::False => false,
        FloatPredicate::True => true,
        FloatPredicate::Ord => !unordered,
        FloatPredicate::Uno => unordered,
        FloatPredicate::Oeq => ordered_test(&[Equal]),
        FloatPredicate::Ogt => ordered_test(&[Greater]),
        FloatPredicate::Oge => ordered_test(&[Greater, Equal]),
        FloatPredicate::Olt => ordered_test(&[Less]),
        FloatPredicate::Ole => ordered_test(&[Less, Equal]),
        FloatPredicate::One => ordered_test(&[Less, Greater]),
        FloatPredicate::Ueq => unordered || ordered_test(&[Equal]),
        FloatPredicate::Ugt => unordered || ordered_test(&[Greater]),
        FloatPredicate::Uge => unordered || ordered_test(&[Greater, Equal]),
        FloatPredicate::Ult => unordered || ordered_test(&[Less]),
        FloatPredicate::Ule => unordered || ordered_test(&[Less, Equal]),
        FloatPredicate::Une => unordered || ordered_test(&[Less, Greater]),
    }))
}

pub(crate) fn cast(op: CastOp, value: &Val, to: &Type) -> Result<Val, InterpError> {
    if matches!(value, Val::Poison) {
        return Ok(Val::Poison);
    }
    let to_bits = to.int_bits().unwrap_or(64);
    Ok(match (op, value) {
        (CastOp::Trunc | CastOp::ZExt, Val::Int { value, .. }) => Val::int(to_bits, *value),
        (CastOp::SExt, Val::Int { bits, value }) => {
            Val::int(to_bits, sign_extend(*value, *bits) as u128)
        }
        (CastOp::FPTrunc, Val::F64(x)) => Val::F32(*x as f32),
        (CastOp::FPExt, Val::F32(x)) => Val::F64(f64::from(*x)),
        (CastOp::FPToUI | CastOp::FPToSI, float_value) => {
            let x = float(float_value)?.trunc();
            let (low, high) = if op == CastOp::FPToSI {
                let half = 2f64.powi(to_bits as i32 - 1);
                (-half, half)
            } else {
                (0.0, 2f64.powi(to_bits as i32))
            };
            if x.is_nan() || x < low || x >= high {
                Val::Poison
            } else {
                Val::int(to_bits, x as i128 as u128)
            }
        }
        (CastOp::UIToFP, Val::Int { value, .. }) => to_float(to, *value as f64, *value as f32)?,
        (CastOp::SIToFP, Val::Int { bits, value }) => {
            let signed = sign_extend(*value, *bits);
            to_float(to, signed as f64, signed as f32)?
        }
        (CastOp::PtrToInt, Val::Ptr(address)) => Val::int(to_bits, u128::from(*address)),
        (CastOp::IntToPtr, Val::Int { value, .. }) => Val::Ptr(*value as u64),
        (CastOp::Bitcast | CastOp::AddrSpaceCast, Val::Ptr(address)) if to.is_ptr() => {
            Val::Ptr(*address)
        }
        (CastOp::Bitcast, Val::Int { value, .. }) => match to {
            Type::F32 => Val::F32(f32::from_bits(*value as u32)),
            Type::F64 => Val::F64(f64::from_bits(*value as u64)),
            _ => Val::int(to_bits, *value),
        },
        (CastOp::Bitcast, Val::F32(x)) if to.is_int() => Val::int(32, u128::from(x.to_bits())),
        (CastOp::Bitcast, Val::F64(x)) if to.is_int() => Val::int(64, u128::from(x.to_bits())),
        (op, value) => return error(format!("{} of {value:?} to {to}", op.name())),
    })
}

fn to_float(to: &Type, as_double: f64, as_single: f32) -> Result<Val, InterpError> {
    match to {
        Type::F32 => Ok(Val::F32(as_single)),
        Type::F64 => Ok(Val::F64(as_double)),
        other => error(format!("conversion to {other}")),
    }
}

/// The libm function behind a transcendental intrinsic (`sin` + f32 → `sinf`).
fn libm_name(base: &str, elem: &Type) -> Option<String> {
    let libm = [
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp",
        "exp2", "exp10", "log", "log2", "log10", "pow",
    ];
    libm.contains(&base).then(|| match elem {
        Type::F32 => format!("{base}f"),
        _ => base.to_owned(),
    })
}

/// Scalar semantics of the exact elementwise intrinsics; `None` if `base`
/// is not one of them.
fn scalar_intrinsic(base: &str, args: &[Val]) -> Result<Option<Val>, InterpError> {
    if args.iter().any(|arg| matches!(arg, Val::Poison)) {
        return Ok(Some(Val::Poison));
    }
    let float1 = |f32_op: fn(f32) -> f32, f64_op: fn(f64) -> f64| match &args[0] {
        Val::F32(x) => Ok(Val::F32(f32_op(*x))),
        Val::F64(x) => Ok(Val::F64(f64_op(*x))),
        other => error(format!("llvm.{base} of {other:?}")),
    };
    let float2 =
        |f32_op: fn(f32, f32) -> f32, f64_op: fn(f64, f64) -> f64| match (&args[0], &args[1]) {
            (Val::F32(x), Val::F32(y)) => Ok(Val::F32(f32_op(*x, *y))),
            (Val::F64(x), Val::F64(y)) => Ok(Val::F64(f64_op(*x, *y))),
            _ => error(format!("llvm.{base} of {args:?}")),
        };
    let int_args = || -> Result<(u32, Vec<u128>), InterpError> {
        let Val::Int { bits, .. } = args[0] else {
            return error(format!("llvm.{base} of {args:?}"));
        };
        Ok((bits, args.iter().map(Val::as_u128).collect::<Result<_, _>>()?))
    };
    let value = match base {
        "sqrt" => float1(f32::sqrt, f64::sqrt)?,
        "fabs" => float1(f32::abs, f64::abs)?,
        "floor" => float1(f32::floor, f64::floor)?,
        "ceil" => float1(f32::ceil, f64::ceil)?,
        "trunc" => float1(f32::trunc, f64::trunc)?,
        "round" => float1(f32::round, f64::round)?,
        "rint" | "nearbyint" | "roundeven" => float1(f32::round_ties_even, f64::round_ties_even)?,
        "minnum" => float2(f32::min, f64::min)?,
        "maxnum" => float2(f32::max, f64::max)?,
        "copysign" => float2(f32::copysign, f64::copysign)?,
        "fma" | "fmuladd" => match (&args[0], &args[1], &args[2]) {
            (Val::F32(x), Val::F32(y), Val::F32(z)) => Val::F32(x.mul_add(*y, *z)),
            (Val::F64(x), Val::F64(y), Val::F64(z)) => Val::F64(x.mul_add(*y, *z)),
            _ => return error(format!("llvm.{base} of {args:?}")),
        },
        "ctpop" | "ctlz" | "cttz" | "abs" | "bswap" => {
            let (bits, values) = int_args()?;
            let x = values[0];
            let result = match base {
                "ctpop" => u128::from(x.count_ones()),
                "ctlz" => u128::from(x.leading_zeros() - (128 - bits)),
                "cttz" => u128::from(x.trailing_zeros().min(bits)),
                "abs" => sign_extend(x, bits).unsigned_abs(),
                _ => {
                    if bits % 16 != 0 {
                        return error("bswap of an odd number of bytes");
                    }
                    x.swap_bytes() >> (128 - bits)
                }
            };
            Val::int(bits, result)
        }
        "smin" | "smax" | "umin" | "umax" => {
            let (bits, values) = int_args()?;
            let (x, y) = (values[0], values[1]);
            let (sx, sy) = (sign_extend(x, bits), sign_extend(y, bits));
            Val::int(
                bits,
                match base {
                    "smin" => sx.min(sy) as u128,
                    "smax" => sx.max(sy) as u128,
                    "umin" => x.min(y),
                    _ => x.max(y),
                },
            )
        }
        _ => return Ok(None),
    };
    Ok(Some(value))
}
