//! The malformed-input campaign: whatever the input, `lanewise` exits 0 or
//! 1, and prints at most one `lanewise: error: ...` line (with status 1,
//! exactly one), no other lines but `lanewise: warning: ...` (under
//! `--keep-going`) and `--stats` text; never a signal, a panic, a
//! multi-line LLVM message, or a hang.
//!
//! The cases are derived deterministically (a fixed xorshift seed) from a
//! few valid inputs, tests/malformed/kernel.ll (clang-22 -O2 output with
//! `declare simd` variants) and three file tests, in text and in bitcode
//! (`llvm-as-22`): truncations, byte flips, random bytes, bad command
//! lines and bad `_ZGV` attributes. A few hundred cases, each under a
//! timeout that only guards against hangs (a case normally takes 0.1 s).
//! `lanewise cc` gets the corrupt bitcode of tests/malformed/flipped_byte.bc
//! (a bitcode file of tests/filetests/divergent_branch.ll with one flipped
//! bit, on which LLVM 22's reader, like llvm-dis-22, dies with SIGSEGV).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Guards against hangs only: a case that takes this long has hung.
const HANG_TIMEOUT: Duration = Duration::from_secs(60);

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("malformed_inputs");
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The deterministic generator of the campaign.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
}

/// What a run printed and how it ended.
struct Outcome {
    /// `None`: killed by a signal.
    code: Option<i32>,
    stderr: String,
}

/// Runs `program` with `args`, killing it after [`HANG_TIMEOUT`].
fn run(program: &Path, args: &[String]) -> Result<Outcome, String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot run {}: {error}", program.display()))?;
    // Read stderr on a thread so that a chatty child cannot block on a full pipe.
    let mut stderr_pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stderr_pipe.read_to_end(&mut bytes);
        bytes
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > HANG_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("hung (killed after {HANG_TIMEOUT:?})"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stderr = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    Ok(Outcome { code: status.code(), stderr })
}

/// The promise of the `lanewise` command, checked on one outcome. `stats`:
/// `--stats` was given (its summary lines are allowed on success).
fn check_promise(outcome: &Outcome, stats: bool) -> Result<(), String> {
    let code = outcome.code.ok_or("killed by a signal")?;
    if code != 0 && code != 1 {
        return Err(format!("exit status {code}"));
    }
    let lines: Vec<&str> = outcome.stderr.lines().collect();
    if let Some(line) = lines.iter().find(|line| line.chars().any(|c| c.is_control() && c != '\t'))
    {
        return Err(format!("a control character in {line:?}"));
    }
    let errors = lines.iter().filter(|line| line.starts_with("lanewise: error: ")).count();
    if outcome.stderr.contains("internal compiler error") {
        return Err("panicked".to_owned());
    }
    if code == 1 {
        if errors != 1 || lines.len() != 1 {
            return Err(format!("status 1 needs exactly one line, an error; got {}", lines.len()));
        }
        return Ok(());
    }
    if errors != 0 {
        return Err("an error line with status 0".to_owned());
    }
    let foreign = lines.iter().find(|line| {
        !line.starts_with("lanewise: warning: ")
            && !(stats && (line.starts_with(' ') || line.contains(": ")))
    });
    match foreign {
        Some(line) => Err(format!("unexpected line on stderr: {line}")),
        None => Ok(()),
    }
}

/// One case: the input file and the arguments after it.
struct Case {
    label: String,
    input: PathBuf,
    args: Vec<String>,
}

/// The valid inputs the mutations start from, with the arguments each is
/// run with (`{out}` is the output path).
fn seeds() -> Vec<(&'static str, &'static str)> {
    vec![
        ("tests/malformed/kernel.ll", "-o {out} --keep-going"),
        (
            "tests/filetests/divergent_loop.ll",
            "-o {out} --function count_steps --width 8 --shapes v",
        ),
        (
            "tests/filetests/pldi18_figure10_mandelbrot.ll",
            "-o {out} --function mandelbrot --width 8 --shapes vvuu --isa avx2 --stats",
        ),
        ("tests/filetests/simd_loop_scalar_remainder.ll", "-o {out} --simd-loops --stats"),
    ]
}

fn split_args(args: &str, out: &Path) -> Vec<String> {
    args.split_whitespace().map(|arg| arg.replace("{out}", &out.to_string_lossy())).collect()
}

/// `path` as bitcode, written by llvm-as-22 next to the scratch files.
fn bitcode_of(path: &Path, dir: &Path) -> PathBuf {
    let output = dir.join(format!("{}.bc", path.file_stem().unwrap().to_string_lossy()));
    let status = Command::new("llvm-as-22")
        .arg(path)
        .arg("-o")
        .arg(&output)
        .status()
        .expect("llvm-as-22 runs");
    assert!(status.success(), "llvm-as-22 {}", path.display());
    output
}

