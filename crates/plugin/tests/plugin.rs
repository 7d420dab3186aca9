//! The pass plugin in stock clang-22 and opt-22, on machine code: the
//! declare-simd variants and the omp simd loops are vectorized, the output
//! equals clang's build without the plugin, libm calls are exact unless the
//! calls allow approximation, and the CMake example builds and runs.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// target/<profile>/liblanewise_plugin.so, built with this test.
fn plugin() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile_dir = exe.parent().and_then(Path::parent).expect("target/<profile>/deps");
    let plugin = profile_dir.join("liblanewise_plugin.so");
    assert!(plugin.exists(), "{} is missing (cargo build -p lanewise-plugin)", plugin.display());
    plugin
}

/// target/<profile>/liblanewise_frontend.so, linked by the plugin's build
/// script.
fn frontend_plugin() -> PathBuf {
    let frontend = plugin().with_file_name("liblanewise_frontend.so");
    assert!(
        frontend.exists(),
        "{} is missing (cargo build -p lanewise-plugin)",
        frontend.display()
    );
    frontend
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(command: &mut Command) -> Output {
    let output = command.output().unwrap_or_else(|error| panic!("{command:?}: {error}"));
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn symbols(binary: &Path) -> String {
    String::from_utf8(run(Command::new("nm").arg(binary)).stdout).unwrap()
}

/// How many instructions of `function` in `binary` use `register` (`ymm`)
/// with a packed-integer mnemonic (`vp...`, `p...`): the scalar code of the
/// integer loops below has none (clang inlines the declare-simd callee into
/// the loop before the plugin runs, so the loop calls no variant).
fn packed_instructions(binary: &Path, function: &str, register: &str) -> usize {
    let disassembly =
        String::from_utf8(run(Command::new("objdump").arg("-d").arg(binary)).stdout).unwrap();
    let header = format!("<{function}>:");
    disassembly
        .split("\n\n")
        .filter(|section| section.lines().next().is_some_and(|line| line.ends_with(&header)))
        .flat_map(str::lines)
        .filter(|line| {
            let mnemonic = line.split('\t').nth(2).unwrap_or_default();
            line.contains(register) && (mnemonic.starts_with("vp") || mnemonic.starts_with('p'))
        })
        .count()
}

/// Builds `source` with and without the plugin (extra `flags` for both),
/// runs both, checks they print the same, and returns the plugin build.
fn build_both(dir: &Path, source: &str, flags: &[&str]) -> PathBuf {
    let file = dir.join("program.c");
    fs::write(&file, source).unwrap();
    let (with, without) = (dir.join("with_plugin"), dir.join("without_plugin"));
    let plugin_flag = format!("-fpass-plugin={}", plugin().display());
    for (binary, extra) in [(&with, Some(plugin_flag.as_str())), (&without, None)] {
        run(Command::new("clang-22")
            .args(["-O2", "-fopenmp-simd", "-ffp-contract=off", "-Wno-pass-failed"])
            .args(flags)
            .args(extra)
            .arg(&file)
            .arg("-o")
            .arg(binary)
            .arg("-lm"));
    }
    let printed = |binary: &Path| run(&mut Command::new(binary)).stdout;
    assert_eq!(printed(&with), printed(&without), "the plugin build prints something else");
    with
}

const KERNELS: &str = r#"
#include <math.h>
#include <stdio.h>
#pragma omp declare simd notinbranch
int steps(int x) {
  int n = 0;
  while (x > 1 && n < 300) { x = (x & 1) ? 3 * x + 1 : x / 2; n++; }
  return n;
}
__attribute__((noinline)) int opaque(int x) { return x * 7 % 1000; }
__attribute__((noinline)) void loop(const int *a, float *out, int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) {
    int v = opaque(a[i]);
    while (v > 1) v = (v & 1) ? 3 * v + 1 : v / 2;
    out[i] = expf((float)(v + i) * 0.01f) + (float)steps(a[i]);
  }
}
int main(void) {
  static int a[500]; static float out[500];
  for (int i = 0; i < 500; i++) a[i] = i * 13 + 5;
  loop(a, out, 497);
  unsigned long long hash = 1469598103934665603ull;
  for (int i = 0; i < 500; i++) {
    unsigned bits; __builtin_memcpy(&bits, &out[i], 4);
    hash = (hash ^ bits) * 1099511628211ull;
  }
  printf("%llx\n", hash);
  return 0;
}
"#;

#[test]
fn clang_loads_the_plugin_and_vectorizes_bit_exactly() {
    let dir = scratch("clang");
    let binary = build_both(&dir, KERNELS, &["-march=x86-64-v3"]);
    let symbols = symbols(&binary);
    assert!(symbols.contains("_ZGVdN8v_steps"), "no declare-simd variant:\n{symbols}");
    // The omp simd loop was vectorized (its outlined body is inlined back
    // by the plugin's follow-up pipeline).
    let packed = packed_instructions(&binary, "loop", "ymm");
    assert!(packed >= 10, "{packed} packed ymm instructions in `loop`");
    let scalar = packed_instructions(&dir.join("without_plugin"), "loop", "ymm");
    assert_eq!(scalar, 0, "clang's own build of `loop` is not scalar");
    // No `afn` on `expf`: exact libm calls, no libmvec.
    assert!(!symbols.contains("_ZGVdN8v_expf"), "libmvec without -ffast-math:\n{symbols}");
}

/// Remarks go through clang's -Rpass machinery, at the function.
#[test]
fn remarks_print_through_clang() {
    let dir = scratch("remarks");
    let file = dir.join("program.c");
    fs::write(&file, KERNELS).unwrap();
    let output = run(Command::new("clang-22")
        .args(["-O2", "-fopenmp-simd", "-march=x86-64-v3", "-Wno-pass-failed", "-c"])
        .args(["-Rpass=lanewise", "-Rpass-missed=lanewise"])
        .arg(format!("-fpass-plugin={}", plugin().display()))
        .arg(&file)
        .arg("-o")
        .arg(dir.join("program.o")));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("program.c:5:1: remark: vectorized `steps` as `_ZGVdN8v_steps` (8 lanes")
            && stderr.contains("[-Rpass=lanewise]"),
        "{stderr}"
    );
    assert!(stderr.contains("remark: vectorized loop at W="), "{stderr}");
    // Without -Rpass, no remark.
    let quiet = run(Command::new("clang-22")
        .args(["-O2", "-fopenmp-simd", "-Wno-pass-failed", "-c"])
        .arg(format!("-fpass-plugin={}", plugin().display()))
        .arg(&file)
        .arg("-o")
        .arg(dir.join("quiet.o")));
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("remark:"));
}

