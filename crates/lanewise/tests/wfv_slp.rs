//! WFV-SLP on machine code (`transform::widen::wfv_slp`, thesis 7.4):
//! tests/wfv_slp/glow.c's AVX-512 variants built with `--wfv-slp on` and
//! `off` (libmvec calls: the kernel is compiled with `-ffast-math`) must
//! compute the same bits in every lane for every number of active lanes
//! (tests/wfv_slp/driver.c), and the `on` build must pack the calls.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(command: &mut Command) -> String {
    let output = command.output().unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/wfv_slp")
}

fn host_runs_avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq")
}

/// Builds glow.c's variants with `--wfv-slp setting`, renamed with
/// `prefix`; returns the object and lanewise's `--stats` output.
fn build(scratch: &Path, ir: &Path, setting: &str, prefix: &str) -> (PathBuf, String) {
    let vectorized = scratch.join(format!("{setting}.ll"));
    let stats = run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .arg(ir)
        .args(["--stats", "--wfv-slp", setting, "-o"])
        .arg(&vectorized));
    let text = std::fs::read_to_string(&vectorized).unwrap();
    let renamed = text
        .replace("@_ZGVeN16vvvu_glow(", &format!("@{prefix}_glow("))
        .replace("@_ZGVeN8vvu_glow2(", &format!("@{prefix}_glow2("));
    assert_ne!(renamed, text, "no e variants in {}", vectorized.display());
    std::fs::write(&vectorized, renamed).unwrap();
    let object = scratch.join(format!("{setting}.o"));
    // Only the variants: the scalar functions would be defined twice.
    run(Command::new("clang-22")
        .args(["-O2", "-march=x86-64-v4", "-c", "-x", "ir"])
        .arg(&vectorized)
        .arg("-o")
        .arg(&object));
    (object, stats)
}

#[test]
fn packed_math_calls_compute_what_separate_calls_compute() {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wfv_slp");
    std::fs::create_dir_all(&scratch).unwrap();
    let ir = scratch.join("glow.ll");
    run(Command::new("clang-22")
        .args(["-O2", "-ffast-math", "-march=x86-64-v4", "-fopenmp-simd", "-S", "-emit-llvm"])
        .arg(source_dir().join("glow.c"))
        .arg("-o")
        .arg(&ir));
    let (packed, stats) = build(&scratch, &ir, "on", "packed");
    assert!(stats.contains("wfv-slp: 1 groups"), "glow's calls were not packed:\n{stats}");
    let (plain, stats) = build(&scratch, &ir, "off", "plain");
    assert!(!stats.contains("wfv-slp:"), "{stats}");
    // The two objects define the same scalar functions: keep one of each.
    let localize = |object: &Path| {
        run(Command::new("llvm-objcopy-22")
            .args(["--localize-symbol=glow", "--localize-symbol=glow2"])
            .args(["--localize-symbol=_ZGVbN4vvvu_glow", "--localize-symbol=_ZGVcN8vvvu_glow"])
            .args(["--localize-symbol=_ZGVdN8vvvu_glow", "--localize-symbol=_ZGVbN2vvu_glow2"])
            .args(["--localize-symbol=_ZGVcN4vvu_glow2", "--localize-symbol=_ZGVdN4vvu_glow2"])
            .arg(object));
    };
    localize(&packed);
    localize(&plain);
    let driver = scratch.join("driver");
    run(Command::new("clang-22")
        .args(["-O2", "-march=x86-64-v4"])
        .arg(source_dir().join("driver.c"))
        .arg(&packed)
        .arg(&plain)
        .arg("-o")
        .arg(&driver)
        .args(["-lmvec", "-lm"]));
    if !host_runs_avx512() {
        eprintln!("skipping the run: this machine has no AVX-512");
        return;
    }
    let output = run(&mut Command::new(&driver));
    assert!(output.contains(" 0 of "), "{output}");
}
