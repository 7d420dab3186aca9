//! A builder that appends instructions at the end of a current block and
//! computes result types, so that callers write `b.add(x, y)` instead of
//! assembling [`InstData`] by hand.

use crate::dfg::Constant;
use crate::entities::{Block, Inst, Value};
use crate::function::Function;
use crate::instructions::*;
use crate::types::Type;

pub struct FunctionBuilder<'f> {
    pub func: &'f mut Function,
    block: Option<Block>,
}

impl<'f> FunctionBuilder<'f> {
    pub fn new(func: &'f mut Function) -> Self {
        FunctionBuilder { func, block: None }
    }

    /// Creates a block and appends it to the layout.
    pub fn create_block(&mut self, name: Option<&str>) -> Block {
        let block = self.func.dfg.make_block(name.map(str::to_owned));
        self.func.layout.append_block(block);
        block
    }

    /// Makes `block` the block that new instructions are appended to.
    pub fn switch_to_block(&mut self, block: Block) {
        self.block = Some(block);
    }

    pub fn current_block(&self) -> Option<Block> {
        self.block
    }

    /// Appends an instruction to the current block.
    pub fn ins(&mut self, data: InstData, result_ty: Type) -> Inst {
        let block = self.block.expect("FunctionBuilder: no current block");
        self.func.append(block, data, result_ty)
    }

    /// Appends an instruction that has a result and returns that result.
    pub fn ins_value(&mut self, data: InstData, result_ty: Type) -> Value {
        debug_assert_ne!(result_ty, Type::Void);
        let inst = self.ins(data, result_ty);
        self.func.dfg.result(inst).expect("non-void instruction has a result")
    }

    pub fn ty(&self, value: Value) -> Type {
        self.func.dfg.value_type(value).clone()
    }

    pub fn iconst(&mut self, ty: Type, value: i128) -> Value {
        self.func.dfg.int_const(ty, value as u128)
    }

    pub fn f32const(&mut self, value: f32) -> Value {
        self.func.dfg.make_const(Type::F32, Constant::Float(u64::from(value.to_bits())))
    }

    pub fn f64const(&mut self, value: f64) -> Value {
        self.func.dfg.make_const(Type::F64, Constant::Float(value.to_bits()))
    }

    pub fn binary(&mut self, op: BinaryOp, lhs: Value, rhs: Value) -> Value {
        let ty = self.ty(lhs);
        self.ins_value(InstData::Binary { op, lhs, rhs, flags: ArithFlags::default() }, ty)
    }

    pub fn icmp(&mut self, pred: IntPredicate, lhs: Value, rhs: Value) -> Value {
        let ty = bool_like(&self.ty(lhs));
        self.ins_value(InstData::Icmp { pred, lhs, rhs }, ty)
    }

    pub fn fcmp(&mut self, pred: FloatPredicate, lhs: Value, rhs: Value) -> Value {
        let ty = bool_like(&self.ty(lhs));
        let flags = FastMathFlags::default();
        self.ins_value(InstData::Fcmp { pred, lhs, rhs, flags }, ty)
    }

    pub fn select(&mut self, cond: Value, if_true: Value, if_false: Value) -> Value {
        let ty = self.ty(if_true);
        let flags = FastMathFlags::default();
        self.ins_value(InstData::Select { cond, if_true, if_false, flags }, ty)
    }

    pub fn cast(&mut self, op: CastOp, arg: Value, to: Type) -> Value {
        let flags = CastFlags::default();
        self.ins_value(InstData::Cast { op, arg, to: to.clone(), flags }, to)
    }

    pub fn phi(&mut self, ty: Type, incoming: Vec<(Block, Value)>) -> Value {
        self.ins_value(InstData::Phi { ty: ty.clone(), incoming }, ty)
    }

    /// Adds the entry `(from, value)` to the phi whose result is `phi` (a
    /// loop header's phi gets its back-edge value once that is built).
    pub fn add_phi_incoming(&mut self, phi: Value, from: Block, value: Value) {
        let inst = self.func.dfg.defining_inst(phi).expect("a phi result");
        match self.func.dfg.inst_mut(inst) {
            InstData::Phi { incoming, .. } => incoming.push((from, value)),
            other => panic!("add_phi_incoming on a non-phi: {other:?}"),
        }
    }

