//! The C subset the generator writes and the reducer shrinks.
//!
//! Undefined behaviour is excluded by construction *in the printer*
//! (print.rs), not by the values the generator happens to choose: every
//! signed `+ - * << -x` is done in `unsigned` (on `short` and `unsigned
//! char`, in `int`, where it cannot overflow, converted back), every
//! divisor is `(b & 15) + 1`, every array index is masked into bounds, every
//! float-to-int conversion goes through a range-checked helper, every loop
//! has a counter bound, and every local is initialized where it is
//! declared. So any tree of these nodes, also one the reducer cut down, is
//! a program without undefined behaviour, as long as it is well formed:
//! `break`/`continue` inside a loop (or `break` inside a `switch`), `goto L`
//! inside the [`Stmt::GotoScope`] of `L`, and names in scope; the reducer
//! checks those.

/// The scalar types of the programs: the four 32/64-bit ones of every
/// program, and in programs with mixed widths ([`Program::mixed_widths`])
/// also `long` (64-bit), `short` and `unsigned char`, whose vectors have
/// other lane counts per register and whose values C promotes to `int`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Int,
    UInt,
    Float,
    Double,
    Long,
    Short,
    UChar,
}

impl Ty {
    /// The types of every program.
    pub const ALL: [Ty; 4] = [Ty::Int, Ty::UInt, Ty::Float, Ty::Double];
    /// The types of a program with mixed widths.
    pub const MIXED: [Ty; 7] =
        [Ty::Int, Ty::UInt, Ty::Float, Ty::Double, Ty::Long, Ty::Short, Ty::UChar];
    /// The types only programs with mixed widths use.
    pub const NARROW_AND_WIDE: [Ty; 3] = [Ty::Long, Ty::Short, Ty::UChar];

    pub fn c_name(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::UInt => "unsigned",
            Ty::Float => "float",
            Ty::Double => "double",
            Ty::Long => "long",
            Ty::Short => "short",
            Ty::UChar => "unsigned char",
        }
    }

    /// The suffix of the program's per-type globals (`g_i`, `in_f`, `out_d`).
    pub fn suffix(self) -> &'static str {
        match self {
            Ty::Int => "i",
            Ty::UInt => "u",
            Ty::Float => "f",
            Ty::Double => "d",
            Ty::Long => "l",
            Ty::Short => "s",
            Ty::UChar => "c",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::Float | Ty::Double)
    }

    /// `short` and `unsigned char`: C computes on them in `int`.
    pub fn is_promoted(self) -> bool {
        matches!(self, Ty::Short | Ty::UChar)
    }

    /// The bits of the type.
    pub fn bits(self) -> u32 {
        match self {
            Ty::UChar => 8,
            Ty::Short => 16,
            Ty::Int | Ty::UInt | Ty::Float => 32,
            Ty::Long | Ty::Double => 64,
        }
    }
}

/// A literal of one of the types.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    Int(i32),
    UInt(u32),
    Float(f32),
    Double(f64),
    Long(i64),
    Short(i16),
    UChar(u8),
}

impl Lit {
    pub fn ty(self) -> Ty {
        match self {
            Lit::Int(_) => Ty::Int,
            Lit::UInt(_) => Ty::UInt,
            Lit::Float(_) => Ty::Float,
            Lit::Double(_) => Ty::Double,
            Lit::Long(_) => Ty::Long,
            Lit::Short(_) => Ty::Short,
            Lit::UChar(_) => Ty::UChar,
        }
    }

    /// The simplest literal of a type (what the reducer replaces with).
    pub fn zero(ty: Ty) -> Lit {
        match ty {
            Ty::Int => Lit::Int(0),
            Ty::UInt => Lit::UInt(0),
            Ty::Float => Lit::Float(0.0),
            Ty::Double => Lit::Double(0.0),
            Ty::Long => Lit::Long(0),
            Ty::Short => Lit::Short(0),
            Ty::UChar => Lit::UChar(0),
        }
    }

    /// `self + (T)k` in the literal's type T, as C computes it (integers
    /// wrap): the `k`-th element of a private array whose `init` is the
    /// literal.
    pub fn plus(self, k: u32) -> Lit {
        match self {
            Lit::Int(value) => Lit::Int(value.wrapping_add(k as i32)),
            Lit::UInt(value) => Lit::UInt(value.wrapping_add(k)),
            Lit::Float(value) => Lit::Float(value + k as f32),
            Lit::Double(value) => Lit::Double(value + f64::from(k)),
            Lit::Long(value) => Lit::Long(value.wrapping_add(i64::from(k))),
            Lit::Short(value) => Lit::Short(value.wrapping_add(k as i16)),
            Lit::UChar(value) => Lit::UChar(value.wrapping_add(k as u8)),
        }
    }

