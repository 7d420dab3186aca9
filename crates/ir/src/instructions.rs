//! Instructions of the Lanewise IR.
//!
//! The instruction set is LLVM's, minus what scalar kernels never contain
//! (atomic loads and stores, fences, varargs), plus [`InstData::Splat`], the broadcast of a uniform
//! scalar that widening inserts late. Itanium exception handling
//! ([`InstData::Invoke`], [`InstData::LandingPad`], [`InstData::Resume`]) is
//! there so that C++ functions holding a `#pragma omp simd` loop round-trip:
//! the code around the loop passes through unchanged; widening refuses it.
//! Everything a vectorized function needs beyond LLVM's plain instructions
//! (masked memory operations, gathers/scatters, reductions, math library
//! variants) is a call to an intrinsic or library function by name: the
//! bridge declares them in the output module.
//!
//! An instruction's operands are [`Value`]s; its result (if any) is the value
//! recorded for it in the [`crate::DataFlowGraph`]. Terminators name their
//! successor blocks directly.

use crate::entities::{Block, Value};
use crate::types::Type;

/// Integer and floating-point binary operations.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
}

impl BinaryOp {
    /// The LLVM mnemonic.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::UDiv => "udiv",
            BinaryOp::SDiv => "sdiv",
            BinaryOp::URem => "urem",
            BinaryOp::SRem => "srem",
            BinaryOp::Shl => "shl",
            BinaryOp::LShr => "lshr",
            BinaryOp::AShr => "ashr",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
            BinaryOp::Xor => "xor",
            BinaryOp::FAdd => "fadd",
            BinaryOp::FSub => "fsub",
            BinaryOp::FMul => "fmul",
            BinaryOp::FDiv => "fdiv",
            BinaryOp::FRem => "frem",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv | BinaryOp::FRem
        )
    }

    /// Integer division and remainder: undefined behaviour on a zero divisor
    /// (and on `INT_MIN / -1`), so they must never run for inactive lanes.
    pub fn can_trap(self) -> bool {
        matches!(self, BinaryOp::UDiv | BinaryOp::SDiv | BinaryOp::URem | BinaryOp::SRem)
    }
}

/// Flags of integer and floating-point arithmetic, as in LLVM.
///
/// Integer flags: `nuw`, `nsw`, `exact`, `disjoint` (on `or`). Float flags are
/// the fast-math flags.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ArithFlags {
    pub nuw: bool,
    pub nsw: bool,
    pub exact: bool,
    pub disjoint: bool,
    pub fast_math: FastMathFlags,
}

/// LLVM fast-math flags.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct FastMathFlags {
    pub nnan: bool,
    pub ninf: bool,
    pub nsz: bool,
    pub arcp: bool,
    pub contract: bool,
    pub afn: bool,
    pub reassoc: bool,
}

impl FastMathFlags {
    pub fn is_empty(self) -> bool {
        self == FastMathFlags::default()
    }
}

/// Unary operations.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum UnaryOp {
    FNeg,
}

/// Integer comparison predicates.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum IntPredicate {
    Eq,
    Ne,
    Ugt,
    Uge,
    Ult,
    Ule,
    Sgt,
    Sge,
    Slt,
    Sle,
}

impl IntPredicate {
    pub fn name(self) -> &'static str {
        match self {
            IntPredicate::Eq => "eq",
            IntPredicate::Ne => "ne",
            IntPredicate::Ugt => "ugt",
            IntPredicate::Uge => "uge",
            IntPredicate::Ult => "ult",
            IntPredicate::Ule => "ule",
            IntPredicate::Sgt => "sgt",
            IntPredicate::Sge => "sge",
            IntPredicate::Slt => "slt",
            IntPredicate::Sle => "sle",
        }
    }

    /// The predicate that holds exactly when `self` does not.
    pub fn inverse(self) -> IntPredicate {
        use IntPredicate::*;
        match self {
            Eq => Ne,
            Ne => Eq,
            Ugt => Ule,
            Uge => Ult,
            Ult => Uge,
            Ule => Ugt,
            Sgt => Sle,
            Sge => Slt,
            Slt => Sge,
            Sle => Sgt,
        }
    }

    /// The predicate of the comparison with its operands swapped.
    pub fn swapped(self) -> IntPredicate {
        use IntPredicate::*;
        match self {
            Eq | Ne => self,
            Ugt => Ult,
            Uge => Ule,
            Ult => Ugt,
            Ule => Uge,
            Sgt => Slt,
            Sge => Sle,
            Slt => Sgt,
            Sle => Sge,
        }
    }
}

