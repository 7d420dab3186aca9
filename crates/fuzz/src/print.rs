//! C text of a [`Program`]. The printer is where undefined behaviour is
//! excluded (see ast.rs): signed arithmetic in `unsigned`, masked
//! divisors, shift counts and indices, range-checked float-to-int
//! conversions, bounded loops.

use crate::ast::*;
use std::collections::BTreeSet;
use std::fmt::Write;

/// The program as one C file (C11, clang/GCC dialect).
pub fn print_program(program: &Program) -> String {
    let mut out = String::new();
    writeln!(out, "/* lanewise-fuzz program, seed {} (crates/fuzz). */", program.seed).unwrap();
    out.push_str(PRELUDE);
    out.push_str(&print_body(program));
    out
}

/// The part of the program after [`PRELUDE`]: `N`, the tables and their
/// helpers, the functions, the kernels and `main` (the part a batch of
/// programs holds once per program, see batch.rs).
pub(crate) fn print_body(program: &Program) -> String {
    let mut out = String::new();
    writeln!(out, "#define N {}", program.n).unwrap();
    out.push_str(&globals(program.seed));
    if program.mixed_widths {
        out.push_str(MIXED_WIDTH_GLOBALS);
    }
    if program_holds(program, &|stmt| matches!(stmt, Stmt::ShortVector { .. })) {
        out.push_str("typedef float lw_f4 __attribute__((vector_size(16)));\n");
        out.push_str("typedef unsigned lw_u4 __attribute__((vector_size(16)));\n");
    }
    if uses_cond_init(program) {
        // `if (k) u = v; ... if (k) t = u;` is never uninitialized, but
        // clang's analysis does not correlate the two conditions.
        out.push_str("#pragma clang diagnostic ignored \"-Wsometimes-uninitialized\"\n");
        out.push_str("#pragma clang diagnostic ignored \"-Wconditional-uninitialized\"\n");
    }
    let walks = program_holds(program, &|stmt| matches!(stmt, Stmt::Walk { .. }));
    if walks {
        out.push_str(NODE_POOL);
    }
    let arrays = program.functions.iter().flat_map(|function| &function.arrays);
    let record_params = program.functions.iter().any(|function| {
        function.params.iter().any(|param| matches!(param.kind, ParamKind::Record { .. }))
    });
    if record_params
        || arrays.chain(program.kernels.iter().flat_map(|kernel| &kernel.arrays)).any(|a| a.record)
    {
        out.push_str(RECORD_TYPE);
    }
    if record_params {
        out.push_str(RECORDS);
    }
    for function in &program.functions {
        out.push('\n');
        print_function(&mut out, function);
    }
    let atomics = uses_atomics(program);
    let ordered = program_holds(program, &|stmt| matches!(stmt, Stmt::Ordered { .. }));
    if ordered {
        out.push_str("static unsigned ord_u[4];\n");
    }
    for kernel in &program.kernels {
        out.push('\n');
        print_kernel(&mut out, kernel, atomics, ordered);
    }
    out.push_str("\nint main(void) {\n");
    let guarded = if program.mixed_widths {
        &["i", "u", "f", "d", "l", "s", "c"][..]
    } else {
        &["i", "u", "f", "d"]
    };
    for suffix in guarded {
        writeln!(
            out,
            "    lw_guard(in_{suffix}_pad, sizeof in_{suffix}_pad, in_{suffix}, sizeof in_{suffix}, in_{suffix}_trail);"
        )
        .unwrap();
    }
    out.push_str("    for (int k = 0; k < 64; k++) {\n");
    out.push_str("        g_i[k] = lw_int(); g_u[k] = lw_uint(); g_f[k] = lw_float(); g_d[k] = lw_double();\n");
    out.push_str("    }\n");
    out.push_str("    for (int k = 0; k < 1024; k++) {\n");
    out.push_str("        in_i[k] = lw_int(); in_u[k] = lw_uint(); in_f[k] = lw_float(); in_d[k] = lw_double();\n");
    out.push_str("    }\n");
    if walks {
        out.push_str(NODE_POOL_FILL);
    }
    if program.mixed_widths {
        out.push_str("    for (int k = 0; k < 64; k++) {\n");
        out.push_str("        g_l[k] = lw_long(); g_s[k] = (short)lw_int(); g_c[k] = (unsigned char)lw_uint();\n");
        out.push_str("    }\n");
        out.push_str("    for (int k = 0; k < 1024; k++) {\n");
        out.push_str("        in_l[k] = lw_long(); in_s[k] = (short)lw_int(); in_c[k] = (unsigned char)lw_uint();\n");
        out.push_str("    }\n");
    }
    for kernel in &program.kernels {
        writeln!(
            out,
            "    {}(N > {} ? N - {} : 0);",
            kernel.name, kernel.trip_offset, kernel.trip_offset
        )
        .unwrap();
    }
    out.push_str("    return 0;\n}\n");
    out
}

/// The includes and the helpers every program shares.
pub(crate) const PRELUDE: &str = r#"#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* Input arrays that end where a page mapped PROT_NONE begins, and start
 * after another one (the first page of `_pad`): a vector load that reads
 * one byte outside the pages of its active lanes' elements faults
 * (Lanewise's page-safe speculative loads may read inactive lanes' bytes
 * within those pages only). The guards are objects of their own, never
 * part of the array's: LLVM may widen a masked load into a plain one
 * where the whole vector lies within one object. The three objects are
 * laid out in one section in the order of their definitions, which
 * lw_guard checks before it protects anything. */
#define LW_GUARDED(type, name, len)                                                 \
    __attribute__((section(".lw_guarded"), aligned(4096), used)) static char        \
        name##_pad[4096 + (4096 - sizeof(type) * (len) % 4096) % 4096];             \
    __attribute__((section(".lw_guarded"))) static type name[len];                  \
    __attribute__((section(".lw_guarded"), aligned(4096), used)) static char        \
        name##_trail[4096]
static void lw_guard(char *pad, size_t pad_len, void *array, size_t len, char *trail) {
    uintptr_t p = (uintptr_t)pad, a = (uintptr_t)array, t = (uintptr_t)trail;
    __asm__ volatile("" : "+r"(p), "+r"(a), "+r"(t)); /* no folding of the tests */
    if (p + pad_len == a && a + len == t) {
        mprotect(pad, 4096, PROT_NONE);
        mprotect(trail, 4096, PROT_NONE);
    }
}

/* rv_any and rv_all of include/lanewise/rv.h (one-lane meaning in the
 * scalar build); used only as `if (rv_any(c)) if (c)`, `rv_all(c) || c`
 * and `rv_any(c) && c`, whose result per lane is that of `c`. */
#ifdef LANEWISE_RV_SCALAR
static inline bool rv_any(bool b) { return b; }
static inline bool rv_all(bool b) { return b; }
#elif defined(__cplusplus) /* a program compiled as C++ (`--cxx`) */
extern "C" bool rv_any(bool b);
extern "C" bool rv_all(bool b);
#else
extern bool rv_any(bool b);
extern bool rv_all(bool b);
#endif
/* RV_LANES_INDEPENDENT of the header: those guards keep every lane to its
 * own result, so a marked function may run in its one-lane form. */
#if defined(__clang__)
#define LW_LANES_INDEPENDENT __attribute__((annotate("lanewise.lanes-independent")))
#else
#define LW_LANES_INDEPENDENT
#endif

