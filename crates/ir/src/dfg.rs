//! The data-flow graph: what every instruction and value *is*, independent of
//! where instructions sit (that is the [`crate::Layout`]).
//!
//! Keeping definitions apart from order (Cranelift's `dfg.rs`/`layout.rs`
//! split) lets widening and linearization create, move and re-target
//! instructions without touching their data. Constants are values too: they
//! are created on demand, have no instruction and never appear in the layout.

use cranelift_entity::{PrimaryMap, SecondaryMap};

use crate::entities::{Block, Inst, Value};
use crate::instructions::{Callee, InstData};
use crate::types::Type;

/// A constant. Aggregate and vector constants refer to other constant values.
#[derive(Clone, PartialEq, Debug)]
pub enum Constant {
    /// An integer; `bits` holds the value truncated to the type's width.
    Int(u128),
    /// A float, as the bit pattern of its type (`f32` in the low 32 bits).
    Float(u64),
    /// The null pointer.
    Null,
    Undef,
    Poison,
    /// `zeroinitializer` of any type.
    Zero,
    /// A vector, array or struct of constant values.
    Aggregate(Vec<Value>),
    /// The address of a global variable or function of the module, by name.
    Symbol(String),
}

/// Where a value comes from.
#[derive(Clone, PartialEq, Debug)]
pub enum ValueDef {
    /// The `index`th parameter of the function.
    Param(u32),
    /// The result of an instruction.
    Result(Inst),
    /// A constant.
    Const(Constant),
}

/// A value and its type.
#[derive(Clone, PartialEq, Debug)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

/// Instructions, values and block names of one function.
#[derive(Clone, Debug, Default)]
pub struct DataFlowGraph {
    pub insts: PrimaryMap<Inst, InstData>,
    /// The value each instruction defines; `None` for instructions without a result.
    pub results: SecondaryMap<Inst, Option<Value>>,
    pub values: PrimaryMap<Value, ValueData>,
    /// Blocks exist here; their order and contents are in the layout.
    pub blocks: PrimaryMap<Block, BlockData>,
    /// Optional names from the input (LLVM value names), for readable dumps.
    pub value_names: SecondaryMap<Value, Option<String>>,
}

/// Per-block data that is not order.
#[derive(Clone, Debug, Default)]
pub struct BlockData {
    /// The name from the input, if any (used in dumps and diagnostics).
    pub name: Option<String>,
    /// A path its producer knows to be rare (the page-crossing fallbacks of
    /// page-safe loads, once per page): cost models leave it out.
    pub cold: bool,
}

impl DataFlowGraph {
    pub fn new() -> Self {
        Self::default()
    }

    /// Creates a block; it is not in the layout until inserted there.
    pub fn make_block(&mut self, name: Option<String>) -> Block {
        self.blocks.push(BlockData { name, cold: false })
    }

    /// Creates an instruction, and its result value of type `result_ty`
    /// unless that is `Void`. The instruction is not in the layout yet.
    pub fn make_inst(&mut self, data: InstData, result_ty: Type) -> Inst {
        let inst = self.insts.push(data);
        if result_ty != Type::Void {
            let value = self.values.push(ValueData { ty: result_ty, def: ValueDef::Result(inst) });
            self.results[inst] = Some(value);
        }
        inst
    }

    /// Creates the value of function parameter `index`.
    pub fn make_param(&mut self, index: u32, ty: Type) -> Value {
        self.values.push(ValueData { ty, def: ValueDef::Param(index) })
    }

    /// Creates a constant value.
    pub fn make_const(&mut self, ty: Type, constant: Constant) -> Value {
        self.values.push(ValueData { ty, def: ValueDef::Const(constant) })
    }

    /// An integer constant of type `ty`, truncated to its width.
    pub fn int_const(&mut self, ty: Type, value: u128) -> Value {
        let bits = ty.int_bits().expect("int_const of a non-integer type");
        let masked = if bits >= 128 { value } else { value & ((1u128 << bits) - 1) };
        self.make_const(ty, Constant::Int(masked))
    }

    pub fn inst(&self, inst: Inst) -> &InstData {
        &self.insts[inst]
    }

    pub fn inst_mut(&mut self, inst: Inst) -> &mut InstData {
        &mut self.insts[inst]
    }

    /// The result of `inst`, if it has one.
    pub fn result(&self, inst: Inst) -> Option<Value> {
        self.results[inst]
    }

    pub fn value_type(&self, value: Value) -> &Type {
        &self.values[value].ty
    }

    pub fn value_def(&self, value: Value) -> &ValueDef {
        &self.values[value].def
    }

    /// The instruction defining `value`, if it is an instruction result.
    pub fn defining_inst(&self, value: Value) -> Option<Inst> {
        match self.values[value].def {
            ValueDef::Result(inst) => Some(inst),
            _ => None,
        }
    }

    /// The constant `value` is, if it is one.
    pub fn constant(&self, value: Value) -> Option<&Constant> {
        match &self.values[value].def {
            ValueDef::Const(constant) => Some(constant),
            _ => None,
        }
    }

    /// The integer `value` is, if it is an integer constant.
    pub fn int_constant(&self, value: Value) -> Option<u128> {
        match self.constant(value) {
            Some(Constant::Int(bits)) => Some(*bits),
            Some(Constant::Zero) if self.value_type(value).is_int() => Some(0),
            _ => None,
        }
    }

    /// The integer `value` is, sign-extended from its width.
    pub fn signed_int_constant(&self, value: Value) -> Option<i128> {
        let bits = self.value_type(value).int_bits()?;
        let raw = self.int_constant(value)?;
        Some(sign_extend(raw, bits))
    }

    /// The name of the direct callee of a call instruction.
    pub fn callee_name(&self, inst: Inst) -> Option<&str> {
        match &self.insts[inst] {
            InstData::Call { callee: Callee::Direct(name), .. } => Some(name),
            _ => None,
        }
    }

    /// A readable name for diagnostics: the input's name if known, else `v7`.
    pub fn display_value(&self, value: Value) -> String {
        match &self.value_names[value] {
            Some(name) => format!("%{name}"),
            None => value.to_string(),
        }
    }

    /// A readable name for a block: the input's name if known, else `block3`.
    pub fn display_block(&self, block: Block) -> String {
        match &self.blocks[block].name {
            Some(name) => name.clone(),
            None => block.to_string(),
        }
    }
}

/// Sign-extends the low `bits` bits of `raw`.
pub fn sign_extend(raw: u128, bits: u32) -> i128 {
    if bits == 0 || bits >= 128 {
        return raw as i128;
    }
    let shift = 128 - bits;
    ((raw << shift) as i128) >> shift
}