    pub fn one(ty: Ty) -> Lit {
        match ty {
            Ty::Int => Lit::Int(1),
            Ty::UInt => Lit::UInt(1),
            Ty::Float => Lit::Float(1.0),
            Ty::Double => Lit::Double(1.0),
            Ty::Long => Lit::Long(1),
            Ty::Short => Lit::Short(1),
            Ty::UChar => Lit::UChar(1),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x` (in unsigned for `int`).
    Neg,
    /// `~x` (integers).
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Integers: by `(b & 15) + 1`; floats: IEEE division.
    Div,
    /// Integers only, by `(b & 15) + 1`.
    Rem,
    And,
    Or,
    Xor,
    /// Integers only, by `b & 31`.
    Shl,
    Shr,
}

impl BinOp {
    pub const INTEGER: [BinOp; 10] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::Shr,
    ];
    pub const FLOAT: [BinOp; 4] = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div];

    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl CmpOp {
    pub const ALL: [CmpOp; 6] = [CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge, CmpOp::Eq, CmpOp::Ne];

    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }
}

/// Exact functions of the operands (the same bits per lane in any build):
/// libm functions and operations on `float` and `double`, bit builtins on
/// `int` and `unsigned` ([`MathFn::on_integers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    /// `sqrt(fabs(x))`.
    SqrtAbs,
    Fabs,
    Floor,
    /// `ceil(x)`, `trunc(x)`, `round(x)` (halfway cases away from zero, not
    /// an SSE4.1 rounding mode) and `rint(x)` (to even).
    Ceil,
    Trunc,
    Round,
    Rint,
    /// `sqrt(x)`: NaN (and errno) for a negative `x`, which takes libm's
    /// errno-setting call where the rest take the sqrt instruction.
    Sqrt,
    /// `exp(x)`: a libm call per lane without fast-math (for `float` on
    /// targets with FMA, Lanewise's exact vector `expf`).
    Exp,
    /// `log(x)`: NaN and `errno` for a negative `x`, -inf for zero (the
    /// exact vector `logf`'s per-lane path), a table lookup otherwise.
    Log,
    /// `exp2(x)`: for `float` on targets with FMA, Lanewise's exact vector
    /// `exp2f` (its own table and polynomial, overflow and underflow past
    /// ±128); a libm call per lane otherwise.
    Exp2,
    /// `log2(x)`: as [`MathFn::Log`], with the exact vector `log2f`.
    Log2,
    /// `fmin(a, b) + 0` and `fmax(a, b) + 0` (`llvm.minnum`/`maxnum`: the
    /// number of a NaN and a number; the `+ 0` makes the sign of a zero
    /// result, which C leaves open for equal zeros, positive).
    Fmin,
    Fmax,
    /// `copysign(a, b)`.
    Copysign,
    /// `fmod(a, b)`: a libm call per lane (NaN for a zero `b`).
    Fmod,
    /// `fma(a, b, c)`: one rounding (the instruction where the target has
    /// FMA, libm's exact software otherwise).
    Fma,
    /// `__builtin_popcount`, `__builtin_clz`, `__builtin_ctz` of the value
    /// as `unsigned` (the last two 32 for zero, where the builtins are
    /// undefined: `lw_clz`/`lw_ctz` of print.rs test it, which LLVM folds
    /// into `ctlz`/`cttz` with a defined zero), `__builtin_bswap32`.
    Popcount,
    Clz,
    Ctz,
    Bswap,
    /// `(a << (b & 31)) | (a >> (-b & 31))` on `unsigned` (`llvm.fshl`).
    Rotl,
}

impl MathFn {
    pub const FLOAT: [MathFn; 17] = [
        MathFn::SqrtAbs,
        MathFn::Fabs,
        MathFn::Floor,
        MathFn::Ceil,
        MathFn::Trunc,
        MathFn::Round,
        MathFn::Rint,
        MathFn::Sqrt,
        MathFn::Exp,
        MathFn::Log,
        MathFn::Exp2,
        MathFn::Log2,
        MathFn::Fmin,
        MathFn::Fmax,
        MathFn::Copysign,
        MathFn::Fmod,
        MathFn::Fma,
    ];
    pub const INTEGER: [MathFn; 5] =
        [MathFn::Popcount, MathFn::Clz, MathFn::Ctz, MathFn::Bswap, MathFn::Rotl];

    /// How many operands the function takes (all of the result's type).
    pub fn arity(self) -> usize {
        match self {
            MathFn::Fmin | MathFn::Fmax | MathFn::Copysign | MathFn::Fmod | MathFn::Rotl => 2,
            MathFn::Fma => 3,
            _ => 1,
        }
    }

    /// Whether the function takes and gives `int` or `unsigned` (the
    /// others `float` or `double`).
    pub fn on_integers(self) -> bool {
        MathFn::INTEGER.contains(&self)
    }
}

/// An argument of a call of a declare-simd function. Only `Varying`
/// arguments are expressions the reducer may change: the others must keep
/// the shape the callee's clause promises (OpenMP makes a call that breaks
/// it undefined).
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Varying(Expr),
    /// A literal for a `uniform` scalar parameter.
    Uniform(Lit),
    /// An `int` linear with `step` per lane: `scale * base + offset`, where
    /// `base` is the omp simd loop's `i` or the caller's own linear
    /// parameter.
    LinearInt {
        base: String,
        scale: i32,
        offset: i32,
    },
    /// A pointer (a global array, or the caller's pointer parameter):
    /// `&array[scale * base]` for linear pointers, `array` for uniform ones.
    Pointer(PointerArg),
    /// `(depth - 1)`: a recursive function's call of itself, on its own
    /// depth parameter (see [`Recursion`]).
    Depth(String),
    /// `lw_recs[k]` for a `uniform` record parameter ([`ParamKind::Record`]).
    UniformRecord(u32),
    /// `lw_recs[(unsigned)(index) & 3u]` for a varying record parameter.
    Record(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub enum PointerArg {
    /// `array` (a global table or the caller's uniform table parameter).
    Table(String),
    /// `&array[scale * i]` in an omp simd loop.
    Element { array: String, scale: i32 },
    /// The caller's own linear pointer parameter, passed on.
    Param(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Lit(Lit),
    Var(String, Ty),
    Unary(UnOp, Box<Expr>),
    /// `!x`: an `int` 0 or 1.
    Not(Box<Expr>),
    /// Both operands and the result have the type.
    Binary(BinOp, Ty, Box<Expr>, Box<Expr>),
    /// An `int` 0 or 1; both operands have the same type.
    Compare(CmpOp, Box<Expr>, Box<Expr>),
    /// `a && b` (`and` true) or `a || b`, on `int` operands.
    Logic(bool, Box<Expr>, Box<Expr>),
    /// A conversion to the type (float to integer through a range check).
    Cast(Ty, Box<Expr>),
    /// `cond ? a : b` with an `int` condition.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `base[(unsigned)(index) & (len - 1)]`, `len` a power of two; with
    /// an `offset` (1 .. len/2), the element `offset` places after the
    /// indexed one through a pointer to it, `(&base[(unsigned)(index) &
    /// (len/2 - 1)])[offset]`, the way code reads a row or a record it
    /// found (a chain of address computations, the second a constant).
    Load {
        base: String,
        ty: Ty,
        index: Box<Expr>,
        len: u32,
        offset: u32,
    },
    /// A call of a declare-simd function: no side effects but the atomic
    /// counter updates ([`Stmt::Atomic`]) of its body, which a program
    /// must therefore run as often as the serial one does.
    Call {
        function: String,
        ret: Ty,
        args: Vec<Arg>,
    },
    /// [`MathFn::arity`] operands, each of the type.
    Math(MathFn, Ty, Vec<Expr>),
    /// `a / b` on `int` or `unsigned` only when the divisor is safe: `(b)
    /// != 0 && (b) != -1 ? (a) / (b) : (a)`, the division written inline
    /// or (`helper`) through a `noinline` function that traps on a zero
    /// divisor (`lw_sdiv`/`lw_udiv`, `memory(none)`): a vectorizer must not
    /// divide, or call the helper, in lanes (or blocks) the scalar code
    /// does not.
    GuardedDiv {
        ty: Ty,
        helper: bool,
        dividend: Box<Expr>,
        divisor: Box<Expr>,
    },
}

impl Expr {
    pub fn ty(&self) -> Ty {
        match self {
            Expr::Lit(lit) => lit.ty(),
            Expr::Var(_, ty) | Expr::Binary(_, ty, _, _) | Expr::Cast(ty, _) => *ty,
            Expr::GuardedDiv { ty, .. } => *ty,
            Expr::Load { ty, .. } | Expr::Math(_, ty, _) => *ty,
            Expr::Unary(_, operand) => operand.ty(),
            Expr::Not(_) | Expr::Compare(..) | Expr::Logic(..) => Ty::Int,
            Expr::Select(_, a, _) => a.ty(),
            Expr::Call { ret, .. } => *ret,
        }
    }

    /// The direct subexpressions the reducer may descend into or hoist.
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Lit(_) | Expr::Var(..) => Vec::new(),
            Expr::Unary(_, a) | Expr::Not(a) | Expr::Cast(_, a) => vec![a],
            Expr::Math(_, _, operands) => operands.iter_mut().collect(),
            Expr::Load { index, .. } => vec![index],
            Expr::Binary(_, _, a, b)
            | Expr::Compare(_, a, b)
            | Expr::Logic(_, a, b)
            | Expr::GuardedDiv { dividend: a, divisor: b, .. } => vec![a, b],
            Expr::Select(c, a, b) => vec![c, a, b],
            Expr::Call { args, .. } => args
                .iter_mut()
                .filter_map(|arg| match arg {
                    Arg::Varying(expr) | Arg::Record(expr) => Some(expr),
                    _ => None,
                })
                .collect(),
        }
    }

    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Lit(_) | Expr::Var(..) => Vec::new(),
            Expr::Unary(_, a) | Expr::Not(a) | Expr::Cast(_, a) => vec![a],
            Expr::Math(_, _, operands) => operands.iter().collect(),
            Expr::Load { index, .. } => vec![index],
            Expr::Binary(_, _, a, b)
            | Expr::Compare(_, a, b)
            | Expr::Logic(_, a, b)
            | Expr::GuardedDiv { dividend: a, divisor: b, .. } => vec![a, b],
            Expr::Select(c, a, b) => vec![c, a, b],
            Expr::Call { args, .. } => args
                .iter()
                .filter_map(|arg| match arg {
                    Arg::Varying(expr) | Arg::Record(expr) => Some(expr),
                    _ => None,
                })
                .collect(),
        }
    }
}

