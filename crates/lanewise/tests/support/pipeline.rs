//! The steps of one differential test case, run as external tools in a work
//! directory under `CARGO_TARGET_TMPDIR`. Every command is also written to
//! `reproduce.sh` in that directory, so a failure can be replayed by hand.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::driver::{
    generate_driver, isa_compiler_flag, CallPath, CompareOptions, DriverSources, DriverVariant,
    ScalarSignature,
};
use super::harness_module::{target_attributes_of, HarnessAdditions, WrapperRequest};
use super::llvm_text::{IrFunction, IrModule};
use super::variant_name::VariantName;

pub const CLANG: &str = "clang-22";
pub const LLC: &str = "llc-22";
pub const GCC: &str = "gcc";
/// Kernels are compiled without floating-point contraction. With clang's
/// default (`-ffp-contract=on`) `a * b + c` becomes `llvm.fmuladd`, which the
/// backend fuses where the target has FMA: in the AVX-512 variants (avx512f
/// implies fma) but not in the scalar reference, built for generic x86-64.
/// Both results are correct, but they differ in the last bit, and the
/// comparison is bit-exact. GCC contracts across statements by default.
const NO_FMA_CONTRACTION: &str = "-ffp-contract=off";
/// Random trials per variant.
pub const TRIALS_PER_VARIANT: u32 = 300;
/// A driver that runs longer than this is killed (a variant looping forever).
const DRIVER_TIMEOUT: Duration = Duration::from_secs(120);

/// One kernel file of tests/corpus.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    pub path: PathBuf,
    /// `// lanewise-test: ulp=N` and `nan=bits`: how float returns are compared.
    pub compare: CompareOptions,
    /// `// lanewise-test: gcc-caller`: also run the GCC-compiled caller test.
    pub gcc_caller: bool,
    /// `// lanewise-test: approx-func`: compile with `-fapprox-func` (calls
    /// marked `afn`), so libm calls become libmvec calls, which the test
    /// checks are there.
    pub approx_func: bool,
}

pub fn corpus_directory() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

/// The lanewise binary under test: this package's, or the one named by
/// `LANEWISE_CORPUS_BINARY` (to run the corpus against another build).
pub fn lanewise_binary() -> String {
    std::env::var("LANEWISE_CORPUS_BINARY")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_lanewise").to_owned())
}

/// The directory of `lanewise/rv.h` (the SPMD builtins), `include/` of the repository.
pub fn spmd_header_directory() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../include")
}