/// Truncations and byte flips of every seed (text and bitcode), random
/// bytes with and without the bitcode magic.
fn file_cases(dir: &Path, random: &mut XorShift) -> Vec<Case> {
    let out = dir.join("out.ll");
    let mut cases = Vec::new();
    let mut add = |label: String, bytes: &[u8], args: &[String]| {
        let input = dir.join(format!("case{}.{}", cases.len(), label.rsplit('.').next().unwrap()));
        fs::write(&input, bytes).unwrap();
        cases.push(Case { label, input, args: args.to_vec() });
    };
    for (seed, args) in seeds() {
        let text_path = repository().join(seed);
        let args = split_args(args, &out);
        for path in [text_path.clone(), bitcode_of(&text_path, dir)] {
            let bytes = fs::read(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            for eighth in 0..8 {
                let length = bytes.len() * eighth / 8 + random.below(bytes.len() / 8 + 1);
                let length = length.min(bytes.len() - 1);
                add(format!("{name} truncated to {length} bytes: {name}"), &bytes[..length], &args);
            }
            for _ in 0..20 {
                let mut flipped = bytes.clone();
                let position = random.below(bytes.len());
                let mask = match random.below(3) {
                    0 => 1u8 << random.below(8),
                    1 => 0xff,
                    _ => (random.next() as u8).max(1),
                };
                flipped[position] ^= mask;
                add(format!("{name} byte {position} ^ {mask:#04x}: {name}"), &flipped, &args);
            }
        }
    }
    let args = split_args("-o {out} --keep-going", &out);
    for index in 0..16 {
        let length = 1 + random.below(4096);
        let mut bytes: Vec<u8> = (0..length).map(|_| random.next() as u8).collect();
        let kind = if index % 2 == 0 {
            bytes.splice(0..0, *b"BC\xC0\xDE");
            "random.bc"
        } else {
            "random.ll"
        };
        add(format!("{length} random bytes ({index}): {kind}"), &bytes, &args);
    }
    cases
}

/// A declare-simd module whose function `f(float, ptr, i64)` carries the
/// attribute `variant`.
fn zgv_module(variant: &str) -> String {
    format!(
        "define float @f(float %x, ptr %p, i64 %n) #0 {{\n\
         entry:\n  %y = fmul float %x, 2.0\n  ret float %y\n}}\n\
         attributes #0 = {{ \"{variant}\" }}\n"
    )
}

/// Bad (and a few good) `_ZGV` attributes, with and without `--keep-going`.
fn zgv_cases(dir: &Path, random: &mut XorShift) -> Vec<Case> {
    let out = dir.join("out.ll");
    let mut variants: Vec<String> = [
        "_ZGVdN8vuu_f",
        "_ZGVeM16vl4ls1_f",
        "_ZGVdN3vuu_f",
        "_ZGVdN0vuu_f",
        "_ZGVdN65536vuu_f",
        "_ZGVdN4294967296vuu_f",
        "_ZGVdN128vuu_f",
        "_ZGVdN8vuu_g",
        "_ZGVdN8vuu_",
        "_ZGVdN8vuu",
        "_ZGVdN8_f",
        "_ZGVdN8vuuu_f",
        "_ZGVdN8vl99999999999999999999u_f",
        "_ZGVdN8vln9223372036854775808u_f",
        "_ZGVdN8vl9223372036854775807u_f",
        "_ZGVdN8vuls2_f",
        "_ZGVdN8vls2v_f",
        "_ZGVdN8vuls7_f",
        "_ZGVdN8vuls4294967296_f",
        "_ZGVdN8vua3u_f",
        "_ZGVdN8vua99999999999999999999u_f",
        "_ZGVdN8va0uu_f",
        "_ZGVxN8vuu_f",
        "_ZGVdX8vuu_f",
        "_ZGVdNvuu_f",
        "_ZGV",
        "_ZGVd",
        "_ZGVdN8qqq_f",
        "_ZGVbN64vuu_f",
        "_ZGVeN1vuu_f",
        "_ZGVd\\0D8vuu_f",
        "_ZGVdN8vuu_f\\0Ag",
        "_ZGVdN8v\\1Bu_f",
    ]
    .iter()
    .map(|name| name.to_string())
    .collect();
    // Random strings over the ABI's alphabet.
    let alphabet = b"bcdeNMvulsna0123456789_f";
    for _ in 0..10 {
        let length = 4 + random.below(12);
        let tail: String =
            (0..length).map(|_| alphabet[random.below(alphabet.len())] as char).collect();
        variants.push(format!("_ZGV{tail}"));
    }
    let mut cases = Vec::new();
    for (index, variant) in variants.iter().enumerate() {
        let input = dir.join(format!("zgv{index}.ll"));
        fs::write(&input, zgv_module(variant)).unwrap();
        for keep_going in [false, true] {
            let mut args = split_args("-o {out}", &out);
            if keep_going {
                args.push("--keep-going".to_owned());
            }
            cases.push(Case {
                label: format!("attribute {variant} (keep going: {keep_going})"),
                input: input.clone(),
                args,
            });
        }
    }
    cases
}

/// Bad command lines on a valid input.
fn flag_cases(dir: &Path) -> Vec<Case> {
    let out = dir.join("out.ll");
    let input = repository().join("tests/filetests/saxpy_explicit.ll");
    let out = out.to_string_lossy();
    let lines: &[&str] = &[
        "",
        "--bogus",
        "-o",
        "-o {out} --width 8",
        "-o {out} --function saxpy",
        "-o {out} --function saxpy --width 8",
        "-o {out} --function saxpy --width 3 --shapes uvv",
        "-o {out} --function saxpy --width 0 --shapes uvv",
        "-o {out} --function saxpy --width 128 --shapes uvv",
        "-o {out} --function saxpy --width -8 --shapes uvv",
        "-o {out} --function saxpy --width 99999999999 --shapes uvv",
        "-o {out} --function saxpy --width 8 --shapes uv",
        "-o {out} --function saxpy --width 8 --shapes uvvv",
        "-o {out} --function saxpy --width 8 --shapes xyz",
        "-o {out} --function saxpy --width 8 --shapes uls0v",
        "-o {out} --function saxpy --width 8 --shapes ls1uv",
        "-o {out} --function saxpy --width 8 --shapes ul99999999999999999999v",
        "-o {out} --function saxpy --width 8 --shapes uvv --isa avx9",
        "-o {out} --function saxpy --width 8 --shapes uvv --name llvm.memcpy",
        "-o {out} --function saxpy --width 8 --shapes uvv --name saxpy",
        "-o {out} --function nope --width 8 --shapes uvv",
        "-o {out} --linearize sideways",
        "-o {out} --dump-after nothing",
        "-o {out} --emit-llvm --emit-bitcode",
        "-o {out} --report /dev/full",
        "-o /dev/full",
        "-o /nonexistent/dir/out.ll",
        "-o {out} --simd-tail sometimes",
        "-o {out} --narrow-loops maybe",
        "-o {out} extra-positional",
    ];
    let mut cases: Vec<Case> = lines
        .iter()
        .map(|line| Case {
            label: format!("flags `{line}`"),
            input: input.clone(),
            args: line.split_whitespace().map(|arg| arg.replace("{out}", &out)).collect(),
        })
        .collect();
    for missing in ["/nonexistent/in.ll", "/", "/dev/null"] {
        cases.push(Case {
            label: format!("input {missing}"),
            input: PathBuf::from(missing),
            args: vec!["-o".to_owned(), out.to_string()],
        });
    }
    cases
}

#[test]
fn malformed_inputs_keep_the_promise() {
    let dir = scratch();
    let lanewise = PathBuf::from(env!("CARGO_BIN_EXE_lanewise"));
    let mut random = XorShift(0x1a2e_5715_e000_0014);
    let mut cases = file_cases(&dir, &mut random);
    cases.extend(zgv_cases(&dir, &mut random));
    cases.extend(flag_cases(&dir));
    let mut failures = Vec::new();
    for case in &cases {
        let mut args = vec![case.input.to_string_lossy().into_owned()];
        args.extend(case.args.iter().cloned());
        let stats = args.iter().any(|arg| arg == "--stats");
        let verdict = run(&lanewise, &args).and_then(|outcome| {
            check_promise(&outcome, stats).map_err(|error| format!("{error}\n{}", outcome.stderr))
        });
        if let Err(error) = verdict {
            failures.push(format!("{} ({}): {error}", case.label, args.join(" ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases broke the promise:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    println!("{} malformed-input cases kept the promise", cases.len());
}

/// A bitcode file on which LLVM's reader dies with SIGSEGV is an error of
/// one line, for `lanewise` and for `lanewise cc`.
#[test]
fn corrupt_bitcode_is_an_error_not_a_crash() {
    let dir = scratch();
    let lanewise = PathBuf::from(env!("CARGO_BIN_EXE_lanewise"));
    let corrupt = repository().join("tests/malformed/flipped_byte.bc");
    let out = dir.join("corrupt.out.ll").to_string_lossy().into_owned();
    let expected = format!(
        "lanewise: error: {}: corrupt bitcode: LLVM's reader crashed on it (signal 11)\n",
        corrupt.display()
    );
    let outcome =
        run(&lanewise, &[corrupt.to_string_lossy().into_owned(), "-o".into(), out.clone()])
            .unwrap();
    assert_eq!((outcome.code, outcome.stderr.as_str()), (Some(1), expected.as_str()));

    let object = dir.join("corrupt.o").to_string_lossy().into_owned();
    let args = ["cc", "-O2", "-c", &corrupt.to_string_lossy(), "-o", &object].map(String::from);
    let outcome = run(&lanewise, &args).unwrap();
    let expected = expected.replace("lanewise: error:", "lanewise cc: error:");
    assert_eq!((outcome.code, outcome.stderr.as_str()), (Some(1), expected.as_str()));
}

/// `lanewise cc` on truncated and flipped IR files: clang's or Lanewise's
/// diagnostics, never a crash of lanewise itself.
#[test]
fn lanewise_cc_survives_corrupt_ir_inputs() {
    // A directory of its own: `malformed_inputs_keep_the_promise` writes
    // the seeds' bitcode (kernel.bc) into the shared one at the same time,
    // and a read in the middle of that write once found it empty.
    let dir = scratch().join("cc");
    fs::create_dir_all(&dir).unwrap();
    let lanewise = PathBuf::from(env!("CARGO_BIN_EXE_lanewise"));
    let seed = repository().join("tests/malformed/kernel.ll");
    let mut random = XorShift(0xcc_0014);
    let mut inputs = Vec::new();
    for bytes in [fs::read(&seed).unwrap(), fs::read(bitcode_of(&seed, &dir)).unwrap()] {
        let extension = if bytes.starts_with(b"BC") { "bc" } else { "ll" };
        for index in 0..4 {
            let mut mutated = bytes.clone();
            if index % 2 == 0 {
                mutated.truncate(random.below(bytes.len()));
            } else {
                let position = random.below(bytes.len());
                mutated[position] ^= 1 << random.below(8);
            }
            let input = dir.join(format!("cc_case{index}.{extension}"));
            fs::write(&input, mutated).unwrap();
            inputs.push(input);
        }
    }
    let object = dir.join("cc_case.o").to_string_lossy().into_owned();
    let mut failures = Vec::new();
    for input in &inputs {
        let args = ["cc", "-O2", "-c", &input.to_string_lossy(), "-o", &object].map(String::from);
        match run(&lanewise, &args) {
            Ok(outcome) if outcome.code == Some(0) || outcome.code == Some(1) => {
                if outcome.stderr.contains("internal error") {
                    failures.push(format!("{}: panicked:\n{}", input.display(), outcome.stderr));
                }
            }
            Ok(outcome) => failures.push(format!(
                "{}: status {:?}:\n{}",
                input.display(),
                outcome.code,
                outcome.stderr
            )),
            Err(error) => failures.push(format!("{}: {error}", input.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `lanewise cc` never fails a build over a `_ZGV` attribute: an invalid
/// one (clang-22 names `_ZGVdN3v_f` for `simdlen(3)`) is a warning and no
/// variant, the valid ones are produced. Without the check, the 65536-lane
/// variant made LLVM's code generator abort in step 3.
#[test]
fn lanewise_cc_skips_invalid_variants_with_a_warning() {
    let dir = scratch();
    let lanewise = PathBuf::from(env!("CARGO_BIN_EXE_lanewise"));
    let input = dir.join("cc_invalid_variants.ll");
    let module = zgv_module("_ZGVdN8vuu_f").replace(
        "\"_ZGVdN8vuu_f\"",
        "\"_ZGVdN8vuu_f\" \"_ZGVdN3vuu_f\" \"_ZGVdN65536vuu_f\" \"_ZGVdN8vuu_g\"",
    );
    fs::write(&input, module).unwrap();
    let output = dir.join("cc_invalid_variants.s").to_string_lossy().into_owned();
    let args = ["cc", "-O2", "-S", &input.to_string_lossy(), "-o", &output].map(String::from);
    let outcome = run(&lanewise, &args).unwrap();
    assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
    for variant in ["_ZGVdN3vuu_f", "_ZGVdN65536vuu_f", "_ZGVdN8vuu_g"] {
        assert!(
            outcome.stderr.lines().any(|line| line.starts_with("lanewise cc: warning: ")
                && line.contains(&format!("variant `{variant}`"))),
            "no warning for {variant}:\n{}",
            outcome.stderr
        );
    }
    let assembly = fs::read_to_string(&output).unwrap();
    assert!(assembly.contains("_ZGVdN8vuu_f:"), "the valid variant is missing");
    assert!(!assembly.contains("_ZGVdN3vuu_f:") && !assembly.contains("_ZGVdN8vuu_g:"));
}