/* Division through helpers the optimizer sees as `memory(none)` but that
 * trap on a zero divisor (`Expr::GuardedDiv`): called only with a safe
 * divisor. */
__attribute__((noinline)) static int lw_sdiv(int a, int b) { return a / b; }
__attribute__((noinline)) static unsigned lw_udiv(unsigned a, unsigned b) { return a / b; }

/* The bit builtins with a defined result for zero (`MathFn::Clz`, ...). */
static inline unsigned lw_clz(unsigned x) { return x ? (unsigned)__builtin_clz(x) : 32u; }
static inline unsigned lw_ctz(unsigned x) { return x ? (unsigned)__builtin_ctz(x) : 32u; }
static inline unsigned lw_rotl(unsigned a, unsigned b) { return (a << (b & 31u)) | (a >> (-b & 31u)); }

static inline int lw_f2i(float x) { return fabsf(x) < 2.0e9f ? (int)x : 0; }
static inline unsigned lw_f2u(float x) { return x >= 0.0f && x < 4.0e9f ? (unsigned)x : 0u; }
static inline int lw_d2i(double x) { return fabs(x) < 2.0e9 ? (int)x : 0; }
static inline unsigned lw_d2u(double x) { return x >= 0.0 && x < 4.0e9 ? (unsigned)x : 0u; }

static void lw_print_i(const char *what, int k, int v) { printf("%s %d %d\n", what, k, v); }
static void lw_print_u(const char *what, int k, unsigned v) { printf("%s %d %u\n", what, k, v); }
/* Floats as bit patterns; NaN payloads are unspecified in C, so "nan". */
static void lw_print_f(const char *what, int k, float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (v != v) printf("%s %d nan\n", what, k);
    else printf("%s %d %08x\n", what, k, bits);
}
static void lw_print_d(const char *what, int k, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (v != v) printf("%s %d nan\n", what, k);
    else printf("%s %d %016llx\n", what, k, (unsigned long long)bits);
}
"#;

fn globals(seed: u64) -> String {
    let state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    format!(
        r#"
static int g_i[64];
static unsigned g_u[64];
static float g_f[64];
static double g_d[64];
LW_GUARDED(int, in_i, 1024);
LW_GUARDED(unsigned, in_u, 1024);
LW_GUARDED(float, in_f, 1024);
LW_GUARDED(double, in_d, 1024);
static int out_i[{max}];
static unsigned out_u[{max}];
static float out_f[{max}];
static double out_d[{max}];
static unsigned at_add[16], at_and[16], at_or[16], at_xor[16], at_min[16], at_max[16];

static uint64_t lw_state = 0x{state:016x}ull;
static uint32_t lw_next(void) {{
    lw_state ^= lw_state << 13;
    lw_state ^= lw_state >> 7;
    lw_state ^= lw_state << 17;
    return (uint32_t)(lw_state >> 32);
}}
static int lw_int(void) {{
    uint32_t r = lw_next();
    return (r & 3u) == 0 ? (int)r : (int)(r % 64u) - 32;
}}
static unsigned lw_uint(void) {{
    uint32_t r = lw_next();
    return (r & 3u) == 0 ? r : r % 100u;
}}
static float lw_float(void) {{ return (float)((int)(lw_next() % 4001u) - 2000) * 0.0625f; }}
static double lw_double(void) {{ return (double)((int)(lw_next() % 40001u) - 20000) * 0.03125; }}
"#,
        max = MAX_N
    )
}

/// The tables, outputs and helpers of `long`, `short` and `unsigned char`
/// (after [`globals`], in programs with mixed widths only).
/// Whether a body of `program` holds a [`Stmt::CondInit`].
fn uses_cond_init(program: &Program) -> bool {
    program_holds(program, &|stmt| matches!(stmt, Stmt::CondInit { .. }))
}

/// Whether a body of `program` holds a statement `wanted` accepts.
fn program_holds(program: &Program, wanted: &dyn Fn(&Stmt) -> bool) -> bool {
    fn holds(stmts: &[Stmt], wanted: &dyn Fn(&Stmt) -> bool) -> bool {
        stmts.iter().any(|stmt| {
            wanted(stmt) || stmt_blocks(stmt).into_iter().any(|block| holds(block, wanted))
        })
    }
    program.functions.iter().any(|function| holds(&function.body, wanted))
        || program.kernels.iter().any(|kernel| {
            holds(&kernel.body, wanted)
                || kernel.scan.as_ref().is_some_and(|scan| holds(&scan.updates, wanted))
        })
}

/// The C type of a [`Stmt::ShortVector`] of `elem` lanes.
fn short_vector_type(elem: Ty) -> &'static str {
    if elem == Ty::Float {
        "lw_f4"
    } else {
        "lw_u4"
    }
}

/// The nodes [`Stmt::Walk`] statements walk: a pool of 64 with two links
/// each, filled by [`NODE_POOL_FILL`] (one link in eight null).
const NODE_POOL: &str =
    "struct lw_node { int key; float val; double dval; struct lw_node *next[2]; };
static struct lw_node lw_pool[64];
";

const NODE_POOL_FILL: &str = "    for (int k = 0; k < 64; k++) {
        lw_pool[k].key = lw_int(); lw_pool[k].val = lw_float(); lw_pool[k].dval = lw_double();
        for (int b = 0; b < 2; b++) {
            uint32_t r = lw_next();
            lw_pool[k].next[b] = (r & 7u) == 0 ? 0 : &lw_pool[(r >> 3) & 63u];
        }
    }
";

/// The element type of record arrays ([`PrivateArray::record`]): one
/// member per [`Ty`], named by its suffix.
const RECORD_TYPE: &str =
    "struct lw_rec { int i; unsigned u; float f; double d; long l; short s; unsigned char c; };\n";

const MIXED_WIDTH_GLOBALS: &str = r#"
static long g_l[64];
static short g_s[64];
static unsigned char g_c[64];
LW_GUARDED(long, in_l, 1024);
LW_GUARDED(short, in_s, 1024);
LW_GUARDED(unsigned char, in_c, 1024);
static long out_l[400];
static short out_s[400];
static unsigned char out_c[400];
static long lw_long(void) {
    uint32_t r = lw_next();
    return (r & 3u) == 0 ? (long)(((uint64_t)r << 32) | lw_next()) : (long)(r % 64u) - 32;
}
static inline long lw_f2l(float x) { return fabsf(x) < 9.0e18f ? (long)x : 0; }
static inline long lw_d2l(double x) { return fabs(x) < 9.0e18 ? (long)x : 0; }
static inline short lw_f2s(float x) { return fabsf(x) < 32767.0f ? (short)x : 0; }
static inline short lw_d2s(double x) { return fabs(x) < 32767.0 ? (short)x : 0; }
static inline unsigned char lw_f2c(float x) { return x >= 0.0f && x < 255.0f ? (unsigned char)x : 0; }
static inline unsigned char lw_d2c(double x) { return x >= 0.0 && x < 255.0 ? (unsigned char)x : 0; }
static void lw_print_l(const char *what, int k, long v) { printf("%s %d %ld\n", what, k, v); }
static void lw_print_s(const char *what, int k, short v) { printf("%s %d %d\n", what, k, v); }
static void lw_print_c(const char *what, int k, unsigned char v) { printf("%s %d %u\n", what, k, v); }
"#;

