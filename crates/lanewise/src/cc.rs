//! `lanewise cc`: a drop-in replacement for `clang-22` that runs Lanewise in
//! the middle of the compilation (issue 5).
//!
//! clang-22 names the vector variants of `#pragma omp declare simd` functions
//! (`_ZGV...` attributes) but generates no bodies for them, and leaves
//! `#pragma omp simd` loops with calls or divergent inner loops scalar.
//! `lanewise cc [clang flags] files... -o out` accepts what clang accepts and
//! produces the same kinds of outputs. Per C/C++ source file:
//!
//! 1. **Frontend and scalar optimization**: `clang-22 <user flags>
//!    -fno-vectorize -fno-slp-vectorize -mllvm -unroll-runtime=false
//!    -mllvm -unroll-allow-partial=false -mllvm -unroll-full-max-count=0
//!    -Wno-pass-failed -S -emit-llvm -o tmp.ll file.c`. clang's diagnostics
//!    go straight to the user's stderr. `-mllvm -force-vector-width=1
//!    -mllvm -force-vector-interleave=1` keep LLVM's loop vectorizer, which
//!    the `omp simd` loops' metadata would force on, from them
//!    ([`STEP1_LOOP_VECTORIZER_OPTIONS`]): they stay scalar with their
//!    metadata for Lanewise. Step 1 must not unroll: LLVM's
//!    runtime unroller would unroll those scalar loops by 2-4, each lane of
//!    the outlined body would then run several iterations, and every `a[i]`
//!    would become a strided gather (reduce_float 0.55x, lastprivate_values
//!    0.9x; 1.0x and 2.7x without), and fully unrolled inner loops with early
//!    exits become long linearized sequences (lastprivate_values 0.7x). The
//!    `-mllvm` options do that without `-fno-unroll-loops`, whose loop
//!    metadata would also keep step 3 from unrolling the loops left scalar
//!    ([`step1_unroll_args`]); step 3 unrolls what is left scalar.
//! 2. **Lanewise** on the module, in process ([`lanewise::vectorize_module`]):
//!    declare-simd variants and `omp simd` loops, `keep_going` (a function
//!    Lanewise refuses stays scalar, with a warning), vector math through
//!    libmvec only when the user allowed approximate math (`-ffast-math`,
//!    `-funsafe-math-optimizations`, `-fveclib=libmvec`), otherwise
//!    bit-exact. If Lanewise fails on the whole module (or panics), the
//!    unmodified module of step 1 is compiled: never a failed build, never
//!    wrong code because of Lanewise.
//! 3. **Back end**: `clang-22 <codegen flags> -x ir tmp.bc -c|-S [-emit-llvm]
//!    -o out`: the `-O` pipeline runs again (it inlines and cleans up the
//!    vector bodies, and vectorizes the ordinary loops step 1 left alone),
//!    then code generation. Preprocessor, language and warning flags are not
//!    passed (they mean nothing for IR).
//! 4. **Link** (neither `-c`, `-S` nor `-E`): every source becomes a temporary
//!    object; objects, libraries, other inputs and the link flags go to
//!    `clang-22` in their original order.
//!
//! The arguments are classified by a table of clang options
//! ([`OPTION_TABLE`]): whether an option takes a value (so values are never
//! mistaken for inputs) and which steps it belongs to ([`Stage`]). Unknown
//! options go to step 1 and to the link, where clang judges them as it would
//! without Lanewise.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicU32, Ordering};

use clap::ValueEnum;
use lanewise::pass_times::time;
use lanewise::{
    Mode, NarrowLoops, Options, OutputFormat, Remark, RemarkKind, Report, SafetyNetMode, Slp,
    TailPolicy, VariantSelection, VectorMath,
};

use crate::{SlpAlgorithmArg, SlpArg};

/// The LLVM options that keep step 1 from unrolling (runtime, partial and
/// full unrolling), passed with `-mllvm`.
const STEP1_UNROLL_OPTIONS: [&str; 3] =
    ["-unroll-runtime=false", "-unroll-allow-partial=false", "-unroll-full-max-count=0"];

/// The arguments that keep step 1 from unrolling: [`STEP1_UNROLL_OPTIONS`],
/// not `-fno-unroll-loops`, which makes the frontend mark every loop
/// `llvm.loop.unroll.disable` for good, so that step 3 could not unroll the
/// loops Lanewise leaves scalar either (nested_simd_outer: 0.83x of clang
/// with the marks, 1.0x without). An option the user already gives with
/// `-mllvm` is left to the user's value (LLVM accepts each option once).
fn step1_unroll_args(invocation: &Invocation) -> Vec<String> {
    mllvm_args_unless_given(invocation, &STEP1_UNROLL_OPTIONS)
}

/// The LLVM options that keep step 1's loop vectorizer from vectorizing the
/// `omp simd` loops, whose `llvm.loop.vectorize.enable` metadata forces it
/// on despite `-fno-vectorize`: at width 1 and interleave count 1 it leaves
/// them scalar, metadata and all, and Lanewise vectorizes every one of
/// them. LLVM 22's loop vectorizer miscompiles some: a uniform `urem`
/// predicated on lane 0 gave a `phi [poison, ...]` that the next lanes'
/// loads used as their address (SIGSEGV at x86-64-v2, wrong values at
/// x86-64-v4, also with plain `clang-22 -O2 -fopenmp-simd`;
/// tests/fuzz_regressions/022). A loop Lanewise refuses is left to step 3,
/// whose loop vectorizer runs as usual.
const STEP1_LOOP_VECTORIZER_OPTIONS: [&str; 2] =
    ["-force-vector-width=1", "-force-vector-interleave=1"];

/// The LLVM options that keep the first half of step 3 (with `--slp
/// lanewise`) from partial and runtime unrolling, which LLVM's pipeline does
/// after its SLP vectorizer: Lanewise's basic-block vectorizer runs in that
/// place, and the unroller after it
/// ([`lanewise::vectorize_basic_blocks_of_module`] with `unrolling_held`).
/// Full unrolling stays where it is, before.
const STEP3_UNROLL_OPTIONS: [&str; 2] = ["-unroll-runtime=false", "-unroll-allow-partial=false"];

/// `-mllvm OPTION` for each of `options` the user does not give with
/// `-mllvm` already (LLVM accepts each option once; the user's value wins).
fn mllvm_args_unless_given(invocation: &Invocation, options: &[&str]) -> Vec<String> {
    let user_words = invocation.option_words(&[Stage::Frontend, Stage::Codegen, Stage::Unknown]);
    let mut args = Vec::new();
    for &option in options {
        let name = option.split('=').next().unwrap_or(option);
        if !user_words.iter().any(|word| word.split('=').next() == Some(name)) {
            args.extend(["-mllvm".to_owned(), option.to_owned()]);
        }
    }
    args
}

/// Which clang driver `lanewise` stands in for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Language {
    /// `lanewise cc`: `clang-22` (or `LANEWISE_CLANG`).
    C,
    /// `lanewise c++`: `clang++-22` (or `LANEWISE_CLANGXX`), which links the
    /// C++ standard library.
    Cxx,
}

impl Language {
    /// The environment variable naming the clang binary, the default binary,
    /// and where Debian's LLVM 22 packages put it when it is not on PATH.
    fn clang_names(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Language::C => ("LANEWISE_CLANG", "clang-22", "/usr/lib/llvm-22/bin/clang"),
            Language::Cxx => ("LANEWISE_CLANGXX", "clang++-22", "/usr/lib/llvm-22/bin/clang++"),
        }
    }
}

/// Which sub-commands an option belongs to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Preprocessor, language dialect, diagnostics: step 1 only.
    Frontend,
    /// Code generation (`-O`, `-m*`, most `-f*`, `-g`, remarks): steps 1 and 3
    /// and the link.
    Codegen,
    /// Instrumentation the frontend's pipeline inserts (sanitizers,
    /// profiling, coverage): step 1 and the link, not step 3, which would
    /// instrument a second time.
    Instrumentation,
    /// The linker (`-l`, `-L`, `-Wl,`, `-shared`, ...): the link only.
    Link,
    /// Options the table does not know: step 1 and the link, as clang
    /// would see them (clang reports the unknown ones itself).
    Unknown,
}