/// The builtins of include/lanewise/rv.h used only in forms whose result
/// per lane is the same as the guarded statement without them (so the
/// scalar build, with their one-lane meaning, prints the same). The
/// condition is evaluated once, into a temporary `lw_c`: the calls in it
/// must run as often as serially.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RvGuard {
    /// `if (rv_any(c)) { if (c) { body } }`: BOSCC's shape, by hand.
    AnyThenIf,
    /// `if (rv_all(c) || c) { body }`: `rv_all(c)` implies `c` in every
    /// active lane.
    AllOr,
    /// `if (rv_any(c) && c) { body }`.
    AnyAnd,
}

/// A reduction variable of an omp simd loop. Only order-independent
/// operations: unsigned `+`/`^`, `int` min/max, float min/max by compares
/// (printed with -0 folded into +0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedOp {
    AddU,
    XorU,
    MinI,
    MaxI,
    MinF,
    MaxF,
    /// `r = r && (x)` on an `int` (`reduction(&&: r)`): a short circuit.
    AndL,
    /// `r = r || (x)` (`reduction(||: r)`).
    OrL,
}

impl RedOp {
    pub fn ty(self) -> Ty {
        match self {
            RedOp::AddU | RedOp::XorU => Ty::UInt,
            RedOp::MinI | RedOp::MaxI | RedOp::AndL | RedOp::OrL => Ty::Int,
            RedOp::MinF | RedOp::MaxF => Ty::Float,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `name = value;` (a local, or a lastprivate variable in a loop body).
    Assign {
        name: String,
        value: Expr,
    },
    /// `array[(unsigned)(index) & (len - 1)] = value;` on a private array.
    ArrayStore {
        array: String,
        len: u32,
        index: Expr,
        value: Expr,
    },
    /// `array[(unsigned)(to) & (len - 1)] = array[(unsigned)(from) & (len -
    /// 1)];` on a private array of records: a whole `struct lw_rec` copied
    /// (clang's `llvm.memcpy` between two elements, at indices that may
    /// vary across lanes and may be the same element).
    RecordCopy {
        array: String,
        len: u32,
        to: Expr,
        from: Expr,
    },
    /// `*pointer = value;` through a linear pointer parameter.
    PointerStore {
        pointer: String,
        value: Expr,
    },
    /// `out_T[i] = value;` in an omp simd loop body.
    OutStore {
        value: Expr,
    },
    /// `target = call;` or `(void)call;`: a call that stores through a
    /// linear pointer (never inside an expression).
    CallStmt {
        target: Option<String>,
        call: Expr,
    },
    If {
        cond: Expr,
        then_body: Vec<Stmt>,
        else_body: Vec<Stmt>,
    },
    /// `switch ((unsigned)(scrutinee) & 7u)` (`masked`, case values 0 to 7)
    /// or `switch (scrutinee)` on the `int` itself (any case values: runs
    /// of consecutive ones, which LLVM turns into jump tables, bit tests or,
    /// where every case assigns a constant, a lookup table in a constant
    /// global, and outliers); each case ending in `break` unless it falls
    /// through.
    Switch {
        scrutinee: Expr,
        masked: bool,
        cases: Vec<Case>,
        default: Vec<Stmt>,
    },
    /// `{ int counter = 0; while (counter < bound && cond) { counter++; body } }`,
    /// with `midway` also entered in the middle of its body (see [`Midway`]).
    While {
        counter: String,
        bound: u32,
        cond: Expr,
        body: Vec<Stmt>,
        midway: Option<Midway>,
    },
    /// `for (int var = 0; var < (int)((unsigned)(limit) & mask); var++) body`
    For {
        var: String,
        limit: Expr,
        mask: u32,
        body: Vec<Stmt>,
    },
    Break,
    Continue,
    /// `return value;` (declare-simd functions only).
    Return(Expr),
    /// `goto label;`, inside the `GotoScope` of the label.
    Goto(String),
    /// `{ int flag = cond; T var; if (flag) var = value; body if (flag)
    /// target = var; }`: a variable assigned under a condition and read
    /// only under the same one (never uninitialized; the SSA value has a
    /// `poison` incoming on the path that skips the assignment, which
    /// LLVM's -O2 mostly folds away), two branches on one varying flag.
    CondInit {
        flag: String,
        var: String,
        ty: Ty,
        cond: Expr,
        value: Expr,
        body: Vec<Stmt>,
        target: String,
    },
    /// Four-lane vector code (GCC vector extensions, `float` or `unsigned`
    /// lanes, the `float4` of SPMD code):
    /// `{ lw_T4 v = {init}; v = v op (lw_T4){other}; v =
    /// __builtin_shufflevector(v, v, shuffle); target = v[a] combine v[b]; }`.
    /// Only `+ - *` (and `& ^` on `unsigned`): no trap, no undefined
    /// behaviour.
    ShortVector {
        elem: Ty,
        var: String,
        init: Vec<Expr>,
        op: BinOp,
        other: Vec<Expr>,
        shuffle: [u32; 4],
        lanes: [u32; 2],
        combine: BinOp,
        target: String,
    },
    /// A walk along the links of the node pool `lw_pool` (64 `struct
    /// lw_node`s of print.rs, whose two links point into the pool or are
    /// null), the pointer chase of per-lane tree and list traversals:
    /// `{ const struct lw_node *var = &lw_pool[(unsigned)(start) & 63u];
    /// for (int var_s = 0; var && var_s < steps; var_s++) { target =
    /// target + var->field; var = var->next[(key) < var->key]; } }`, the
    /// field of the target's type (`int`, `unsigned`: `key` with wrapping
    /// addition; `float`: `val`; `double`: `dval`).
    Walk {
        var: String,
        start: Expr,
        key: Expr,
        steps: u32,
        target: String,
        ty: Ty,
    },
    /// `{ body } label:;`
    GotoScope {
        label: String,
        body: Vec<Stmt>,
    },
    /// An `rv_*` guard around `body`, see [`RvGuard`].
    Rv {
        guard: RvGuard,
        cond: Expr,
        body: Vec<Stmt>,
    },
    /// A reduction update in an omp simd loop body.
    Reduce {
        var: String,
        op: RedOp,
        value: Expr,
    },
    /// `__atomic_fetch_<op>(&at_<op>[(unsigned)(index) & 15u], value,
    /// __ATOMIC_RELAXED);` (an unsigned `value`, the result unused).
    Atomic {
        op: AtomicOp,
        index: Expr,
        value: Expr,
    },
    /// `#pragma omp ordered simd` around `ord_u[k] = ord_u[k] * 33u +
    /// value;` with `k = ((unsigned)(index) ^ (unsigned)i) & 3u` (it varies
    /// with the iteration, so LLVM cannot keep the element in a register,
    /// and four lanes or more always share one): an update whose result
    /// depends on the order of the iterations, which the region keeps
    /// (omp simd kernel bodies only, at most one per loop, outside inner
    /// loops, in loops without `simdlen`, `safelen` or a scan; clang marks
    /// nothing parallel in such a loop).
    Ordered {
        index: Expr,
        value: Expr,
    },
    /// `__asm__ volatile("" : "+r"(var));` (`"+x"` for `float` and
    /// `double`): the benchmark idiom that hides a value from the optimizer;
    /// the value passes unchanged, through one asm statement per lane.
    HideValue {
        var: String,
        ty: Ty,
    },
}

/// The operation of an [`Stmt::Atomic`]. Each has its own array
/// (`at_add`, ...): one commutative operation per location, so the final
/// values do not depend on the order of the lanes, which an `omp simd`
/// loop leaves open (an `add` and a `min` of the same location would not
/// commute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    And,
    Or,
    Xor,
    Min,
    Max,
}

impl AtomicOp {
    pub const ALL: [AtomicOp; 6] =
        [AtomicOp::Add, AtomicOp::And, AtomicOp::Or, AtomicOp::Xor, AtomicOp::Min, AtomicOp::Max];