fn print_function(out: &mut String, function: &Function) {
    let mut pragma = String::from("#pragma omp declare simd");
    match function.clauses.inbranch {
        Some(true) => pragma.push_str(" inbranch"),
        Some(false) => pragma.push_str(" notinbranch"),
        None => {}
    }
    if let Some(simdlen) = function.clauses.simdlen {
        write!(pragma, " simdlen({simdlen})").unwrap();
    }
    for param in &function.params {
        match param.kind {
            ParamKind::Uniform(_)
            | ParamKind::UniformTable(_)
            | ParamKind::Record { uniform: true } => {
                write!(pragma, " uniform({})", param.name).unwrap()
            }
            ParamKind::LinearInt { step } | ParamKind::LinearIn { step, .. } => {
                write!(pragma, " linear({}:{step})", param.name).unwrap()
            }
            ParamKind::LinearOut(_) => write!(pragma, " linear({})", param.name).unwrap(),
            ParamKind::Varying(_) | ParamKind::Record { uniform: false } => {}
        }
    }
    out.push_str(&pragma);
    out.push('\n');
    if function.noinline {
        out.push_str("__attribute__((noinline)) ");
    }
    if function.lanes_independent {
        out.push_str("LW_LANES_INDEPENDENT ");
    }
    if function.is_static {
        out.push_str("static ");
    }
    let params: Vec<String> = function
        .params
        .iter()
        .map(|param| match param.kind {
            ParamKind::Varying(ty) | ParamKind::Uniform(ty) => {
                format!("{} {}", ty.c_name(), param.name)
            }
            ParamKind::LinearInt { .. } => format!("int {}", param.name),
            ParamKind::UniformTable(ty) | ParamKind::LinearIn { ty, .. } => {
                format!("const {} *{}", ty.c_name(), param.name)
            }
            ParamKind::LinearOut(ty) => format!("{} *{}", ty.c_name(), param.name),
            ParamKind::Record { .. } => format!("struct lw_rec {}", param.name),
        })
        .collect();
    let params = if params.is_empty() { "void".to_owned() } else { params.join(", ") };
    writeln!(out, "{} {}({}) {{", function.ret.c_name(), function.name, params).unwrap();
    print_locals(out, 1, &function.locals, &function.arrays);
    if let Some(Recursion { depth, base }) = &function.recursion {
        writeln!(out, "    if ({depth} <= 0 || {depth} > 2) return {};", expr(base)).unwrap();
    }
    print_block(out, 1, &function.body);
    writeln!(out, "    return {};", expr(&function.result)).unwrap();
    out.push_str("}\n");
}

fn print_locals(out: &mut String, level: usize, locals: &[Local], arrays: &[PrivateArray]) {
    let pad = "    ".repeat(level);
    for local in locals {
        writeln!(out, "{pad}{} {} = {};", local.ty.c_name(), local.name, expr(&local.init))
            .unwrap();
    }
    for array in arrays {
        let element = match array.ty {
            Ty::Int => format!("(int)((unsigned)({}) + (unsigned)z)", expr(&array.init)),
            Ty::Long => {
                format!("(long)((unsigned long)({}) + (unsigned long)z)", expr(&array.init))
            }
            ty if ty.is_promoted() => format!("({})(({}) + z)", ty.c_name(), expr(&array.init)),
            ty => format!("{} + ({})z", expr(&array.init), ty.c_name()),
        };
        if array.record {
            let members: Vec<String> = Ty::MIXED
                .iter()
                .map(|&ty| {
                    let value = if ty == array.ty { element.clone() } else { record_filler(ty) };
                    format!("{}[z].{} = {value};", array.name, ty.suffix())
                })
                .collect();
            writeln!(
                out,
                "{pad}struct lw_rec {}[{}];\n{pad}for (int z = 0; z < {}; z++) {{ {} }}",
                array.name,
                array.len,
                array.len,
                members.join(" ")
            )
            .unwrap();
            continue;
        }
        if let (Expr::Lit(init), true) = (&array.init, array.len >= 8) {
            let elements: Vec<String> = (0..array.len).map(|k| literal(init.plus(k))).collect();
            let (ty, name, len) = (array.ty.c_name(), &array.name, array.len);
            writeln!(out, "{pad}{ty} {name}[{len}] = {{{}}};", elements.join(", ")).unwrap();
            continue;
        }
        writeln!(
            out,
            "{pad}{} {}[{}];\n{pad}for (int z = 0; z < {}; z++) {}[z] = {element};",
            array.ty.c_name(),
            array.name,
            array.len,
            array.len,
            array.name
        )
        .unwrap();
    }
}

/// The value of the `ty` member of record `z` when the array's `init`
/// fills another member.
fn record_filler(ty: Ty) -> String {
    match ty {
        Ty::Int => "z * 3 - 5".to_owned(),
        Ty::UInt => "(unsigned)z * 2654435761u".to_owned(),
        Ty::Float => "(float)z * 0.25f - 1.5f".to_owned(),
        Ty::Double => "(double)z * -1.25 + 0.5".to_owned(),
        Ty::Long => "(long)z * 1000003l - 7l".to_owned(),
        Ty::Short => "(short)(z * 5 - 9)".to_owned(),
        Ty::UChar => "(unsigned char)(z * 37 + 1)".to_owned(),
    }
}

/// `base[(unsigned)(index) & (len - 1)]`, or for a record member `r.s`,
/// `r[...].s`.
fn element(base: &str, index: &str, len: u32) -> String {
    let (array, member) = array_and_member(base);
    format!("{array}[(unsigned)({index}) & {}u]{member}", len - 1)
}

/// `r4.f` as (`r4`, `.f`); a plain array name with no member.
fn array_and_member(base: &str) -> (&str, String) {
    match base.split_once('.') {
        Some((array, member)) => (array, format!(".{member}")),
        None => (base, String::new()),
    }
}

/// `(&array[(unsigned)(index) & (len/2 - 1)])[offset]` (see
/// [`Expr::Load`]), for `offset` in 1 .. len/2: within the array.
fn element_after(base: &str, index: &str, len: u32, offset: u32) -> String {
    let (array, member) = array_and_member(base);
    format!("(&{array}[(unsigned)({index}) & {}u])[{offset}]{member}", len / 2 - 1)
}

fn reduction_init(op: RedOp) -> &'static str {
    match op {
        RedOp::AddU | RedOp::XorU => "0u",
        RedOp::MinI => "2147483647",
        RedOp::MaxI => "(-2147483647 - 1)",
        RedOp::MinF => "3.0e38f",
        RedOp::MaxF => "-3.0e38f",
        RedOp::AndL => "1",
        RedOp::OrL => "0",
    }
}

fn reduction_clause(op: RedOp) -> &'static str {
    match op {
        RedOp::AddU => "+",
        RedOp::XorU => "^",
        RedOp::MinI | RedOp::MinF => "min",
        RedOp::MaxI | RedOp::MaxF => "max",
        RedOp::AndL => "&&",
        RedOp::OrL => "||",
    }
}

