//! The `lanewise` command line.
//!
//! Declare-simd mode (default): `lanewise IN.ll -o OUT.ll` generates a body
//! for every `_ZGV...` variant clang named on a function of IN. Explicit mode:
//! `lanewise IN.ll -o OUT.ll --function F --width W --shapes SHAPES [--name N]`
//! vectorizes one function with the given argument shapes. `lanewise cc
//! [clang flags] files...` (and `lanewise c++`) is a clang-compatible compiler
//! driver (src/cc.rs).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};

use lanewise::{
    ExplicitRequest, FlattenNests, LinearizeMode, Mode, NarrowLoops, Options, OutputFormat, Pass,
    SafetyNetMode, Slp, SlpAlgorithm, TailPolicy, VariantSelection, VectorMath,
};
use lanewise_ir::vfabi::{is_supported_width, parse_shapes, Isa, MAX_WIDTH};

mod cc;
mod isolate;

/// Lanewise: turns scalar LLVM IR functions into SIMD functions.
#[derive(Parser, Debug)]
#[command(name = "lanewise", version, about, long_about = None)]
struct Cli {
    /// Input module: LLVM IR text (.ll) or bitcode (.bc).
    input: PathBuf,

    /// Output module (.ll for text, .bc for bitcode unless --emit-llvm/--emit-bitcode say otherwise).
    #[arg(short = 'o', long = "output")]
    output: PathBuf,

    /// Explicit mode: the function to vectorize.
    #[arg(long, requires_all = ["width", "shapes"])]
    function: Option<String>,

    /// Explicit mode: the number of lanes (a power of two from 1 to 64).
    #[arg(long, requires = "function")]
    width: Option<u32>,

    /// Explicit mode: one shape per parameter, in the vector function ABI letters
    /// (v varying, u uniform, l / l<k> / ln<k> linear, ls<p> linear with the step in
    /// uniform parameter p, a<n> alignment), e.g. `vul4`.
    #[arg(long, requires = "function", allow_hyphen_values = false)]
    shapes: Option<String>,

    /// Explicit mode: name of the produced function (default: the vector function ABI name).
    #[arg(long, requires = "function")]
    name: Option<String>,

    /// Explicit mode: target ISA of the produced function (default: the smallest
    /// x86 ISA whose registers hold W lanes of the widest parameter or result).
    #[arg(long, value_enum, requires = "function")]
    isa: Option<IsaArg>,

    /// Control-flow linearization: `partial` keeps the uniform branches PLDI'18
    /// guarantees; `full` folds every branch (the if-conversion baseline).
    #[arg(long, value_enum, default_value_t = LinearizeArg::Partial)]
    linearize: LinearizeArg,

    /// Turn BOSCC off: no `any`-lane tests that jump over costly regions
    /// behind divergent branches or loops no lane enters (for ablation
    /// studies and for comparing with the papers' walkthroughs).
    #[arg(long)]
    no_boscc: bool,

    /// Write a JSON report of every produced function to FILE.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,

    /// Print a human-readable summary of every produced function on stderr.
    #[arg(long)]
    stats: bool,

    /// How calls to libm functions are vectorized.
    #[arg(long, value_enum, default_value_t = VectorMathArg::Auto)]
    vector_math: VectorMathArg,

    /// Print the IR after this pass to stderr (`all` for every pass).
    #[arg(long, value_enum)]
    dump_after: Option<PassArg>,

    /// Write textual LLVM IR whatever the output's extension.
    #[arg(long, conflicts_with = "emit_bitcode")]
    emit_llvm: bool,

    /// Write LLVM bitcode whatever the output's extension.
    #[arg(long)]
    emit_bitcode: bool,

    /// Declare-simd mode: skip (with a warning) the functions that cannot be
    /// vectorized, and the `_ZGV` attributes that are not valid variants of
    /// their function, instead of failing.
    #[arg(long)]
    keep_going: bool,

    /// Run the Lanewise IR verifier after every pass.
    #[arg(long)]
    verify_each: bool,

    /// Leave the added functions as lowered, without LLVM's cleanup
    /// pipeline (instcombine, simplifycfg, early-cse, GVN): for callers that
    /// optimize the output module again anyway.
    #[arg(long)]
    no_cleanup: bool,

    /// Declare-simd mode: produce every variant the `_ZGV` attributes ask
    /// for (`all`); every one, but only those the module itself calls with
    /// bodies of their own and the others as adapters over one shared body
    /// per function (`shared`: about one variant's compile time per
    /// function); or only those the module itself calls (`referenced`: from
    /// its omp simd loops or other variants; less code when no other file
    /// calls the variants).
    #[arg(long, value_enum, default_value_t = VariantsArg::All)]
    variants: VariantsArg,