    /// `add`, ...: the suffix of the builtin and of the array.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Min => "min",
            AtomicOp::Max => "max",
        }
    }

    /// The initial byte of every element: all ones where the operation
    /// clears bits or keeps the smaller value.
    pub fn initial_byte(self) -> u8 {
        match self {
            AtomicOp::And | AtomicOp::Min => 0xff,
            _ => 0,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub value: i32,
    pub body: Vec<Stmt>,
    pub falls_through: bool,
}

/// How a declare-simd parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Varying(Ty),
    Uniform(Ty),
    /// An `int` with `linear(p:step)`.
    LinearInt {
        step: i32,
    },
    /// `const T *p` with `uniform(p)`: a table of [`TABLE_LEN`] elements.
    UniformTable(Ty),
    /// `const T *p` with `linear(p:step)`: reads `p[0]` .. `p[step]`.
    LinearIn {
        ty: Ty,
        step: i32,
    },
    /// `T *p` with `linear(p)`: stores `*p`, never reads it.
    LinearOut(Ty),
    /// `struct lw_rec p` passed by value (in memory: clang's `byval`),
    /// `uniform(p)` or varying: its members are variables of the function
    /// (`p.i`, `p.f`, ...), which it reads and assigns, so each call changes
    /// its own copy of the caller's record (a constant of [`RECORDS`]).
    Record {
        uniform: bool,
    },
}