/// The output arrays a kernel writes (by `OutStore` or a linear pointer).
fn written_outputs(kernel: &Kernel) -> BTreeSet<&'static str> {
    fn visit(stmts: &[Stmt], found: &mut BTreeSet<&'static str>) {
        for stmt in stmts {
            if let Stmt::OutStore { value } = stmt {
                found.insert(value.ty().suffix());
            }
            for expr in stmt_exprs(stmt) {
                visit_expr(expr, found);
            }
            for block in stmt_blocks(stmt) {
                visit(block, found);
            }
        }
    }
    fn visit_expr(expr: &Expr, found: &mut BTreeSet<&'static str>) {
        if let Expr::Call { args, .. } = expr {
            for arg in args {
                if let Arg::Pointer(PointerArg::Element { array, .. }) = arg {
                    for ty in Ty::MIXED {
                        if *array == format!("out_{}", ty.suffix()) {
                            found.insert(ty.suffix());
                        }
                    }
                }
            }
        }
        for child in expr.children() {
            visit_expr(child, found);
        }
    }
    let mut found = BTreeSet::new();
    visit(&kernel.body, &mut found);
    if let Some(scan) = &kernel.scan {
        visit(&scan.updates, &mut found);
    }
    for local in &kernel.locals {
        visit_expr(&local.init, &mut found);
    }
    found
}

/// Whether any function or kernel of `program` holds an [`Stmt::Atomic`]:
/// then every kernel resets the `at_*` arrays first and prints them last.
fn uses_atomics(program: &Program) -> bool {
    program_holds(program, &|stmt| matches!(stmt, Stmt::Atomic { .. }))
}

/// `ordered`: the program holds [`Stmt::Ordered`]; every kernel then
/// resets `ord_u` first and prints it last.
fn print_kernel(out: &mut String, kernel: &Kernel, atomics: bool, ordered: bool) {
    writeln!(out, "static void {}(int n) {{", kernel.name).unwrap();
    for reduction in &kernel.reductions {
        let ty = reduction.op.ty();
        writeln!(out, "    {} {} = {};", ty.c_name(), reduction.name, reduction_init(reduction.op))
            .unwrap();
    }
    for last in &kernel.lastprivates {
        writeln!(
            out,
            "    {} {} = {};",
            last.ty.c_name(),
            last.name,
            expr(&Expr::Lit(Lit::zero(last.ty)))
        )
        .unwrap();
    }
    for linear in &kernel.linears {
        writeln!(out, "    int {} = {};", linear.name, literal(Lit::Int(linear.start))).unwrap();
    }
    for (name, ty) in &kernel.cond_lasts {
        writeln!(out, "    {} {name} = {};", ty.c_name(), expr(&Expr::Lit(Lit::zero(*ty))))
            .unwrap();
    }
    let outputs = written_outputs(kernel);
    for suffix in &outputs {
        writeln!(out, "    memset(out_{suffix}, 0, sizeof out_{suffix});").unwrap();
    }
    if atomics {
        for op in AtomicOp::ALL {
            let (name, byte) = (op.name(), op.initial_byte());
            writeln!(out, "    memset(at_{name}, {byte:#x}, sizeof at_{name});").unwrap();
        }
    }
    if ordered {
        writeln!(out, "    memset(ord_u, 0, sizeof ord_u);").unwrap();
    }
    let mut pragma = String::from("#pragma omp simd");
    let modifier = if kernel.scan.is_some() { "inscan, " } else { "" };
    for reduction in &kernel.reductions {
        write!(
            pragma,
            " reduction({modifier}{}:{})",
            reduction_clause(reduction.op),
            reduction.name
        )
        .unwrap();
    }
    if !kernel.lastprivates.is_empty() {
        let names: Vec<&str> = kernel.lastprivates.iter().map(|last| last.name.as_str()).collect();
        write!(pragma, " lastprivate({})", names.join(", ")).unwrap();
    }
    for linear in &kernel.linears {
        write!(pragma, " linear({}:{})", linear.name, linear.step).unwrap();
    }
    if !kernel.cond_lasts.is_empty() {
        let names: Vec<&str> = kernel.cond_lasts.iter().map(|(name, _)| name.as_str()).collect();
        write!(pragma, " lastprivate(conditional: {})", names.join(", ")).unwrap();
    }
    if let Some(simdlen) = kernel.simdlen {
        write!(pragma, " simdlen({simdlen})").unwrap();
    }
    if let Some(carried) = &kernel.carried {
        write!(pragma, " safelen({})", carried.safelen).unwrap();
    }
    writeln!(out, "{pragma}").unwrap();
    out.push_str(match kernel.direction {
        LoopDirection::Up => "    for (int i = 0; i < n; i++) {\n",
        LoopDirection::Down => "    for (int i = n - 1; i >= 0; i--) {\n",
        LoopDirection::UpByTwo => "    for (int i = 0; i < n; i += 2) {\n",
    });
    // The last n elements of the input arrays end at their guard page
    // (not in scan loops, see `gen::Scope::index_from_end`).
    if kernel.scan.is_none() {
        writeln!(out, "        int {KERNEL_INDEX_FROM_END} = {INPUT_LEN} - n + i;").unwrap();
        writeln!(out, "        (void){KERNEL_INDEX_FROM_END};").unwrap();
    }
    for last in &kernel.lastprivates {
        writeln!(out, "        {} = {};", last.name, expr(&last.value)).unwrap();
    }
    if let Some(carried) = &kernel.carried {
        let (ty, distance) = (kernel.out_ty, carried.distance);
        writeln!(
            out,
            "        {} {} = i >= {distance} ? out_{}[i - {distance}] : ({})0;",
            ty.c_name(),
            carried.name,
            ty.suffix(),
            ty.c_name()
        )
        .unwrap();
    }
    let scanned: Vec<&str> =
        kernel.reductions.iter().map(|reduction| reduction.name.as_str()).collect();
    let scan_directive = |kind: &str| format!("#pragma omp scan {kind}({})\n", scanned.join(", "));
    match &kernel.scan {
        None => {
            print_locals(out, 2, &kernel.locals, &kernel.arrays);
            print_block(out, 2, &kernel.body);
            for linear in &kernel.linears {
                writeln!(out, "        {} += {};", linear.name, literal(Lit::Int(linear.step)))
                    .unwrap();
            }
        }
        Some(scan) if scan.inclusive => {
            print_block(out, 2, &scan.updates);
            if !scanned.is_empty() {
                out.push_str(&scan_directive("inclusive"));
            }
            print_locals(out, 2, &kernel.locals, &kernel.arrays);
            print_block(out, 2, &kernel.body);
        }
        Some(scan) => {
            print_locals(out, 2, &kernel.locals, &kernel.arrays);
            print_block(out, 2, &kernel.body);
            if !scanned.is_empty() {
                out.push_str(&scan_directive("exclusive"));
            }
            print_block(out, 2, &scan.updates);
        }
    }
    out.push_str("    }\n");
    for suffix in &outputs {
        writeln!(
            out,
            "    for (int i = 0; i < n; i++) lw_print_{suffix}(\"{} out_{suffix}\", i, out_{suffix}[i]);",
            kernel.name
        )
        .unwrap();
    }
    if atomics {
        for op in AtomicOp::ALL {
            let name = op.name();
            writeln!(
                out,
                "    for (int k = 0; k < 16; k++) lw_print_u(\"{} at_{name}\", k, at_{name}[k]);",
                kernel.name
            )
            .unwrap();
        }
    }
    if ordered {
        writeln!(
            out,
            "    for (int k = 0; k < 4; k++) lw_print_u(\"{} ord_u\", k, ord_u[k]);",
            kernel.name
        )
        .unwrap();
    }
    for reduction in &kernel.reductions {
        let (printer, fold) = match reduction.op {
            RedOp::AddU | RedOp::XorU => ("u", ""),
            RedOp::MinI | RedOp::MaxI | RedOp::AndL | RedOp::OrL => ("i", ""),
            // -0 and +0 compare equal: which one a min/max keeps depends on
            // the order of the lanes.
            RedOp::MinF | RedOp::MaxF => ("f", " + 0.0f"),
        };
        writeln!(
            out,
            "    lw_print_{printer}(\"{} {}\", 0, {}{fold});",
            kernel.name, reduction.name, reduction.name
        )
        .unwrap();
    }
    for linear in &kernel.linears {
        writeln!(out, "    lw_print_i(\"{} {}\", n, {});", kernel.name, linear.name, linear.name)
            .unwrap();
    }
    for (name, ty) in &kernel.cond_lasts {
        writeln!(out, "    lw_print_{}(\"{} {name}\", n, {name});", ty.suffix(), kernel.name)
            .unwrap();
    }
    for last in &kernel.lastprivates {
        writeln!(
            out,
            "    lw_print_{}(\"{} {}\", n, {});",
            last.ty.suffix(),
            kernel.name,
            last.name,
            last.name
        )
        .unwrap();
    }
    out.push_str("}\n");
}