/// Floating-point comparison predicates.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FloatPredicate {
    False,
    Oeq,
    Ogt,
    Oge,
    Olt,
    Ole,
    One,
    Ord,
    Uno,
    Ueq,
    Ugt,
    Uge,
    Ult,
    Ule,
    Une,
    True,
}

impl FloatPredicate {
    pub fn name(self) -> &'static str {
        match self {
            FloatPredicate::False => "false",
            FloatPredicate::Oeq => "oeq",
            FloatPredicate::Ogt => "ogt",
            FloatPredicate::Oge => "oge",
            FloatPredicate::Olt => "olt",
            FloatPredicate::Ole => "ole",
            FloatPredicate::One => "one",
            FloatPredicate::Ord => "ord",
            FloatPredicate::Uno => "uno",
            FloatPredicate::Ueq => "ueq",
            FloatPredicate::Ugt => "ugt",
            FloatPredicate::Uge => "uge",
            FloatPredicate::Ult => "ult",
            FloatPredicate::Ule => "ule",
            FloatPredicate::Une => "une",
            FloatPredicate::True => "true",
        }
    }

    /// The predicate that holds exactly when `self` does not (NaN
    /// included: the inverse of an ordered predicate is unordered).
    pub fn inverse(self) -> FloatPredicate {
        use FloatPredicate::*;
        match self {
            False => True,
            Oeq => Une,
            Ogt => Ule,
            Oge => Ult,
            Olt => Uge,
            Ole => Ugt,
            One => Ueq,
            Ord => Uno,
            Uno => Ord,
            Ueq => One,
            Ugt => Ole,
            Uge => Olt,
            Ult => Oge,
            Ule => Ogt,
            Une => Oeq,
            True => False,
        }
    }

    /// The predicate of the comparison with its operands swapped.
    pub fn swapped(self) -> FloatPredicate {
        use FloatPredicate::*;
        match self {
            Ogt => Olt,
            Oge => Ole,
            Olt => Ogt,
            Ole => Oge,
            Ugt => Ult,
            Uge => Ule,
            Ult => Ugt,
            Ule => Uge,
            symmetric => symmetric,
        }
    }
}

/// Conversions.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CastOp {
    Trunc,
    ZExt,
    SExt,
    FPTrunc,
    FPExt,
    FPToUI,
    FPToSI,
    UIToFP,
    SIToFP,
    PtrToInt,
    IntToPtr,
    Bitcast,
    AddrSpaceCast,
}

impl CastOp {
    pub fn name(self) -> &'static str {
        match self {
            CastOp::Trunc => "trunc",
            CastOp::ZExt => "zext",
            CastOp::SExt => "sext",
            CastOp::FPTrunc => "fptrunc",
            CastOp::FPExt => "fpext",
            CastOp::FPToUI => "fptoui",
            CastOp::FPToSI => "fptosi",
            CastOp::UIToFP => "uitofp",
            CastOp::SIToFP => "sitofp",
            CastOp::PtrToInt => "ptrtoint",
            CastOp::IntToPtr => "inttoptr",
            CastOp::Bitcast => "bitcast",
            CastOp::AddrSpaceCast => "addrspacecast",
        }
    }
}

/// Flags of casts: `nuw`/`nsw` on `trunc`, `nneg` on `zext`/`uitofp`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct CastFlags {
    pub nuw: bool,
    pub nsw: bool,
    pub nneg: bool,
}

/// The callee of a call.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Callee {
    /// A function of the surrounding module (or an LLVM intrinsic) by name.
    /// The bridge declares it in the output module if it is not there.
    Direct(String),
    /// A call through a function pointer.
    Indirect(Value),
    /// Inline assembly (`call void asm "..."`), passed through unchanged in
    /// scalar code; never widened. Its function type is the call's.
    InlineAsm(Box<InlineAsm>),
}

/// The page size an [`InstData::SpeculativeLoad`] stays within: 4 KiB, the
/// smallest page of x86-64 (memory is mapped, and faults, a page at a time).
pub const PAGE_BYTES: u64 = 4096;

/// An inline assembly snippet, as LLVM's `InlineAsm` holds it.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct InlineAsm {
    pub asm: String,
    pub constraints: String,
    pub side_effects: bool,
    pub align_stack: bool,
    /// Intel syntax (`inteldialect`) rather than AT&T.
    pub intel_dialect: bool,
    pub can_unwind: bool,
    /// Per call argument, the `elementtype` of an indirect (memory)
    /// operand (`=*m`, `*m`: clang's `"+m"`, `"+g"`, `"+r,m"`), `None` for
    /// the others; empty when the snippet has no indirect operand. LLVM
    /// requires the attribute on such operands.
    pub element_types: Vec<Option<Type>>,
}