pub fn discover_kernels() -> Vec<Kernel> {
    let mut kernels = Vec::new();
    let entries = fs::read_dir(corpus_directory()).expect("tests/corpus must exist");
    for entry in entries {
        let path = entry.expect("readable directory entry").path();
        if path.extension().and_then(|extension| extension.to_str()) != Some("c") {
            continue;
        }
        let source = fs::read_to_string(&path).expect("readable kernel");
        let mut compare = CompareOptions::default();
        let mut gcc_caller = false;
        let mut approx_func = false;
        for line in source.lines() {
            let Some((_, options)) = line.split_once("lanewise-test:") else { continue };
            for option in options.split_whitespace() {
                if let Some(value) = option.strip_prefix("ulp=") {
                    compare.ulp = value
                        .parse()
                        .unwrap_or_else(|_| panic!("{}: bad `ulp=` value", path.display()));
                } else if option == "nan=bits" {
                    compare.nan_bits = true;
                } else if option == "gcc-caller" {
                    gcc_caller = true;
                } else if option == "approx-func" {
                    approx_func = true;
                } else {
                    panic!("{}: unknown lanewise-test option `{option}`", path.display());
                }
            }
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        kernels.push(Kernel { name, path, compare, gcc_caller, approx_func });
    }
    kernels.sort_by(|a, b| a.name.cmp(&b.name));
    kernels
}

/// The kernels to run: all, or those whose name contains `LANEWISE_CORPUS_FILTER`.
pub fn selected_kernels() -> Vec<Kernel> {
    let filter = std::env::var("LANEWISE_CORPUS_FILTER").unwrap_or_default();
    discover_kernels().into_iter().filter(|kernel| kernel.name.contains(&filter)).collect()
}

/// What one case (a kernel through one pipeline) found.
#[derive(Debug, Default)]
pub struct CaseReport {
    pub label: String,
    pub work_directory: PathBuf,
    pub passed: Vec<String>,
    pub trials: u64,
    pub skipped: Vec<String>,
    pub missing: Vec<String>,
    pub failures: Vec<String>,
    pub seconds: f64,
    /// Produced functions with a run-time safety net (the report's
    /// `safety_net`).
    pub safety_nets: usize,
    /// Produced functions that are adapters over a shared body (the
    /// report's `shared_body`, `--variants shared`).
    pub adapters: usize,
}

impl CaseReport {
    pub fn summary_line(&self) -> String {
        let mut line = format!(
            "{:<38} {} variants run, {} trials, {} not executed, {} missing, {} failures ({:.1}s)",
            self.label,
            self.passed.len(),
            self.trials,
            self.skipped.len(),
            self.missing.len(),
            self.failures.len(),
            self.seconds
        );
        if !self.missing.is_empty() {
            write!(line, "\n    not defined by the output: {}", self.missing.join(" ")).unwrap();
        }
        for skipped in &self.skipped {
            write!(line, "\n    not executed: {skipped}").unwrap();
        }
        line
    }

    pub fn failure_text(&self) -> String {
        let mut text = String::new();
        for failure in &self.failures {
            writeln!(text, "=== {}: {failure}", self.label).unwrap();
        }
        if !self.failures.is_empty() {
            writeln!(
                text,
                "    reproduce: bash {}",
                self.work_directory.join("reproduce.sh").display()
            )
            .unwrap();
        }
        text
    }
}

/// Runs tools in a work directory and records the commands.
pub struct Workspace {
    pub directory: PathBuf,
    script: String,
}

impl Workspace {
    pub fn new(parts: &[&str]) -> Workspace {
        let mut directory = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        directory.push("corpus");
        for part in parts {
            directory.push(part);
        }
        let _ = fs::remove_dir_all(&directory);
        fs::create_dir_all(&directory).expect("work directory");
        let script = format!("#!/usr/bin/env bash\nset -ex\ncd '{}'\n", directory.display());
        Workspace { directory, script }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.directory.join(name)
    }

    pub fn write(&self, name: &str, contents: &str) {
        fs::write(self.path(name), contents).expect("write into the work directory");
    }

    /// Runs a tool to completion; Err holds the command and its stderr.
    pub fn run(&mut self, program: &str, arguments: &[&str]) -> Result<String, String> {
        let command_line = shell_line(program, arguments);
        writeln!(self.script, "{command_line}").unwrap();
        self.save_script();
        let output = Command::new(program)
            .args(arguments)
            .current_dir(&self.directory)
            .output()
            .map_err(|error| format!("cannot run `{command_line}`: {error}"))?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        } else {
            Err(format!(
                "`{command_line}` failed ({}):\n{}",
                output.status,
                first_lines(&String::from_utf8_lossy(&output.stderr), 30)
            ))
        }
    }

    /// Runs the built driver with a timeout; returns (exit success, stdout).
    pub fn run_driver(&mut self, executable: &str) -> Result<(bool, String), String> {
        writeln!(self.script, "./{executable}").unwrap();
        self.save_script();
        let output_path = self.path(&format!("{executable}.out"));
        let output_file = fs::File::create(&output_path).expect("driver output file");
        let mut child = Command::new(self.path(executable))
            .current_dir(&self.directory)
            .stdout(Stdio::from(output_file))
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| format!("cannot run {executable}: {error}"))?;
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|error| error.to_string())? {
                break Some(status);
            }
            if started.elapsed() > DRIVER_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let stdout = fs::read_to_string(&output_path).unwrap_or_default();
        match status {
            Some(status) => {
                let mut stdout = stdout;
                if !status.success() {
                    writeln!(stdout, "EXIT {status}").unwrap();
                }
                Ok((status.success(), stdout))
            }
            None => Ok((false, format!("{stdout}EXIT killed after {}s", DRIVER_TIMEOUT.as_secs()))),
        }
    }

    fn save_script(&self) {
        self.write("reproduce.sh", &self.script);
    }
}

fn shell_line(program: &str, arguments: &[&str]) -> String {
    let mut line = program.to_owned();
    for argument in arguments {
        if argument.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=+:,".contains(c)) {
            write!(line, " {argument}").unwrap();
        } else {
            write!(line, " '{}'", argument.replace('\'', "'\\''")).unwrap();
        }
    }
    line
}

fn first_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut shown = lines[..lines.len().min(count)].join("\n");
    if lines.len() > count {
        write!(shown, "\n... ({} more lines)", lines.len() - count).unwrap();
    }
    shown
}

/// The scalar functions of a module that carry `_ZGV` attributes, with their attribute names.
pub fn scalar_functions_with_variants(module: &IrModule) -> Vec<(ScalarSignature, Vec<String>)> {
    module
        .functions
        .iter()
        .filter_map(|function| {
            let names = module.variant_attributes(function);
            if names.is_empty() {
                return None;
            }
            Some((signature_of(function), names))
        })
        .collect()
}