    /// Print the wall time of each of Lanewise's passes (and of the LLVM
    /// steps it runs) on stderr, slowest first.
    #[arg(long)]
    time_passes: bool,

    /// Count the active lanes of every block execution of the produced
    /// functions; the program prints its SIMD utilization (active lanes /
    /// lane slots, PLDI'18) on stderr when it exits.
    #[arg(long)]
    instrument_utilization: bool,

    /// Also vectorize the loops marked by `#pragma omp simd` (or `#pragma
    /// clang loop vectorize(assume_safety)`) that LLVM left scalar; each loop
    /// gets a remark (shown by --stats, listed under "remarks" in --report).
    #[arg(long)]
    simd_loops: bool,

    /// With --simd-loops: how the last TC % W iterations of a loop run:
    /// one masked call of the vector body, a scalar remainder loop, or
    /// whichever the cost model expects to be faster (a run-time test of the
    /// remaining count when it depends on it).
    #[arg(long, value_enum, default_value_t = SimdTailArg::Auto)]
    simd_tail: SimdTailArg,

    /// With --simd-loops: `on` leaves a loop scalar (a missed remark with the
    /// estimate) when the cost model finds its vector form clearly slower
    /// (gathers in inner loops); `off` vectorizes every loop it can, as the
    /// pragma asks.
    #[arg(long, value_enum, value_name = "on|off", default_value_t = OnOffArg::On)]
    simd_loops_cost: OnOffArg,

    /// Divergent loops continue at half the width (and again at a quarter)
    /// once at most half of their lanes are live: `auto` on AVX-512 targets
    /// where it pays, `off` never, `always` on every target at every chance
    /// (for tests).
    #[arg(long, value_enum, default_value_t = NarrowLoopsArg::Auto)]
    narrow_loops: NarrowLoopsArg,

    /// Declare-simd variants with a loop that lanes may leave at different
    /// times: `adaptive` chooses at every call between the vector body and
    /// one call of the scalar function per active lane, by the cycles each
    /// took per lane over a few measured calls; `off` always runs the
    /// vector body; `per-lane` always calls the scalar function (for tests).
    #[arg(long, value_enum, default_value_t = SafetyNetArg::Adaptive)]
    safety_net: SafetyNetArg,

    /// Declares the function NAME lanes-independent, as `RV_LANES_INDEPENDENT`
    /// in C does: each lane computes and does what it would in any group of
    /// lanes, so a variant may run the function's one-lane form (its `rv_*`
    /// builtins with their one-lane meaning) when that is faster. Repeatable.
    #[arg(long, value_name = "NAME")]
    lanes_independent: Vec<String>,

    /// WFV-SLP (thesis 7.4): in AVX-512 variants, independent libmvec
    /// calls of one function in a masked block run as one call on their
    /// active lanes packed together when those fit in one vector.
    #[arg(long, value_enum, value_name = "on|off", default_value_t = OnOffArg::On)]
    wfv_slp: OnOffArg,

    /// Dynamic variants of gathers and scatters (thesis 7.1/7.2): a
    /// run-time test of the addresses, with a scalar-load fast path when
    /// the lanes agree and a vector-load one when they are consecutive.
    #[arg(long, value_enum, value_name = "on|off", default_value_t = OnOffArg::On)]
    dynamic_tests: OnOffArg,

    /// Page-safe speculative loads: a masked vector load of consecutive
    /// elements is made unmasked (inline `vmovups`) where it stays within
    /// one 4 KiB page together with an active lane, so it cannot fault and
    /// need not wait for its mask. valgrind's memcheck reports the bytes it
    /// reads past an allocation.
    #[arg(long, value_enum, value_name = "on|off", default_value_t = OnOffArg::On)]
    speculative_loads: OnOffArg,

    /// Wide cells: an interleaved private array of 1- or 2-byte values
    /// (`bool` flags, `short`s) accessed at an index that varies across
    /// lanes gets 4-byte cells (stores zero-extend, loads truncate), so its
    /// accesses are 32-bit gathers and scatters instead of W guarded byte
    /// accesses; `off` keeps the values' own size (for ablation studies).
    #[arg(long, value_enum, value_name = "on|off", default_value_t = OnOffArg::On)]
    wide_cells: OnOffArg,