impl InlineAsm {
    /// An empty snippet whose output is its integer input (`asm "",
    /// "=r,0"`): the value passes unchanged, but LLVM cannot see through it,
    /// so it stops constant folding there ([`crate::FunctionBuilder::opaque`]).
    pub fn identity() -> InlineAsm {
        InlineAsm {
            asm: String::new(),
            constraints: "=r,0".to_owned(),
            side_effects: false,
            align_stack: false,
            intel_dialect: false,
            can_unwind: false,
            element_types: Vec::new(),
        }
    }

    /// Whether this is [`InlineAsm::identity`].
    pub fn is_identity(&self) -> bool {
        *self == InlineAsm::identity()
    }
}

/// What the optimizer may assume about a call, as far as vectorization cares.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum CallEffects {
    /// No memory access and no other side effect: the call may be widened,
    /// hoisted or executed for inactive lanes.
    #[default]
    Pure,
    /// Reads memory but writes none.
    ReadOnly,
    /// Anything else: the call must run once per active lane, in lane order.
    SideEffects,
}

/// A clause of a [`InstData::LandingPad`], as in LLVM: both hold a constant.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum LandingPadClause {
    /// `catch ptr @typeinfo`: the type-info pointer (`null` catches all).
    Catch(Value),
    /// `filter [N x ptr] [...]`: the array of type infos an exception
    /// specification allows.
    Filter(Value),
}

impl LandingPadClause {
    /// The constant the clause holds.
    pub fn value(self) -> Value {
        match self {
            LandingPadClause::Catch(value) | LandingPadClause::Filter(value) => value,
        }
    }

    fn value_mut(&mut self) -> &mut Value {
        match self {
            LandingPadClause::Catch(value) | LandingPadClause::Filter(value) => value,
        }
    }
}

/// The operation of an `atomicrmw`, as in LLVM.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AtomicRmwOp {
    Xchg,
    Add,
    Sub,
    And,
    Nand,
    Or,
    Xor,
    Max,
    Min,
    UMax,
    UMin,
    FAdd,
    FSub,
    FMax,
    FMin,
}

impl AtomicRmwOp {
    /// The LLVM keyword.
    pub fn name(self) -> &'static str {
        match self {
            AtomicRmwOp::Xchg => "xchg",
            AtomicRmwOp::Add => "add",
            AtomicRmwOp::Sub => "sub",
            AtomicRmwOp::And => "and",
            AtomicRmwOp::Nand => "nand",
            AtomicRmwOp::Or => "or",
            AtomicRmwOp::Xor => "xor",
            AtomicRmwOp::Max => "max",
            AtomicRmwOp::Min => "min",
            AtomicRmwOp::UMax => "umax",
            AtomicRmwOp::UMin => "umin",
            AtomicRmwOp::FAdd => "fadd",
            AtomicRmwOp::FSub => "fsub",
            AtomicRmwOp::FMax => "fmax",
            AtomicRmwOp::FMin => "fmin",
        }
    }

    /// Whether the operand and result are floating-point.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            AtomicRmwOp::FAdd | AtomicRmwOp::FSub | AtomicRmwOp::FMax | AtomicRmwOp::FMin
        )
    }
}

/// The memory ordering of an atomic operation, as in LLVM (`unordered` and
/// stronger; a non-atomic access is not an [`AtomicOrdering`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AtomicOrdering {
    Unordered,
    Monotonic,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl AtomicOrdering {
    /// The LLVM keyword.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOrdering::Unordered => "unordered",
            AtomicOrdering::Monotonic => "monotonic",
            AtomicOrdering::Acquire => "acquire",
            AtomicOrdering::Release => "release",
            AtomicOrdering::AcqRel => "acq_rel",
            AtomicOrdering::SeqCst => "seq_cst",
        }
    }
}

/// The synchronization scope of an atomic operation: the whole system
/// (LLVM's default) or only the current thread (`syncscope("singlethread")`).
/// Target-specific scopes (GPU agents, work groups) are refused when lifting.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum SyncScope {
    #[default]
    System,
    SingleThread,
}

/// The attributes an atomic operation keeps through vectorization: every
/// per-lane copy (and a combined atomic) carries them unchanged.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct AtomicAttrs {
    pub ordering: AtomicOrdering,
    pub scope: SyncScope,
    pub align: u32,
    pub volatile: bool,
}