impl ParamKind {
    pub fn value_ty(self) -> Option<Ty> {
        match self {
            ParamKind::Varying(ty) | ParamKind::Uniform(ty) => Some(ty),
            ParamKind::LinearInt { .. } => Some(Ty::Int),
            _ => None,
        }
    }
}

/// `static const struct lw_rec lw_recs[4]`: the records calls pass to
/// [`ParamKind::Record`] parameters.
pub const RECORDS: &str = "static const struct lw_rec lw_recs[4] = {
    {-7, 3000000000u, 1.5f, -2.25, -5000000000L, -300, 200},
    {12, 5u, -0.125f, 1e10, 77L, 32000, 0},
    {0, 0u, 0.0f, -0.0, 0L, 0, 255},
    {-2147483647, 4294967295u, 3e38f, 1e-300, 9000000000000000000L, -32768, 1},
};
";

/// Elements of the global tables `g_T` (a power of two).
pub const TABLE_LEN: u32 = 64;
/// Elements of the input arrays `in_T` (a power of two, above twice the
/// largest trip count plus the linear pointers' reach).
pub const INPUT_LEN: u32 = 1024;
/// The kernel loop's `INPUT_LEN - n + i`: loads of `in_*` at it read the
/// input arrays' last `n` elements, which end at a guard page (print.rs).
pub const KERNEL_INDEX_FROM_END: &str = "i_end";
/// The largest trip count of an omp simd loop (and the outputs' length).
pub const MAX_N: u32 = 400;

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    pub name: String,
    pub ty: Ty,
    pub init: Expr,
}