/// An `omp simd` loop of a small constant trip count reaches the plugin as
/// a loop: without flags, clang's simplification passes unrolled it fully
/// before the pass saw it (no remark at all; `lanewise cc` turns that off
/// with `-mllvm -unroll-full-max-count=0`, the plugin holds such loops back
/// itself, `LlvmModule::hold_simd_loop_unrolling`), and the marks it adds
/// are gone from the output.
#[test]
fn constant_trip_simd_loops_reach_the_plugin_as_loops() {
    let dir = scratch("unroll-hold");
    let file = dir.join("program.c");
    fs::write(
        &file,
        r#"
float table[64];
void scale(float *a) {
#pragma omp simd
    for (int i = 0; i < 8; i++) {
        float x = a[i];
        if (x > 1.0f) x = x * 0.5f + table[i];
        a[i] = x;
    }
}
"#,
    )
    .unwrap();
    let output = run(Command::new("clang-22")
        .args(["-O3", "-fopenmp-simd", "-march=x86-64-v3", "-S", "-emit-llvm"])
        .arg("-Rpass=lanewise")
        .arg(format!("-fpass-plugin={}", plugin().display()))
        .arg(&file)
        .arg("-o")
        .arg(dir.join("program.ll")));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("remark: vectorized loop at W="), "{stderr}");
    let ir = fs::read_to_string(dir.join("program.ll")).unwrap();
    assert!(!ir.contains("lanewise.unroll.held") && !ir.contains("llvm.loop.unroll.disable"));
}