/// The data of one instruction.
#[derive(Clone, PartialEq, Debug)]
pub enum InstData {
    Binary {
        op: BinaryOp,
        lhs: Value,
        rhs: Value,
        flags: ArithFlags,
    },
    Unary {
        op: UnaryOp,
        arg: Value,
        flags: ArithFlags,
    },
    Icmp {
        pred: IntPredicate,
        lhs: Value,
        rhs: Value,
    },
    Fcmp {
        pred: FloatPredicate,
        lhs: Value,
        rhs: Value,
        flags: FastMathFlags,
    },
    Select {
        cond: Value,
        if_true: Value,
        if_false: Value,
        flags: FastMathFlags,
    },
    Cast {
        op: CastOp,
        arg: Value,
        to: Type,
        flags: CastFlags,
    },
    /// An SSA phi; one incoming value per predecessor edge.
    Phi {
        ty: Type,
        incoming: Vec<(Block, Value)>,
    },
    Load {
        ty: Type,
        addr: Value,
        align: u32,
        volatile: bool,
    },
    Store {
        value: Value,
        addr: Value,
        align: u32,
        volatile: bool,
    },
    /// `getelementptr`; `source_ty` is the type the first index steps over.
    Gep {
        source_ty: Type,
        base: Value,
        indices: Vec<Value>,
        inbounds: bool,
    },
    /// A stack slot of `count` elements of `ty` (count is a value, usually 1).
    Alloca {
        ty: Type,
        count: Value,
        align: u32,
    },
    ExtractValue {
        aggregate: Value,
        indices: Vec<u32>,
    },
    InsertValue {
        aggregate: Value,
        value: Value,
        indices: Vec<u32>,
    },
    ExtractElement {
        vector: Value,
        index: Value,
    },
    InsertElement {
        vector: Value,
        value: Value,
        index: Value,
    },
    /// `shufflevector`; a mask element of `-1` is poison.
    Shuffle {
        lhs: Value,
        rhs: Value,
        mask: Vec<i32>,
    },
    Freeze {
        arg: Value,
    },
    /// A call. `ret_ty` is `Void` for calls without result.
    Call {
        callee: Callee,
        args: Vec<Value>,
        ret_ty: Type,
        effects: CallEffects,
        flags: FastMathFlags,
    },
    /// The landing pad of an exception (first non-phi instruction of a block
    /// that only unwind edges of [`InstData::Invoke`] enter): `ty` is the
    /// personality's exception value, `{ ptr, i32 }` for C++.
    LandingPad {
        ty: Type,
        cleanup: bool,
        clauses: Vec<LandingPadClause>,
    },
    /// Broadcast of a scalar to all `lanes` lanes of a vector.
    Splat {
        scalar: Value,
        lanes: u32,
    },
    /// Contiguous vector load of `ty` from `addr`, lanes whose `mask` bit is
    /// clear are not read and yield `passthru` (`llvm.masked.load`).
    MaskedLoad {
        ty: Type,
        addr: Value,
        mask: Value,
        passthru: Value,
        align: u32,
    },
    /// Contiguous vector load of `ty` from `addr` that may read bytes no
    /// lane of the scalar code reads: lanes whose bytes are not
    /// dereferenceable yield poison. Defined only where the access
    /// `[addr, addr + size)` lies within one page ([`PAGE_BYTES`]) of which
    /// some lane's bytes are dereferenceable, so the hardware cannot fault (see
    /// `lanewise_transform::widen::page_safe_loads`, which emits it behind
    /// that test). LLVM has no such load: the bridge lowers it to inline
    /// assembly (`vmovups`) that reads through its pointer argument only.
    SpeculativeLoad {
        ty: Type,
        addr: Value,
    },
    /// Contiguous vector store of the lanes whose `mask` bit is set (`llvm.masked.store`).
    MaskedStore {
        value: Value,
        addr: Value,
        mask: Value,
        align: u32,
    },
    /// Loads lane i of `ty` from lane i of the pointer vector `addrs`, for the
    /// lanes whose `mask` bit is set (`llvm.masked.gather`). `align` is the
    /// alignment of each element address.
    Gather {
        ty: Type,
        addrs: Value,
        mask: Value,
        passthru: Value,
        align: u32,
    },
    /// Stores lane i of `value` to lane i of `addrs` for the active lanes, in
    /// increasing lane order, so the highest lane wins on equal addresses
    /// (`llvm.masked.scatter`).
    Scatter {
        value: Value,
        addrs: Value,
        mask: Value,
        align: u32,
    },