/// How an option takes its value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValueForm {
    /// No value (`-c`), or the value is part of the name (`-std=c11`).
    Flag,
    /// The value follows in the same argument (`-Wl,x`, `-fuse-ld=lld`).
    Joined,
    /// The value is the next argument (`-Xlinker x`).
    Separate,
    /// Either (`-Idir` or `-I dir`).
    JoinedOrSeparate,
}

/// One row of the option table: an option name (or prefix, for the joined
/// forms), its value form and its stage.
#[derive(Copy, Clone, Debug)]
pub struct OptionSpec {
    pub name: &'static str,
    pub form: ValueForm,
    pub stage: Stage,
}

const fn spec(name: &'static str, form: ValueForm, stage: Stage) -> OptionSpec {
    OptionSpec { name, form, stage }
}

use Stage::{Codegen, Frontend, Instrumentation, Link};
use ValueForm::{Flag, Joined, JoinedOrSeparate, Separate};

/// The clang options `lanewise cc` knows, longest prefixes first within a
/// family (the lookup takes the longest matching name). Options handled by
/// the driver itself (`-c`, `-S`, `-E`, `-o`, `-x`, `-emit-llvm`, `-v`, ...)
/// are not here; see [`parse_arguments`].
pub const OPTION_TABLE: &[OptionSpec] = &[
    // Preprocessor.
    spec("-I", JoinedOrSeparate, Frontend),
    spec("-D", JoinedOrSeparate, Frontend),
    spec("-U", JoinedOrSeparate, Frontend),
    spec("-include", JoinedOrSeparate, Frontend),
    spec("-include-pch", Separate, Frontend),
    spec("-imacros", JoinedOrSeparate, Frontend),
    spec("-isystem", JoinedOrSeparate, Frontend),
    spec("-isystem-after", JoinedOrSeparate, Frontend),
    spec("-iquote", JoinedOrSeparate, Frontend),
    spec("-idirafter", JoinedOrSeparate, Frontend),
    spec("-iprefix", JoinedOrSeparate, Frontend),
    spec("-iwithprefix", JoinedOrSeparate, Frontend),
    spec("-iwithprefixbefore", JoinedOrSeparate, Frontend),
    spec("-iwithsysroot", JoinedOrSeparate, Frontend),
    spec("-isysroot", JoinedOrSeparate, Frontend),
    spec("-ivfsoverlay", JoinedOrSeparate, Frontend),
    spec("-nostdinc", Flag, Frontend),
    spec("-nostdinc++", Flag, Frontend),
    spec("-nostdlibinc", Flag, Frontend),
    spec("-undef", Flag, Frontend),
    spec("-C", Flag, Frontend),
    spec("-CC", Flag, Frontend),
    spec("-P", Flag, Frontend),
    spec("-H", Flag, Frontend),
    spec("-trigraphs", Flag, Frontend),
    spec("-Xpreprocessor", Separate, Frontend),
    spec("-Wp,", Joined, Frontend),
    spec("-Xclang", Separate, Frontend),
    // Dependency files (with the compilation; `-M`/`-MM` alone pass through).
    spec("-MD", Flag, Frontend),
    spec("-MMD", Flag, Frontend),
    spec("-MP", Flag, Frontend),
    spec("-MG", Flag, Frontend),
    spec("-MV", Flag, Frontend),
    spec("-MF", JoinedOrSeparate, Frontend),
    spec("-MT", JoinedOrSeparate, Frontend),
    spec("-MQ", JoinedOrSeparate, Frontend),
    spec("-MJ", JoinedOrSeparate, Frontend),
    spec("-dependency-file", Separate, Frontend),
    spec("-serialize-diagnostics", Separate, Frontend),
    // Language dialect and diagnostics.
    spec("-std=", Joined, Frontend),
    spec("--std=", Joined, Frontend),
    spec("-ansi", Flag, Frontend),
    spec("-pedantic", Flag, Frontend),
    spec("-pedantic-errors", Flag, Frontend),
    spec("-W", Joined, Frontend),
    spec("-ferror-limit=", Joined, Frontend),
    spec("-fdiagnostics-", Joined, Frontend),
    spec("-fcolor-diagnostics", Flag, Frontend),
    spec("-fno-color-diagnostics", Flag, Frontend),
    spec("-fmacro-backtrace-limit=", Joined, Frontend),
    spec("-ftemplate-backtrace-limit=", Joined, Frontend),
    spec("-fcaret-diagnostics", Flag, Frontend),
    spec("-fno-caret-diagnostics", Flag, Frontend),
    spec("-fshow-column", Flag, Frontend),
    spec("-fno-show-column", Flag, Frontend),
    spec("-fmessage-length=", Joined, Frontend),
    spec("-fopenmp-simd", Flag, Frontend),
    spec("-fno-openmp-simd", Flag, Frontend),
    spec("-fprofile-instr-use", Joined, Frontend),
    spec("-fprofile-use", Joined, Frontend),
    spec("-fprofile-sample-use=", Joined, Frontend),
    // Code generation: all three steps.
    spec("-O", Joined, Codegen),
    spec("-m", Joined, Codegen),
    spec("-f", Joined, Codegen),
    spec("-g", Joined, Codegen),
    spec("-R", Joined, Codegen),
    spec("-w", Flag, Codegen),
    spec("-pthread", Flag, Codegen),
    spec("-target", Separate, Codegen),
    spec("--target=", Joined, Codegen),
    spec("-mllvm", Separate, Codegen),
    spec("-Wa,", Joined, Codegen),
    spec("-Xassembler", Separate, Codegen),
    spec("--sysroot", JoinedOrSeparate, Codegen),
    spec("--gcc-toolchain=", Joined, Codegen),
    spec("--gcc-install-dir=", Joined, Codegen),
    spec("-B", JoinedOrSeparate, Codegen),
    spec("-resource-dir", JoinedOrSeparate, Codegen),
    spec("-stdlib=", Joined, Codegen),
    spec("--param", JoinedOrSeparate, Codegen),
    spec("-save-temps", Joined, Codegen),
    // Instrumentation inserted by the frontend's pipeline.
    spec("-fsanitize", Joined, Instrumentation),
    spec("-fno-sanitize", Joined, Instrumentation),
    spec("-fprofile-instr-generate", Joined, Instrumentation),
    spec("-fprofile-generate", Joined, Instrumentation),
    spec("-fcs-profile-generate", Joined, Instrumentation),
    spec("-fprofile-arcs", Flag, Instrumentation),
    spec("-ftest-coverage", Flag, Instrumentation),
    spec("-fcoverage-mapping", Flag, Instrumentation),
    spec("--coverage", Flag, Instrumentation),
    spec("-fxray-instrument", Flag, Instrumentation),
    spec("-finstrument-functions", Flag, Instrumentation),
    spec("-pg", Flag, Instrumentation),
    // The linker.
    spec("-l", JoinedOrSeparate, Link),
    spec("-L", JoinedOrSeparate, Link),
    spec("-Wl,", Joined, Link),
    spec("-Xlinker", Separate, Link),
    spec("-u", JoinedOrSeparate, Link),
    spec("-z", JoinedOrSeparate, Link),
    spec("-T", JoinedOrSeparate, Link),
    spec("-e", JoinedOrSeparate, Link),
    spec("-rpath", Separate, Link),
    spec("-shared", Flag, Link),
    spec("-static", Flag, Link),
    spec("-static-pie", Flag, Link),
    spec("-static-libgcc", Flag, Link),
    spec("-static-libstdc++", Flag, Link),
    spec("-shared-libgcc", Flag, Link),
    spec("-rdynamic", Flag, Link),
    spec("-nostdlib", Flag, Link),
    spec("-nostdlib++", Flag, Link),
    spec("-nostartfiles", Flag, Link),
    spec("-nodefaultlibs", Flag, Link),
    spec("-nolibc", Flag, Link),
    spec("-pie", Flag, Link),
    spec("-no-pie", Flag, Link),
    spec("-s", Flag, Link),
    spec("-r", Flag, Link),
    spec("-fuse-ld=", Joined, Link),
    spec("--ld-path=", Joined, Link),
    spec("-rtlib=", Joined, Link),
    spec("--rtlib=", Joined, Link),
    spec("-unwindlib=", Joined, Link),
];