fn print_block(out: &mut String, level: usize, stmts: &[Stmt]) {
    for stmt in stmts {
        print_stmt(out, level, stmt);
    }
}

fn print_braced(out: &mut String, level: usize, stmts: &[Stmt]) {
    out.push_str("{\n");
    print_block(out, level + 1, stmts);
    out.push_str(&"    ".repeat(level));
    out.push('}');
}

fn print_stmt(out: &mut String, level: usize, stmt: &Stmt) {
    let pad = "    ".repeat(level);
    match stmt {
        Stmt::Assign { name, value } => writeln!(out, "{pad}{name} = {};", expr(value)).unwrap(),
        Stmt::ArrayStore { array, len, index, value } => {
            writeln!(out, "{pad}{} = {};", element(array, &expr(index), *len), expr(value)).unwrap()
        }
        Stmt::RecordCopy { array, len, to, from } => {
            let (to, from) = (element(array, &expr(to), *len), element(array, &expr(from), *len));
            writeln!(out, "{pad}{to} = {from};").unwrap()
        }
        Stmt::PointerStore { pointer, value } => {
            writeln!(out, "{pad}*{pointer} = {};", expr(value)).unwrap()
        }
        Stmt::OutStore { value } => {
            writeln!(out, "{pad}out_{}[i] = {};", value.ty().suffix(), expr(value)).unwrap()
        }
        Stmt::CallStmt { target: Some(target), call } => {
            writeln!(out, "{pad}{target} = {};", expr(call)).unwrap()
        }
        Stmt::CallStmt { target: None, call } => {
            writeln!(out, "{pad}(void){};", expr(call)).unwrap()
        }
        Stmt::If { cond, then_body, else_body } => {
            write!(out, "{pad}if ({}) ", condition(cond)).unwrap();
            print_braced(out, level, then_body);
            if !else_body.is_empty() {
                out.push_str(" else ");
                print_braced(out, level, else_body);
            }
            out.push('\n');
        }
        Stmt::Switch { scrutinee, masked, cases, default } => {
            if *masked {
                writeln!(out, "{pad}switch ((unsigned)({}) & 7u) {{", expr(scrutinee)).unwrap();
            } else {
                writeln!(out, "{pad}switch ({}) {{", expr(scrutinee)).unwrap();
            }
            for case in cases {
                match (*masked, case.value) {
                    (true, value) => write!(out, "{pad}case {value}u: ").unwrap(),
                    (false, i32::MIN) => write!(out, "{pad}case (-2147483647 - 1): ").unwrap(),
                    (false, value) => write!(out, "{pad}case {value}: ").unwrap(),
                }
                print_braced(out, level, &case.body);
                if case.falls_through {
                    out.push_str(" /* falls through */\n");
                } else {
                    out.push_str(" break;\n");
                }
            }
            write!(out, "{pad}default: ").unwrap();
            print_braced(out, level, default);
            out.push_str(" break;\n");
            writeln!(out, "{pad}}}").unwrap();
        }
        Stmt::While { counter, bound, cond, body, midway } => {
            writeln!(out, "{pad}{{").unwrap();
            writeln!(out, "{pad}    int {counter} = 0;").unwrap();
            if let Some(midway) = midway {
                writeln!(out, "{pad}    if ({}) goto {};", condition(&midway.cond), midway.label)
                    .unwrap();
            }
            write!(out, "{pad}    while ({counter} < {bound} && ({})) ", expr(cond)).unwrap();
            out.push_str("{\n");
            writeln!(out, "{pad}        {counter}++;").unwrap();
            match midway {
                Some(midway) => {
                    let at = midway.at.min(body.len());
                    print_block(out, level + 2, &body[..at]);
                    writeln!(out, "{pad}    {}:;", midway.label).unwrap();
                    print_block(out, level + 2, &body[at..]);
                }
                None => print_block(out, level + 2, body),
            }
            writeln!(out, "{pad}    }}").unwrap();
            writeln!(out, "{pad}}}").unwrap();
        }
        Stmt::For { var, limit, mask, body } => {
            write!(
                out,
                "{pad}for (int {var} = 0; {var} < (int)((unsigned)({}) & {mask}u); {var}++) ",
                expr(limit)
            )
            .unwrap();
            print_braced(out, level, body);
            out.push('\n');
        }
        Stmt::Break => writeln!(out, "{pad}break;").unwrap(),
        Stmt::Continue => writeln!(out, "{pad}continue;").unwrap(),
        Stmt::Return(value) => writeln!(out, "{pad}return {};", expr(value)).unwrap(),
        Stmt::Goto(label) => writeln!(out, "{pad}goto {label};").unwrap(),
        Stmt::GotoScope { label, body } => {
            write!(out, "{pad}").unwrap();
            print_braced(out, level, body);
            out.push('\n');
            if has_goto(body, label) {
                writeln!(out, "{pad}{label}:;").unwrap();
            }
        }
        Stmt::ShortVector { elem, var, init, op, other, shuffle, lanes, combine, target } => {
            let vector = short_vector_type(*elem);
            let list = |exprs: &[Expr]| exprs.iter().map(expr).collect::<Vec<_>>().join(", ");
            writeln!(out, "{pad}{{").unwrap();
            writeln!(out, "{pad}    {vector} {var} = {{{}}};", list(init)).unwrap();
            writeln!(out, "{pad}    {var} = {var} {} ({vector}){{{}}};", op.symbol(), list(other))
                .unwrap();
            let [s0, s1, s2, s3] = shuffle;
            writeln!(
                out,
                "{pad}    {var} = __builtin_shufflevector({var}, {var}, {s0}, {s1}, {s2}, {s3});"
            )
            .unwrap();
            writeln!(
                out,
                "{pad}    {target} = {var}[{}] {} {var}[{}];",
                lanes[0],
                combine.symbol(),
                lanes[1]
            )
            .unwrap();
            writeln!(out, "{pad}}}").unwrap();
        }
        Stmt::Walk { var, start, key, steps, target, ty } => {
            let update = match ty {
                Ty::Int => format!("(int)((unsigned)({target}) + (unsigned){var}->key)"),
                Ty::UInt => format!("{target} + (unsigned){var}->key"),
                Ty::Float => format!("{target} + {var}->val"),
                Ty::Double => format!("{target} + {var}->dval"),
                _ => unreachable!("a walk's target is int, unsigned, float or double"),
            };
            writeln!(out, "{pad}{{").unwrap();
            writeln!(
                out,
                "{pad}    const struct lw_node *{var} = &lw_pool[(unsigned)({}) & 63u];",
                expr(start)
            )
            .unwrap();
            writeln!(
                out,
                "{pad}    for (int {var}_s = 0; {var} && {var}_s < {steps}; {var}_s++) {{"
            )
            .unwrap();
            writeln!(out, "{pad}        {target} = {update};").unwrap();
            writeln!(out, "{pad}        {var} = {var}->next[({}) < {var}->key];", expr(key))
                .unwrap();
            writeln!(out, "{pad}    }}").unwrap();
            writeln!(out, "{pad}}}").unwrap();
        }
        Stmt::CondInit { flag, var, ty, cond, value, body, target } => {
            writeln!(out, "{pad}{{").unwrap();
            writeln!(out, "{pad}    int {flag} = {};", expr(cond)).unwrap();
            writeln!(out, "{pad}    {} {var};", ty.c_name()).unwrap();
            writeln!(out, "{pad}    if ({flag}) {var} = {};", expr(value)).unwrap();
            print_block(out, level + 1, body);
            writeln!(out, "{pad}    if ({flag}) {target} = {var};").unwrap();
            writeln!(out, "{pad}}}").unwrap();
        }
        Stmt::Rv { guard, cond, body } => {
            // The condition is evaluated once, into `lw_c`: written twice,
            // a call in it (which bumps atomic counters) would run again in
            // the lanes `&&`/`||` short-circuit serially but whose guard
            // another lane decided in the vector code (seed 12033).
            writeln!(out, "{pad}{{").unwrap();
            writeln!(out, "{pad}    int lw_c = {};", expr(cond)).unwrap();
            let inner = "    ".repeat(level + 1);
            match guard {
                RvGuard::AnyThenIf => {
                    writeln!(out, "{inner}if (rv_any(lw_c)) {{").unwrap();
                    write!(out, "{inner}    if (lw_c) ").unwrap();
                    print_braced(out, level + 2, body);
                    writeln!(out, "\n{inner}}}").unwrap();
                }
                RvGuard::AllOr => {
                    write!(out, "{inner}if (rv_all(lw_c) || lw_c) ").unwrap();
                    print_braced(out, level + 1, body);
                    out.push('\n');
                }
                RvGuard::AnyAnd => {
                    write!(out, "{inner}if (rv_any(lw_c) && lw_c) ").unwrap();
                    print_braced(out, level + 1, body);
                    out.push('\n');
                }
            }
            writeln!(out, "{pad}}}").unwrap();
        }
        Stmt::HideValue { var, ty } => {
            let constraint = if ty.is_float() { "+x" } else { "+r" };
            writeln!(out, "{pad}__asm__ volatile(\"\" : \"{constraint}\"({var}));").unwrap();
        }
        Stmt::Ordered { index, value } => {
            writeln!(out, "{pad}#pragma omp ordered simd").unwrap();
            writeln!(
                out,
                "{pad}{{ unsigned lw_k = ((unsigned)({}) ^ (unsigned)i) & 3u; ord_u[lw_k] = ord_u[lw_k] * 33u + {}; }}",
                expr(index),
                expr(value)
            )
            .unwrap();
        }
        Stmt::Atomic { op, index, value } => {
            let name = op.name();
            writeln!(
                out,
                "{pad}__atomic_fetch_{name}(&at_{name}[(unsigned)({}) & 15u], {}, __ATOMIC_RELAXED);",
                expr(index),
                expr(value)
            )
            .unwrap();
        }
        Stmt::Reduce { var, op, value } => {
            // A min/max update names its value twice. OpenMP gives each
            // lane (or chunk) a private copy of `var` starting at the
            // identity, so how often the second evaluation runs is not the
            // serial count: a value that calls a function (which may update
            // an atomic counter) is evaluated once, into a temporary.
            let calls_a_function = {
                let mut called = std::collections::BTreeSet::new();
                crate::gen::collect_expr_calls(value, &mut called);
                !called.is_empty()
            };
            let value_text = expr(value);
            let compare = match op {
                RedOp::AddU => return writeln!(out, "{pad}{var} += {value_text};").unwrap(),
                RedOp::XorU => return writeln!(out, "{pad}{var} ^= {value_text};").unwrap(),
                RedOp::AndL => {
                    return writeln!(out, "{pad}{var} = {var} && ({value_text});").unwrap()
                }
                RedOp::OrL => {
                    return writeln!(out, "{pad}{var} = {var} || ({value_text});").unwrap()
                }
                RedOp::MinI | RedOp::MinF => "<",
                RedOp::MaxI | RedOp::MaxF => ">",
            };
            if calls_a_function {
                let ty = op.ty().c_name();
                writeln!(
                    out,
                    "{pad}{{ {ty} lw_t = {value_text}; if (lw_t {compare} {var}) {var} = lw_t; }}"
                )
                .unwrap()
            } else {
                writeln!(out, "{pad}if (({value_text}) {compare} {var}) {var} = {value_text};")
                    .unwrap()
            }
        }
    }
}