/// A private array, filled with `init + (T)k` for its k-th element: by a
/// loop, or, when `init` is a literal and the array has 8 or more elements
/// (not records), by an initializer list of the constants (which clang
/// copies from a constant global with `llvm.memcpy`).
///
/// With `record`, an array of `struct lw_rec` (one member per type, named
/// by the type's suffix: `.i`, `.u`, `.f`, ...), the stack of records a
/// per-lane traversal keeps (WPMVP'18 splits such structs so that members
/// only ever given uniform values stay scalar): the member of type `ty` is
/// filled with `init + k`, the others with constants of `k`. Statements and
/// loads name a member as the array `NAME.s` ([`record_member`]), printed
/// `NAME[index].s`.
#[derive(Clone, Debug, PartialEq)]
pub struct PrivateArray {
    pub name: String,
    pub ty: Ty,
    pub len: u32,
    pub init: Expr,
    pub record: bool,
}

/// The array name `NAME.s` of the member of type `ty` of the record array
/// `array`.
pub fn record_member(array: &str, ty: Ty) -> String {
    format!("{array}.{}", ty.suffix())
}

/// The variable an array name (`a3`, or a record member `r4.f`) belongs to.
pub fn array_variable(array: &str) -> &str {
    array.split_once('.').map_or(array, |(variable, _)| variable)
}

#[derive(Clone, Debug, PartialEq)]
pub struct SimdClauses {
    /// `Some(true)`: inbranch; `Some(false)`: notinbranch; `None`: both.
    pub inbranch: Option<bool>,
    pub simdlen: Option<u32>,
}

/// A `#pragma omp declare simd` function.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub ret: Ty,
    pub params: Vec<Param>,
    pub clauses: SimdClauses,
    /// `__attribute__((noinline))`: callers call the vector variants
    /// instead of holding the body inline.
    pub noinline: bool,
    /// `static`: LLVM's interprocedural passes may change an internal
    /// function (drop unused arguments, propagate constants) before
    /// Lanewise sees it, and its variants are local.
    pub is_static: bool,
    /// Marked `RV_LANES_INDEPENDENT` (`LW_LANES_INDEPENDENT` in the
    /// program), which every generated function is (its `rv_*` guards give
    /// each lane the result of its own condition): Lanewise may run a
    /// marked function with guards in its one-lane form.
    pub lanes_independent: bool,
    pub locals: Vec<Local>,
    pub arrays: Vec<PrivateArray>,
    /// A function that calls itself: see [`Recursion`].
    pub recursion: Option<Recursion>,
    pub body: Vec<Stmt>,
    /// Returned after the body (after every `goto` label).
    pub result: Expr,
}

/// A recursive function: its first parameter, `int depth` (uniform or
/// varying), bounds the recursion: after the locals, `if (depth <= 0 ||
/// depth > 2) return base;` (`base` holds no call of the function itself);
/// its body and result call it (outside loops) with `depth - 1`
/// ([`Arg::Depth`]). Lanewise runs such calls per lane (a variant that
/// called its own variant would walk the union of the lanes' recursion
/// trees in lock step).
#[derive(Clone, Debug, PartialEq)]
pub struct Recursion {
    pub depth: String,
    pub base: Expr,
}

impl Function {
    pub fn stores_through_pointer(&self) -> bool {
        self.params.iter().any(|param| matches!(param.kind, ParamKind::LinearOut(_)))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Reduction {
    pub name: String,
    pub op: RedOp,
}

/// The input phase of a `reduction(inscan, ...)` loop: the updates of
/// the reductions (each a `Reduce`, alone or under an `if`), printed
/// before `#pragma omp scan inclusive(...)` and the body, or after the
/// body and `#pragma omp scan exclusive(...)`. The body (the scan phase)
/// reads the running values and never updates them; neither phase holds
/// a `continue` (it would leave the phase's structured block).
#[derive(Clone, Debug, PartialEq)]
pub struct ScanPhase {
    pub inclusive: bool,
    pub updates: Vec<Stmt>,
}

/// A `lastprivate` variable, assigned first thing in every iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct LastPrivate {
    pub name: String,
    pub ty: Ty,
    pub value: Expr,
}

/// A function `kernelK(int n)` called by `main`, holding one
/// `#pragma omp simd` loop over `i` in `0..n`.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    /// How the loop walks `i` from 0 to `n - 1`.
    pub direction: LoopDirection,
    /// `main` passes `n - trip_offset` (at least 0).
    pub trip_offset: u32,
    pub simdlen: Option<u32>,
    /// With a [`ScanPhase`], every reduction is an `inscan` one.
    pub reductions: Vec<Reduction>,
    pub scan: Option<ScanPhase>,
    pub lastprivates: Vec<LastPrivate>,
    /// `linear(j:step)` variables (never in a scan kernel).
    pub linears: Vec<LinearVar>,
    /// `lastprivate(conditional: v)` variables (never in a scan kernel):
    /// zero before the loop, assigned only by [`Stmt::Assign`]s somewhere
    /// in the body (never read there: an iteration that reads before it
    /// assigns would read its private copy uninitialized), printed after
    /// the loop with the value of the sequentially last assignment.
    pub cond_lasts: Vec<(String, Ty)>,
    /// `safelen(k)` and a read of the loop's own output of an earlier
    /// iteration (see [`CarriedRead`]).
    pub carried: Option<CarriedRead>,
    /// The element type of `out_T`, which `OutStore` writes.
    pub out_ty: Ty,
    pub locals: Vec<Local>,
    pub arrays: Vec<PrivateArray>,
    pub body: Vec<Stmt>,
}