fn signature_of(function: &IrFunction) -> ScalarSignature {
    ScalarSignature {
        name: function.name.clone(),
        return_type: function.return_type.clone(),
        return_attributes: function.return_attributes.clone(),
        params: function.params.clone(),
    }
}

/// Reads a driver's output into the report.
fn collect_driver_results(
    report: &mut CaseReport,
    success: bool,
    output: &str,
    variants: &[DriverVariant],
) {
    let mut running: Option<String> = None;
    let mut failure: Option<String> = None;
    let mut failures_seen = 0;
    for line in output.lines() {
        if let Some(rest) = line.strip_prefix("RUN ") {
            running = Some(rest.to_owned());
        } else if let Some(rest) = line.strip_prefix("PASS ") {
            let name = rest.split(':').next().unwrap_or(rest).to_owned();
            report.passed.push(name);
            report.trials += u64::from(super::pipeline::TRIALS_PER_VARIANT);
            running = None;
        } else if let Some(rest) = line.strip_prefix("SKIP ") {
            report.skipped.push(rest.to_owned());
        } else if let Some(rest) = line.strip_prefix("FAIL ") {
            if let Some(previous) = failure.take() {
                report.failures.push(previous);
            }
            failures_seen += 1;
            failure = Some(rest.to_owned());
            running = None;
        } else if line.starts_with("    ") || line.starts_with("  lane") {
            if let Some(text) = failure.as_mut() {
                write!(text, "\n{line}").unwrap();
            }
        } else if let Some(status) = line.strip_prefix("EXIT ") {
            if let Some(previous) = failure.take() {
                report.failures.push(previous);
            }
            let culprit = running.take().unwrap_or_else(|| "(no variant running)".to_owned());
            if failures_seen == 0 || culprit != "(no variant running)" {
                report
                    .failures
                    .push(format!("the driver stopped with {status} while running {culprit}"));
            }
        }
    }
    if let Some(previous) = failure.take() {
        report.failures.push(previous);
    }
    if !success && report.failures.is_empty() {
        report
            .failures
            .push(format!("the driver failed without a FAIL line:\n{}", first_lines(output, 20)));
    }
    let _ = variants;
}

/// The libm functions of the corpus kernels, whose `_ZGV` variants are
/// glibc's libmvec (`_ZGVdN8v_sinf`).
const LIBM_FUNCTIONS: &[&str] =
    &["sin", "sinf", "cos", "cosf", "exp", "expf", "log", "logf", "pow", "powf"];

/// Options of a lanewise case.
pub struct LanewiseCase<'a> {
    pub kernel: &'a Kernel,
    pub optimization: &'a str,
    /// Compile the driver with gcc (vector_size types) instead of clang, C ABI variants only.
    pub gcc_caller: bool,
    /// Extra `lanewise` flags (`--safety-net per-lane`).
    pub lanewise_flags: &'a [&'a str],
    /// Extra flags of the clang that compiles the kernel (`-march=...`;
    /// the host must run what they enable).
    pub clang_flags: &'a [&'a str],
}

/// clang → lanewise → driver → run, for one kernel at one optimization level.
pub fn run_lanewise_case(case: &LanewiseCase) -> CaseReport {
    let started = Instant::now();
    let mode = if case.gcc_caller { "gcc-caller" } else { "lanewise" };
    let optimization_name = case.optimization.trim_start_matches('-');
    let mut report = CaseReport {
        label: [mode, &case.kernel.name, case.optimization]
            .into_iter()
            .chain(case.clang_flags.iter().copied())
            .chain(case.lanewise_flags.iter().copied())
            .collect::<Vec<_>>()
            .join(" "),
        ..CaseReport::default()
    };
    let flags: Vec<&str> = case.clang_flags.iter().chain(case.lanewise_flags).copied().collect();
    let flags_name = flags.join("_").replace("--", "").replace(['-', '='], "");
    let mut workspace = Workspace::new(&[mode, &case.kernel.name, optimization_name, &flags_name]);
    report.work_directory = workspace.directory.clone();
    if let Err(failure) = lanewise_case_steps(case, &mut workspace, &mut report) {
        report.failures.push(failure);
    }
    report.seconds = started.elapsed().as_secs_f64();
    report
}

