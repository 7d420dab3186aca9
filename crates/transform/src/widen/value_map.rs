//! The scalar-to-vector value mapping of widening ([`ValueMap`]): what
//! each scalar value is in the vector function ([`Widened`]), and the lazy,
//! cached materialization of vectors and single lanes placed right after
//! the definition they derive from (the module docs of `widen` explain the
//! representations; Karrenberg 2014, 6.4.1-6.4.2).

use std::collections::HashMap;

use lanewise_ir::{
    ArithFlags, BinaryOp, Block, CastFlags, CastOp, Constant, Function, InstData, Type, Value,
};

use super::{short_vectors, Widened};

/// Where a materialization goes: at `position` in `block`.
pub(super) struct Cursor {
    pub(super) block: Block,
    pub(super) position: usize,
    pub(super) in_entry_prologue: bool,
}

/// The scalar→vector-function value mapping, with lazy, cached
/// materialization of vectors and of single lanes (see the module docs).
pub struct ValueMap<'a> {
    pub(super) scalar: &'a Function,
    pub(super) width: u32,
    pub(super) widened: HashMap<Value, Widened>,
    pub(super) vectors: HashMap<Value, Value>,
    pub(super) lanes: HashMap<(Value, u32), Value>,
    /// Number of materializations at the top of the entry block.
    pub(super) entry_prologue_len: usize,
}

impl<'a> ValueMap<'a> {
    pub(super) fn new(scalar: &'a Function, width: u32) -> Self {
        ValueMap {
            scalar,
            width,
            widened: HashMap::new(),
            vectors: HashMap::new(),
            lanes: HashMap::new(),
            entry_prologue_len: 0,
        }
    }

    /// Records the representation of scalar value `value`.
    pub fn define(&mut self, value: Value, widened: Widened) {
        self.widened.insert(value, widened);
    }

    /// The representation of `value` (constants are copied on first use).
    pub fn get(&mut self, func: &mut Function, value: Value) -> Result<Widened, String> {
        if let Some(widened) = self.widened.get(&value) {
            return Ok(widened.clone());
        }
        if self.scalar.dfg.constant(value).is_some() {
            let copy = self.copy_constant(func, value);
            self.define(value, Widened::Uniform(copy));
            return Ok(Widened::Uniform(copy));
        }
        Err(format!(
            "operand {} is used before its definition (or defined in unreachable code)",
            self.scalar.dfg.display_value(value)
        ))
    }

    pub(super) fn copy_constant(&mut self, func: &mut Function, value: Value) -> Value {
        let ty = self.scalar.dfg.value_type(value).clone();
        let constant = match self.scalar.dfg.constant(value) {
            Some(Constant::Aggregate(elements)) => {
                let elements = elements.clone();
                Constant::Aggregate(
                    elements.into_iter().map(|element| self.copy_constant(func, element)).collect(),
                )
            }
            Some(constant) => constant.clone(),
            None => unreachable!("copy_constant of a non-constant"),
        };
        func.dfg.make_const(ty, constant)
    }

    /// Whether `value` is the same in every lane.
    pub fn is_uniform(&mut self, func: &mut Function, value: Value) -> Result<bool, String> {
        Ok(matches!(self.get(func, value)?, Widened::Uniform(_)))
    }

    /// The scalar holding lane `lane` of `value`.
    pub fn lane(&mut self, func: &mut Function, value: Value, lane: u32) -> Result<Value, String> {
        if let Some(cached) = self.lanes.get(&(value, lane)) {
            return Ok(*cached);
        }
        let scalar = match self.get(func, value)? {
            Widened::Uniform(scalar) => return Ok(scalar),
            Widened::Vector(packed)
                if short_vectors::short_vector_lanes(self.scalar.dfg.value_type(value))
                    .is_some() =>
            {
                let short_ty = self.scalar.dfg.value_type(value).clone();
                self.packed_lane(func, packed, &short_ty, lane)
            }
            Widened::Strided { lane0, .. } if lane == 0 => return Ok(lane0),
            Widened::Lanes(lanes) => return Ok(lanes[lane as usize]),
            Widened::Strided { lane0, stride } => {
                let offset = stride.wrapping_mul(i64::from(lane));
                let ty = func.dfg.value_type(lane0).clone();
                let mut cursor = self.cursor_after_definition(func, lane0);
                let data = match ty {
                    Type::Ptr(_) => {
                        let offset = func.dfg.int_const(Type::I64, offset as u128);
                        InstData::Gep {
                            source_ty: Type::I8,
                            base: lane0,
                            indices: vec![offset],
                            inbounds: false,
                        }
                    }
                    Type::Int(_) => {
                        let offset = func.dfg.int_const(ty.clone(), offset as u128);
                        InstData::Binary {
                            op: BinaryOp::Add,
                            lhs: lane0,
                            rhs: offset,
                            flags: ArithFlags::default(),
                        }
                    }
                    other => return Err(format!("a strided value of type {other}")),
                };
                self.insert(func, &mut cursor, data, ty)
            }
            Widened::Vector(vector) => {
                let ty = func.dfg.value_type(vector).scalar_type().clone();
                let index = func.dfg.int_const(Type::I32, u128::from(lane));
                let mut cursor = self.cursor_after_definition(func, vector);
                self.insert(func, &mut cursor, InstData::ExtractElement { vector, index }, ty)
            }
        };
        self.lanes.insert((value, lane), scalar);
        Ok(scalar)
    }