/// The row of [`OPTION_TABLE`] for `argument`: an exact match for options
/// without a joined value, otherwise the longest joined prefix.
pub fn lookup_option(argument: &str) -> Option<&'static OptionSpec> {
    OPTION_TABLE
        .iter()
        .filter(|row| match row.form {
            Flag | Separate => argument == row.name,
            Joined | JoinedOrSeparate => argument.starts_with(row.name),
        })
        .max_by_key(|row| (argument == row.name, row.name.len()))
}

/// The language of an input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// C or C++ (also preprocessed): compiled through steps 1-3.
    Source,
    /// LLVM IR text or bitcode: steps 2 and 3.
    Ir,
    /// Other languages clang compiles (assembly, Objective-C, ...): compiled
    /// by clang alone, with every flag.
    Other,
    /// Objects, archives, shared libraries, files clang does not know: for
    /// the linker.
    Linker,
}

/// One input file, with the `-x` language in force where it appeared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    pub path: String,
    pub kind: InputKind,
    /// The `-x` value in force for this input, if any.
    pub language: Option<String>,
}

/// An argument (or an option with its separate value) in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Input(Input),
    Option { words: Vec<String>, stage: Stage },
}

/// What the command asks for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// No `-c`/`-S`: compile and link.
    Link,
    /// `-c`: one object (or bitcode with `-emit-llvm`) per input.
    Compile,
    /// `-S`: one assembly file (or IR text with `-emit-llvm`) per input.
    Assemble,
}

/// A parsed `lanewise cc` command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    pub action: Action,
    pub emit_llvm: bool,
    pub output: Option<String>,
    pub items: Vec<Item>,
    /// `-v`: print the sub-commands.
    pub verbose: bool,
    /// Why the whole command goes to clang unchanged, if it does.
    pub pass_through: Option<String>,
    /// `-Rpass=lanewise` (or a regex that matches it).
    pub remarks_passed: bool,
    /// `-Rpass-missed=lanewise`.
    pub remarks_missed: bool,
    /// How libm calls are vectorized: `-fveclib=libmvec` asks for libmvec
    /// everywhere (`-fveclib=none` undoes it; the last wins); otherwise
    /// each call as its fast-math flags say ([`VectorMath::Auto`]: clang
    /// marks calls `afn` under `-ffast-math`, `-funsafe-math-optimizations`
    /// and `-fapprox-func`).
    pub vector_math: VectorMath,
    /// `-w`: no warnings.
    pub no_warnings: bool,
    /// `--slp lanewise|llvm|off` and `--slp-algorithm tree|pair`, Lanewise's
    /// own options (clang never sees them): which basic-block vectorizer
    /// runs on the optimized module ([`Driver::backend`]).
    pub slp: SlpChoice,
    /// An invalid value of a Lanewise option: the error message.
    pub lanewise_option_error: Option<String>,
}

/// The basic-block vectorizer of `lanewise cc` (`--slp`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SlpChoice {
    pub slp: SlpArg,
    pub algorithm: SlpAlgorithmArg,
}

/// The default of `--slp`.
pub const DEFAULT_SLP: SlpArg = SlpArg::Llvm;

/// Lanewise's own options of `lanewise cc`, each with a value.
const LANEWISE_OPTIONS: [&str; 2] = ["--slp", "--slp-algorithm"];

/// The value of Lanewise option `name` as `argument` (and maybe `next`)
/// give it, and how many words it takes; `None` if `argument` is not it.
fn lanewise_option<'a>(
    name: &str,
    argument: &'a str,
    next: Option<&'a String>,
) -> Option<(Option<&'a str>, usize)> {
    if argument == name {
        return Some((next.map(String::as_str), 2));
    }
    let value = argument.strip_prefix(name)?.strip_prefix('=')?;
    Some((Some(value), 1))
}

/// Records the value of Lanewise's own option `name` (`--slp`,
/// `--slp-algorithm`), or the error of an invalid one.
fn note_lanewise_option(invocation: &mut Invocation, name: &str, value: Option<&str>) {
    let valid = match (name, value) {
        ("--slp", Some(value)) => {
            SlpArg::from_str(value, false).map(|slp| invocation.slp.slp = slp).is_ok()
        }
        ("--slp-algorithm", Some(value)) => SlpAlgorithmArg::from_str(value, false)
            .map(|algorithm| invocation.slp.algorithm = algorithm)
            .is_ok(),
        _ => false,
    };
    if !valid {
        let expected =
            if name == "--slp" { "`lanewise`, `llvm` or `off`" } else { "`tree` or `pair`" };
        invocation.lanewise_option_error.get_or_insert(format!(
            "`{name}` takes {expected}, not `{}`",
            value.unwrap_or_default()
        ));
    }
}

/// `arguments` without Lanewise's own options, for clang.
fn without_lanewise_options(arguments: &[OsString]) -> Vec<OsString> {
    let mut kept = Vec::with_capacity(arguments.len());
    let mut index = 0;
    while index < arguments.len() {
        let argument = arguments[index].to_string_lossy();
        let words = LANEWISE_OPTIONS
            .iter()
            .find_map(|name| lanewise_option(name, &argument, None).map(|(_, words)| words));
        match words {
            Some(words) => index += words,
            None => {
                kept.push(arguments[index].clone());
                index += 1;
            }
        }
    }
    kept
}

impl Invocation {
    pub fn inputs(&self) -> impl Iterator<Item = &Input> {
        self.items.iter().filter_map(|item| match item {
            Item::Input(input) => Some(input),
            Item::Option { .. } => None,
        })
    }

    /// The option words of the given stages, in order.
    fn option_words(&self, stages: &[Stage]) -> Vec<String> {
        let mut words = Vec::new();
        for item in &self.items {
            if let Item::Option { words: option, stage } = item {
                if stages.contains(stage) {
                    words.extend(option.iter().cloned());
                }
            }
        }
        words
    }

    fn has_option(&self, name: &str) -> bool {
        self.items.iter().any(|item| match item {
            Item::Option { words, .. } => words.first().is_some_and(|first| first == name),
            Item::Input(_) => false,
        })
    }

    fn has_option_prefix(&self, prefix: &str) -> bool {
        self.items.iter().any(|item| match item {
            Item::Option { words, .. } => words.first().is_some_and(|w| w.starts_with(prefix)),
            Item::Input(_) => false,
        })
    }
}

/// The kind of an input by its `-x` language, or else by its extension.
pub fn input_kind(path: &str, language: Option<&str>) -> InputKind {
    if let Some(language) = language {
        return match language {
            "c" | "c++" | "cpp-output" | "c++-cpp-output" | "c-cpp-output" => InputKind::Source,
            "ir" => InputKind::Ir,
            "none" => InputKind::Linker,
            _ => InputKind::Other,
        };
    }
    let extension = Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or("");
    match extension {
        "c" | "i" | "cc" | "cp" | "cpp" | "cxx" | "c++" | "C" | "CC" | "CPP" | "ii" => {
            InputKind::Source
        }
        "ll" | "bc" => InputKind::Ir,
        "s" | "S" | "sx" | "m" | "mm" | "M" | "cu" | "cl" | "hip" | "h" | "hh" | "hpp" => {
            InputKind::Other
        }
        _ => InputKind::Linker,
    }
}

/// Whether a `-Rpass=` regex asks for Lanewise's remarks. There is no regex
/// engine here: `lanewise`, `.*`, `.+` and alternatives (`a|lanewise`) are
/// recognized, which covers how the option is used.
pub fn remark_regex_matches_lanewise(regex: &str) -> bool {
    regex.split('|').any(|alternative| {
        let alternative = alternative.trim_start_matches('^').trim_end_matches('$');
        matches!(alternative, ".*" | ".+" | "lanewise" | "lanewise.*" | ".*lanewise.*")
    })
}