    /// `atomicrmw`: atomically replaces the value of type `T` at `addr` by
    /// `op(old, value)` and yields `old`.
    AtomicRmw {
        op: AtomicRmwOp,
        addr: Value,
        value: Value,
        attrs: AtomicAttrs,
    },
    /// `cmpxchg`: atomically stores `new` at `addr` if the value there equals
    /// `expected`; yields `{ T old, i1 success }`. `attrs.ordering` is the
    /// success ordering.
    CmpXchg {
        addr: Value,
        expected: Value,
        new: Value,
        attrs: AtomicAttrs,
        failure_ordering: AtomicOrdering,
        weak: bool,
    },

    // Terminators.
    Jump {
        dest: Block,
    },
    Branch {
        cond: Value,
        then_dest: Block,
        else_dest: Block,
    },
    /// Case values are stored as the bit pattern of the switch type, zero-extended.
    Switch {
        value: Value,
        default: Block,
        cases: Vec<(u128, Block)>,
    },
    Return {
        value: Option<Value>,
    },
    Unreachable,
    /// A call that continues at `normal_dest` when the callee returns and at
    /// `unwind_dest` (a landing-pad block) when it throws. The result, if
    /// any, exists on the normal edge only.
    Invoke {
        callee: Callee,
        args: Vec<Value>,
        ret_ty: Type,
        effects: CallEffects,
        normal_dest: Block,
        unwind_dest: Block,
    },
    /// Resumes propagating the exception `value` (a landing pad's result).
    Resume {
        value: Value,
    },
}