    /// The `<W x T>` vector of `value`, materialized on first request.
    pub fn vector(&mut self, func: &mut Function, value: Value) -> Result<Value, String> {
        if let Some(cached) = self.vectors.get(&value) {
            return Ok(*cached);
        }
        let widened = self.get(func, value)?;
        let scalar_ty = self.scalar.dfg.value_type(value).clone();
        if short_vectors::short_vector_lanes(&scalar_ty).is_some() {
            let packed = self.pack_short_vector(func, &scalar_ty, widened)?;
            self.vectors.insert(value, packed);
            return Ok(packed);
        }
        if !scalar_ty.is_scalar() {
            return Err(format!(
                "{} of type {scalar_ty} would need a vector of non-scalar elements",
                self.scalar.dfg.display_value(value)
            ));
        }
        let width = self.width;
        let vector_ty = scalar_ty.vector_of(width);
        let vector = match widened {
            Widened::Vector(vector) => vector,
            Widened::Uniform(scalar) => match func.dfg.constant(scalar).cloned() {
                Some(constant @ (Constant::Zero | Constant::Undef | Constant::Poison)) => {
                    func.dfg.make_const(vector_ty, constant)
                }
                Some(Constant::Int(_) | Constant::Float(_) | Constant::Null) => {
                    let elements = vec![scalar; width as usize];
                    func.dfg.make_const(vector_ty, Constant::Aggregate(elements))
                }
                _ => {
                    let mut cursor = self.cursor_after_definition(func, scalar);
                    let splat = InstData::Splat { scalar, lanes: width };
                    self.insert(func, &mut cursor, splat, vector_ty)
                }
            },
            Widened::Strided { lane0, stride } => {
                let mut cursor = self.cursor_after_definition(func, lane0);
                match &scalar_ty {
                    Type::Ptr(_) => {
                        let steps = self.step_vector(func, &Type::I64, stride);
                        let (base, offsets) =
                            self.offsets_from_root(func, &mut cursor, lane0, steps);
                        let gep = InstData::Gep {
                            source_ty: Type::I8,
                            base,
                            indices: vec![offsets],
                            inbounds: false,
                        };
                        self.insert(func, &mut cursor, gep, vector_ty)
                    }
                    Type::Int(_) => {
                        let steps = self.step_vector(func, &scalar_ty, stride);
                        let splat = InstData::Splat { scalar: lane0, lanes: width };
                        let splat = self.insert(func, &mut cursor, splat, vector_ty.clone());
                        let add = InstData::Binary {
                            op: BinaryOp::Add,
                            lhs: splat,
                            rhs: steps,
                            flags: ArithFlags::default(),
                        };
                        self.insert(func, &mut cursor, add, vector_ty)
                    }
                    other => return Err(format!("a strided value of type {other}")),
                }
            }
            Widened::Lanes(lanes) => {
                let last = *lanes.last().expect("at least one lane");
                let mut cursor = self.cursor_after_definition(func, last);
                let mut vector = func.dfg.make_const(vector_ty.clone(), Constant::Poison);
                for (lane, scalar) in lanes.into_iter().enumerate() {
                    let index = func.dfg.int_const(Type::I32, lane as u128);
                    let insert = InstData::InsertElement { vector, value: scalar, index };
                    vector = self.insert(func, &mut cursor, insert, vector_ty.clone());
                }
                vector
            }
        };
        self.vectors.insert(value, vector);
        Ok(vector)
    }