pub(crate) fn has_goto(stmts: &[Stmt], label: &str) -> bool {
    stmts.iter().any(|stmt| {
        matches!(stmt, Stmt::Goto(target) if target == label)
            || stmt_blocks(stmt).iter().any(|block| has_goto(block, label))
    })
}

fn literal(lit: Lit) -> String {
    match lit {
        Lit::Int(value) if value == i32::MIN => "(-2147483647 - 1)".to_owned(),
        Lit::Int(value) if value < 0 => format!("({value})"),
        Lit::Int(value) => format!("{value}"),
        Lit::UInt(value) => format!("{value}u"),
        Lit::Float(value) => {
            wrap_negative(format!("{}f", float_text(format!("{value:e}"), value == 0.0)))
        }
        Lit::Double(value) => wrap_negative(float_text(format!("{value:e}"), value == 0.0)),
        // `9223372036854775808L` is no `long` (C reads it as `unsigned
        // long`, C++ rejects it in an initializer list as narrowing).
        Lit::Long(i64::MIN) => "(-9223372036854775807L - 1)".to_owned(),
        Lit::Long(value) if value < 0 => format!("({value}L)"),
        Lit::Long(value) => format!("{value}L"),
        Lit::Short(value) => format!("((short){value})"),
        Lit::UChar(value) => format!("((unsigned char){value})"),
    }
}

/// A C floating literal from Rust's shortest round-trip `{:e}` text
/// (`1.5e0`, `-1e-3`: valid C); zeros as `0.0` and `-0.0`.
fn float_text(text: String, zero: bool) -> String {
    match (zero, text.starts_with('-')) {
        (true, true) => "-0.0".to_owned(),
        (true, false) => "0.0".to_owned(),
        _ => text,
    }
}

fn wrap_negative(text: String) -> String {
    if text.starts_with('-') {
        format!("({text})")
    } else {
        text
    }
}

/// A condition's text without the outer parentheses of a comparison
/// (`if ((a) == (b))`, not `if (((a) == (b)))`, which clang warns about).
fn condition(e: &Expr) -> String {
    match e {
        Expr::Compare(op, a, b) => format!("({}) {} ({})", expr(a), op.symbol(), expr(b)),
        Expr::Logic(and, a, b) => {
            format!("({}) {} ({})", expr(a), if *and { "&&" } else { "||" }, expr(b))
        }
        _ => expr(e),
    }
}

