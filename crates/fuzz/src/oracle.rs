//! The differential oracle: the scalar reference build
//! (`clang-22 -O2 -ffp-contract=off`, the `rv_*` builtins with their
//! one-lane meaning) against `lanewise cc -O2 -fopenmp-simd
//! -ffp-contract=off -march=M`, compared on the programs' standard output
//! byte for byte (or, with [`OracleConfig::plugin`], stock `clang-22`
//! with the same flags and `-fpass-plugin`). [`OracleConfig::opt_level`]
//! changes the vectorized builds' `-O2`: clang's pipeline at `-O3`, `-O1`
//! or `-Os` hands Lanewise differently shaped IR (unrolled and unswitched
//! loops, or less simplified ones), which users' builds produce too. `-ffp-contract=off` keeps FMA
//! contraction from making the builds differ legitimately; libm calls are
//! bit-exact in `lanewise cc` without `-ffast-math`. A program built for
//! a -march whose ISA extensions this CPU lacks ([`host_runs`]) is built,
//! not run.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The -march values of a default run: SSE4.2, AVX2, AVX-512 with generic
/// and with Intel's tuning (both prefer 256-bit vectors), AVX-512 with AMD's
/// (512-bit vectors), and the host. The CI hosts (AVX-512 Zen 4 and Xeon)
/// run all of them.
pub const DEFAULT_MARCHES: [&str; 6] =
    ["x86-64-v2", "x86-64-v3", "x86-64-v4", "skylake-avx512", "znver4", "native"];

#[derive(Clone, Debug)]
pub struct OracleConfig {
    /// The `lanewise` binary (`lanewise cc` is run).
    pub lanewise: PathBuf,
    pub clang: String,
    /// Limit of one run of a program.
    pub run_timeout: Duration,
    /// Limit of one build (a hung compiler counts as a timeout).
    pub build_timeout: Duration,
    /// Extra environment of the `lanewise cc` builds (`LANEWISE_NARROW_LOOPS=off`).
    pub lanewise_env: Vec<(String, String)>,
    /// Build with stock clang and this pass plugin (`-fpass-plugin`)
    /// instead of `lanewise cc`.
    pub plugin: Option<PathBuf>,
    /// The optimization level of the vectorized builds (the reference
    /// stays at `-O2`).
    pub opt_level: OptLevel,
    /// Build the vectorized programs with `-g` (debug records through
    /// Lanewise's lifting and lowering; the reference stays without).
    pub debug_info: bool,
    /// Compile every build as C++ (`clang++-22 -x c++`, `lanewise c++ -x
    /// c++`): mangled names in the `_ZGV` variants, C++'s rules on the same
    /// code.
    pub cxx: bool,
}

/// A clang optimization level (`--opt-level`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OptLevel {
    #[value(name = "O1")]
    O1,
    #[default]
    #[value(name = "O2")]
    O2,
    #[value(name = "O3")]
    O3,
    #[value(name = "Os")]
    Os,
    #[value(name = "Oz")]
    Oz,
}

impl OptLevel {
    /// The compiler flag: `-O2`.
    pub fn flag(self) -> &'static str {
        match self {
            OptLevel::O1 => "-O1",
            OptLevel::O2 => "-O2",
            OptLevel::O3 => "-O3",
            OptLevel::Os => "-Os",
            OptLevel::Oz => "-Oz",
        }
    }
}

impl OracleConfig {
    /// The clang driver of the reference (and plugin) builds: `clang`'s
    /// C++ twin (`clang-22` -> `clang++-22`) with [`OracleConfig::cxx`].
    pub fn clang_driver(&self) -> String {
        if self.cxx {
            self.clang.replacen("clang", "clang++", 1)
        } else {
            self.clang.clone()
        }
    }

    /// The flags that make every build read `prog.c` as C++ with
    /// [`OracleConfig::cxx`].
    fn language_args(&self) -> &'static [&'static str] {
        if self.cxx {
            &["-x", "c++"]
        } else {
            &[]
        }
    }

    pub fn new(lanewise: PathBuf) -> OracleConfig {
        OracleConfig {
            lanewise,
            clang: "clang-22".into(),
            run_timeout: Duration::from_secs(10),
            build_timeout: Duration::from_secs(300),
            lanewise_env: Vec::new(),
            plugin: None,
            opt_level: OptLevel::O2,
            debug_info: false,
            cxx: false,
        }
    }
}