fn lanewise_case_steps(
    case: &LanewiseCase,
    workspace: &mut Workspace,
    report: &mut CaseReport,
) -> Result<(), String> {
    let kernel_path = case.kernel.path.to_string_lossy().into_owned();
    let include = format!("-I{}", corpus_directory().display());
    let spmd_include = format!("-I{}", spmd_header_directory().display());
    let mut clang_args = vec![case.optimization, "-fopenmp-simd", NO_FMA_CONTRACTION];
    if case.kernel.approx_func {
        clang_args.push("-fapprox-func");
    }
    clang_args.extend(case.clang_flags);
    clang_args.extend([
        "-S",
        "-emit-llvm",
        &include,
        &spmd_include,
        &kernel_path,
        "-o",
        "scalar.ll",
    ]);
    workspace.run(CLANG, &clang_args)?;
    let mut lanewise_args = vec!["scalar.ll", "-o", "vec.ll", "--report", "report.json"];
    lanewise_args.extend(case.lanewise_flags);
    workspace.run(&lanewise_binary(), &lanewise_args)?;
    (report.safety_nets, report.adapters) = check_theorem_4_5(&workspace.path("report.json"))?;
    // `--vector-math auto`: libmvec exactly where the calls allow it.
    let vector_ir = fs::read_to_string(workspace.path("vec.ll")).map_err(|e| e.to_string())?;
    let calls_libmvec = vector_ir.lines().filter(|line| line.starts_with("declare")).any(|line| {
        line.split_once("@_ZGV")
            .and_then(|(_, rest)| rest.split_once('('))
            .and_then(|(name, _)| VariantName::parse(&format!("_ZGV{name}")).ok())
            .is_some_and(|variant| LIBM_FUNCTIONS.contains(&variant.scalar_name.as_str()))
    });
    if calls_libmvec != case.kernel.approx_func {
        return Err(format!(
            "libmvec calls in vec.ll: {calls_libmvec}, expected {} (`approx-func`: calls marked \
             `afn`, the only ones `--vector-math auto` may map to libmvec)",
            case.kernel.approx_func
        ));
    }

    let scalar_text = fs::read_to_string(workspace.path("scalar.ll")).map_err(|e| e.to_string())?;
    let scalar_module =
        IrModule::parse(&scalar_text).map_err(|e| format!("reading scalar.ll: {e}"))?;
    let vector_text = fs::read_to_string(workspace.path("vec.ll")).map_err(|e| e.to_string())?;
    let vector_module =
        IrModule::parse(&vector_text).map_err(|e| format!("reading vec.ll: {e}"))?;

    let scalars_with_names = scalar_functions_with_variants(&scalar_module);
    if scalars_with_names.is_empty() {
        return Err("the kernel has no function with `_ZGV` attributes".to_owned());
    }
    let scalars: Vec<ScalarSignature> =
        scalars_with_names.iter().map(|(scalar, _)| scalar.clone()).collect();
    let attribute_names: BTreeSet<String> =
        scalars_with_names.iter().flat_map(|(_, names)| names.iter().cloned()).collect();
    let defined: Vec<&IrFunction> = vector_module
        .functions
        .iter()
        .filter(|function| function.name.starts_with("_ZGV"))
        .collect();
    let defined_names: BTreeSet<String> =
        defined.iter().map(|function| function.name.clone()).collect();
    for name in attribute_names.difference(&defined_names) {
        let masked = VariantName::parse(name).map(|variant| variant.masked).unwrap_or(false);
        if masked {
            report.missing.push(name.clone());
        } else {
            report
                .failures
                .push(format!("{name} is named by an attribute but vec.ll does not define it"));
        }
    }

    let mut additions = HarnessAdditions::new(&vector_module);
    let mut entries = Vec::new();
    let mut avx512_functions = Vec::new();
    for function in &defined {
        let variant = match VariantName::parse(&function.name) {
            Ok(variant) => variant,
            Err(error) => {
                report.failures.push(error);
                continue;
            }
        };
        let Some(scalar) = scalars.iter().find(|scalar| scalar.name == variant.scalar_name) else {
            report.skipped.push(format!(
                "{}: no scalar function with _ZGV attributes named {}",
                function.name, variant.scalar_name
            ));
            continue;
        };
        if let Err(error) = super::driver::check_variant_fits(&variant, scalar) {
            report.failures.push(error);
            continue;
        }
        let group_text: String = function
            .attribute_groups
            .iter()
            .filter_map(|group| vector_module.attribute_groups.get(group))
            .cloned()
            .collect::<Vec<_>>()
            .join(" ");
        let is_avx512 = variant.isa == 'e';
        if case.gcc_caller {
            if variant.masked || is_avx512 {
                continue;
            }
            entries.push(DriverVariant {
                display_name: variant.full_name.clone(),
                variant: variant.clone(),
                path: CallPath::CAbi,
                needs_avx512: false,
                skip_reason: None,
            });
            continue;
        }
        // the variant itself
        let path = if variant.masked {
            let symbol = format!("lwtest_wrap_{}", function.name);
            let request = WrapperRequest {
                wrapper_symbol: symbol.clone(),
                callee_symbol: quoted_symbol(&function.name),
                callee: function,
                variant: &variant,
                scalar,
                target_attributes: target_attributes_of(&group_text),
            };
            match additions.add_wrapper(&request) {
                Ok(()) => CallPath::IrWrapper {
                    symbol,
                    description: "IR wrapper, mask from memory".to_owned(),
                },
                Err(error) => {
                    report.failures.push(error);
                    continue;
                }
            }
        } else {
            CallPath::CAbi
        };
        entries.push(DriverVariant {
            display_name: variant.full_name.clone(),
            variant: variant.clone(),
            path,
            needs_avx512: is_avx512,
            skip_reason: None,
        });
        if is_avx512 {
            avx512_functions.push((*function, variant.clone(), scalar.clone()));
            // the same W-lane logic without AVX-512 features, through an IR wrapper
            let display_name = format!("{}[no-avx512 clone]", variant.full_name);
            match additions.add_clone_without_avx512(&vector_module, function) {
                Ok((clone_symbol, clone_attributes)) => {
                    let symbol = format!("lwtest_wrap_noavx512_{}", function.name);
                    let request = WrapperRequest {
                        wrapper_symbol: symbol.clone(),
                        callee_symbol: clone_symbol,
                        callee: function,
                        variant: &variant,
                        scalar,
                        target_attributes: clone_attributes,
                    };
                    match additions.add_wrapper(&request) {
                        Ok(()) => entries.push(DriverVariant {
                            display_name,
                            variant: variant.clone(),
                            path: CallPath::IrWrapper {
                                symbol,
                                description:
                                    "clone without avx512 features, called through an IR wrapper"
                                        .to_owned(),
                            },
                            needs_avx512: false,
                            skip_reason: None,
                        }),
                        Err(error) => report.failures.push(error),
                    }
                }
                Err(reason) => entries.push(DriverVariant {
                    display_name,
                    variant: variant.clone(),
                    // Never called; a masked variant has no C ABI shim, so
                    // the entry names the variant's own wrapper.
                    path: if variant.masked {
                        CallPath::IrWrapper {
                            symbol: format!("lwtest_wrap_{}", function.name),
                            description: "not run".to_owned(),
                        }
                    } else {
                        CallPath::CAbi
                    },
                    needs_avx512: false,
                    skip_reason: Some(format!(
                        "cannot run the W-lane logic without AVX-512: {reason}"
                    )),
                }),
            }
        }
    }

    if !avx512_functions.is_empty() && !case.gcc_caller {
        check_avx512_variants_use_zmm(workspace, &vector_module, &avx512_functions, report)?;
    }

    workspace.write(
        "harness.ll",
        &format!(
            "{vector_text}\n; ---- added by the test harness ----\n{}",
            additions.finish(&vector_text)
        ),
    );
    workspace
        .run(CLANG, &["-c", "-O1", "-Wno-override-module", "harness.ll", "-o", "harness.o"])?;
    let driver = generate_driver(
        &case.kernel.name,
        &scalars,
        &entries,
        &case.kernel.compare,
        TRIALS_PER_VARIANT,
    )?;
    let (compiler, flags): (&str, &[&str]) =
        if case.gcc_caller { (GCC, &["-O2", "-mavx2", "-w"]) } else { (CLANG, &["-O1", "-w"]) };
    let mut objects = compile_driver(workspace, &driver, compiler, flags)?;
    objects.push("harness.o".to_owned());
    link_driver(workspace, compiler, &objects)?;
    let (success, output) = workspace.run_driver("driver")?;
    collect_driver_results(report, success, &output, &entries);
    Ok(())
}