impl InstData {
    /// Whether this instruction ends a block.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstData::Jump { .. }
                | InstData::Branch { .. }
                | InstData::Switch { .. }
                | InstData::Return { .. }
                | InstData::Unreachable
                | InstData::Invoke { .. }
                | InstData::Resume { .. }
        )
    }

    /// Whether the instruction belongs to exception handling (`invoke`,
    /// `landingpad`, `resume`), which Lanewise passes through but never
    /// vectorizes.
    pub fn is_exception_handling(&self) -> bool {
        matches!(
            self,
            InstData::Invoke { .. } | InstData::LandingPad { .. } | InstData::Resume { .. }
        )
    }

    /// The successor blocks of a terminator, in order, with duplicates kept
    /// (a switch may name one block for several cases).
    pub fn successors(&self) -> Vec<Block> {
        match self {
            InstData::Jump { dest } => vec![*dest],
            InstData::Branch { then_dest, else_dest, .. } => vec![*then_dest, *else_dest],
            InstData::Switch { default, cases, .. } => {
                let mut successors = vec![*default];
                successors.extend(cases.iter().map(|(_, block)| *block));
                successors
            }
            InstData::Invoke { normal_dest, unwind_dest, .. } => vec![*normal_dest, *unwind_dest],
            _ => Vec::new(),
        }
    }

    /// Replaces every successor `b` by `map(b)`, all slots at once (so a
    /// renaming that swaps blocks cannot collide, as repeated
    /// [`InstData::replace_successor`] calls could).
    pub fn map_successors(&mut self, mut map: impl FnMut(Block) -> Block) {
        match self {
            InstData::Jump { dest } => *dest = map(*dest),
            InstData::Branch { then_dest, else_dest, .. } => {
                *then_dest = map(*then_dest);
                *else_dest = map(*else_dest);
            }
            InstData::Switch { default, cases, .. } => {
                *default = map(*default);
                cases.iter_mut().for_each(|(_, block)| *block = map(*block));
            }
            InstData::Invoke { normal_dest, unwind_dest, .. } => {
                *normal_dest = map(*normal_dest);
                *unwind_dest = map(*unwind_dest);
            }
            _ => {}
        }
    }

    /// Replaces every successor `from` by `to`.
    pub fn replace_successor(&mut self, from: Block, to: Block) {
        let swap = |block: &mut Block| {
            if *block == from {
                *block = to;
            }
        };
        match self {
            InstData::Jump { dest } => swap(dest),
            InstData::Branch { then_dest, else_dest, .. } => {
                swap(then_dest);
                swap(else_dest);
            }
            InstData::Switch { default, cases, .. } => {
                swap(default);
                cases.iter_mut().for_each(|(_, block)| swap(block));
            }
            InstData::Invoke { normal_dest, unwind_dest, .. } => {
                swap(normal_dest);
                swap(unwind_dest);
            }
            _ => {}
        }
    }

    /// The value operands, in order (phi incoming values included).
    pub fn operands(&self) -> Vec<Value> {
        let mut operands = Vec::new();
        self.for_each_operand(|value| operands.push(value));
        operands
    }

    /// Calls `visit` on every value operand, in order.
    pub fn for_each_operand(&self, mut visit: impl FnMut(Value)) {
        match self {
            InstData::Binary { lhs, rhs, .. }
            | InstData::Icmp { lhs, rhs, .. }
            | InstData::Fcmp { lhs, rhs, .. }
            | InstData::Shuffle { lhs, rhs, .. } => {
                visit(*lhs);
                visit(*rhs);
            }
            InstData::Unary { arg, .. } | InstData::Cast { arg, .. } | InstData::Freeze { arg } => {
                visit(*arg)
            }
            InstData::Select { cond, if_true, if_false, .. } => {
                visit(*cond);
                visit(*if_true);
                visit(*if_false);
            }
            InstData::Phi { incoming, .. } => incoming.iter().for_each(|(_, value)| visit(*value)),
            InstData::Load { addr, .. } => visit(*addr),
            InstData::Store { value, addr, .. } => {
                visit(*value);
                visit(*addr);
            }
            InstData::Gep { base, indices, .. } => {
                visit(*base);
                indices.iter().for_each(|index| visit(*index));
            }
            InstData::Alloca { count, .. } => visit(*count),
            InstData::ExtractValue { aggregate, .. } => visit(*aggregate),
            InstData::InsertValue { aggregate, value, .. } => {
                visit(*aggregate);
                visit(*value);
            }
            InstData::ExtractElement { vector, index } => {
                visit(*vector);
                visit(*index);
            }
            InstData::InsertElement { vector, value, index } => {
                visit(*vector);
                visit(*value);
                visit(*index);
            }
            InstData::Call { callee, args, .. } | InstData::Invoke { callee, args, .. } => {
                if let Callee::Indirect(pointer) = callee {
                    visit(*pointer);
                }
                args.iter().for_each(|arg| visit(*arg));
            }
            InstData::LandingPad { clauses, .. } => {
                clauses.iter().for_each(|clause| visit(clause.value()))
            }
            InstData::Resume { value } => visit(*value),
            InstData::Splat { scalar, .. } => visit(*scalar),
            InstData::MaskedLoad { addr, mask, passthru, .. } => {
                visit(*addr);
                visit(*mask);
                visit(*passthru);
            }
            InstData::SpeculativeLoad { addr, .. } => visit(*addr),
            InstData::MaskedStore { value, addr, mask, .. } => {
                visit(*value);
                visit(*addr);
                visit(*mask);
            }
            InstData::Gather { addrs, mask, passthru, .. } => {
                visit(*addrs);
                visit(*mask);
                visit(*passthru);
            }
            InstData::Scatter { value, addrs, mask, .. } => {
                visit(*value);
                visit(*addrs);
                visit(*mask);
            }
            InstData::AtomicRmw { addr, value, .. } => {
                visit(*addr);
                visit(*value);
            }
            InstData::CmpXchg { addr, expected, new, .. } => {
                visit(*addr);
                visit(*expected);
                visit(*new);
            }
            InstData::Branch { cond, .. } => visit(*cond),
            InstData::Switch { value, .. } => visit(*value),
            InstData::Return { value } => {
                if let Some(value) = value {
                    visit(*value)
                }
            }
            InstData::Jump { .. } | InstData::Unreachable => {}
        }
    }

    /// Calls `rewrite` on every value operand, in the order of
    /// [`InstData::for_each_operand`], replacing it by what it returns.
    pub fn map_operands(&mut self, mut rewrite: impl FnMut(Value) -> Value) {
        let mut apply = |value: &mut Value| *value = rewrite(*value);
        match self {
            InstData::Binary { lhs, rhs, .. }
            | InstData::Icmp { lhs, rhs, .. }
            | InstData::Fcmp { lhs, rhs, .. }
            | InstData::Shuffle { lhs, rhs, .. } => {
                apply(lhs);
                apply(rhs);
            }
            InstData::Unary { arg, .. } | InstData::Cast { arg, .. } | InstData::Freeze { arg } => {
                apply(arg)
            }
            InstData::Select { cond, if_true, if_false, .. } => {
                apply(cond);
                apply(if_true);
                apply(if_false);
            }
            InstData::Phi { incoming, .. } => {
                incoming.iter_mut().for_each(|(_, value)| apply(value))
            }
            InstData::Load { addr, .. } => apply(addr),
            InstData::Store { value, addr, .. } => {
                apply(value);
                apply(addr);
            }
            InstData::Gep { base, indices, .. } => {
                apply(base);
                indices.iter_mut().for_each(apply);
            }
            InstData::Alloca { count, .. } => apply(count),
            InstData::ExtractValue { aggregate, .. } => apply(aggregate),
            InstData::InsertValue { aggregate, value, .. } => {
                apply(aggregate);
                apply(value);
            }
            InstData::ExtractElement { vector, index } => {
                apply(vector);
                apply(index);
            }
            InstData::InsertElement { vector, value, index } => {
                apply(vector);
                apply(value);
                apply(index);
            }
            InstData::Call { callee, args, .. } | InstData::Invoke { callee, args, .. } => {
                if let Callee::Indirect(pointer) = callee {
                    apply(pointer);
                }
                args.iter_mut().for_each(apply);
            }
            InstData::LandingPad { clauses, .. } => {
                clauses.iter_mut().for_each(|clause| apply(clause.value_mut()))
            }
            InstData::Resume { value } => apply(value),
            InstData::Splat { scalar, .. } => apply(scalar),
            InstData::MaskedLoad { addr, mask, passthru, .. } => {
                apply(addr);
                apply(mask);
                apply(passthru);
            }
            InstData::SpeculativeLoad { addr, .. } => apply(addr),
            InstData::MaskedStore { value, addr, mask, .. } => {
                apply(value);
                apply(addr);
                apply(mask);
            }
            InstData::Gather { addrs, mask, passthru, .. } => {
                apply(addrs);
                apply(mask);
                apply(passthru);
            }
            InstData::Scatter { value, addrs, mask, .. } => {
                apply(value);
                apply(addrs);
                apply(mask);
            }
            InstData::AtomicRmw { addr, value, .. } => {
                apply(addr);
                apply(value);
            }
            InstData::CmpXchg { addr, expected, new, .. } => {
                apply(addr);
                apply(expected);
                apply(new);
            }
            InstData::Branch { cond, .. } => apply(cond),
            InstData::Switch { value, .. } => apply(value),
            InstData::Return { value } => {
                if let Some(value) = value {
                    apply(value)
                }
            }
            InstData::Jump { .. } | InstData::Unreachable => {}
        }
    }

    /// Whether running the instruction in a lane where it should not run can
    /// trap (integer division and remainder; memory accesses and calls are
    /// handled by masking).
    pub fn can_trap_on_inactive_lanes(&self) -> bool {
        matches!(self, InstData::Binary { op, .. } if op.can_trap())
    }

    /// Whether the instruction may write memory or have another effect
    /// visible outside the function (stores, volatile loads, impure calls).
    pub fn has_side_effects(&self) -> bool {
        match self {
            InstData::Store { .. }
            | InstData::MaskedStore { .. }
            | InstData::Scatter { .. }
            | InstData::AtomicRmw { .. }
            | InstData::CmpXchg { .. } => true,
            InstData::Load { volatile, .. } => *volatile,
            InstData::Call { effects, .. } => *effects == CallEffects::SideEffects,
            // Control leaves through the unwinder: never dead, never moved.
            InstData::Invoke { .. } | InstData::LandingPad { .. } | InstData::Resume { .. } => true,
            _ => false,
        }
    }

    /// Whether the instruction reads memory.
    pub fn reads_memory(&self) -> bool {
        match self {
            InstData::Load { .. }
            | InstData::MaskedLoad { .. }
            | InstData::SpeculativeLoad { .. }
            | InstData::Gather { .. }
            | InstData::AtomicRmw { .. }
            | InstData::CmpXchg { .. } => true,
            InstData::Call { effects, .. } | InstData::Invoke { effects, .. } => {
                *effects != CallEffects::Pure
            }
            _ => false,
        }
    }

    /// A short name of the opcode, for diagnostics.
    pub fn opcode_name(&self) -> &'static str {
        match self {
            InstData::Binary { op, .. } => op.name(),
            InstData::Unary { .. } => "fneg",
            InstData::Icmp { .. } => "icmp",
            InstData::Fcmp { .. } => "fcmp",
            InstData::Select { .. } => "select",
            InstData::Cast { op, .. } => op.name(),
            InstData::Phi { .. } => "phi",
            InstData::Load { .. } => "load",
            InstData::Store { .. } => "store",
            InstData::Gep { .. } => "getelementptr",
            InstData::Alloca { .. } => "alloca",
            InstData::ExtractValue { .. } => "extractvalue",
            InstData::InsertValue { .. } => "insertvalue",
            InstData::ExtractElement { .. } => "extractelement",
            InstData::InsertElement { .. } => "insertelement",
            InstData::Shuffle { .. } => "shufflevector",
            InstData::Freeze { .. } => "freeze",
            InstData::Call { .. } => "call",
            InstData::Splat { .. } => "splat",
            InstData::MaskedLoad { .. } => "masked_load",
            InstData::SpeculativeLoad { .. } => "speculative_load",
            InstData::MaskedStore { .. } => "masked_store",
            InstData::Gather { .. } => "gather",
            InstData::Scatter { .. } => "scatter",
            InstData::AtomicRmw { .. } => "atomicrmw",
            InstData::CmpXchg { .. } => "cmpxchg",
            InstData::Jump { .. } | InstData::Branch { .. } => "br",
            InstData::Switch { .. } => "switch",
            InstData::Return { .. } => "ret",
            InstData::Unreachable => "unreachable",
            InstData::Invoke { .. } => "invoke",
            InstData::LandingPad { .. } => "landingpad",
            InstData::Resume { .. } => "resume",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{FloatPredicate, IntPredicate};

    fn holds_int(pred: IntPredicate, a: i8, b: i8) -> bool {
        let (ua, ub) = (a as u8, b as u8);
        match pred {
            IntPredicate::Eq => a == b,
            IntPredicate::Ne => a != b,
            IntPredicate::Ugt => ua > ub,
            IntPredicate::Uge => ua >= ub,
            IntPredicate::Ult => ua < ub,
            IntPredicate::Ule => ua <= ub,
            IntPredicate::Sgt => a > b,
            IntPredicate::Sge => a >= b,
            IntPredicate::Slt => a < b,
            IntPredicate::Sle => a <= b,
        }
    }

    fn holds_float(pred: FloatPredicate, a: f32, b: f32) -> bool {
        use std::cmp::Ordering::*;
        let order = a.partial_cmp(&b);
        let unordered = order.is_none();
        let is = |wanted: &[std::cmp::Ordering]| order.is_some_and(|o| wanted.contains(&o));
        match pred {
            FloatPredicate::False => false,
            FloatPredicate::True => true,
            FloatPredicate::Oeq => is(&[Equal]),
            FloatPredicate::Ogt => is(&[Greater]),
            FloatPredicate::Oge => is(&[Greater, Equal]),
            FloatPredicate::Olt => is(&[Less]),
            FloatPredicate::Ole => is(&[Less, Equal]),
            FloatPredicate::One => is(&[Less, Greater]),
            FloatPredicate::Ord => !unordered,
            FloatPredicate::Uno => unordered,
            FloatPredicate::Ueq => unordered || is(&[Equal]),
            FloatPredicate::Ugt => unordered || is(&[Greater]),
            FloatPredicate::Uge => unordered || is(&[Greater, Equal]),
            FloatPredicate::Ult => unordered || is(&[Less]),
            FloatPredicate::Ule => unordered || is(&[Less, Equal]),
            FloatPredicate::Une => unordered || !is(&[Equal]),
        }
    }

    #[test]
    fn inverse_and_swapped_int_predicates_mean_what_they_say() {
        use IntPredicate::*;
        let values = [i8::MIN, -1, 0, 1, i8::MAX];
        for pred in [Eq, Ne, Ugt, Uge, Ult, Ule, Sgt, Sge, Slt, Sle] {
            for a in values {
                for b in values {
                    assert_eq!(holds_int(pred.inverse(), a, b), !holds_int(pred, a, b), "{pred:?}");
                    assert_eq!(holds_int(pred.swapped(), b, a), holds_int(pred, a, b), "{pred:?}");
                }
            }
        }
    }

    #[test]
    fn inverse_and_swapped_float_predicates_mean_what_they_say() {
        use FloatPredicate::*;
        let values = [f32::NEG_INFINITY, -1.0, -0.0, 0.0, 2.5, f32::INFINITY, f32::NAN];
        let all =
            [False, Oeq, Ogt, Oge, Olt, Ole, One, Ord, Uno, Ueq, Ugt, Uge, Ult, Ule, Une, True];
        for pred in all {
            for a in values {
                for b in values {
                    let holds = holds_float(pred, a, b);
                    assert_eq!(holds_float(pred.inverse(), a, b), !holds, "{pred:?} {a} {b}");
                    assert_eq!(holds_float(pred.swapped(), b, a), holds, "{pred:?} {a} {b}");
                }
            }
        }
    }
}