/// How a `lanewise cc` build of a program fails the oracle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FailureKind {
    /// The program's output differs from the reference's.
    Mismatch,
    /// `lanewise cc` exited with an error (or hung).
    BuildFailure,
    /// `lanewise cc` reported an internal error (a panic it recovered from).
    InternalError,
    /// The program exited with a non-zero status or a signal.
    Crash,
    /// The program ran longer than the run timeout.
    Timeout,
}

impl FailureKind {
    pub fn label(self) -> &'static str {
        match self {
            FailureKind::Mismatch => "mismatch",
            FailureKind::BuildFailure => "build-failure",
            FailureKind::InternalError => "internal-error",
            FailureKind::Crash => "crash",
            FailureKind::Timeout => "timeout",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: FailureKind,
    /// What differed or what the tool printed (a few lines).
    pub detail: String,
}

/// The reference build failed: a generator bug, not a Lanewise one.
#[derive(Clone, Debug)]
pub struct ReferenceError(pub String);

enum Run {
    Exited(ExitStatus),
    TimedOut,
}

/// Runs `command` with stdout and stderr into files, killing it after
/// `limit`, and with it every process it started: it runs in a process
/// group of its own, and the whole group is killed (`lanewise cc` waits
/// for its clang steps; killing only `lanewise cc` left a hung clang
/// running for hours).
fn run_with_timeout(
    mut command: Command,
    stdout: &Path,
    stderr: &Path,
    limit: Duration,
) -> std::io::Result<Run> {
    use std::os::unix::process::CommandExt;
    command.stdin(Stdio::null()).stdout(File::create(stdout)?).stderr(File::create(stderr)?);
    command.process_group(0);
    let mut child = command.spawn()?;
    // The time this thread saw pass, in steps of at most half a second: a
    // campaign paused with SIGSTOP (to benchmark on a quiet machine) does
    // not time its builds out for the pause.
    let mut waited = Duration::ZERO;
    let mut last = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Run::Exited(status));
        }
        let now = Instant::now();
        waited += (now - last).min(Duration::from_millis(500));
        last = now;
        if waited > limit {
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Run::TimedOut);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The lines of a build log that say what went wrong (errors, assertions,
/// the pass and function LLVM crashed in), else its tail.
fn errors(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let wanted: Vec<&str> = text
        .lines()
        .filter(|line| {
            let trimmed = line.trim_start();
            !trimmed.starts_with('#')
                && (line.contains("error:") && !line.contains("frontend command failed")
                    || line.contains("Assertion")
                    || line.contains("on function"))
        })
        .take(4)
        .collect();
    if wanted.is_empty() {
        tail(path, 6)
    } else {
        wanted.join(" | ")
    }
}

fn tail(path: &Path, lines: usize) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Builds and runs the scalar reference in `dir` (which holds `prog.c`);
/// its standard output.
pub fn reference(dir: &Path, config: &OracleConfig) -> Result<Vec<u8>, ReferenceError> {
    let binary = dir.join("ref");
    let mut build = Command::new(config.clang_driver());
    build.args(["-O2", "-ffp-contract=off", "-DLANEWISE_RV_SCALAR", "-w"]);
    build.args(config.language_args());
    build.arg(dir.join("prog.c")).arg("-o").arg(&binary).arg("-lm").env("TMPDIR", dir);
    let (out, err) = (dir.join("ref.build.out"), dir.join("ref.build.err"));
    match run_with_timeout(build, &out, &err, config.build_timeout) {
        Ok(Run::Exited(status)) if status.success() => {}
        Ok(_) => return Err(ReferenceError(format!("clang build failed: {}", tail(&err, 8)))),
        Err(error) => {
            return Err(ReferenceError(format!("cannot run {}: {error}", config.clang_driver())))
        }
    }
    let (out, err) = (dir.join("ref.out"), dir.join("ref.err"));
    match run_with_timeout(Command::new(&binary), &out, &err, config.run_timeout) {
        Ok(Run::Exited(status)) if status.success() => {
            fs::read(&out).map_err(|error| ReferenceError(error.to_string()))
        }
        Ok(Run::Exited(status)) => Err(ReferenceError(format!("reference exited with {status}"))),
        Ok(Run::TimedOut) => Err(ReferenceError("reference timed out".into())),
        Err(error) => Err(ReferenceError(error.to_string())),
    }
}

/// Builds `dir/prog.c` with `lanewise cc -march=march`, runs it and compares
/// its output with `expected`. `Ok(())` when they agree.
pub fn check_march(
    dir: &Path,
    march: &str,
    expected: &[u8],
    config: &OracleConfig,
) -> Result<(), Failure> {
    let binary = build_lanewise(dir, march, config)?;
    if !host_runs(&config.clang, march) {
        // Built (Lanewise and the back end ran), not run: the code may
        // hold instructions this CPU lacks (znver4's SSE4a `insertq` on an
        // Intel host: SIGILL).
        return Ok(());
    }
    run_lanewise(dir, march, &binary, expected, config)
}

/// The ISA extensions whose instructions compilers emit without being
/// asked, as clang's predefined macro and the flag of /proc/cpuinfo.
const EXTENSIONS: [(&str, &str); 24] = [
    ("__SSE4A__", "sse4a"),
    ("__XOP__", "xop"),
    ("__FMA4__", "fma4"),
    ("__TBM__", "tbm"),
    ("__POPCNT__", "popcnt"),
    ("__LZCNT__", "abm"),
    ("__BMI__", "bmi1"),
    ("__BMI2__", "bmi2"),
    ("__MOVBE__", "movbe"),
    ("__F16C__", "f16c"),
    ("__FMA__", "fma"),
    ("__AVX2__", "avx2"),
    ("__AVX512F__", "avx512f"),
    ("__AVX512VL__", "avx512vl"),
    ("__AVX512BW__", "avx512bw"),
    ("__AVX512DQ__", "avx512dq"),
    ("__AVX512CD__", "avx512cd"),
    ("__AVX512VBMI__", "avx512vbmi"),
    ("__AVX512VBMI2__", "avx512_vbmi2"),
    ("__AVX512VNNI__", "avx512_vnni"),
    ("__AVX512BITALG__", "avx512_bitalg"),
    ("__AVX512VPOPCNTDQ__", "avx512_vpopcntdq"),
    ("__AVX512BF16__", "avx512_bf16"),
    ("__AVX512FP16__", "avx512_fp16"),
];

/// Whether this CPU has every extension of [`EXTENSIONS`] that `-march`
/// enables (by `clang -march=M -dM -E`), so a program built for it runs
/// here. Known yes where the question cannot be answered (no
/// /proc/cpuinfo, clang failing): the run then says.
pub fn host_runs(clang: &str, march: &str) -> bool {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static ANSWERS: OnceLock<Mutex<HashMap<String, bool>>> = OnceLock::new();
    let answers = ANSWERS.get_or_init(Default::default);
    if let Some(&answer) = answers.lock().unwrap().get(march) {
        return answer;
    }
    let cpu_flags: Vec<String> = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|line| line.starts_with("flags"))?.to_owned();
            Some(line.split_whitespace().map(str::to_owned).collect())
        })
        .unwrap_or_default();
    let macros = Command::new(clang)
        .args(["-x", "c", "-dM", "-E", "-o", "-", "/dev/null"])
        .arg(format!("-march={march}"))
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).into_owned());
    let answer = match macros {
        Some(macros) if !cpu_flags.is_empty() => EXTENSIONS.iter().all(|(name, flag)| {
            let enabled = macros.lines().any(|line| line.split_whitespace().nth(1) == Some(name));
            !enabled || cpu_flags.iter().any(|cpu_flag| cpu_flag == flag)
        }),
        _ => true,
    };
    answers.lock().unwrap().insert(march.to_owned(), answer);
    answer
}