/// Compiles the driver's files (each ISA's shims with its `-m` flag); returns the objects.
fn compile_driver(
    workspace: &mut Workspace,
    driver: &DriverSources,
    compiler: &str,
    flags: &[&str],
) -> Result<Vec<String>, String> {
    workspace.write("driver.c", &driver.main);
    let mut arguments: Vec<&str> = flags.to_vec();
    arguments.extend(["-c", "driver.c", "-o", "driver.o"]);
    workspace.run(compiler, &arguments)?;
    let mut objects = vec!["driver.o".to_owned()];
    for (isa, source) in &driver.per_isa {
        let file = format!("driver_{isa}.c");
        let object = format!("driver_{isa}.o");
        workspace.write(&file, source);
        let mut arguments: Vec<&str> = flags.to_vec();
        arguments.extend([isa_compiler_flag(*isa), "-c", &file, "-o", &object]);
        workspace.run(compiler, &arguments)?;
        objects.push(object);
    }
    Ok(objects)
}

fn link_driver(
    workspace: &mut Workspace,
    compiler: &str,
    objects: &[String],
) -> Result<(), String> {
    let mut arguments: Vec<&str> = objects.iter().map(String::as_str).collect();
    arguments.extend(["-lm", "-lmvec", "-o", "driver"]);
    workspace.run(compiler, &arguments)?;
    Ok(())
}