    pub fn load(&mut self, ty: Type, addr: Value, align: u32) -> Value {
        self.ins_value(InstData::Load { ty: ty.clone(), addr, align, volatile: false }, ty)
    }

    pub fn store(&mut self, value: Value, addr: Value, align: u32) -> Inst {
        self.ins(InstData::Store { value, addr, align, volatile: false }, Type::Void)
    }

    pub fn gep(&mut self, source_ty: Type, base: Value, indices: Vec<Value>) -> Value {
        // A GEP with a vector base or vector index yields a vector of
        // pointers, in the base's address space.
        let lanes = std::iter::once(base)
            .chain(indices.iter().copied())
            .find_map(|value| self.func.dfg.value_type(value).lanes());
        let pointer = match self.func.dfg.value_type(base).scalar_type() {
            Type::Ptr(space) => Type::Ptr(*space),
            _ => Type::PTR,
        };
        let ty = match lanes {
            Some(lanes) => pointer.vector_of(lanes),
            None => pointer,
        };
        self.ins_value(InstData::Gep { source_ty, base, indices, inbounds: true }, ty)
    }

    pub fn splat(&mut self, scalar: Value, lanes: u32) -> Value {
        let ty = self.ty(scalar).vector_of(lanes);
        self.ins_value(InstData::Splat { scalar, lanes }, ty)
    }

    pub fn extract_element(&mut self, vector: Value, index: Value) -> Value {
        let ty = self.ty(vector).scalar_type().clone();
        self.ins_value(InstData::ExtractElement { vector, index }, ty)
    }

    pub fn insert_element(&mut self, vector: Value, value: Value, index: Value) -> Value {
        let ty = self.ty(vector);
        self.ins_value(InstData::InsertElement { vector, value, index }, ty)
    }

    /// A call; returns the call instruction (its result, if any, via the DFG).
    pub fn call(
        &mut self,
        callee: Callee,
        args: Vec<Value>,
        ret_ty: Type,
        effects: CallEffects,
    ) -> Inst {
        let flags = FastMathFlags::default();
        self.ins(InstData::Call { callee, args, ret_ty: ret_ty.clone(), effects, flags }, ret_ty)
    }

    /// `value` (an integer) through [`InlineAsm::identity`]: the same value,
    /// which LLVM's optimizer cannot fold into a constant.
    pub fn opaque(&mut self, value: Value) -> Value {
        let ty = self.ty(value);
        let call = self.call(
            Callee::InlineAsm(Box::new(InlineAsm::identity())),
            vec![value],
            ty,
            CallEffects::Pure,
        );
        self.func.dfg.result(call).expect("the call has a result")
    }

    pub fn jump(&mut self, dest: Block) -> Inst {
        self.ins(InstData::Jump { dest }, Type::Void)
    }

    pub fn branch(&mut self, cond: Value, then_dest: Block, else_dest: Block) -> Inst {
        self.ins(InstData::Branch { cond, then_dest, else_dest }, Type::Void)
    }

    pub fn ret(&mut self, value: Option<Value>) -> Inst {
        self.ins(InstData::Return { value }, Type::Void)
    }
}

/// `i1` for a scalar operand type, `<N x i1>` for a vector operand type.
fn bool_like(operand_ty: &Type) -> Type {
    match operand_ty.lanes() {
        Some(lanes) => Type::BOOL.vector_of(lanes),
        None => Type::BOOL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gep_keeps_its_base_address_space() {
        let params = vec![Type::Ptr(1), Type::I64, Type::I64.vector_of(4)];
        let mut func = Function::new("gep", params, Type::Void);
        let (base, index, indices) =
            (func.param_value(0), func.param_value(1), func.param_value(2));
        let mut b = FunctionBuilder::new(&mut func);
        let entry = b.create_block(Some("entry"));
        b.switch_to_block(entry);
        let scalar = b.gep(Type::I32, base, vec![index]);
        let vector = b.gep(Type::I32, base, vec![indices]);
        b.ret(None);
        assert_eq!(*func.dfg.value_type(scalar), Type::Ptr(1));
        assert_eq!(*func.dfg.value_type(vector), Type::Ptr(1).vector_of(4));
    }
}