/// What builds the vectorized programs, in messages.
fn builder_name(config: &OracleConfig) -> &'static str {
    if config.plugin.is_some() {
        "clang with the plugin"
    } else {
        "lanewise cc"
    }
}

/// Builds `dir/prog.c` with `lanewise cc -march=march` (or clang with the
/// plugin) at the configured optimization level; the executable.
fn build_lanewise(dir: &Path, march: &str, config: &OracleConfig) -> Result<PathBuf, Failure> {
    let binary = dir.join(format!("lw-{march}"));
    let mut build = match &config.plugin {
        Some(plugin) => {
            let mut build = Command::new(config.clang_driver());
            // The frontend plugin too, when it sits next to the pass plugin
            // (as cargo builds them): users put both in their flags.
            let frontend = plugin.with_file_name("liblanewise_frontend.so");
            if frontend.exists() {
                build.arg(format!("-fplugin={}", frontend.display()));
            }
            build.arg(format!("-fpass-plugin={}", plugin.display()));
            build
        }
        None => {
            let mut build = Command::new(&config.lanewise);
            build.arg(if config.cxx { "c++" } else { "cc" });
            build
        }
    };
    build.arg(config.opt_level.flag());
    if config.debug_info {
        build.arg("-g");
    }
    build.args(config.language_args());
    build
        .args(["-fopenmp-simd", "-ffp-contract=off", "-fno-crash-diagnostics"])
        .arg(format!("-march={march}"))
        .arg(dir.join("prog.c"))
        .arg("-o")
        .arg(&binary)
        .arg("-lm");
    // Temporaries in the work directory: out of reach of whatever cleans
    // /tmp while a campaign runs.
    build.env("TMPDIR", dir);
    for (key, value) in &config.lanewise_env {
        build.env(key, value);
    }
    let (out, err) =
        (dir.join(format!("lw-{march}.build.out")), dir.join(format!("lw-{march}.build.err")));
    let failure = |kind, detail: String| Err(Failure { kind, detail });
    match run_with_timeout(build, &out, &err, config.build_timeout) {
        Ok(Run::Exited(status)) if status.success() => {}
        Ok(Run::Exited(status)) => {
            return failure(
                FailureKind::BuildFailure,
                format!("{} exited with {status}: {}", builder_name(config), errors(&err)),
            )
        }
        Ok(Run::TimedOut) => {
            return failure(
                FailureKind::BuildFailure,
                format!("{} timed out", builder_name(config)),
            )
        }
        Err(error) => {
            return failure(
                FailureKind::BuildFailure,
                format!("cannot run {}: {error}", builder_name(config)),
            )
        }
    }
    let build_log = fs::read_to_string(&err).unwrap_or_default();
    // `lanewise cc` compiles the module without Lanewise after an internal
    // error; the plugin leaves the module as it is after any error (every
    // program is valid input, so any error is a bug).
    let is_internal_error = |line: &str| {
        line.contains("internal error in lanewise") || line.starts_with("lanewise: error:")
    };
    if let Some(line) = build_log.lines().find(|line| is_internal_error(line)) {
        return Err(Failure { kind: FailureKind::InternalError, detail: line.to_owned() });
    }
    Ok(binary)
}

