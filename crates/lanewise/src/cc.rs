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
    FlattenNests, Mode, NarrowLoops, Options, OutputFormat, Remark, RemarkKind, Report,
    SafetyNetMode, Slp, TailPolicy, VariantSelection, VectorMath,
};

use crate::{SlpAlgorithmArg, SlpArg};

mod arguments;
pub use arguments::*;
use Stage::{Codegen, Frontend, Instrumentation};

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
    /// The clang plugin step 1 loads (see [`frontend_plugin`]).
    frontend_plugin: Option<PathBuf>,
}

/// The file name of the frontend plugin (crates/plugin/src/frontend.cpp).
const FRONTEND_PLUGIN: &str = "liblanewise_frontend.so";

/// The frontend plugin step 1 loads, so that a definition after a
/// prototype with `#pragma omp declare simd` (the prototype in a header)
/// gets the prototype's clauses and variants in full, as with
/// `-fplugin=liblanewise_frontend.so` on the command line: the one next to
/// the `lanewise` binary (`cargo build --release` puts it there), or the
/// file `LANEWISE_FRONTEND_PLUGIN` names; none with
/// `LANEWISE_FRONTEND_PLUGIN=off`, when the command loads it already, when
/// there is no C or C++ source, or when clang cannot load it (checked once
/// on an empty file, with a warning: the command then runs as without it).
fn frontend_plugin(clang: &str, invocation: &Invocation) -> Option<PathBuf> {
    let requested = std::env::var_os("LANEWISE_FRONTEND_PLUGIN");
    let path = match &requested {
        Some(value) if value == "off" => return None,
        Some(value) if !value.is_empty() => PathBuf::from(value),
        _ => std::env::current_exe().ok()?.with_file_name(FRONTEND_PLUGIN),
    };
    let user_words = invocation.option_words(&[Stage::Frontend, Stage::Codegen, Stage::Unknown]);
    let given = user_words
        .iter()
        .any(|word| word.starts_with("-fplugin=") && word.contains(FRONTEND_PLUGIN));
    let sources = invocation.inputs().any(|input| input.kind == InputKind::Source);
    if given || !sources || (requested.is_none() && !path.is_file()) {
        return None;
    }
    let plugin = format!("-fplugin={}", path.display());
    let loads = Command::new(clang)
        .args([plugin.as_str(), "-fsyntax-only", "-x", "c", "-"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !loads {
        eprintln!(
            "lanewise cc: warning: clang cannot load `{}`; definitions after a `declare simd` \
             prototype get no variants (LANEWISE_FRONTEND_PLUGIN=off silences this)",
            path.display()
        );
        return None;
    }
    Some(path)
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
    let frontend_plugin = frontend_plugin(&clang, &invocation);
    let mut driver = Driver {
        clang,
        invocation,
        temps,
        next_temp: 0,
        shared_variants: HashMap::new(),
        called_across_files: Vec::new(),
        frontend_plugin,
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
        if let Some(plugin) = &self.frontend_plugin {
            command.arg(format!("-fplugin={}", plugin.display()));
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
            speculative_loads: self.speculative_loads(),
            wide_cells: self.on_off_switch("LANEWISE_WIDE_CELLS"),
            gather_forms: self.on_off_switch("LANEWISE_GATHER_FORMS"),
            flatten_nests: self.flatten_nests(),
            exact_vector_math: self.exact_vector_math(),
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
                    // Definitions the frontend plugin gave a prototype's
                    // clauses (`-fplugin=liblanewise_frontend.so`): files
                    // that include the prototype call their variants.
                    let mut options = options.clone();
                    for name in module.annotated_functions(lanewise::DECLARED_ELSEWHERE) {
                        if !options.full_variants.contains(&name) {
                            options.full_variants.push(name);
                        }
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
        self.env_choice(
            "LANEWISE_SIMD_TAIL",
            &[
                ("auto", TailPolicy::Auto),
                ("masked", TailPolicy::Masked),
                ("scalar", TailPolicy::Scalar),
            ],
        )
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

    /// `LANEWISE_SPECULATIVE_LOADS=on|off` (`--speculative-loads` of the
    /// `lanewise` command; `off` for programs checked with valgrind).
    fn speculative_loads(&self) -> bool {
        self.on_off_switch("LANEWISE_SPECULATIVE_LOADS")
    }

    /// `LANEWISE_EXACT_VECTOR_MATH=on|off` (`--exact-vector-math` of the
    /// `lanewise` command; `off` where the program's libm is not glibc).
    fn exact_vector_math(&self) -> bool {
        self.on_off_switch("LANEWISE_EXACT_VECTOR_MATH")
    }

    /// An `on|off` environment variable whose default is `on`; an unknown
    /// value is a warning and means `on`.
    fn on_off_switch(&self, variable: &str) -> bool {
        self.env_choice(variable, &[("on", true), ("off", false)])
    }

    /// The value of environment variable `variable` among `choices`, the
    /// first of which is the default ([`parse_choice`]); an unknown value
    /// is a warning and means the default.
    fn env_choice<T: Copy>(&self, variable: &str, choices: &[(&str, T)]) -> T {
        let value = std::env::var(variable).ok();
        let (choice, warning) = parse_choice(variable, value.as_deref(), choices);
        if let Some(warning) = warning.filter(|_| !self.invocation.no_warnings) {
            eprintln!("lanewise cc: warning: {warning}");
        }
        choice
    }

    /// `LANEWISE_NARROW_LOOPS=auto|off|always` (`--narrow-loops` of the
    /// `lanewise` command). An unknown value is a warning and means `auto`.
    fn narrow_loops(&self) -> NarrowLoops {
        self.env_choice(
            "LANEWISE_NARROW_LOOPS",
            &[
                ("auto", NarrowLoops::Auto),
                ("off", NarrowLoops::Off),
                ("always", NarrowLoops::Always),
            ],
        )
    }

    /// `LANEWISE_FLATTEN_NESTS=auto|off|always` (`--flatten-nests` of the
    /// `lanewise` command). An unknown value is a warning and means `auto`.
    fn flatten_nests(&self) -> FlattenNests {
        self.env_choice(
            "LANEWISE_FLATTEN_NESTS",
            &[
                ("auto", FlattenNests::Auto),
                ("off", FlattenNests::Off),
                ("always", FlattenNests::Always),
            ],
        )
    }

    /// `LANEWISE_SAFETY_NET=adaptive|off|per-lane` (`--safety-net` of the
    /// `lanewise` command). An unknown value is a warning and means
    /// `adaptive`.
    fn safety_net(&self) -> SafetyNetMode {
        self.env_choice(
            "LANEWISE_SAFETY_NET",
            &[
                ("adaptive", SafetyNetMode::Adaptive),
                ("off", SafetyNetMode::Off),
                ("per-lane", SafetyNetMode::PerLane),
            ],
        )
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
                eprintln!(
                    "lanewise cc: warning: vector variants not generated (they call the \
                     scalar function once per lane): {skipped}"
                );
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

/// The choice `value` names among `choices`, the first of which is the
/// default (`value` unset or empty), and, for a value that names none, the
/// default with a warning naming `variable` and the choices.
fn parse_choice<T: Copy>(
    variable: &str,
    value: Option<&str>,
    choices: &[(&str, T)],
) -> (T, Option<String>) {
    let (default_name, default) = choices[0];
    let value = value.unwrap_or_default();
    if value.is_empty() {
        return (default, None);
    }
    if let Some((_, choice)) = choices.iter().find(|(name, _)| *name == value) {
        return (*choice, None);
    }
    let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
    let (last, others) = names.split_last().expect("at least one choice");
    let warning = format!(
        "{variable}={value}: expected {} or {last}; using {default_name}",
        others.join(", ")
    );
    (default, Some(warning))
}

#[cfg(test)]
mod tests;