    /// The lanes of a strided pointer as one scalar base and a vector of
    /// byte offsets: the root of `lane0`'s chain of scalar GEPs and
    /// `splat(lane0 - root) + steps`, or `lane0` and `steps` when `lane0` is
    /// not a GEP. A gather of `gep i8, root, offsets` is one `vgatherdps`
    /// with a base register and 32-bit indices; `gep i8, lane0, steps` with
    /// a `lane0` that varies in an inner loop, on a base that does not, is
    /// what LLVM's LICM reassociates into a hoisted vector of 64-bit
    /// pointers plus the varying index (twice the gathers, `vgatherqps`).
    pub(super) fn offsets_from_root(
        &mut self,
        func: &mut Function,
        cursor: &mut Cursor,
        lane0: Value,
        steps: Value,
    ) -> (Value, Value) {
        let mut root = lane0;
        while let Some(InstData::Gep { base, .. }) =
            func.dfg.defining_inst(root).map(|inst| func.dfg.inst(inst))
        {
            if !func.dfg.value_type(*base).is_ptr() {
                break;
            }
            root = *base;
        }
        if root == lane0 {
            return (lane0, steps);
        }
        let offset_ty = Type::I64;
        let vector_ty = offset_ty.vector_of(self.width);
        let mut as_int = |this: &mut Self, pointer: Value| {
            let cast = InstData::Cast {
                op: CastOp::PtrToInt,
                arg: pointer,
                to: offset_ty.clone(),
                flags: CastFlags::default(),
            };
            this.insert(func, cursor, cast, offset_ty.clone())
        };
        let lane0_address = as_int(self, lane0);
        let root_address = as_int(self, root);
        let offset = InstData::Binary {
            op: BinaryOp::Sub,
            lhs: lane0_address,
            rhs: root_address,
            flags: ArithFlags::default(),
        };
        let offset = self.insert(func, cursor, offset, offset_ty);
        let splat = InstData::Splat { scalar: offset, lanes: self.width };
        let splat = self.insert(func, cursor, splat, vector_ty.clone());
        let add = InstData::Binary {
            op: BinaryOp::Add,
            lhs: splat,
            rhs: steps,
            flags: ArithFlags::default(),
        };
        (root, self.insert(func, cursor, add, vector_ty))
    }

    /// The constant vector `<0, k, 2k, ..>` of integer type `elem`.
    pub(super) fn step_vector(&self, func: &mut Function, elem: &Type, stride: i64) -> Value {
        let elements = (0..self.width)
            .map(|lane| {
                func.dfg.int_const(elem.clone(), stride.wrapping_mul(i64::from(lane)) as u128)
            })
            .collect();
        func.dfg.make_const(elem.vector_of(self.width), Constant::Aggregate(elements))
    }

    /// Where to put code derived from `value` (a value of the new function):
    /// right after its definition, after the phis of its block for a phi, at
    /// the top of the entry block for parameters and constants.
    pub(super) fn cursor_after_definition(&self, func: &Function, value: Value) -> Cursor {
        let entry = func.entry_block().expect("the vector function has an entry block");
        let Some(inst) = func.dfg.defining_inst(value) else {
            return Cursor {
                block: entry,
                position: self.entry_prologue_len,
                in_entry_prologue: true,
            };
        };
        let block = func.layout.inst_block(inst).expect("definitions are in the layout");
        let insts = func.layout.block_insts(block);
        let position = if matches!(func.dfg.inst(inst), InstData::Phi { .. }) {
            insts
                .iter()
                .take_while(|inst| matches!(func.dfg.inst(**inst), InstData::Phi { .. }))
                .count()
        } else {
            insts.iter().position(|candidate| *candidate == inst).expect("in its block") + 1
        };
        Cursor { block, position, in_entry_prologue: false }
    }

    pub(super) fn insert(
        &mut self,
        func: &mut Function,
        cursor: &mut Cursor,
        data: InstData,
        ty: Type,
    ) -> Value {
        let inst = func.dfg.make_inst(data, ty);
        func.layout.insert_inst_at(inst, cursor.block, cursor.position);
        cursor.position += 1;
        if cursor.in_entry_prologue {
            self.entry_prologue_len += 1;
        }
        func.dfg.result(inst).expect("materializations have a result")
    }
}