/// Runs the `lanewise cc` build and compares its output with `expected`.
fn run_lanewise(
    dir: &Path,
    march: &str,
    binary: &Path,
    expected: &[u8],
    config: &OracleConfig,
) -> Result<(), Failure> {
    let failure = |kind, detail: String| Err(Failure { kind, detail });
    let (out, err) = (dir.join(format!("lw-{march}.out")), dir.join(format!("lw-{march}.err")));
    match run_with_timeout(Command::new(binary), &out, &err, config.run_timeout) {
        Ok(Run::Exited(status)) if status.success() => {}
        Ok(Run::Exited(status)) => {
            return failure(
                FailureKind::Crash,
                format!("program exited with {status}: {}", tail(&err, 4)),
            )
        }
        Ok(Run::TimedOut) => return failure(FailureKind::Timeout, "program timed out".into()),
        Err(error) => {
            return failure(FailureKind::Crash, format!("cannot run the program: {error}"))
        }
    }
    let actual = fs::read(&out).unwrap_or_default();
    if actual == expected {
        return Ok(());
    }
    failure(FailureKind::Mismatch, first_difference(expected, &actual))
}

/// The first differing line of two outputs, and how many lines differ.
pub fn first_difference(expected: &[u8], actual: &[u8]) -> String {
    let expected = String::from_utf8_lossy(expected);
    let actual = String::from_utf8_lossy(actual);
    let expected_lines: Vec<&str> = expected.lines().collect();
    let actual_lines: Vec<&str> = actual.lines().collect();
    let differing = expected_lines.iter().zip(&actual_lines).filter(|(a, b)| a != b).count()
        + expected_lines.len().abs_diff(actual_lines.len());
    for (line, (a, b)) in expected_lines.iter().zip(&actual_lines).enumerate() {
        if a != b {
            return format!(
                "line {}: expected `{a}`, got `{b}` ({differing} lines differ)",
                line + 1
            );
        }
    }
    format!(
        "expected {} lines, got {} lines ({differing} lines differ)",
        expected_lines.len(),
        actual_lines.len()
    )
}