/// Options after which the whole command goes to clang unchanged.
const PASS_THROUGH_OPTIONS: &[&str] = &[
    "-E",
    "-M",
    "-MM",
    "-fsyntax-only",
    "-###",
    "--version",
    "-dumpversion",
    "-dumpmachine",
    "--help",
    "-help",
    "-cc1",
    "-cc1as",
    "--analyze",
    "-emit-ast",
    "-precompile",
];

/// Classifies `arguments` (response files already expanded).
pub fn parse_arguments(arguments: &[String]) -> Invocation {
    let mut invocation = Invocation {
        action: Action::Link,
        emit_llvm: false,
        output: None,
        items: Vec::new(),
        verbose: false,
        pass_through: None,
        remarks_passed: false,
        remarks_missed: false,
        vector_math: VectorMath::Auto,
        no_warnings: false,
        slp: SlpChoice { slp: DEFAULT_SLP, algorithm: SlpAlgorithmArg::Tree },
        lanewise_option_error: None,
    };
    // `LANEWISE_SLP` and `LANEWISE_SLP_ALGORITHM` set the defaults of the
    // options (for build systems and the fuzzer); the command line wins.
    for (variable, option) in
        [("LANEWISE_SLP", "--slp"), ("LANEWISE_SLP_ALGORITHM", "--slp-algorithm")]
    {
        if let Ok(value) = std::env::var(variable) {
            note_lanewise_option(&mut invocation, option, Some(&value));
            if let Some(message) = invocation.lanewise_option_error.take() {
                invocation.lanewise_option_error = Some(format!("{variable}: {message}"));
            }
        }
    }
    let mut language: Option<String> = None;
    let mut index = 0;
    while index < arguments.len() {
        let argument = &arguments[index];
        index += 1;
        let next = arguments.get(index);
        let lanewise_words = LANEWISE_OPTIONS.iter().find_map(|name| {
            lanewise_option(name, argument, next).map(|(value, words)| (*name, value, words))
        });
        if let Some((name, value, words)) = lanewise_words {
            index += words - 1;
            note_lanewise_option(&mut invocation, name, value);
            continue;
        }
        if argument == "-" || !argument.starts_with('-') || argument.len() == 1 {
            let kind = input_kind(argument, language.as_deref());
            if argument == "-" && language.is_none() {
                invocation.pass_through.get_or_insert("standard input without -x".to_owned());
            }
            invocation.items.push(Item::Input(Input {
                path: argument.clone(),
                kind,
                language: language.clone(),
            }));
            continue;
        }
        if PASS_THROUGH_OPTIONS.contains(&argument.as_str())
            || argument.starts_with("-print-")
            || argument.starts_with("--print-")
        {
            invocation.pass_through.get_or_insert(format!("`{argument}`"));
            continue;
        }
        match argument.as_str() {
            // `-S` stops earlier than `-c` and wins, as in clang.
            "-c" => {
                if invocation.action != Action::Assemble {
                    invocation.action = Action::Compile;
                }
            }
            "-S" => invocation.action = Action::Assemble,
            "-emit-llvm" => invocation.emit_llvm = true,
            "-v" => invocation.verbose = true,
            "-o" => match next {
                Some(value) => {
                    invocation.output = Some(value.clone());
                    index += 1;
                }
                None => {
                    invocation.pass_through.get_or_insert("`-o` without a value".to_owned());
                }
            },
            "-x" => match next {
                Some(value) => {
                    language = (value != "none").then(|| value.clone());
                    index += 1;
                }
                None => {
                    invocation.pass_through.get_or_insert("`-x` without a value".to_owned());
                }
            },
            _ if argument.starts_with("-o") => invocation.output = Some(argument[2..].to_owned()),
            _ if argument.starts_with("-x") => {
                let value = &argument[2..];
                language = (value != "none").then(|| value.to_owned());
            }
            _ => {
                let (stage, words) = match lookup_option(argument) {
                    Some(row) => {
                        let takes_next = match row.form {
                            Separate => true,
                            JoinedOrSeparate => argument == row.name,
                            Flag | Joined => false,
                        };
                        let mut words = vec![argument.clone()];
                        if takes_next {
                            match next {
                                Some(value) => {
                                    words.push(value.clone());
                                    index += 1;
                                }
                                None => {
                                    invocation
                                        .pass_through
                                        .get_or_insert(format!("`{argument}` without a value"));
                                }
                            }
                        }
                        (row.stage, words)
                    }
                    None => (Stage::Unknown, vec![argument.clone()]),
                };
                note_semantics(&mut invocation, argument);
                invocation.items.push(Item::Option { words, stage });
            }
        }
    }
    if invocation.inputs().next().is_none() {
        invocation.pass_through.get_or_insert("no input files".to_owned());
    } else if invocation
        .inputs()
        .all(|input| matches!(input.kind, InputKind::Other | InputKind::Linker))
    {
        invocation.pass_through.get_or_insert("no C, C++ or LLVM IR input".to_owned());
    } else if invocation.action != Action::Link
        && invocation.output.is_some()
        && invocation.inputs().count() > 1
    {
        invocation.pass_through.get_or_insert("`-o` with several outputs".to_owned());
    }
    invocation
}

/// Records what an option means for Lanewise itself (remarks, vector math, -w).
fn note_semantics(invocation: &mut Invocation, argument: &str) {
    if let Some(regex) = argument.strip_prefix("-Rpass=") {
        invocation.remarks_passed |= remark_regex_matches_lanewise(regex);
    } else if let Some(regex) = argument.strip_prefix("-Rpass-missed=") {
        invocation.remarks_missed |= remark_regex_matches_lanewise(regex);
    }
    match argument {
        "-fveclib=libmvec" => invocation.vector_math = VectorMath::Libmvec,
        "-fveclib=none" => invocation.vector_math = VectorMath::Auto,
        "-w" => invocation.no_warnings = true,
        _ => {}
    }
}

/// Expands `@file` response files (whitespace-separated words, single and
/// double quotes, backslash escapes; nested response files too).
pub fn expand_response_files(arguments: Vec<String>, depth: u32) -> Result<Vec<String>, String> {
    let mut expanded = Vec::new();
    for argument in arguments {
        let Some(path) = argument.strip_prefix('@') else {
            expanded.push(argument);
            continue;
        };
        if depth > 16 {
            return Err(format!("response file `{path}` nests too deeply"));
        }
        let text = fs::read_to_string(path)
            .map_err(|error| format!("cannot read response file `{path}`: {error}"))?;
        expanded.extend(expand_response_files(split_response_file(&text), depth + 1)?);
    }
    Ok(expanded)
}