/// A reduction loop that calls a declare-simd function gets the cleanups
/// that follow inlining after the plugin inlined its outlined body
/// (`FOLLOW_UP_IN_PIPELINE_FUNCTION`): LLVM's runtime unroller then unrolls
/// the vector loop as it does in `lanewise cc`'s output (the remark appears
/// in both builds at -march=znver4; without those cleanups the plugin's
/// reduce_float ran 15% slower than `lanewise cc`'s).
#[test]
fn reduction_loops_unroll_as_in_lanewise_cc() {
    let dir = scratch("reduction-unroll");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/reduce_float.c");
    let output = run(Command::new("clang-22")
        .args(["-O3", "-march=znver4", "-fopenmp-simd", "-Wno-pass-failed", "-S", "-emit-llvm"])
        .arg(format!("-I{}", source.parent().unwrap().display()))
        .arg("-Rpass=loop-unroll|lanewise")
        .arg(format!("-fpass-plugin={}", plugin().display()))
        .arg(&source)
        .arg("-o")
        .arg(dir.join("program.ll")));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("remark: vectorized loop at W="), "{stderr}");
    assert!(stderr.contains("with run-time trip count [-Rpass=loop-unroll]"), "{stderr}");
}

/// The run-time safety net's bookkeeping (`alwaysinline`) is inlined into
/// the variants even where the module has no call for the inliner: clang's
/// always-inliner ran before the pass.
#[test]
fn safety_net_bookkeeping_is_inlined() {
    let dir = scratch("safety-net");
    let file = dir.join("kernel.c");
    fs::write(
        &file,
        r#"
#pragma omp declare simd notinbranch
int steps(int x) {
  int n = 0;
  while (x > 1 && n < 300) { x = (x & 1) ? 3 * x + 1 : x / 2; n++; }
  return n;
}
"#,
    )
    .unwrap();
    let ir = dir.join("kernel.ll");
    run(Command::new("clang-22")
        .args(["-O3", "-march=x86-64-v3", "-fopenmp-simd", "-S", "-emit-llvm"])
        .arg(format!("-fpass-plugin={}", plugin().display()))
        .arg(&file)
        .arg("-o")
        .arg(&ir));
    let text = fs::read_to_string(&ir).unwrap();
    assert!(text.contains("@__lanewise_net._ZGV"), "no safety net in the variants:\n{text}");
    assert!(!text.contains("__lanewise_net_begin"), "the bookkeeping stayed a call:\n{text}");
    assert!(!text.contains("__lanewise_net_end"), "the bookkeeping stayed a call:\n{text}");
}

/// tests/programs/multi_tu_kernels declares its functions with the pragma
/// in a header and defines them in kernels.c, where clang-22 emits no
/// `_ZGV` attributes. With the frontend plugin (`-fplugin`) the definitions
/// get the prototype's clauses, so kernels.o defines the variants main.o
/// calls; the program prints what clang's build prints.
#[test]
fn declare_simd_on_a_prototype_reaches_the_definition() {
    let dir = scratch("multi-tu");
    let programs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs");
    let source = programs.join("multi_tu_kernels");
    let compile = |file: &str, object: &str, plugins: bool| {
        let mut command = Command::new("clang-22");
        command
            .args(["-O2", "-march=x86-64-v3", "-fopenmp-simd", "-Wno-pass-failed", "-c"])
            .arg(format!("-I{}", programs.display()));
        if plugins {
            command
                .arg(format!("-fplugin={}", frontend_plugin().display()))
                .arg(format!("-fpass-plugin={}", plugin().display()));
        }
        run(command.arg(source.join(file)).arg("-o").arg(dir.join(object)));
        dir.join(object)
    };
    let without = symbols(&compile("kernels.c", "kernels-pass-only.o", false));
    assert!(!without.contains("_ZGV"), "clang-22 emitted variants after all:\n{without}");
    let kernels = compile("kernels.c", "kernels.o", true);
    let defined = symbols(&kernels);
    for variant in ["T _ZGVdN8vvu_escape_time", "T _ZGVdM8vu_soft_threshold"] {
        assert!(defined.contains(variant), "no {variant}:\n{defined}");
    }
    let main = compile("main.c", "main.o", true);
    let linked = dir.join("with_plugins");
    run(Command::new("clang-22").arg(&kernels).arg(&main).arg("-o").arg(&linked).arg("-lm"));
    let scalar = dir.join("scalar");
    run(Command::new("clang-22")
        .args(["-O2", "-march=x86-64-v3", "-fopenmp-simd", "-Wno-pass-failed"])
        .arg(format!("-I{}", programs.display()))
        .arg(source.join("kernels.c"))
        .arg(source.join("main.c"))
        .arg("-o")
        .arg(&scalar)
        .arg("-lm"));
    let printed = |binary: &Path| run(&mut Command::new(binary)).stdout;
    assert_eq!(printed(&linked), printed(&scalar), "the plugins' build prints something else");
}