/// The order of an `omp simd` loop's iterations: `for (int i = 0; i < n;
/// i++)`, `for (int i = n - 1; i >= 0; i--)` or `for (int i = 0; i < n; i
/// += 2)` (the odd elements of `out_T` keep their zeros). `i` is linear with
/// step 1, -1 or 2: calls pass it to `linear` parameters scaled to the
/// callee's step, and no pointers into the arrays at `i` (their step per
/// iteration would not be the callee's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopDirection {
    Up,
    Down,
    UpByTwo,
}

impl LoopDirection {
    /// The step of `i` per iteration.
    pub fn step(self) -> i32 {
        match self {
            LoopDirection::Up => 1,
            LoopDirection::Down => -1,
            LoopDirection::UpByTwo => 2,
        }
    }
}

/// A loop-carried dependence that `safelen(safelen)` allows: first in the
/// body, `T name = i >= distance ? out_T[i - distance] : (T)0;`, `T` the
/// kernel's `out_ty`, with `distance > safelen`. Every write to `out_T` is
/// to element `i` (`OutStore`, linear output pointers), so the element
/// read was written, if at all, by iteration `i - distance`, which the
/// clause keeps out of every group of iterations that run side by side
/// (`simdlen`, if any, is at most `safelen`, as OpenMP requires).
#[derive(Clone, Debug, PartialEq)]
pub struct CarriedRead {
    pub name: String,
    pub safelen: u32,
    pub distance: u32,
}

/// A second entry into a [`Stmt::While`]: `if (cond) goto label;` before
/// the loop and `label:;` before the body's statement `at` (clamped to the
/// body): a cycle with two entries, irreducible control flow. The counter
/// increment at the top of the body is skipped once on that path, so the
/// loop still runs at most `bound + 1` partial iterations; the body's
/// statements declare nothing at its top level (every declaration is in
/// braces of its own), so the jump skips no initialization.
#[derive(Clone, Debug, PartialEq)]
pub struct Midway {
    pub cond: Expr,
    pub label: String,
    pub at: usize,
}

/// `int j = start;` before an omp simd loop with `linear(j:step)`: the
/// body reads `j` (`start + step * i` in iteration `i`, also as the base
/// of linear call arguments) and ends with `j += step;`, which runs on
/// every iteration (the kernel has no `continue`); `j` is printed after
/// the loop (`start + step * n`).
#[derive(Clone, Debug, PartialEq)]
pub struct LinearVar {
    pub name: String,
    pub start: i32,
    pub step: i32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub seed: u64,
    /// The base trip count (at most [`MAX_N`]).
    pub n: u32,
    /// The program also computes in `long`, `short` and `unsigned char`
    /// (see [`Ty`]), and has their tables and output arrays.
    pub mixed_widths: bool,
    pub functions: Vec<Function>,
    pub kernels: Vec<Kernel>,
}

impl Program {
    /// Declare-simd functions plus omp simd loops.
    pub fn kernel_count(&self) -> usize {
        self.functions.len() + self.kernels.len()
    }
}

/// Calls `visit` on every statement list of `stmts`, outermost first.
pub fn for_each_block_mut(stmts: &mut Vec<Stmt>, visit: &mut dyn FnMut(&mut Vec<Stmt>)) {
    visit(stmts);
    for stmt in stmts.iter_mut() {
        for block in stmt_blocks_mut(stmt) {
            for_each_block_mut(block, visit);
        }
    }
}

/// The statement lists directly inside a statement.
pub fn stmt_blocks_mut(stmt: &mut Stmt) -> Vec<&mut Vec<Stmt>> {
    match stmt {
        Stmt::If { then_body, else_body, .. } => vec![then_body, else_body],
        Stmt::Switch { cases, default, .. } => {
            let mut blocks: Vec<&mut Vec<Stmt>> =
                cases.iter_mut().map(|case| &mut case.body).collect();
            blocks.push(default);
            blocks
        }
        Stmt::While { body, .. }
        | Stmt::For { body, .. }
        | Stmt::GotoScope { body, .. }
        | Stmt::Rv { body, .. }
        | Stmt::CondInit { body, .. } => vec![body],
        _ => Vec::new(),
    }
}

pub fn stmt_blocks(stmt: &Stmt) -> Vec<&Vec<Stmt>> {
    match stmt {
        Stmt::If { then_body, else_body, .. } => vec![then_body, else_body],
        Stmt::Switch { cases, default, .. } => {
            let mut blocks: Vec<&Vec<Stmt>> = cases.iter().map(|case| &case.body).collect();
            blocks.push(default);
            blocks
        }
        Stmt::While { body, .. }
        | Stmt::For { body, .. }
        | Stmt::GotoScope { body, .. }
        | Stmt::Rv { body, .. }
        | Stmt::CondInit { body, .. } => vec![body],
        _ => Vec::new(),
    }
}