fn split_response_file(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut characters = text.chars();
    while let Some(character) = characters.next() {
        match (quote, character) {
            (Some(open), c) if c == open => quote = None,
            (None, '\'' | '"') => {
                quote = Some(character);
                in_word = true;
            }
            (_, '\\') => {
                if let Some(escaped) = characters.next() {
                    word.push(escaped);
                }
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (_, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The clang to run: `LANEWISE_CLANG` (`LANEWISE_CLANGXX` for `c++`), else
/// `clang-22` (`clang++-22`) on PATH, else `/usr/lib/llvm-22/bin/clang`
/// (`clang++`).
fn clang_binary(language: Language) -> String {
    let (variable, default, fallback) = language.clang_names();
    if let Ok(clang) = std::env::var(variable) {
        if !clang.is_empty() {
            return clang;
        }
    }
    let on_path = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|directory| directory.join(default).is_file())
    });
    if on_path || !Path::new(fallback).is_file() {
        default.to_owned()
    } else {
        fallback.to_owned()
    }
}

/// The temporary directory of one run, removed when dropped unless
/// `LANEWISE_KEEP_TEMPS=1`.
struct TempDirectory {
    path: PathBuf,
    keep: bool,
}

impl TempDirectory {
    fn create() -> Result<Self, String> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|duration| duration.subsec_nanos())
            .unwrap_or(0);
        let path = std::env::temp_dir().join(format!(
            "lanewise-cc-{}-{nanos}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&path)
            .map_err(|error| format!("cannot create `{}`: {error}", path.display()))?;
        let keep = std::env::var("LANEWISE_KEEP_TEMPS").is_ok_and(|value| value == "1");
        if keep {
            eprintln!("lanewise cc: keeping temporary files in {}", path.display());
        }
        Ok(TempDirectory { path, keep })
    }
}

impl Drop for TempDirectory {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

/// How a sub-command ended badly: clang's exit code, or our own error.
enum Failure {
    /// A clang step failed; its diagnostics are already on stderr.
    Clang(i32),
    /// `lanewise cc` itself could not continue (message printed by the caller).
    Driver(String),
}

/// One run of `lanewise cc`.
struct Driver {
    clang: String,
    invocation: Invocation,
    temps: TempDirectory,
    next_temp: u32,
    /// `_ZGV` variant names per function, from every translation unit of
    /// this invocation (see [`Driver::share_variant_names`]).
    shared_variants: HashMap<String, Vec<String>>,
    /// Functions with variants that a translation unit of this invocation
    /// declares without defining: another file may call any of their
    /// variants, so all get bodies of their own (`Options::full_variants`).
    called_across_files: Vec<String>,
}

/// Entry point: `arguments` are those after `cc` (or `c++`). Returns the
/// exit code.
pub fn main(language: Language, arguments: Vec<OsString>) -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!(
            "lanewise cc: warning: internal error in lanewise (a bug; the module is compiled \
             without it): {info}"
        );
    }));
    lanewise_llvm::report_llvm_fatal_errors_as("lanewise cc: error: LLVM: ");
    let clang = clang_binary(language);
    let mut strings = Vec::with_capacity(arguments.len());
    for argument in &arguments {
        match argument.to_str() {
            Some(text) => strings.push(text.to_owned()),
            // Non-UTF-8 arguments: clang gets the command exactly as given.
            None => return exit_code(run_clang_raw(&clang, &arguments)),
        }
    }
    let strings = match expand_response_files(strings, 0) {
        Ok(strings) => strings,
        Err(message) => {
            eprintln!("lanewise cc: error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let invocation = parse_arguments(&strings);
    if let Some(message) = &invocation.lanewise_option_error {
        eprintln!("lanewise cc: error: {message}");
        return ExitCode::FAILURE;
    }
    if let Some(reason) = &invocation.pass_through {
        if invocation.verbose {
            eprintln!("lanewise cc: passing the command to clang unchanged ({reason})");
        }
        return exit_code(run_clang_raw(&clang, &without_lanewise_options(&arguments)));
    }
    let temps = match TempDirectory::create() {
        Ok(temps) => temps,
        Err(message) => {
            eprintln!("lanewise cc: error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let mut driver = Driver {
        clang,
        invocation,
        temps,
        next_temp: 0,
        shared_variants: HashMap::new(),
        called_across_files: Vec::new(),
    };
    // `LANEWISE_TIME_PASSES=1`: the time of each step and Lanewise pass.
    let (result, times) = lanewise::pass_times::record(|| driver.run());
    if std::env::var("LANEWISE_TIME_PASSES").is_ok_and(|value| value == "1") {
        eprintln!("{times}");
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Clang(code)) => exit_code(code),
        Err(Failure::Driver(message)) => {
            eprintln!("lanewise cc: error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

fn run_clang_raw(clang: &str, arguments: &[OsString]) -> i32 {
    match Command::new(clang).args(arguments).status() {
        Ok(status) => status.code().unwrap_or(1),
        Err(error) => {
            eprintln!("lanewise cc: error: cannot run `{clang}`: {error}");
            1
        }
    }
}

impl Driver {
    fn run(&mut self) -> Result<(), Failure> {
        let inputs: Vec<Input> = self.invocation.inputs().cloned().collect();
        let mut first_failure: Option<Failure> = None;
        // Where each compiled input goes: the final output (-c/-S) or a
        // temporary object (linking).
        let mut outputs: HashMap<usize, (PathBuf, OutputKind)> = HashMap::new();
        for (position, input) in inputs.iter().enumerate() {
            let output = match self.invocation.action {
                Action::Compile | Action::Assemble => (self.final_output(input), self.final_kind()),
                Action::Link if input.kind == InputKind::Linker => continue,
                Action::Link => (self.temp_path(&stem_of(&input.path), "o"), OutputKind::Object),
            };
            outputs.insert(position, output);
        }
        // Step 1 for every source first, so that a `declare simd` pragma one
        // translation unit saw reaches the definition in another.
        let mut scalars: HashMap<usize, PathBuf> = HashMap::new();
        for (position, input) in inputs.iter().enumerate() {
            let Some((output, _)) = outputs.get(&position) else { continue };
            if input.kind == InputKind::Source {
                let scalar = self.temp_path(&stem_of(&input.path), "ll");
                match self.frontend(input, output, &scalar) {
                    Ok(()) => {
                        scalars.insert(position, scalar);
                    }
                    Err(failure) => {
                        first_failure.get_or_insert(failure);
                    }
                }
            }
        }
        self.share_variant_names(scalars.values());
        let mut objects = HashMap::new();
        for (position, input) in inputs.iter().enumerate() {
            let Some((output, kind)) = outputs.get(&position) else { continue };
            if input.kind == InputKind::Source && !scalars.contains_key(&position) {
                continue; // its frontend failed
            }
            match self.compile_one(input, output, *kind, scalars.get(&position)) {
                Ok(()) => {
                    objects.insert(position, output.clone());
                }
                Err(failure) => {
                    first_failure.get_or_insert(failure);
                }
            }
        }
        if let Some(failure) = first_failure {
            return Err(failure);
        }
        match self.invocation.action {
            Action::Compile | Action::Assemble => Ok(()),
            Action::Link => self.link(&objects),
        }
    }

    /// Collects the `_ZGV` variant names of every function, declared or
    /// defined, in the step-1 modules. clang puts them only on the
    /// declaration that carries `#pragma omp declare simd`: a pragma on a
    /// prototype in a header marks the callers' declarations but not the
    /// definition in another file (nor one in the same file). Step 2 adds
    /// them to the definitions, so the variants the callers reference exist.
    fn share_variant_names<'a>(&mut self, modules: impl Iterator<Item = &'a PathBuf>) {
        for module in modules {
            let functions = lanewise_llvm::with_module(module, |module| {
                let functions = module.functions_with_variants();
                let declared: Vec<String> = functions
                    .iter()
                    .filter(|function| !module.defines_function(&function.name))
                    .map(|function| function.name.clone())
                    .collect();
                Ok((functions, declared))
            });
            let (functions, declared) = functions.unwrap_or_default();
            for name in declared {
                if !self.called_across_files.contains(&name) {
                    self.called_across_files.push(name);
                }
            }
            for function in functions {
                let names = self.shared_variants.entry(function.name).or_default();
                for variant in function.variant_names {
                    if !names.contains(&variant) {
                        names.push(variant);
                    }
                }
            }
        }
    }

    /// Output kind of `-c`/`-S` with or without `-emit-llvm`.
    fn final_kind(&self) -> OutputKind {
        match (self.invocation.action, self.invocation.emit_llvm) {
            (Action::Assemble, false) => OutputKind::Assembly,
            (Action::Assemble, true) => OutputKind::IrText,
            (_, true) => OutputKind::Bitcode,
            (_, false) => OutputKind::Object,
        }
    }

    /// `-o`, or clang's default name in the current directory.
    fn final_output(&self, input: &Input) -> PathBuf {
        if let Some(output) = &self.invocation.output {
            return PathBuf::from(output);
        }
        let extension = match self.final_kind() {
            OutputKind::Assembly => "s",
            OutputKind::IrText => "ll",
            OutputKind::Bitcode => "bc",
            OutputKind::Object => "o",
        };
        PathBuf::from(format!("{}.{extension}", stem_of(&input.path)))
    }

    fn temp_path(&mut self, stem: &str, extension: &str) -> PathBuf {
        self.next_temp += 1;
        self.temps.path.join(format!("{}-{stem}.{extension}", self.next_temp))
    }

    /// Steps 1-3 for one input (step 1 only for sources; other inputs are
    /// compiled by clang alone).
    fn compile_one(
        &mut self,
        input: &Input,
        output: &Path,
        kind: OutputKind,
        frontend_output: Option<&PathBuf>,
    ) -> Result<(), Failure> {
        match input.kind {
            InputKind::Other | InputKind::Linker => {
                let mut command = self.clang_command();
                command.args(self.invocation.option_words(&[
                    Frontend,
                    Codegen,
                    Instrumentation,
                    Stage::Unknown,
                ]));
                command.args(kind.flags()).arg("-o").arg(output);
                add_input(&mut command, input, &mut false);
                self.run_step(command)
            }
            InputKind::Source => {
                let scalar = match frontend_output {
                    Some(scalar) => scalar.clone(),
                    None => {
                        let scalar = self.temp_path(&stem_of(&input.path), "ll");
                        self.frontend(input, output, &scalar)?;
                        scalar
                    }
                };
                let vectorized = self.temp_path(&stem_of(&input.path), "lanewise.bc");
                let backend_input = self.lanewise(&scalar, &vectorized, true);
                self.backend(&backend_input, output, kind)
            }
            InputKind::Ir => {
                // A file LLVM's reader crashes on would crash clang too:
                // an error, before this process parses it.
                if input.path != "-" {
                    let path = Path::new(&input.path);
                    if let Ok(bytes) = std::fs::read(path) {
                        crate::isolate::check_module_in_child(path, &bytes)
                            .map_err(Failure::Driver)?;
                    }
                }
                let vectorized = self.temp_path(&stem_of(&input.path), "lanewise.bc");
                let backend_input = self.lanewise(Path::new(&input.path), &vectorized, false);
                self.backend(&backend_input, output, kind)
            }
        }
    }

    fn clang_command(&self) -> Command {
        Command::new(&self.clang)
    }

    /// Step 1: clang's frontend and scalar optimization, to LLVM IR text.
    fn frontend(&self, input: &Input, final_output: &Path, scalar: &Path) -> Result<(), Failure> {
        let mut command = self.clang_command();
        command.args(self.invocation.option_words(&[
            Frontend,
            Codegen,
            Instrumentation,
            Stage::Unknown,
        ]));
        // Dependency files are named after the real output, not the temporary IR.
        if (self.invocation.has_option("-MD") || self.invocation.has_option("-MMD"))
            && !self.invocation.has_option_prefix("-MF")
        {
            let dependency_file = if self.invocation.action == Action::Link {
                PathBuf::from(format!("{}.d", stem_of(&input.path)))
            } else {
                final_output.with_extension("d")
            };
            command.arg("-MF").arg(dependency_file);
        }
        if (self.invocation.has_option("-MD") || self.invocation.has_option("-MMD"))
            && !self.invocation.has_option_prefix("-MT")
            && !self.invocation.has_option_prefix("-MQ")
        {
            let target = if self.invocation.action == Action::Link {
                PathBuf::from(format!("{}.o", stem_of(&input.path)))
            } else {
                final_output.to_owned()
            };
            command.arg("-MT").arg(target);
        }
        command.args(["-fno-vectorize", "-fno-slp-vectorize"]);
        command.args(step1_unroll_args(&self.invocation));
        command.args(mllvm_args_unless_given(&self.invocation, &STEP1_LOOP_VECTORIZER_OPTIONS));
        command.args(["-Wno-pass-failed", "-S", "-emit-llvm", "-o"]).arg(scalar);
        add_input(&mut command, input, &mut false);
        time("clang: frontend and -O3 (step 1)", || self.run_step(command))
    }

    /// Step 2: Lanewise in process. Returns the module the back end compiles:
    /// the vectorized one, or `scalar` unchanged if Lanewise failed or had
    /// nothing to do.
    fn lanewise(&self, scalar: &Path, vectorized: &Path, from_frontend: bool) -> PathBuf {
        let options = Options {
            mode: Mode::DeclareSimd,
            keep_going: true,
            simd_loops: true,
            // Calls in loops clang vectorizes itself may use our variants.
            annotate_variants: true,
            // Variants whose definition may live in a file compiled without
            // the pragma on it get a weak per-lane fallback.
            weak_variant_fallbacks: true,
            vector_math: self.invocation.vector_math,
            // The Lanewise verifier after every pass: a function that breaks an
            // invariant is skipped (left scalar) instead of miscompiled.
            verify_each: true,
            simd_tail: self.simd_tail(),
            // `LANEWISE_SIMD_LOOPS_COST=off`: vectorize every omp simd loop,
            // even where the cost model expects a slowdown.
            simd_loops_cost: !std::env::var("LANEWISE_SIMD_LOOPS_COST")
                .is_ok_and(|value| value == "off"),
            narrow_loops: self.narrow_loops(),
            safety_net: self.safety_net(),
            // Step 3's `-O3` cleans the added functions up.
            cleanup: false,
            variants: self.variant_selection(),
            full_variants: self.called_across_files.clone(),
            ..Options::default()
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            time("llvm: read and write the module", || {
                lanewise_llvm::with_module(scalar, |module| {
                    // A module whose variants already have bodies (the output of
                    // `lanewise cc -emit-llvm`, or hand-written ones) is left alone.
                    let defined = module.defined_function_names();
                    let already_vectorized = module.defined_functions().iter().any(|function| {
                        function.variant_names.iter().any(|variant| defined.contains(variant))
                    });
                    if already_vectorized {
                        return Ok(LanewiseOutcome::AlreadyVectorized);
                    }
                    for (name, variants) in &self.shared_variants {
                        module.add_variant_attributes(name, variants);
                    }
                    match lanewise::vectorize_module(module, &options) {
                        Ok(report) => {
                            module.write(vectorized, OutputFormat::Bitcode)?;
                            Ok(LanewiseOutcome::Vectorized(report))
                        }
                        Err(error) => Ok(LanewiseOutcome::Failed(error.to_string())),
                    }
                })
            })
        }));
        let outcome = match outcome {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(error)) => LanewiseOutcome::Failed(error.to_string()),
            // The panic hook printed the message.
            Err(_) => return scalar.to_owned(),
        };
        match outcome {
            LanewiseOutcome::Vectorized(report) => {
                let locations = if from_frontend || scalar.extension().is_some_and(|e| e == "ll") {
                    fs::read_to_string(scalar)
                        .map(|text| FunctionLocations::parse(&text))
                        .unwrap_or_default()
                } else {
                    FunctionLocations::default()
                };
                self.print_remarks(&report, &locations);
                vectorized.to_owned()
            }
            LanewiseOutcome::AlreadyVectorized => {
                if self.invocation.verbose {
                    eprintln!(
                        "lanewise cc: {} already has vector variant bodies; Lanewise not run",
                        scalar.display()
                    );
                }
                scalar.to_owned()
            }
            LanewiseOutcome::Failed(message) => {
                if !self.invocation.no_warnings {
                    let first_line = crate::printable(message.lines().next().unwrap_or_default());
                    eprintln!(
                        "lanewise cc: warning: Lanewise failed on {}; compiled without vector \
                         variants: {first_line}",
                        scalar.display()
                    );
                }
                scalar_with_one_lane_builtins(scalar, vectorized)
            }
        }
    }

    /// `LANEWISE_SIMD_TAIL=auto|masked|scalar` (`--simd-tail` of the
    /// `lanewise` command; clang's command line has no room for it). An
    /// unknown value is a warning and means `auto`.
    fn simd_tail(&self) -> TailPolicy {
        let Ok(value) = std::env::var("LANEWISE_SIMD_TAIL") else { return TailPolicy::Auto };
        match value.as_str() {
            "" | "auto" => TailPolicy::Auto,
            "masked" => TailPolicy::Masked,
            "scalar" => TailPolicy::Scalar,
            other => {
                if !self.invocation.no_warnings {
                    eprintln!(
                        "lanewise cc: warning: LANEWISE_SIMD_TAIL={other}: expected auto, masked \
                         or scalar; using auto"
                    );
                }
                TailPolicy::Auto
            }
        }
    }

    /// `LANEWISE_VARIANTS=all|shared|referenced` (`--variants` of the
    /// `lanewise` command; default `shared`). An unknown value is a warning
    /// and means `shared`.
    fn variant_selection(&self) -> VariantSelection {
        let Ok(value) = std::env::var("LANEWISE_VARIANTS") else {
            return VariantSelection::Shared;
        };
        value.parse().unwrap_or_else(|message| {
            if !self.invocation.no_warnings {
                eprintln!("lanewise cc: warning: LANEWISE_VARIANTS={message}; using shared");
            }
            VariantSelection::Shared
        })
    }

    /// `LANEWISE_NARROW_LOOPS=auto|off|always` (`--narrow-loops` of the
    /// `lanewise` command). An unknown value is a warning and means `auto`.
    fn narrow_loops(&self) -> NarrowLoops {
        let Ok(value) = std::env::var("LANEWISE_NARROW_LOOPS") else { return NarrowLoops::Auto };
        match value.as_str() {
            "" | "auto" => NarrowLoops::Auto,
            "off" => NarrowLoops::Off,
            "always" => NarrowLoops::Always,
            other => {
                if !self.invocation.no_warnings {
                    eprintln!(
                        "lanewise cc: warning: LANEWISE_NARROW_LOOPS={other}: expected auto, off \
                         or always; using auto"
                    );
                }
                NarrowLoops::Auto
            }
        }
    }

    /// `LANEWISE_SAFETY_NET=adaptive|off|per-lane` (`--safety-net` of the
    /// `lanewise` command). An unknown value is a warning and means
    /// `adaptive`.
    fn safety_net(&self) -> SafetyNetMode {
        let Ok(value) = std::env::var("LANEWISE_SAFETY_NET") else {
            return SafetyNetMode::Adaptive;
        };
        match value.as_str() {
            "" | "adaptive" => SafetyNetMode::Adaptive,
            "off" => SafetyNetMode::Off,
            "per-lane" => SafetyNetMode::PerLane,
            other => {
                if !self.invocation.no_warnings {
                    eprintln!(
                        "lanewise cc: warning: LANEWISE_SAFETY_NET={other}: expected adaptive, \
                         off or per-lane; using adaptive"
                    );
                }
                SafetyNetMode::Adaptive
            }
        }
    }

    fn print_remarks(&self, report: &Report, locations: &FunctionLocations) {
        for remark in &report.remarks {
            let wanted = match remark.kind {
                RemarkKind::Passed => self.invocation.remarks_passed,
                RemarkKind::Missed => self.invocation.remarks_missed,
            };
            if wanted {
                eprintln!("{}", format_remark(remark, locations));
            }
        }
        // A declare-simd function without its variants can break the link of
        // a caller in another translation unit: always worth a warning.
        if !self.invocation.no_warnings {
            for skipped in &report.skipped {
                let skipped = crate::printable(skipped);
                eprintln!("lanewise cc: warning: vector variants not generated: {skipped}");
            }
        }
    }

    /// Step 3: clang's back end on the (vectorized) module.
    ///
    /// With `--slp lanewise` the step is split in three: clang's `-O`
    /// pipeline without its SLP vectorizer, to bitcode; Lanewise's
    /// basic-block vectorizer in process ([`lanewise::vectorize_basic_blocks_of_module`]),
    /// after LLVM fully unrolled the small loops whose bodies it fuses, and
    /// then the rest of LLVM's pipeline after its SLP vectorizer (partial and
    /// runtime unrolling held back until then, [`STEP3_UNROLL_OPTIONS`], so
    /// that the unroller sees the fused loop bodies, as it sees LLVM's); code
    /// generation only (`-disable-llvm-passes`). If Lanewise fails there,
    /// the optimized module is compiled as it is.
    fn backend(&mut self, module: &Path, output: &Path, kind: OutputKind) -> Result<(), Failure> {
        let mut command = self.clang_command();
        command.args(self.invocation.option_words(&[Codegen]));
        command.args(["-Wno-unused-command-line-argument", "-Wno-pass-failed"]);
        let slp = self.invocation.slp.slp.with_algorithm(self.invocation.slp.algorithm);
        if slp != Slp::Llvm {
            command.arg("-fno-slp-vectorize");
        }
        if !matches!(slp, Slp::Lanewise(_)) {
            command.args(kind.flags()).arg("-o").arg(output);
            command.args(["-x", "ir"]).arg(module);
            return time("clang: -O3 again and code generation (step 3)", || {
                self.run_step(command)
            });
        }
        command.args(mllvm_args_unless_given(&self.invocation, &STEP3_UNROLL_OPTIONS));
        let stem = stem_of(&module.to_string_lossy());
        let optimized = self.temp_path(&stem, "optimized.bc");
        command.args(["-c", "-emit-llvm", "-o"]).arg(&optimized);
        command.args(["-x", "ir"]).arg(module);
        time("clang: -O3 again (step 3)", || self.run_step(command))?;
        let vectorized = self.temp_path(&stem, "slp.bc");
        let codegen_input = self.basic_blocks(&optimized, &vectorized, slp);
        let mut command = self.clang_command();
        command.args(self.invocation.option_words(&[Codegen]));
        // Code generation only, and no verifier in between, as in one clang
        // run (the optimized module may carry variant annotations LLVM's
        // passes left stale, see `with_optimized_module`).
        command.args(["-Wno-unused-command-line-argument", "-Xclang", "-disable-llvm-passes"]);
        command.args(["-Xclang", "-disable-llvm-verifier"]);
        command.args(kind.flags()).arg("-o").arg(output);
        command.args(["-x", "ir"]).arg(codegen_input);
        time("clang: code generation (step 3)", || self.run_step(command))
    }

    /// Lanewise's basic-block vectorizer on the optimized module `optimized`,
    /// written to `vectorized`; returns the module to compile (`optimized`
    /// itself if Lanewise failed).
    fn basic_blocks(&self, optimized: &Path, vectorized: &Path, slp: Slp) -> PathBuf {
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            time("llvm: read and write the module", || {
                lanewise_llvm::with_optimized_module(optimized, |module| {
                    match lanewise::vectorize_basic_blocks_of_module(module, slp, true) {
                        Ok(report) => {
                            // Written also when nothing changed: the module
                            // without its stale variant annotations.
                            module.write(vectorized, OutputFormat::Bitcode)?;
                            Ok(Ok(report))
                        }
                        Err(error) => Ok(Err(error.to_string())),
                    }
                })
            })
        }));
        let outcome = match outcome {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Ok(Err(error.to_string())),
            Err(panic) => Err(panic),
        };
        match outcome {
            Ok(Ok(report)) => {
                self.print_remarks(&report, &FunctionLocations::default());
                vectorized.to_owned()
            }
            Ok(Err(message)) => {
                if !self.invocation.no_warnings {
                    let first_line = crate::printable(message.lines().next().unwrap_or_default());
                    eprintln!(
                        "lanewise cc: warning: basic-block vectorization failed on {}; compiled \
                         without it: {first_line}",
                        optimized.display()
                    );
                }
                optimized.to_owned()
            }
            // The panic hook printed the message.
            Err(_) => optimized.to_owned(),
        }
    }

    /// Step 4: link the objects and the other inputs in their original order.
    fn link(&self, objects: &HashMap<usize, PathBuf>) -> Result<(), Failure> {
        let mut command = self.clang_command();
        let mut position = 0;
        let mut language_active = false;
        for item in &self.invocation.items {
            match item {
                Item::Input(input) => {
                    match objects.get(&position) {
                        Some(object) => {
                            let object_input =
                                Input { path: object.display().to_string(), ..input.clone() };
                            let object_input = Input { language: None, ..object_input };
                            add_input(&mut command, &object_input, &mut language_active);
                        }
                        None => add_input(&mut command, input, &mut language_active),
                    }
                    position += 1;
                }
                Item::Option { words, stage } => {
                    if *stage != Frontend {
                        command.args(words);
                    }
                }
            }
        }
        if let Some(output) = &self.invocation.output {
            command.arg("-o").arg(output);
        }
        time("clang: link", || self.run_step(command))
    }

    fn run_step(&self, mut command: Command) -> Result<(), Failure> {
        if self.invocation.verbose {
            eprintln!("lanewise cc: {}", command_line(&command));
        }
        let status = command
            .status()
            .map_err(|error| Failure::Driver(format!("cannot run `{}`: {error}", self.clang)))?;
        if status.success() {
            Ok(())
        } else {
            Err(Failure::Clang(status.code().unwrap_or(1)))
        }
    }
}