/// `LANEWISE_TIME_PASSES=1`: the table of Lanewise's pass times, the
/// follow-up pipeline included, on clang's stderr.
#[test]
fn pass_times_print_through_clang() {
    let dir = scratch("time-passes");
    let file = dir.join("program.c");
    fs::write(&file, KERNELS).unwrap();
    let output = run(Command::new("clang-22")
        .args(["-O2", "-fopenmp-simd", "-march=x86-64-v3", "-Wno-pass-failed", "-c"])
        .arg(format!("-fpass-plugin={}", plugin().display()))
        .arg(&file)
        .arg("-o")
        .arg(dir.join("program.o"))
        .env("LANEWISE_TIME_PASSES", "1"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("===== Lanewise pass times (wall clock) ====="), "{stderr}");
    for row in ["  widen\n", "  llvm: follow-up pipeline\n", "  simd loops: plan\n", " total"] {
        assert!(stderr.contains(row), "no {row:?} row:\n{stderr}");
    }
}

/// With -ffast-math clang marks `expf` `afn`: the plugin calls libmvec.
#[test]
fn fast_math_calls_use_libmvec() {
    let dir = scratch("fast-math");
    let file = dir.join("program.c");
    fs::write(&file, KERNELS).unwrap();
    let object = dir.join("program.o");
    run(Command::new("clang-22")
        .args(["-O2", "-fopenmp-simd", "-ffast-math", "-march=x86-64-v3", "-Wno-pass-failed", "-c"])
        .arg(format!("-fpass-plugin={}", plugin().display()))
        .arg(&file)
        .arg("-o")
        .arg(&object));
    let symbols = symbols(&object);
    assert!(symbols.contains("_ZGVdN8v_expf"), "no libmvec call under -ffast-math:\n{symbols}");
}

#[test]
fn opt_runs_the_pass_by_name() {
    let dir = scratch("opt");
    let file = dir.join("kernel.c");
    fs::write(&file, KERNELS).unwrap();
    let scalar = dir.join("kernel.ll");
    run(Command::new("clang-22")
        .args(["-O2", "-fopenmp-simd", "-Wno-pass-failed", "-S", "-emit-llvm"])
        .arg(&file)
        .arg("-o")
        .arg(&scalar));
    let vectorized = dir.join("kernel.vec.ll");
    run(Command::new("opt-22")
        .arg(format!("-load-pass-plugin={}", plugin().display()))
        .args(["-passes=lanewise", "-S"])
        .arg(&scalar)
        .arg("-o")
        .arg(&vectorized));
    let text = fs::read_to_string(&vectorized).unwrap();
    assert!(text.contains("define <4 x i32> @_ZGVbN4v_steps("), "no variant in opt's output");
}

/// examples/plugin-cmake: stock clang-22 and CMake with the plugin in
/// CMAKE_C_FLAGS, against the same project built without it.
#[test]
fn cmake_example_builds_and_matches_the_scalar_build() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/plugin-cmake");
    let dir = scratch("cmake");
    let mut printed = Vec::new();
    for (name, flags) in
        [("with", format!("-fpass-plugin={}", plugin().display())), ("without", String::new())]
    {
        let build = dir.join(name);
        run(Command::new("cmake")
            .arg("-S")
            .arg(&example)
            .arg("-B")
            .arg(&build)
            .arg("-DCMAKE_C_COMPILER=clang-22")
            .arg(format!("-DCMAKE_C_FLAGS={flags}")));
        run(Command::new("cmake").arg("--build").arg(&build));
        let binary = build.join("collatz_steps");
        if name == "with" {
            let symbols = symbols(&binary);
            assert!(symbols.contains("_ZGVdN8v_steps"), "{symbols}");
            let packed = packed_instructions(&binary, "count_steps", "xmm");
            assert!(packed >= 10, "{packed} packed xmm instructions in `count_steps`");
        }
        printed.push(run(&mut Command::new(&binary)).stdout);
    }
    assert_eq!(printed[0], printed[1]);
}