fn quoted_symbol(name: &str) -> String {
    if name.chars().all(|c| c.is_ascii_alphanumeric() || "_.$".contains(c)) {
        name.to_owned()
    } else {
        format!("\"{name}\"")
    }
}

/// AVX-512 variants must take and return 512-bit vectors in zmm registers:
/// their attributes must allow 512-bit vectors, and `llc-22` must read zmm.
fn check_avx512_variants_use_zmm(
    workspace: &mut Workspace,
    module: &IrModule,
    functions: &[(&IrFunction, VariantName, ScalarSignature)],
    report: &mut CaseReport,
) -> Result<(), String> {
    workspace.run(LLC, &["-O2", "vec.ll", "-o", "vec.s"])?;
    let assembly = fs::read_to_string(workspace.path("vec.s")).map_err(|e| e.to_string())?;
    for (function, variant, _) in functions {
        let wide_vectors = function
            .params
            .iter()
            .map(|param| &param.ty)
            .chain(std::iter::once(&function.return_type))
            .any(|ty| !ty.is_scalar() && ty.byte_size().is_some_and(|size| size >= 64));
        if !wide_vectors {
            continue;
        }
        let features = module.string_attribute(function, "target-features").unwrap_or_default();
        if !features.split(',').any(|feature| feature == "+avx512f") {
            report.failures.push(format!(
                "{}: target-features lack +avx512f: `{features}`",
                variant.full_name
            ));
        }
        let legal_width: u32 = module
            .string_attribute(function, "min-legal-vector-width")
            .and_then(|width| width.parse().ok())
            .unwrap_or(0);
        if legal_width < 512 {
            report.failures.push(format!(
                "{}: \"min-legal-vector-width\" is {legal_width}, so LLVM passes its 512-bit vectors in two ymm registers",
                variant.full_name
            ));
        }
        let label = format!("{}:", variant.full_name);
        let Some(start) = assembly.lines().position(|line| {
            line.strip_prefix(label.as_str())
                .is_some_and(|rest| rest.trim().is_empty() || rest.trim_start().starts_with('#'))
        }) else {
            report.failures.push(format!("{}: no label in llc-22 output vec.s", variant.full_name));
            continue;
        };
        let body: Vec<&str> = assembly
            .lines()
            .skip(start + 1)
            .take_while(|line| {
                !line.starts_with(".Lfunc_end") && !line.trim_start().starts_with(".size")
            })
            .collect();
        // a body that calls another AVX-512 vector function (e.g. libmvec's,
        // or its own copy of an exact vector math function, which takes the
        // variant's attributes) passes zmm through
        let tail_calls_avx512_function = body.iter().any(|line| {
            let instruction = line.trim_start();
            (instruction.starts_with("jmp") || instruction.starts_with("call"))
                && (line.contains("_ZGVe") || line.contains("_exact_v"))
        });
        if !tail_calls_avx512_function && !body.iter().any(|line| line.contains("zmm")) {
            report.failures.push(format!(
                "{}: llc-22 output of vec.ll never uses a zmm register, so its vector arguments are not in zmm",
                variant.full_name
            ));
        }
    }
    Ok(())
}