/// The scalar fallback of a module Lanewise failed on: `scalar` with the
/// SPMD builtins it calls (`rv_any`, ...) defined with their one-lane
/// meaning, written to `out`, so that it links as the vectorized module
/// would have (a program calling `rv_any` failed to link instead); `scalar`
/// itself when it calls none, or if that fails too.
fn scalar_with_one_lane_builtins(scalar: &Path, out: &Path) -> PathBuf {
    let written = catch_unwind(AssertUnwindSafe(|| {
        lanewise_llvm::with_module(scalar, |module| {
            match lanewise::define_one_lane_builtins(module) {
                Ok(defined) if !defined.is_empty() => {
                    module.write(out, OutputFormat::Bitcode)?;
                    Ok(true)
                }
                _ => Ok(false),
            }
        })
    }));
    match written {
        Ok(Ok(true)) => out.to_owned(),
        _ => scalar.to_owned(),
    }
}

enum LanewiseOutcome {
    Vectorized(Report),
    AlreadyVectorized,
    Failed(String),
}

/// What the back end writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum OutputKind {
    Object,
    Assembly,
    Bitcode,
    IrText,
}

impl OutputKind {
    fn flags(self) -> &'static [&'static str] {
        match self {
            OutputKind::Object => &["-c"],
            OutputKind::Assembly => &["-S"],
            OutputKind::Bitcode => &["-c", "-emit-llvm"],
            OutputKind::IrText => &["-S", "-emit-llvm"],
        }
    }
}

