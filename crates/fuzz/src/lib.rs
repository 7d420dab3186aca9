//! lanewise-fuzz: the C-level differential fuzzer of Lanewise (issue 14).
//!
//! [`gen::generate`] turns a seed into a random C program written the way
//! users write SPMD code for Lanewise: `#pragma omp declare simd` functions
//! with random mixes of `uniform`, `linear` (ints, input and output
//! pointers) and varying parameters (recursive ones, bounded by a uniform
//! or varying depth parameter, call themselves), `inbranch`/`notinbranch`,
//! `simdlen(4|8|16|32)`, noinline or not; bodies with `int`, `unsigned`,
//! `float` and `double` arithmetic (and `sqrt`, `exp`, `log`, `exp2`,
//! `log2`, `fabs`, `floor`, `ceil`, `trunc`, `round`, `rint`, `fmin`,
//! `fmax`, `copysign`, `fmod`, `fma`; on `int` and `unsigned` popcount,
//! clz, ctz, bswap and rotates) (in some programs also `long`, `short`
//! and `unsigned char`: lanes of 64, 16 and 8 bits beside 32-bit ones,
//! conversions between them), comparisons, nested `if`/`else`,
//! `switch` with fall-through (on `x & 7`, or on a whole `int` with runs
//! of consecutive, negative and outlying case values; cases that each
//! assign a constant become LLVM lookup tables), `goto` (also into the middle of a `while`
//! body: cycles with two entries), bounded `while` and `for` loops with
//! data-dependent trip counts, `break`/`continue`/early `return`, gathers
//! from global and uniform-parameter tables at masked varying indices,
//! four-lane vector code (`float4`-style GCC vector extensions),
//! private arrays (filled by loops or by initializer lists; also of
//! structs, the per-lane record stacks of tree traversals, whose records
//! are also copied whole between elements), walks along the
//! links of a global pool of nodes (varying pointers, null tests, loads
//! of members through them: the pointer chase of list and tree code), stores through linear pointers, calls of other
//! declare-simd functions, `__atomic_fetch_{add,and,or,xor,min,max}` on
//! global counters (one array per operation, so the result does not depend
//! on the order of the lanes), and `rv_any`/`rv_all` guards in the forms whose
//! per-lane result is the guarded condition's; and `#pragma omp simd`
//! loops over `i` (counting up, down, or up by two) with the same bodies,
//! calls of those functions,
//! order-independent reductions (unsigned `+` and `^`, `int` and `float`
//! min/max), `reduction(inscan, ...)` scans whose running values the body
//! reads (`#pragma omp scan inclusive/exclusive`), `lastprivate` (also
//! `conditional:`), `safelen(k)` loops reading their own output of `d > k`
//! iterations back, `static` declare-simd functions, and
//! `linear(j:step)` variables the body reads and steps (in some kernels);
//! integer divisions through `noinline` helpers that trap on a zero
//! divisor, behind a test of the divisor (a vectorizer must not call them
//! where the scalar code does not). Every program is free of undefined
//! behaviour by construction (ast.rs says how), also after reduction.
//!
//! [`oracle`] builds a program with `clang-22 -O2 -ffp-contract=off`
//! (the scalar reference) and with `lanewise cc -O2 -fopenmp-simd
//! -ffp-contract=off -march=M` (optionally at another `-O` level, with
//! `-g`, or both builds as C++), runs both under a timeout and compares
//! their output byte for byte. [`reduce`] shrinks a failing program on its
//! AST while the failure stays. The `lanewise-fuzz` binary (main.rs) runs
//! seed ranges in parallel.

pub mod ast;
pub mod batch;
pub mod campaign;
pub mod gen;
pub mod oracle;
pub mod print;
pub mod reduce;
pub mod rng;

pub use gen::generate;
pub use print::print_program;