/// `LANEWISE_SLP=lanewise` runs Lanewise's basic-block vectorizer at the end
/// of clang's pipeline: the straight-line kernels of bench/slp, built with
/// the plugin (and `-fno-slp-vectorize`), compute bit for bit what clang's
/// scalar build computes (the benchmark's driver compares them), and the
/// remarks say what was fused.
#[test]
fn basic_block_vectorization_runs_at_the_end_of_clangs_pipeline() {
    let dir = scratch("slp");
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/slp");
    let common = ["-std=c11", "-O3", "-march=x86-64-v3", "-ffp-contract=off", "-fno-vectorize"];
    let mut objects = Vec::new();
    let mut fused = 0;
    let mut sources: Vec<PathBuf> = fs::read_dir(bench.join("kernels"))
        .expect("bench/slp/kernels")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "c"))
        .collect();
    sources.sort();
    for source in &sources {
        let name = source.file_stem().unwrap().to_string_lossy().into_owned();
        let scalar = dir.join(format!("{name}.scalar.o"));
        run(Command::new("clang-22")
            .args(common)
            .args(["-fno-slp-vectorize", "-DKERNEL(n)=n##_scalar", "-c"])
            .arg(source)
            .arg("-o")
            .arg(&scalar));
        let vectorized = dir.join(format!("{name}.lw.o"));
        let output = run(Command::new("clang-22")
            .env("LANEWISE_SLP", "lanewise")
            .args(common)
            .args(["-fno-slp-vectorize", "-Rpass=lanewise", "-DKERNEL(n)=n##_lw", "-c"])
            .arg(format!("-fpass-plugin={}", plugin().display()))
            .arg(source)
            .arg("-o")
            .arg(&vectorized));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("error"), "{name}: {stderr}");
        if stderr.contains("remark: basic-block vectorization fused") {
            fused += 1;
        }
        objects.push(scalar);
        objects.push(vectorized);
    }
    // Most kernels are (3-wide geometry and ChaCha's rounds stay scalar).
    assert!(fused * 3 >= sources.len() * 2, "only {fused} kernels vectorized");
    let driver = dir.join("driver");
    run(Command::new("clang-22")
        .args(["-std=c11", "-O2", "-I"])
        .arg(&bench)
        .arg(bench.join("driver.c"))
        .args(&objects)
        .arg("-o")
        .arg(&driver)
        .arg("-lm"));
    let output = run(Command::new(&driver).env("BENCH_RUNS", "1").env("BENCH_ITEMS", "129"));
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(!log.contains("MISMATCH") && !log.contains("CRASH"), "{log}");
    // Without the variable the pass leaves the module alone.
    let quiet = run(Command::new("clang-22")
        .args(common)
        .args(["-fno-slp-vectorize", "-Rpass=lanewise", "-DKERNEL(n)=n", "-c"])
        .arg(format!("-fpass-plugin={}", plugin().display()))
        .arg(bench.join("kernels/cmul_acc.c"))
        .arg("-o")
        .arg(dir.join("quiet.o")));
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("basic-block"));
}