/// Adds an input with its `-x` language; `language_active` tracks whether a
/// `-x` is in force on the command so far (reset with `-x none` before an
/// input without one; never after the last input, where clang would warn).
fn add_input(command: &mut Command, input: &Input, language_active: &mut bool) {
    match &input.language {
        Some(language) => {
            command.args(["-x", language]);
            *language_active = true;
        }
        None if *language_active => {
            command.args(["-x", "none"]);
            *language_active = false;
        }
        None => {}
    }
    command.arg(&input.path);
}

/// The file name without directory and extension (`-` for standard input).
fn stem_of(path: &str) -> String {
    Path::new(path)
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_owned())
}

/// A command as a shell line (for `-v`).
fn command_line(command: &Command) -> String {
    let mut line = shell_quote(&command.get_program().to_string_lossy());
    for argument in command.get_args() {
        line.push(' ');
        line.push_str(&shell_quote(&argument.to_string_lossy()));
    }
    line
}

fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=,+:@%^".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Source locations of the functions of a module, from the debug metadata
/// clang emits (with `-g`, or the location tracking `-Rpass` turns on):
/// `define ... @f(...) ... !dbg !N`, `!N = distinct !DISubprogram(..., file:
/// !M, line: L, ...)`, `!M = !DIFile(filename: "f.c", directory: "/dir")`.
#[derive(Default, Debug)]
pub struct FunctionLocations {
    /// Function name → (file as clang printed it, line, column).
    by_function: HashMap<String, (String, u32, u32)>,
}

