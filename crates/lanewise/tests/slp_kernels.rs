//! Differential test of basic-block (SLP) vectorization on the straight-line
//! kernels of bench/slp: each kernel built by `clang-22 -O3 -fno-vectorize
//! -fno-slp-vectorize` (the reference) and by `lanewise cc --slp lanewise`
//! (with each of Foss's two algorithms), for every x86 target this machine
//! can run, linked into the benchmark's driver, which runs both on the same
//! inputs and compares every output byte (`-ffp-contract=off`: fused
//! multiply-adds would change the last bits). The driver also times the
//! builds; the test ignores the times.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The targets, with the CPU feature the machine needs to run them.
const MARCHES: [(&str, &str); 5] = [
    ("x86-64-v2", "sse4.2"),
    ("x86-64-v3", "avx2"),
    ("x86-64-v4", "avx512f"),
    ("skylake-avx512", "avx512f"),
    ("znver4", "avx512f"),
];

fn bench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/slp")
}

fn host_runs(feature: &str) -> bool {
    match feature {
        "sse4.2" => std::arch::is_x86_feature_detected!("sse4.2"),
        "avx2" => std::arch::is_x86_feature_detected!("avx2"),
        "avx512f" => {
            std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512dq")
        }
        _ => false,
    }
}

fn run(command: &mut Command) -> String {
    let output = command.output().unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn kernels() -> Vec<PathBuf> {
    let mut kernels: Vec<PathBuf> = std::fs::read_dir(bench_dir().join("kernels"))
        .expect("bench/slp/kernels")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "c"))
        .collect();
    kernels.sort();
    kernels
}

/// Builds every kernel for `march` both ways, runs the driver, and returns
/// how many kernels Lanewise's SLP vectorizer changed.
fn check_march(march: &str, algorithm: &str) -> usize {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("slp_kernels")
        .join(format!("{march}-{algorithm}"));
    std::fs::create_dir_all(&scratch).unwrap();
    let common = ["-std=c11", "-O3", "-ffp-contract=off", "-fno-vectorize"];
    let target = format!("-march={march}");
    let mut objects = Vec::new();
    let mut vectorized = 0;
    for source in kernels() {
        let name = source.file_stem().unwrap().to_string_lossy().into_owned();
        let scalar = scratch.join(format!("{name}.scalar.o"));
        run(Command::new("clang-22")
            .args(common)
            .arg(&target)
            .arg("-fno-slp-vectorize")
            .arg("-DKERNEL(n)=n##_scalar")
            .arg("-c")
            .arg(&source)
            .arg("-o")
            .arg(&scalar));
        let lanewise = scratch.join(format!("{name}.lw.o"));
        let remarks = run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
            .args(["cc", "--slp", "lanewise", "--slp-algorithm", algorithm])
            .args(common)
            .arg(&target)
            .args(["-Rpass=lanewise", "-DKERNEL(n)=n##_lw", "-c"])
            .arg(&source)
            .arg("-o")
            .arg(&lanewise));
        assert!(!remarks.contains("warning"), "{name} at {march}: {remarks}");
        if remarks.contains("basic-block vectorization fused") {
            vectorized += 1;
        }
        objects.push(scalar);
        objects.push(lanewise);
    }
    let driver = scratch.join("driver");
    run(Command::new("clang-22")
        .args(["-std=c11", "-O2", "-I"])
        .arg(bench_dir())
        .arg(bench_dir().join("driver.c"))
        .args(&objects)
        .arg("-o")
        .arg(&driver)
        .arg("-lm"));
    // One short timing per build: the test is about the outputs.
    let log = run(Command::new(&driver).env("BENCH_RUNS", "1").env("BENCH_ITEMS", "257"));
    assert!(
        !log.contains("MISMATCH") && !log.contains("CRASH"),
        "{march} ({algorithm}): the lanewise build differs from scalar:\n{log}"
    );
    vectorized
}

#[test]
fn slp_kernels_compute_what_scalar_code_computes_on_every_target() {
    let mut checked = 0;
    for (march, feature) in MARCHES {
        if !host_runs(feature) {
            eprintln!("skipping -march={march}: this machine lacks {feature}");
            continue;
        }
        let vectorized = check_march(march, "tree");
        // Most kernels are vectorized on every target (the SSE ones too).
        assert!(vectorized * 3 >= kernels().len() * 2, "{march}: only {vectorized} vectorized");
        checked += 1;
    }
    assert!(checked > 0, "no target of the list runs here");
}

#[test]
fn the_pair_vectorizer_computes_what_scalar_code_computes() {
    let march = if host_runs("avx2") { "x86-64-v3" } else { "x86-64-v2" };
    let vectorized = check_march(march, "pair");
    assert!(vectorized > 0, "the pair vectorizer changed no kernel");
}

/// LLVM's pipeline unrolls loops (partially, at run time) after its SLP
/// vectorizer, so the unroller sees the small fused body. `lanewise cc
/// --slp lanewise` holds that unrolling back until its own vectorizer has
/// run: vec4_ops's loop, two `<4 x float>` stores per item once fused, is
/// unrolled after fusion (before, the unroller saw the scalar body, eight
/// stores, and left the loop as it was: 2.5x over scalar against LLVM's
/// 3.1x; 3.9x unrolled).
#[test]
fn fused_loops_are_unrolled_after_basic_block_vectorization() {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("slp_kernels");
    std::fs::create_dir_all(&scratch).unwrap();
    let output = scratch.join("vec4_ops.unrolled.ll");
    run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .args(["cc", "--slp", "lanewise", "-O3", "-march=x86-64-v3", "-ffp-contract=off"])
        .args(["-fno-vectorize", "-DKERNEL(n)=n", "-S", "-emit-llvm"])
        .arg(bench_dir().join("kernels/vec4_ops.c"))
        .arg("-o")
        .arg(&output));
    let ir = std::fs::read_to_string(&output).unwrap();
    let vector_stores = ir.matches("store <4 x float>").count();
    assert!(vector_stores > 2, "the fused loop was not unrolled ({vector_stores} stores):\n{ir}");
}