/// The C text of an expression (fully parenthesized).
pub fn expr(e: &Expr) -> String {
    match e {
        Expr::GuardedDiv { ty, helper, dividend, divisor } => {
            let (a, b) = (expr(dividend), expr(divisor));
            let quotient = match (ty, helper) {
                (Ty::Int, true) => format!("lw_sdiv({a}, {b})"),
                (_, true) => format!("lw_udiv({a}, {b})"),
                (_, false) => format!("({a}) / ({b})"),
            };
            match ty {
                Ty::Int => format!("((({b}) != 0 && ({b}) != -1) ? {quotient} : ({a}))"),
                _ => format!("((({b}) != 0u) ? {quotient} : ({a}))"),
            }
        }
        Expr::Lit(lit) => literal(*lit),
        Expr::Var(name, _) => name.clone(),
        Expr::Unary(op, a) => {
            let ty = a.ty();
            let a = expr(a);
            match (op, ty) {
                (UnOp::Neg, Ty::Int) => format!("((int)(0u - (unsigned)({a})))"),
                (UnOp::Neg, Ty::UInt) => format!("(0u - ({a}))"),
                (UnOp::Neg, Ty::Long) => format!("((long)(0ul - (unsigned long)({a})))"),
                (UnOp::Neg, ty) if ty.is_promoted() => format!("(({})(-({a})))", ty.c_name()),
                (UnOp::Neg, _) => format!("(-({a}))"),
                (UnOp::BitNot, ty) if ty.is_promoted() => format!("(({})(~({a})))", ty.c_name()),
                (UnOp::BitNot, _) => format!("(~({a}))"),
            }
        }
        Expr::Not(a) => format!("(!({}))", expr(a)),
        Expr::Binary(op, ty, a, b) => binary(*op, *ty, &expr(a), &expr(b)),
        Expr::Compare(op, a, b) => format!("(({}) {} ({}))", expr(a), op.symbol(), expr(b)),
        Expr::Logic(and, a, b) => {
            format!("(({}) {} ({}))", expr(a), if *and { "&&" } else { "||" }, expr(b))
        }
        Expr::Cast(to, a) => {
            let from = a.ty();
            let a = expr(a);
            match (from, to) {
                _ if from == *to => a,
                (Ty::Float, Ty::Int) => format!("lw_f2i({a})"),
                (Ty::Float, Ty::UInt) => format!("lw_f2u({a})"),
                (Ty::Double, Ty::Int) => format!("lw_d2i({a})"),
                (Ty::Double, Ty::UInt) => format!("lw_d2u({a})"),
                (Ty::Float | Ty::Double, Ty::Long | Ty::Short | Ty::UChar) => {
                    format!("lw_{}2{}({a})", from.suffix(), to.suffix())
                }
                _ => format!("(({})({a}))", to.c_name()),
            }
        }
        Expr::Select(c, a, b) => format!("(({}) ? ({}) : ({}))", expr(c), expr(a), expr(b)),
        Expr::Load { base, index, len, offset: 0, .. } => element(base, &expr(index), *len),
        Expr::Load { base, index, len, offset, .. } => {
            element_after(base, &expr(index), *len, *offset)
        }
        Expr::Call { function, args, .. } => {
            let args: Vec<String> = args.iter().map(argument).collect();
            format!("{function}({})", args.join(", "))
        }
        Expr::Math(function, ty, operands) => math(*function, *ty, operands),
    }
}

/// A [`MathFn`] applied to its operands, all of type `ty`.
fn math(function: MathFn, ty: Ty, operands: &[Expr]) -> String {
    let operands: Vec<String> = operands.iter().map(expr).collect();
    if function.on_integers() {
        let unsigned: Vec<String> = operands.iter().map(|a| format!("(unsigned)({a})")).collect();
        let call = match function {
            MathFn::Popcount => format!("(unsigned)__builtin_popcount({})", unsigned[0]),
            MathFn::Clz => format!("lw_clz({})", unsigned[0]),
            MathFn::Ctz => format!("lw_ctz({})", unsigned[0]),
            MathFn::Bswap => format!("__builtin_bswap32({})", unsigned[0]),
            MathFn::Rotl => format!("lw_rotl({}, {})", unsigned[0], unsigned[1]),
            _ => unreachable!("{function:?} is not a function on integers"),
        };
        return if ty == Ty::UInt { call } else { format!("(({})({call}))", ty.c_name()) };
    }
    let f = if ty == Ty::Float { "f" } else { "" };
    let zero = if ty == Ty::Float { "0.0f" } else { "0.0" };
    let name = match function {
        MathFn::SqrtAbs => return format!("sqrt{f}(fabs{f}({}))", operands[0]),
        MathFn::Fmin | MathFn::Fmax => {
            let name = if function == MathFn::Fmin { "fmin" } else { "fmax" };
            return format!("({name}{f}({}, {}) + {zero})", operands[0], operands[1]);
        }
        MathFn::Sqrt => "sqrt",
        MathFn::Exp => "exp",
        MathFn::Log => "log",
        MathFn::Exp2 => "exp2",
        MathFn::Log2 => "log2",
        MathFn::Fabs => "fabs",
        MathFn::Floor => "floor",
        MathFn::Ceil => "ceil",
        MathFn::Trunc => "trunc",
        MathFn::Round => "round",
        MathFn::Rint => "rint",
        MathFn::Copysign => "copysign",
        MathFn::Fmod => "fmod",
        MathFn::Fma => "fma",
        MathFn::Popcount | MathFn::Clz | MathFn::Ctz | MathFn::Bswap | MathFn::Rotl => {
            unreachable!("{function:?} is a function on integers")
        }
    };
    format!("{name}{f}({})", operands.join(", "))
}

fn binary(op: BinOp, ty: Ty, a: &str, b: &str) -> String {
    let symbol = op.symbol();
    if ty.is_promoted() {
        // In `int`, where no operation of two such values overflows but a
        // left shift of a negative one; the conversion back wraps.
        let name = ty.c_name();
        let mask = ty.bits() - 1;
        return match op {
            BinOp::Shl => format!("(({name})((unsigned)({a}) << (({b}) & {mask})))"),
            BinOp::Shr => format!("(({name})(({a}) >> (({b}) & {mask})))"),
            BinOp::Div | BinOp::Rem => format!("(({name})(({a}) {symbol} ((({b}) & 15) + 1)))"),
            _ => format!("(({name})(({a}) {symbol} ({b})))"),
        };
    }
    match (ty, op) {
        (Ty::Long, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl) => {
            let b = if op == BinOp::Shl {
                format!("(({b}) & 63)")
            } else {
                format!("(unsigned long)({b})")
            };
            format!("((long)((unsigned long)({a}) {symbol} {b}))")
        }
        (Ty::Long, BinOp::Div | BinOp::Rem) => format!("(({a}) {symbol} ((({b}) & 15) + 1))"),
        (Ty::Long, BinOp::Shr) => format!("(({a}) >> (({b}) & 63))"),
        (Ty::Int, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl) => {
            let b =
                if op == BinOp::Shl { format!("(({b}) & 31)") } else { format!("(unsigned)({b})") };
            format!("((int)((unsigned)({a}) {symbol} {b}))")
        }
        (Ty::Int, BinOp::Div | BinOp::Rem) => format!("(({a}) {symbol} ((({b}) & 15) + 1))"),
        (Ty::Int, BinOp::Shr) => format!("(({a}) >> (({b}) & 31))"),
        (Ty::UInt, BinOp::Div | BinOp::Rem) => format!("(({a}) {symbol} ((({b}) & 15u) + 1u))"),
        (Ty::UInt, BinOp::Shl | BinOp::Shr) => format!("(({a}) {symbol} (({b}) & 31u))"),
        _ => format!("(({a}) {symbol} ({b}))"),
    }
}