/// The expressions directly held by a statement (not those of nested
/// statements).
pub fn stmt_exprs_mut(stmt: &mut Stmt) -> Vec<&mut Expr> {
    match stmt {
        Stmt::Assign { value, .. }
        | Stmt::PointerStore { value, .. }
        | Stmt::OutStore { value }
        | Stmt::Reduce { value, .. }
        | Stmt::Return(value) => vec![value],
        Stmt::ArrayStore { index, value, .. }
        | Stmt::Atomic { index, value, .. }
        | Stmt::Ordered { index, value } => vec![index, value],
        Stmt::RecordCopy { to, from, .. } => vec![to, from],
        Stmt::CallStmt { call, .. } => vec![call],
        Stmt::While { cond, midway, .. } => {
            let mut exprs = vec![cond];
            exprs.extend(midway.as_mut().map(|midway| &mut midway.cond));
            exprs
        }
        Stmt::If { cond, .. } | Stmt::Rv { cond, .. } => vec![cond],
        Stmt::CondInit { cond, value, .. } => vec![cond, value],
        Stmt::ShortVector { init, other, .. } => init.iter_mut().chain(other.iter_mut()).collect(),
        Stmt::Walk { start, key, .. } => vec![start, key],
        Stmt::Switch { scrutinee, .. } => vec![scrutinee],
        Stmt::For { limit, .. } => vec![limit],
        Stmt::Break
        | Stmt::Continue
        | Stmt::Goto(_)
        | Stmt::GotoScope { .. }
        | Stmt::HideValue { .. } => Vec::new(),
    }
}

pub fn stmt_exprs(stmt: &Stmt) -> Vec<&Expr> {
    match stmt {
        Stmt::Assign { value, .. }
        | Stmt::PointerStore { value, .. }
        | Stmt::OutStore { value }
        | Stmt::Reduce { value, .. }
        | Stmt::Return(value) => vec![value],
        Stmt::ArrayStore { index, value, .. }
        | Stmt::Atomic { index, value, .. }
        | Stmt::Ordered { index, value } => vec![index, value],
        Stmt::RecordCopy { to, from, .. } => vec![to, from],
        Stmt::CallStmt { call, .. } => vec![call],
        Stmt::While { cond, midway, .. } => {
            let mut exprs = vec![cond];
            exprs.extend(midway.as_ref().map(|midway| &midway.cond));
            exprs
        }
        Stmt::If { cond, .. } | Stmt::Rv { cond, .. } => vec![cond],
        Stmt::CondInit { cond, value, .. } => vec![cond, value],
        Stmt::ShortVector { init, other, .. } => init.iter().chain(other.iter()).collect(),
        Stmt::Walk { start, key, .. } => vec![start, key],
        Stmt::Switch { scrutinee, .. } => vec![scrutinee],
        Stmt::For { limit, .. } => vec![limit],
        Stmt::Break
        | Stmt::Continue
        | Stmt::Goto(_)
        | Stmt::GotoScope { .. }
        | Stmt::HideValue { .. } => Vec::new(),
    }
}

/// The expressions and the statement lists directly inside a statement,
/// borrowed together.
pub fn stmt_parts_mut(stmt: &mut Stmt) -> (Vec<&mut Expr>, Vec<&mut Vec<Stmt>>) {
    match stmt {
        Stmt::If { cond, then_body, else_body } => (vec![cond], vec![then_body, else_body]),
        Stmt::Switch { scrutinee, cases, default, .. } => {
            let mut blocks: Vec<&mut Vec<Stmt>> =
                cases.iter_mut().map(|case| &mut case.body).collect();
            blocks.push(default);
            (vec![scrutinee], blocks)
        }
        Stmt::While { cond, body, midway, .. } => {
            let mut exprs = vec![cond];
            exprs.extend(midway.as_mut().map(|midway| &mut midway.cond));
            (exprs, vec![body])
        }
        Stmt::Rv { cond, body, .. } => (vec![cond], vec![body]),
        Stmt::CondInit { cond, value, body, .. } => (vec![cond, value], vec![body]),
        Stmt::For { limit, body, .. } => (vec![limit], vec![body]),
        Stmt::GotoScope { body, .. } => (Vec::new(), vec![body]),
        other => (stmt_exprs_mut(other), Vec::new()),
    }
}

/// Every expression root of a statement list (nested statements included).
pub fn expr_roots_mut<'a>(stmts: &'a mut [Stmt], out: &mut Vec<&'a mut Expr>) {
    for stmt in stmts {
        let (exprs, blocks) = stmt_parts_mut(stmt);
        out.extend(exprs);
        for block in blocks {
            expr_roots_mut(block, out);
        }
    }
}

/// Every expression root of a program, in a fixed order: per function its
/// locals, arrays, body and result; per kernel its lastprivate values,
/// locals, arrays, scan updates and body.
pub fn program_roots_mut(program: &mut Program) -> Vec<&mut Expr> {
    let mut out = Vec::new();
    for function in &mut program.functions {
        out.extend(function.locals.iter_mut().map(|local| &mut local.init));
        out.extend(function.arrays.iter_mut().map(|array| &mut array.init));
        out.extend(function.recursion.as_mut().map(|recursion| &mut recursion.base));
        expr_roots_mut(&mut function.body, &mut out);
        out.push(&mut function.result);
    }
    for kernel in &mut program.kernels {
        out.extend(kernel.lastprivates.iter_mut().map(|last| &mut last.value));
        out.extend(kernel.locals.iter_mut().map(|local| &mut local.init));
        out.extend(kernel.arrays.iter_mut().map(|array| &mut array.init));
        if let Some(scan) = &mut kernel.scan {
            expr_roots_mut(&mut scan.updates, &mut out);
        }
        expr_roots_mut(&mut kernel.body, &mut out);
    }
    out
}