impl FunctionLocations {
    pub fn parse(ir_text: &str) -> Self {
        let mut metadata: HashMap<&str, &str> = HashMap::new();
        let mut definitions: Vec<(String, &str)> = Vec::new();
        for line in ir_text.lines() {
            if let Some(rest) = line.strip_prefix('!') {
                if let Some((id, body)) = rest.split_once(" = ") {
                    metadata.insert(id, body);
                }
            } else if line.starts_with("define ") {
                let Some(name) = defined_function_name(line) else { continue };
                let Some(dbg) = line.rsplit_once("!dbg !").map(|(_, id)| id) else { continue };
                let id = dbg.split(|c: char| !c.is_ascii_digit()).next().unwrap_or_default();
                definitions.push((name, id));
            }
        }
        let mut by_function = HashMap::new();
        for (name, id) in definitions {
            let Some(subprogram) = metadata.get(id) else { continue };
            let Some(line) = metadata_field(subprogram, "line: ").and_then(|l| l.parse().ok())
            else {
                continue;
            };
            let Some(file_id) = metadata_field(subprogram, "file: !") else { continue };
            let Some(file) = metadata.get(file_id) else { continue };
            let Some(filename) = quoted_field(file, "filename: ") else { continue };
            let directory = quoted_field(file, "directory: ").unwrap_or_default();
            let source_name = metadata_field_quoted(subprogram, "name: ").unwrap_or(&name);
            let column = function_name_column(&directory, &filename, line, source_name);
            by_function.insert(name, (filename, line, column));
        }
        FunctionLocations { by_function }
    }

    /// `file:line:col` of the function, if known.
    pub fn location_of(&self, function: &str) -> Option<String> {
        self.by_function.get(function).map(|(file, line, column)| format!("{file}:{line}:{column}"))
    }
}

/// `@name` or `@"name"` of a `define` line.
fn defined_function_name(line: &str) -> Option<String> {
    let start = line.find(" @")? + 2;
    let rest = &line[start..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.split_once('"').map(|(name, _)| name.to_owned());
    }
    let end = rest.find('(')?;
    Some(rest[..end].to_owned())
}

/// The unquoted value after `key` in a metadata body (`line: 12,` → `12`).
fn metadata_field<'a>(body: &'a str, key: &str) -> Option<&'a str> {
    let start = body.find(key)? + key.len();
    let rest = &body[start..];
    let end = rest.find([',', ')']).unwrap_or(rest.len());
    Some(rest[..end].trim())
}

fn metadata_field_quoted<'a>(body: &'a str, key: &str) -> Option<&'a str> {
    let start = body.find(key)? + key.len();
    let rest = body[start..].strip_prefix('"')?;
    rest.split_once('"').map(|(value, _)| value)
}

fn quoted_field(body: &str, key: &str) -> Option<String> {
    metadata_field_quoted(body, key).map(str::to_owned)
}

/// The column of `name` on line `line` of the source (1 if not found), so a
/// remark points at the function's name as clang's own remarks would.
fn function_name_column(directory: &str, filename: &str, line: u32, name: &str) -> u32 {
    let path = if Path::new(filename).is_absolute() || directory.is_empty() {
        PathBuf::from(filename)
    } else {
        Path::new(directory).join(filename)
    };
    let Ok(source) = fs::read_to_string(path) else { return 1 };
    let Some(text) = source.lines().nth(line.saturating_sub(1) as usize) else { return 1 };
    let mut search_from = 0;
    while let Some(offset) = text[search_from..].find(name) {
        let start = search_from + offset;
        let end = start + name.len();
        let before_ok = !text[..start].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let after_ok = !text[end..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
        if before_ok && after_ok {
            return u32::try_from(start + 1).unwrap_or(1);
        }
        search_from = end;
    }
    1
}

/// A remark in clang's format: `file.c:12:3: remark: message [-Rpass=lanewise]`.
/// A remark whose location is not `file:line:col` is placed at its function
/// and keeps its location in the message.
pub fn format_remark(remark: &Remark, locations: &FunctionLocations) -> String {
    let flag = match remark.kind {
        RemarkKind::Passed => "-Rpass=lanewise",
        RemarkKind::Missed => "-Rpass-missed=lanewise",
    };
    let mut text = String::new();
    let mut message = remark.message.clone();
    if is_source_location(&remark.location) {
        let _ = write!(text, "{}: ", remark.location);
    } else {
        if let Some(location) = locations.location_of(&remark.function) {
            let _ = write!(text, "{location}: ");
        }
        if !remark.location.is_empty() {
            message = format!("{} ({})", message, remark.location);
        }
    }
    let _ = write!(text, "remark: {message} [{flag}]");
    text
}

/// Whether `location` is `file:line:col` (or `file:line`).
fn is_source_location(location: &str) -> bool {
    let mut parts = location.rsplitn(3, ':');
    let last = parts.next().unwrap_or_default();
    let middle = parts.next();
    let numeric = |text: &str| !text.is_empty() && text.chars().all(|c| c.is_ascii_digit());
    numeric(last) && middle.is_some_and(|middle| numeric(middle) || parts.next().is_some())
}

#[cfg(test)]
mod tests;