/// Issue 14, class 10: the kernel compiled by clang-22 for `march`,
/// vectorized by lanewise, and its output compiled by `llc-22 -O1` (each
/// function for the CPU and features its attributes name, the variants'
/// included): every variant must compile on its own ISA. `passed` names the
/// `_ZGV` functions compiled.
pub fn run_codegen_case(kernel: &Kernel, march: &str) -> CaseReport {
    let started = Instant::now();
    let mut report = CaseReport {
        label: format!("codegen {} -march={march}", kernel.name),
        ..CaseReport::default()
    };
    let mut workspace = Workspace::new(&["codegen", &kernel.name, march]);
    report.work_directory = workspace.directory.clone();
    let kernel_path = kernel.path.to_string_lossy().into_owned();
    let include = format!("-I{}", corpus_directory().display());
    let spmd_include = format!("-I{}", spmd_header_directory().display());
    let march_flag = format!("-march={march}");
    let steps = (|| {
        workspace.run(
            CLANG,
            &[
                "-O2",
                &march_flag,
                "-fopenmp-simd",
                NO_FMA_CONTRACTION,
                "-S",
                "-emit-llvm",
                &include,
                &spmd_include,
                &kernel_path,
                "-o",
                "scalar.ll",
            ],
        )?;
        workspace.run(&lanewise_binary(), &["scalar.ll", "-o", "vec.ll"])?;
        workspace.run(LLC, &["-O1", "-filetype=obj", "vec.ll", "-o", "vec.o"])?;
        let vector_text =
            fs::read_to_string(workspace.path("vec.ll")).map_err(|e| e.to_string())?;
        let vector_module =
            IrModule::parse(&vector_text).map_err(|e| format!("reading vec.ll: {e}"))?;
        Ok::<_, String>(
            vector_module
                .functions
                .iter()
                .filter(|function| function.name.starts_with("_ZGV"))
                .map(|function| function.name.clone())
                .collect(),
        )
    })();
    match steps {
        Ok(compiled) => report.passed = compiled,
        Err(failure) => report.failures.push(failure),
    }
    report.seconds = started.elapsed().as_secs_f64();
    report
}

/// The harness's self-check: the same driver against GCC's own simd clones.
pub fn run_gcc_clone_case(kernel: &Kernel) -> CaseReport {
    let started = Instant::now();
    let mut report =
        CaseReport { label: format!("gcc-clones {} -O2", kernel.name), ..CaseReport::default() };
    let mut workspace = Workspace::new(&["gcc-clones", &kernel.name]);
    report.work_directory = workspace.directory.clone();
    if let Err(failure) = gcc_clone_steps(kernel, &mut workspace, &mut report) {
        report.failures.push(failure);
    }
    report.seconds = started.elapsed().as_secs_f64();
    report
}

fn gcc_clone_steps(
    kernel: &Kernel,
    workspace: &mut Workspace,
    report: &mut CaseReport,
) -> Result<(), String> {
    let kernel_path = kernel.path.to_string_lossy().into_owned();
    let include = format!("-I{}", corpus_directory().display());
    let spmd_include = format!("-I{}", spmd_header_directory().display());
    workspace.run(
        CLANG,
        &[
            "-O2",
            "-fopenmp-simd",
            NO_FMA_CONTRACTION,
            "-S",
            "-emit-llvm",
            &include,
            &spmd_include,
            &kernel_path,
            "-o",
            "scalar.ll",
        ],
    )?;
    workspace.run(
        GCC,
        &[
            "-O2",
            "-fopenmp-simd",
            NO_FMA_CONTRACTION,
            "-w",
            &include,
            &spmd_include,
            "-c",
            &kernel_path,
            "-o",
            "kernel.o",
        ],
    )?;
    let scalar_text = fs::read_to_string(workspace.path("scalar.ll")).map_err(|e| e.to_string())?;
    let scalar_module =
        IrModule::parse(&scalar_text).map_err(|e| format!("reading scalar.ll: {e}"))?;
    let scalars: Vec<ScalarSignature> = scalar_functions_with_variants(&scalar_module)
        .into_iter()
        .map(|(scalar, _)| scalar)
        .collect();
    let symbols = workspace.run("nm", &["--defined-only", "kernel.o"])?;
    let mut entries = Vec::new();
    for line in symbols.lines() {
        let Some(name) = line.split_whitespace().nth(2) else { continue };
        if !name.starts_with("_ZGV") {
            continue;
        }
        let variant = VariantName::parse(name)?;
        if variant.masked {
            report.skipped.push(format!("{name}: masked GCC clones are not called by the harness"));
            continue;
        }
        let Some(scalar) = scalars.iter().find(|scalar| scalar.name == variant.scalar_name) else {
            continue;
        };
        if let Err(error) = super::driver::check_variant_fits(&variant, scalar) {
            report.skipped.push(error);
            continue;
        }
        entries.push(DriverVariant {
            display_name: name.to_owned(),
            needs_avx512: variant.isa == 'e',
            variant,
            path: CallPath::CAbi,
            skip_reason: None,
        });
    }
    let driver =
        generate_driver(&kernel.name, &scalars, &entries, &kernel.compare, TRIALS_PER_VARIANT)?;
    let mut objects = compile_driver(workspace, &driver, CLANG, &["-O1", "-w"])?;
    objects.push("kernel.o".to_owned());
    link_driver(workspace, CLANG, &objects)?;
    let (success, output) = workspace.run_driver("driver")?;
    collect_driver_results(report, success, &output, &entries);
    Ok(())
}