    /// `expf`, `exp2f`, `logf`, `log2f`, `exp` and `log` (also their `llvm.exp`/`llvm.exp2`/`llvm.log`/`llvm.log2` forms) in vector
    /// registers with the bits of glibc's scalar calls, on targets with FMA
    /// and AVX2 (glibc runs its FMA builds there, which the vector code
    /// repeats operation by operation; checked: glibc 2.36); `off` keeps one libm
    /// call per lane (a libm other than glibc's).
    #[arg(long, value_enum, value_name = "on|off", default_value_t = OnOffArg::On)]
    exact_vector_math: OnOffArg,

    /// Two gathers of neighbouring 32-bit elements under one mask (`p[i]`
    /// and `p[i + 1]`) become one gather of 64-bit elements, on targets
    /// with gather instructions (AVX2, AVX-512).
    #[arg(long, value_enum, value_name = "on|off", default_value_t = OnOffArg::On)]
    gather_pairs: OnOffArg,

    /// Where LLVM expands gathers into one load per lane, a branch on each
    /// lane's mask bit under a mask (AVX2 targets without fast gathers:
    /// x86-64-v3, Haswell, Broadwell, AMD Zen 1-3), Lanewise chooses the
    /// form: masked gathers as gather instructions, unmasked ones as scalar
    /// loads.
    #[arg(long, value_enum, value_name = "on|off", default_value_t = OnOffArg::On)]
    gather_forms: OnOffArg,

    /// A divergent loop nested in a divergent loop becomes one loop, whose
    /// iterations each lane spends on its own next step (an inner
    /// iteration, or the outer loop's code around its inner loop), so that
    /// lanes wait only for the lane with the most steps.
    #[arg(long, value_enum, default_value_t = FlattenNestsArg::Auto)]
    flatten_nests: FlattenNestsArg,

    /// Basic-block (SLP) vectorization of every function of the module,
    /// after everything else: Lanewise's own (Foss 2013), LLVM's
    /// `slp-vectorizer` pass, or none.
    #[arg(long, value_enum, default_value_t = SlpArg::Off)]
    slp: SlpArg,

    /// With `--slp lanewise`: Foss's tree vectorizer (trees of pairs) or
    /// pair vectorizer (pairs, best first).
    #[arg(long, value_enum, default_value_t = SlpAlgorithmArg::Tree)]
    slp_algorithm: SlpAlgorithmArg,
}

/// The basic-block vectorizer (`--slp`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum SlpArg {
    /// Lanewise's (Foss 2013).
    Lanewise,
    /// LLVM's `slp-vectorizer` pass.
    Llvm,
    /// None.
    Off,
}

/// Foss's two algorithms (`--slp-algorithm`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum SlpAlgorithmArg {
    /// Trees of pairs (Algorithms 1-11).
    Tree,
    /// Pairs, best first (Algorithms 12-14).
    Pair,
}