fn argument(arg: &Arg) -> String {
    match arg {
        Arg::Varying(e) => expr(e),
        Arg::Uniform(lit) => literal(*lit),
        Arg::LinearInt { base, scale, offset } => format!("({scale} * {base} + {offset})"),
        Arg::Pointer(PointerArg::Table(name) | PointerArg::Param(name)) => name.clone(),
        Arg::Pointer(PointerArg::Element { array, scale }) => format!("&{array}[{scale} * i]"),
        Arg::Depth(depth) => format!("({depth} - 1)"),
        Arg::UniformRecord(index) => format!("lw_recs[{index}]"),
        Arg::Record(index) => format!("lw_recs[(unsigned)({}) & 3u]", expr(index)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The input arrays sit between guard pages, and some kernel reads the
    /// last `n` elements, whose end is the guard (`KERNEL_INDEX_FROM_END`).
    #[test]
    fn input_arrays_end_at_guard_pages_that_kernels_read_up_to() {
        let (mut reads_from_end, mut scans) = (0, 0);
        for seed in 0..80 {
            let text = print_program(&crate::gen::generate(seed));
            assert!(text.contains("LW_GUARDED(int, in_i, 1024);"), "seed {seed}");
            assert!(
                text.contains(
                    "lw_guard(in_i_pad, sizeof in_i_pad, in_i, sizeof in_i, in_i_trail);"
                ),
                "seed {seed}"
            );
            if text.contains("int i_end = 1024 - n + i;") && text.contains("[(unsigned)(i_end) & ")
            {
                reads_from_end += 1;
            }
            // A scan's phases share no local (clang's -fopenmp-simd splits
            // them into two loops): scan kernels have no `i_end`.
            for kernel in text.split("static void kernel").filter(|k| k.contains("omp scan")) {
                let kernel = kernel.split("\n}\n").next().unwrap_or_default();
                assert!(!kernel.contains("i_end"), "seed {seed}: {kernel}");
                scans += 1;
            }
        }
        assert!(reads_from_end >= 20, "{reads_from_end} of 80 programs read from the end");
        assert!(scans >= 5, "{scans} scan kernels in 80 programs");
    }

    #[test]
    fn literals_read_back_in_c_syntax() {
        assert_eq!(literal(Lit::Int(-5)), "(-5)");
        assert_eq!(literal(Lit::Int(i32::MIN)), "(-2147483647 - 1)");
        assert_eq!(literal(Lit::Long(i64::MIN)), "(-9223372036854775807L - 1)");
        assert_eq!(literal(Lit::UInt(7)), "7u");
        assert_eq!(literal(Lit::Float(1.5)), "1.5e0f");
        assert_eq!(literal(Lit::Float(-0.0)), "(-0.0f)");
        assert_eq!(literal(Lit::Double(-0.001)), "(-1e-3)");
    }

    #[test]
    fn signed_arithmetic_goes_through_unsigned() {
        let a = Box::new(Expr::Var("a".into(), Ty::Int));
        let b = Box::new(Expr::Var("b".into(), Ty::Int));
        assert_eq!(
            expr(&Expr::Binary(BinOp::Add, Ty::Int, a.clone(), b.clone())),
            "((int)((unsigned)(a) + (unsigned)(b)))"
        );
        assert_eq!(
            expr(&Expr::Binary(BinOp::Div, Ty::Int, a.clone(), b)),
            "((a) / (((b) & 15) + 1))"
        );
        assert_eq!(
            expr(&Expr::Cast(Ty::Int, Box::new(Expr::Var("x".into(), Ty::Float)))),
            "lw_f2i(x)"
        );
        assert_eq!(expr(&Expr::Unary(UnOp::Neg, a)), "((int)(0u - (unsigned)(a)))");
    }

    #[test]
    fn min_max_updates_evaluate_a_call_once() {
        let print = |value: Expr, op: RedOp| {
            let mut out = String::new();
            print_stmt(&mut out, 0, &Stmt::Reduce { var: "r1".into(), op, value });
            out
        };
        let call = Expr::Call { function: "f0".into(), ret: Ty::Int, args: Vec::new() };
        assert_eq!(
            print(call.clone(), RedOp::MinI),
            "{ int lw_t = f0(); if (lw_t < r1) r1 = lw_t; }\n"
        );
        assert_eq!(print(call, RedOp::AddU), "r1 += f0();\n");
        let load = Expr::Var("x".into(), Ty::Float);
        assert_eq!(print(load, RedOp::MaxF), "if ((x) > r1) r1 = x;\n");
    }

    #[test]
    fn rv_guards_evaluate_their_condition_once() {
        let call = Expr::Call { function: "f0".into(), ret: Ty::Int, args: Vec::new() };
        let cond = Expr::Compare(CmpOp::Lt, Box::new(call), Box::new(Expr::Lit(Lit::Int(3))));
        for guard in [RvGuard::AnyThenIf, RvGuard::AllOr, RvGuard::AnyAnd] {
            let mut out = String::new();
            let stmt = Stmt::Rv { guard, cond: cond.clone(), body: vec![Stmt::Break] };
            print_stmt(&mut out, 0, &stmt);
            assert_eq!(out.matches("f0()").count(), 1, "{out}");
            assert!(out.starts_with("{\n    int lw_c = ((f0()) < (3));\n"), "{out}");
        }
    }

    #[test]
    fn record_members_are_elements_of_their_array() {
        let index = || Box::new(Expr::Var("i".into(), Ty::Int));
        let member = record_member("r4", Ty::Float);
        assert_eq!(array_variable(&member), "r4");
        let load =
            Expr::Load { base: member.clone(), ty: Ty::Float, index: index(), len: 8, offset: 0 };
        assert_eq!(expr(&load), "r4[(unsigned)(i) & 7u].f");
        let plain =
            Expr::Load { base: "a2".into(), ty: Ty::Int, index: index(), len: 4, offset: 0 };
        assert_eq!(expr(&plain), "a2[(unsigned)(i) & 3u]");
        let after =
            Expr::Load { base: member.clone(), ty: Ty::Float, index: index(), len: 8, offset: 3 };
        assert_eq!(expr(&after), "(&r4[(unsigned)(i) & 3u])[3].f");
        let array = PrivateArray {
            name: "r4".into(),
            ty: Ty::Double,
            len: 4,
            init: Expr::Lit(Lit::Double(2.0)),
            record: true,
        };
        let mut out = String::new();
        print_locals(&mut out, 0, &[], &[array]);
        assert!(out.starts_with("struct lw_rec r4[4];\nfor (int z = 0; z < 4; z++) {"), "{out}");
        // Every member is written; the array's type gets `init + z`.
        for ty in Ty::MIXED {
            assert!(out.contains(&format!("r4[z].{} = ", ty.suffix())), "{out}");
        }
        assert!(out.contains("r4[z].i = z * 3 - 5;"), "{out}");
        assert!(out.contains("r4[z].d = 2e0 + (double)z;"), "{out}");
    }
}