/// Runs `job` on every item with a few worker threads; results keep the input order.
pub fn run_in_parallel<T: Sync, R: Send>(items: &[T], job: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::env::var("LANEWISE_TEST_JOBS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2))
        .max(1);
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = {
                    let mut next = next.lock().unwrap();
                    let index = *next;
                    *next += 1;
                    index
                };
                if index >= items.len() {
                    break;
                }
                let result = job(&items[index]);
                results.lock().unwrap()[index] = Some(result);
            });
        }
    });
    results.into_inner().unwrap().into_iter().map(|result| result.expect("every job ran")).collect()
}

/// A deliberately wrong vector variant, to show that the driver catches it.
pub struct Mutant<'a> {
    pub name: &'a str,
    /// C source with `#pragma omp declare simd` functions (read for their signatures).
    pub kernel: &'a str,
    /// C source defining the scalar functions and hand-written (wrong) variants, for SSE2.
    pub implementation: &'a str,
    /// The variants `implementation` defines.
    pub variants: &'a [&'a str],
}

/// Runs the driver against a mutant; the report's failures say what was caught.
pub fn run_mutant_case(mutant: &Mutant) -> CaseReport {
    let mut report =
        CaseReport { label: format!("mutant {}", mutant.name), ..CaseReport::default() };
    let mut workspace = Workspace::new(&["mutants", mutant.name]);
    report.work_directory = workspace.directory.clone();
    let steps = |workspace: &mut Workspace, report: &mut CaseReport| -> Result<(), String> {
        workspace.write("kernel.c", mutant.kernel);
        workspace.write("implementation.c", mutant.implementation);
        workspace.run(
            CLANG,
            &[
                "-O2",
                "-fopenmp-simd",
                NO_FMA_CONTRACTION,
                "-S",
                "-emit-llvm",
                "kernel.c",
                "-o",
                "scalar.ll",
            ],
        )?;
        workspace
            .run(CLANG, &["-O1", "-msse2", "-c", "implementation.c", "-o", "implementation.o"])?;
        let scalar_text =
            fs::read_to_string(workspace.path("scalar.ll")).map_err(|e| e.to_string())?;
        let scalar_module = IrModule::parse(&scalar_text)?;
        let scalars: Vec<ScalarSignature> = scalar_functions_with_variants(&scalar_module)
            .into_iter()
            .map(|(scalar, _)| scalar)
            .collect();
        let mut entries = Vec::new();
        for name in mutant.variants {
            entries.push(DriverVariant {
                display_name: (*name).to_owned(),
                variant: VariantName::parse(name)?,
                path: CallPath::CAbi,
                needs_avx512: false,
                skip_reason: None,
            });
        }
        let driver =
            generate_driver(mutant.name, &scalars, &entries, &CompareOptions::default(), 50)?;
        let mut objects = compile_driver(workspace, &driver, CLANG, &["-O1", "-w"])?;
        objects.push("implementation.o".to_owned());
        link_driver(workspace, CLANG, &objects)?;
        let (success, output) = workspace.run_driver("driver")?;
        collect_driver_results(report, success, &output, &entries);
        Ok(())
    };
    if let Err(failure) = steps(&mut workspace, &mut report) {
        report.failures.push(format!("SETUP {failure}"));
    }
    report
}

/// PLDI'18 Theorem 4.5 across the corpus: no produced function folded a
/// uniform branch whose block has a uniform predicate (`uniform_lost` in
/// lanewise's `--report`).
/// Also returns how many produced functions have a run-time safety net
/// and how many are adapters over a shared body.
fn check_theorem_4_5(report_path: &std::path::Path) -> Result<(usize, usize), String> {
    let text =
        fs::read_to_string(report_path).map_err(|error| format!("reading the report: {error}"))?;
    let report: serde_json::Value =
        serde_json::from_str(&text).map_err(|error| format!("parsing the report: {error}"))?;
    let functions = report["functions"].as_array().ok_or("the report has no `functions` array")?;
    for function in functions {
        let lost = function["branches"]["uniform_lost"]
            .as_u64()
            .ok_or("a report entry has no branches.uniform_lost count")?;
        if lost != 0 {
            return Err(format!(
                "{}: {lost} uniform branch(es) folded although PLDI'18 Theorem 4.5 keeps them",
                function["name"]
            ));
        }
    }
    let safety_nets = functions.iter().filter(|function| function["safety_net"] == true).count();
    let adapters = functions.iter().filter(|function| function["shared_body"].is_string()).count();
    Ok((safety_nets, adapters))
}