/// Writes `source` to `dir/prog.c` (creating `dir`).
pub fn write_source(dir: &Path, source: &str) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    fs::write(dir.join("prog.c"), source)
}

/// The outcome of one program on every -march.
#[derive(Clone, Debug)]
pub struct ProgramOutcome {
    pub reference: Result<(), ReferenceError>,
    /// Per -march, in the order given.
    pub results: Vec<(String, Result<(), Failure>)>,
}

/// Checks `source` on every -march of `marches`, in `dir`.
pub fn check_program(
    dir: &Path,
    source: &str,
    marches: &[String],
    config: &OracleConfig,
) -> ProgramOutcome {
    if let Err(error) = write_source(dir, source) {
        return ProgramOutcome {
            reference: Err(ReferenceError(error.to_string())),
            results: Vec::new(),
        };
    }
    let expected = match reference(dir, config) {
        Ok(expected) => expected,
        Err(error) => return ProgramOutcome { reference: Err(error), results: Vec::new() },
    };
    let results = marches
        .iter()
        .map(|march| (march.clone(), check_march(dir, march, &expected, config)))
        .collect();
    ProgramOutcome { reference: Ok(()), results }
}

/// Whether `source` fails on `march` with a failure of `kind` (the
/// reducer's predicate). A candidate whose reference build fails does not.
pub fn fails_as(
    dir: &Path,
    source: &str,
    march: &str,
    kind: FailureKind,
    config: &OracleConfig,
) -> bool {
    if write_source(dir, source).is_err() {
        return false;
    }
    // The reference and the lanewise build at once: a reduction checks one
    // candidate at a time.
    let (expected, binary) = std::thread::scope(|scope| {
        let reference = scope.spawn(|| reference(dir, config));
        let binary = build_lanewise(dir, march, config);
        (reference.join().expect("the reference thread does not panic"), binary)
    });
    let Ok(expected) = expected else {
        return false;
    };
    let result = binary.and_then(|binary| run_lanewise(dir, march, &binary, &expected, config));
    matches!(result, Err(failure) if failure.kind == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every CPU runs the baseline and its own `native` code; znver4 code
    /// (SSE4a, AVX-512) runs only where /proc/cpuinfo lists both.
    #[test]
    fn the_host_runs_its_own_code_and_znver4_only_where_it_has_its_extensions() {
        assert!(host_runs("clang-22", "x86-64"));
        assert!(host_runs("clang-22", "native"));
        let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let has = |flag: &str| cpuinfo.split_whitespace().any(|cpu_flag| cpu_flag == flag);
        let runs_znver4 = host_runs("clang-22", "znver4");
        if cpuinfo.is_empty() {
            assert!(runs_znver4, "unknown hosts are assumed to run everything");
        } else if !has("sse4a") || !has("avx512f") {
            // Intel (no SSE4a) and AMD Zen 1-3 (no AVX-512).
            assert!(!runs_znver4);
        } else if has("avx512_bf16") && has("avx512_vnni") && has("avx512_vbmi2") {
            // Zen 4 and later.
            assert!(runs_znver4);
        }
    }

    /// A timed-out build takes the processes it started with it.
    #[test]
    fn a_timeout_kills_the_whole_process_group() {
        let dir =
            std::env::temp_dir().join(format!("lanewise-fuzz-timeout-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let pid_file = dir.join("grandchild");
        let mut command = Command::new("sh");
        command.arg("-c").arg(format!("sleep 60 & echo $! > {}; wait", pid_file.display()));
        let run = run_with_timeout(
            command,
            &dir.join("out"),
            &dir.join("err"),
            Duration::from_millis(300),
        )
        .unwrap();
        assert!(matches!(run, Run::TimedOut));
        let pid = fs::read_to_string(&pid_file).unwrap().trim().to_owned();
        let alive = || {
            fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|stat| stat.split_whitespace().nth(2).is_none_or(|state| state != "Z"))
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(), "the grandchild {pid} survived the timeout");
        let _ = fs::remove_dir_all(&dir);
    }
}