impl SlpArg {
    pub(crate) fn with_algorithm(self, algorithm: SlpAlgorithmArg) -> Slp {
        match self {
            SlpArg::Off => Slp::Off,
            SlpArg::Llvm => Slp::Llvm,
            SlpArg::Lanewise => Slp::Lanewise(match algorithm {
                SlpAlgorithmArg::Tree => SlpAlgorithm::Tree,
                SlpAlgorithmArg::Pair => SlpAlgorithm::Pair,
            }),
        }
    }
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum SafetyNetArg {
    /// Choose per call, by measured cycles per lane.
    Adaptive,
    /// Always the vector body.
    Off,
    /// Always per-lane calls of the scalar function.
    PerLane,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum FlattenNestsArg {
    /// Where the inner loop's body outweighs the outer loop's code and the
    /// blends of the two headers' phis.
    Auto,
    /// Never.
    Off,
    /// Every eligible nest, whatever it costs (for tests).
    Always,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum NarrowLoopsArg {
    /// On AVX-512 targets (avx512f, avx512vl), in `e` variants and `omp simd`
    /// bodies, down to 256-bit vectors, after 16 iterations of the loop.
    Auto,
    /// Never.
    Off,
    /// On every target, down to one lane, as soon as half the lanes are idle.
    Always,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum SimdTailArg {
    /// The cost model chooses (static or at run time).
    Auto,
    /// Always a masked call of the vector body.
    Masked,
    /// Always a scalar remainder loop.
    Scalar,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum VariantsArg {
    /// Every variant the `_ZGV` attributes name.
    All,
    /// Every variant; those the module does not call as adapters over one
    /// shared body per function.
    Shared,
    /// Only the variants the module calls.
    Referenced,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum OnOffArg {
    On,
    Off,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum IsaArg {
    /// SSE2 (128-bit), VFABI letter b.
    Sse,
    /// AVX (256-bit), VFABI letter c.
    Avx,
    /// AVX2 (256-bit), VFABI letter d.
    Avx2,
    /// AVX-512F (512-bit), VFABI letter e.
    Avx512,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum LinearizeArg {
    /// Partial linearization (Moll & Hack, PLDI'18).
    Partial,
    /// Fold every branch (full if-conversion).
    Full,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum VectorMathArg {
    /// libmvec for calls marked `afn` (clang's -ffast-math and
    /// -funsafe-math-optimizations), exact per-lane calls for the others.
    Auto,
    /// Use glibc libmvec variants where one exists (up to 4 ulp from scalar libm).
    Libmvec,
    /// Call the scalar libm function once per lane (bit-exact with scalar code).
    Exact,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum PassArg {
    Lift,
    Linearize,
    Widen,
    Abi,
    Narrow,
    Lower,
    All,
}

fn main() -> ExitCode {
    // `lanewise cc ...` / `lanewise c++ ...`: the clang-compatible driver
    // (src/cc.rs), before clap.
    let mut arguments = std::env::args_os().skip(1);
    match arguments.next() {
        Some(first) if first == "cc" => return cc::main(cc::Language::C, arguments.collect()),
        Some(first) if first == "c++" => return cc::main(cc::Language::Cxx, arguments.collect()),
        Some(first) if first == isolate::CHECK_MODULE_COMMAND => {
            return isolate::check_module_main()
        }
        _ => {}
    }
    std::panic::set_hook(Box::new(|info| {
        eprintln!("lanewise: internal compiler error (this is a bug): {info}");
    }));
    lanewise_llvm::report_llvm_fatal_errors_as("lanewise: error: LLVM: ");
    // Usage errors are one line with status 1 too (clap's own are several
    // lines with status 2); --help and --version print as usual.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            let _ = error.print();
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            // clap's message: `error: ...`, maybe the missing arguments
            // one per line, then a blank line, tips and usage.
            let message = error.to_string();
            let lines: Vec<&str> =
                message.lines().take_while(|line| !line.trim().is_empty()).map(str::trim).collect();
            let text = lines.join(" ");
            eprintln!(
                "lanewise: error: {} (see lanewise --help)",
                printable(text.strip_prefix("error: ").unwrap_or(&text))
            );
            return ExitCode::FAILURE;
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // Line by line: an internal error keeps its lines (see
            // `one_line_message`); other messages are one line already.
            let lines: Vec<String> = message.lines().map(printable).collect();
            eprintln!("lanewise: error: {}", lines.join("\n"));
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    let mode = match cli.function {
        None => Mode::DeclareSimd,
        Some(function) => {
            let width = cli.width.expect("clap enforces --width");
            let shapes = cli.shapes.expect("clap enforces --shapes");
            if !is_supported_width(width) {
                return Err(format!(
                    "--width {width}: expected a power of two from 1 to {MAX_WIDTH}"
                ));
            }
            let params = parse_shapes(&shapes).map_err(|error| error.to_string())?;
            Mode::Explicit(ExplicitRequest {
                function,
                width,
                params,
                name: cli.name,
                isa: cli.isa.map(|isa| match isa {
                    IsaArg::Sse => Isa::Sse,
                    IsaArg::Avx => Isa::Avx,
                    IsaArg::Avx2 => Isa::Avx2,
                    IsaArg::Avx512 => Isa::Avx512,
                }),
            })
        }
    };
    let format = if cli.emit_llvm {
        OutputFormat::Text
    } else if cli.emit_bitcode || cli.output.extension().is_some_and(|ext| ext == "bc") {
        OutputFormat::Bitcode
    } else {
        OutputFormat::Text
    };
    let options = Options {
        mode,
        vector_math: match cli.vector_math {
            VectorMathArg::Auto => VectorMath::Auto,
            VectorMathArg::Libmvec => VectorMath::Libmvec,
            VectorMathArg::Exact => VectorMath::Exact,
        },
        dump_after: cli.dump_after.map(|pass| match pass {
            PassArg::Lift => vec![Pass::Lift],
            PassArg::Linearize => vec![Pass::Linearize],
            PassArg::Widen => vec![Pass::Widen],
            PassArg::Abi => vec![Pass::Abi],
            PassArg::Narrow => vec![Pass::Narrow],
            PassArg::Lower => vec![Pass::Lower],
            PassArg::All => {
                vec![Pass::Lift, Pass::Linearize, Pass::Widen, Pass::Narrow, Pass::Abi, Pass::Lower]
            }
        }),
        linearize: match cli.linearize {
            LinearizeArg::Partial => LinearizeMode::Partial,
            LinearizeArg::Full => LinearizeMode::Full,
        },
        boscc: !cli.no_boscc,
        cleanup: !cli.no_cleanup,
        variants: match cli.variants {
            VariantsArg::All => VariantSelection::All,
            VariantsArg::Shared => VariantSelection::Shared,
            VariantsArg::Referenced => VariantSelection::Referenced,
        },
        full_variants: Vec::new(),
        group_functions: Vec::new(),
        lanes_independent: cli.lanes_independent,
        slp: cli.slp.with_algorithm(cli.slp_algorithm),
        safety_net: match cli.safety_net {
            SafetyNetArg::Adaptive => SafetyNetMode::Adaptive,
            SafetyNetArg::Off => SafetyNetMode::Off,
            SafetyNetArg::PerLane => SafetyNetMode::PerLane,
        },
        wfv_slp: cli.wfv_slp == OnOffArg::On,
        dynamic_tests: cli.dynamic_tests == OnOffArg::On,
        speculative_loads: cli.speculative_loads == OnOffArg::On,
        wide_cells: cli.wide_cells == OnOffArg::On,
        exact_vector_math: cli.exact_vector_math == OnOffArg::On,
        gather_pairs: cli.gather_pairs == OnOffArg::On,
        gather_forms: cli.gather_forms == OnOffArg::On,
        flatten_nests: match cli.flatten_nests {
            FlattenNestsArg::Auto => FlattenNests::Auto,
            FlattenNestsArg::Off => FlattenNests::Off,
            FlattenNestsArg::Always => FlattenNests::Always,
        },
        keep_going: cli.keep_going,
        verify_each: cli.verify_each,
        instrument_utilization: cli.instrument_utilization,
        simd_loops: cli.simd_loops,
        simd_tail: match cli.simd_tail {
            SimdTailArg::Auto => TailPolicy::Auto,
            SimdTailArg::Masked => TailPolicy::Masked,
            SimdTailArg::Scalar => TailPolicy::Scalar,
        },
        simd_loops_cost: cli.simd_loops_cost == OnOffArg::On,
        narrow_loops: match cli.narrow_loops {
            NarrowLoopsArg::Auto => NarrowLoops::Auto,
            NarrowLoopsArg::Off => NarrowLoops::Off,
            NarrowLoopsArg::Always => NarrowLoops::Always,
        },
        annotate_variants: false,
        weak_variant_fallbacks: false,
    };
    // A file that crashes LLVM's reader must not crash lanewise.
    let input = isolate::read_input(&cli.input)?;
    isolate::check_module_in_child(&cli.input, &input)?;
    let input_name = cli.input.display().to_string();
    let (report, times) = lanewise::pass_times::record(|| {
        lanewise::pass_times::time("llvm: read, check and write the module", || {
            lanewise::vectorize_bytes_to_file(&input, &input_name, &cli.output, format, &options)
        })
    });
    if cli.time_passes {
        eprintln!("{times}");
    }
    let report = report.map_err(|error| one_line_message(&error))?;
    for skipped in &report.skipped {
        eprintln!("lanewise: warning: {}", printable(skipped));
    }
    if let Some(path) = &cli.report {
        let json = serde_json::to_string_pretty(&report).expect("the report serializes");
        std::fs::write(path, json + "\n")
            .map_err(|error| format!("cannot write `{}`: {error}", path.display()))?;
    }
    if cli.stats {
        eprint!("{}", report.summary());
    }
    Ok(())
}

/// Errors on user input are one line ([`lanewise::Error::summary_line`]:
/// LLVM's parser adds the offending source line and a caret below its
/// message; those are dropped). Internal errors (the verifiers rejecting what
/// lanewise produced) keep every line: they are bugs to report in full.
fn one_line_message(error: &lanewise::Error) -> String {
    if error.is_internal() {
        return error.to_string();
    }
    printable(&error.summary_line())
}

/// `text` with its control characters escaped (`\r`, `\n`, `\u{1b}`): names
/// taken from the input (function names, `_ZGV` attributes) may hold any
/// byte, and a message must stay one line on a terminal.
pub(crate) fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}
